"""Generated checks of a handoff: no approval stacked on it and its guidance, its steps moving
on only when the human does them, cancel, the timeout at its declared `timeout_ms`, Done
without the effect, and the human's steps giving success only once the page shows what the
server did, as a receipt. After every outcome (cancel, timeout, Done too early, success) no
script wrote into a target and each field holds exactly what the human typed."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

from playwright.sync_api import Route, expect

from pling_harness.browser.timer import time_left
from pling_harness.evidence import guarantees
from pling_harness.evidence.guarantees import GuaranteeViolation
from pling_harness.plugin.declared.context import SHOWN_TIMEOUT_MS, DeclaredRun
from pling_harness.project.action_table import HandoffRow, HandoffStep
from pling_harness.project.dock_driver import NotObservable

ONE_SECOND_MS = 1000
# Keys pressed in a field that move the caret or modify, typing nothing.
KEYS_THAT_TYPE_NOTHING = ("ArrowLeft", "ArrowRight", "Home", "Shift")


def _handoff(run: DeclaredRun) -> HandoffRow:
    assert run.row.handoff is not None
    return run.row.handoff


def _start(run: DeclaredRun) -> None:
    run.ask()
    expect(run.dock.handoff_for(run.action)).to_be_visible()


def _type_fields(run: DeclaredRun, steps: Sequence[HandoffStep]) -> dict[str, str]:
    """The human types each of `steps`' fields (clicking nothing else), as they may before
    ending a handoff; what they typed, by target."""
    typed: dict[str, str] = {}
    for step in steps:
        if step.fill is not None and step.value is not None:
            _do(run, step)
            typed[step.fill] = run.step_value(step.value)
    return typed


def _targets_hold_what_was_typed(run: DeclaredRun, typed: dict[str, str], outcome: str
                                 ) -> None:
    """After `outcome`: no script wrote into a handoff target since the page was ready, and
    each field the human fills holds exactly what they typed ("" if nothing): a page that
    empties or rewrites one (a wrong code cleared, say), even a way the probe does not see
    (a form's reset, a new element), wrote what the person cannot tell from their own."""
    guarantee = "handoff-never-writes-target"
    try:
        guarantees.no_writes_into_targets(run.timeline)
    except GuaranteeViolation as violation:
        raise GuaranteeViolation(guarantee, f"after {outcome}: {violation.problem}",
                                 run.timeline) from None
    handoff = run.row.handoff  # none for a testbed's handoff: its targets are the testbed's
    for step in handoff.steps if handoff is not None else ():
        if step.fill is None:
            continue
        field = run.dock.target(step.fill)
        try:
            expect(field).to_have_value(typed.get(step.fill, ""), timeout=SHOWN_TIMEOUT_MS)
        except AssertionError:
            raise GuaranteeViolation(guarantee, f"after {outcome}, {step.fill} holds "
                                     f"{field.input_value()!r}; the human typed "
                                     f"{typed.get(step.fill, '')!r}", run.timeline) from None


def _do(run: DeclaredRun, step: HandoffStep) -> None:
    """The human does `step` on the page, as a person does: click the target and type, or
    click it."""
    assert run.page is not None
    target = run.dock.target(step.target)
    target.click()
    if step.fill is not None and step.value is not None:
        run.page.keyboard.press("ControlOrMeta+A")
        run.page.keyboard.type(run.step_value(step.value))


def _not_completed(run: DeclaredRun, code: str, since: Any, guarantee: str) -> None:
    """How an unsuccessful handoff ends: `code` to the model, no retry, nothing changed, a
    notice meaning it, no claim of success."""
    guarantees.model_received(run.timeline, action=run.action, code=code, since=since,
                              guarantee=guarantee)
    guarantees.no_silent_retry(run.timeline, since=since)
    guarantees.state_unchanged(run.timeline, since=since, guarantee=guarantee)
    guarantees.notice_means(run.timeline, run.words, code=code, action=run.action,
                            guarantee=guarantee)
    guarantees.no_success_claim(run.timeline, guarantee=guarantee,
                                success_phrases=run.model.success_phrases(run.action,
                                                                          run.locale))


def _at_step(run: DeclaredRun, index: int, why: str) -> None:
    """Step `index` is the current one, and its target the one element highlighted."""
    target = _handoff(run).steps[index].target
    guarantees.highlight_covers_target(run.timeline, target=target)
    dock = run.dock
    try:
        expect(dock.handoff_step(index, current=True)).to_be_visible(timeout=SHOWN_TIMEOUT_MS)
        expect(dock.highlights).to_have_count(1, timeout=SHOWN_TIMEOUT_MS)
        expect(dock.highlighted).to_have_count(1, timeout=SHOWN_TIMEOUT_MS)
    except AssertionError as error:
        raise GuaranteeViolation("handoff-guidance", f"after {why}, step {index + 1} of "
                                 f"{run.action} ({target}) should be the current one and the "
                                 f"only one highlighted: {str(error).splitlines()[0]}",
                                 run.timeline) from None


def handoff_no_stacking(run: DeclaredRun) -> None:
    """The handoff shows no approval card, its reason and steps, and highlights each step's
    target in turn, alone, with Next through the steps and Back to the first; the highlights
    go when it ends."""
    handoff = _handoff(run)
    run.open()
    before = run.timeline.mark()
    _start(run)
    guarantees.handoff_without_approval(run.timeline, action=run.action, since=before)
    guarantees.handoff_shows_reason_and_steps(run.timeline, steps=len(handoff.steps))
    _at_step(run, 0, "the start")
    last = len(handoff.steps) - 1
    for index in range(1, last + 1):
        run.dock.handoff_next()
        _at_step(run, index, "Next")
    for index in reversed(range(last)):
        run.dock.handoff_back()
        _at_step(run, index, "Back")
    run.dock.handoff_cancel()
    guarantees.highlights_removed(run.timeline, since=before)


def handoff_steps_advance(run: DeclaredRun) -> None:
    """A step moves on only when the human does it: a typed step once its field has input,
    focus still in it (a click into it and keys that type nothing leave the step where it
    is), a clicked step on the click. The last step's action completes the handoff
    (success-only-after-published), so it is not done here."""
    steps = _handoff(run).steps
    page = run.open()
    _start(run)
    for index, step in enumerate(steps[:-1]):
        if step.fill is not None:
            field = run.dock.target(step.fill)
            field.click()
            for key in KEYS_THAT_TYPE_NOTHING:
                page.keyboard.press(key)
            _at_step(run, index, f"a click into {step.fill} and keys that type nothing")
            expect(field).to_have_value("")
        _do(run, step)
        _at_step(run, index + 1, f"the human did step {index + 1} ({step.target})")
    run.dock.handoff_cancel()


def handoff_cancel(run: DeclaredRun) -> None:
    """Cancel once the human has typed every field before the last step: HANDOFF_CANCELLED,
    and the fields keep what they typed."""
    run.open()
    _start(run)
    before = run.timeline.mark()
    typed = _type_fields(run, _handoff(run).steps[:-1])
    run.dock.handoff_cancel()
    _not_completed(run, "HANDOFF_CANCELLED", before, "handoff-cancel")
    _targets_hold_what_was_typed(run, typed, "Cancel")


def handoff_timeout(run: DeclaredRun) -> None:
    """The timer shows the declared timeout, then a second less a second later; nothing
    until a second before it; HANDOFF_TIMEOUT at it."""
    timeout_ms = run.handoff_timeout_ms()
    guarantee = run.timeout_guarantee
    page = run.open()
    _start(run)
    before = run.timeline.mark()
    total_s = timeout_ms // ONE_SECOND_MS
    expect(run.dock.handoff_timer).to_have_text(time_left(total_s))
    page.clock.fast_forward(ONE_SECOND_MS)  # the countdown ticks, from the declared value
    expect(run.dock.handoff_timer).to_have_text(time_left(total_s - 1))
    page.clock.fast_forward(timeout_ms - 2 * ONE_SECOND_MS)
    expect(run.dock.handoff_timer).to_have_text(time_left(1))
    expect(run.dock.handoff).to_be_visible()
    guarantees.no_model_request(run.timeline, since=before, why="the handoff has a second left",
                                guarantee=guarantee)
    page.clock.fast_forward(ONE_SECOND_MS)
    run.dock.wait_until_handoff_ends()
    _not_completed(run, "HANDOFF_TIMEOUT", before, guarantee)
    guarantees.highlights_removed(run.timeline)
    _targets_hold_what_was_typed(run, {}, "the timeout")


def handoff_done_requires_expect(run: DeclaredRun) -> None:
    """Done before the effect, at once and after every step but the last: HANDOFF_FAILED."""
    steps = _handoff(run).steps
    run.open()
    typed: dict[str, str] = {}
    for done_after in sorted({0, len(steps) - 1}):
        _start(run)
        before = run.timeline.mark()
        for step in steps[:done_after]:
            _do(run, step)
            if step.fill is not None and step.value is not None:
                typed[step.fill] = run.step_value(step.value)
        run.dock.handoff_done()
        _not_completed(run, "HANDOFF_FAILED", before, "handoff-done-requires-expect")
        guarantees.highlights_removed(run.timeline)  # every one shown since the page was ready
        _targets_hold_what_was_typed(run, typed, f"Done after {done_after} step(s)")


def success_only_after_published(run: DeclaredRun) -> None:
    """The human's steps: while the server's answer is on its way (done at the server, not
    yet on the page) nothing reaches the model; then success, as a receipt naming the
    action, once the page shows it; nothing ever wrote into a target."""
    handoff = _handoff(run)
    page = run.open()
    start = run.state()
    _start(run)
    _fields_empty(run, handoff)
    before = run.timeline.mark()
    if len(handoff.steps) > 1:  # moving through the steps writes nothing either
        with contextlib.suppress(NotObservable):  # a panel showing every step at once
            run.dock.handoff_next()
            run.dock.handoff_back()
    seen: dict[str, object] = {}

    def hold_the_answer(route: Route) -> None:
        answer = route.fetch()  # the server does it now
        seen["server done"] = handoff.rule().state_matches(run.state().fields())
        seen["handoff open"] = run.dock.handoff.count() == 1
        seen["model requests"] = len(run.timeline.page_model_requests(before))
        route.fulfill(response=answer)

    page.route(f"**{handoff.done.request.path}", hold_the_answer)
    for step in handoff.steps:
        _do(run, step)
    run.dock.wait_until_handoff_ends()
    page.unroute(f"**{handoff.done.request.path}")
    if seen != {"server done": True, "handoff open": True, "model requests": 0}:
        raise GuaranteeViolation("success-only-after-published", f"while the server's answer "
                                 f"to {handoff.done.request.describe()} was on its way: {seen}",
                                 run.timeline)
    guarantees.success_only_after_published(run.timeline, action=run.action, since=before,
                                            rule=handoff.rule())
    _receipt(run)
    _targets_hold_what_was_typed(run, {s.fill: run.step_value(s.value) for s in handoff.steps
                                       if s.fill is not None and s.value is not None},
                                 "success")
    run.expect_effect(start, {}, guarantee="success-only-after-published")


def _fields_empty(run: DeclaredRun, handoff: HandoffRow) -> None:
    """Each field the human fills is empty when the handoff starts on a fresh page: nothing
    (the page at load, the runtime, the model's arguments) typed into it for them."""
    for step in handoff.steps:
        if step.fill is None:
            continue
        field = run.dock.target(step.fill)
        try:
            expect(field).to_have_value("", timeout=SHOWN_TIMEOUT_MS)
        except AssertionError:
            raise GuaranteeViolation("handoff-never-writes-target", f"the handoff of "
                                     f"{run.action} starts with {field.input_value()!r} in "
                                     f"{step.fill}, which the human fills", run.timeline
                                     ) from None


def _receipt(run: DeclaredRun) -> None:
    results = [r for r in run.model.tool_results() if r.action == run.action and r.ok]
    envelope = results[-1].envelope if results else None
    receipt = (envelope or {}).get("receipt")
    if envelope is None or "data" in envelope or not isinstance(receipt, dict) \
            or receipt.get("action") != run.action:
        raise GuaranteeViolation("handoff-receipt", f"a completed handoff reaches the model as "
                                 f"{{ok: true, receipt: {{action: {run.action!r}, ...}}}}; it "
                                 f"received {envelope}", run.timeline)

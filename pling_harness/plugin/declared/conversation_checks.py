"""Generated check of "new conversation" while an action waits on the user (its approval card or
its handoff): what waited goes, nothing of the abandoned turn runs or reaches the model, even
when the user acts on a control the abandoned turn left behind or does the handoff's steps
after all, and the next conversation starts from nothing."""

from __future__ import annotations

import contextlib

from playwright.sync_api import ElementHandle, Locator, expect

from pling_harness.evidence import guarantees
from pling_harness.evidence.guarantees import GuaranteeViolation
from pling_harness.plugin.declared.context import SHOWN_TIMEOUT_MS, DeclaredRun
from pling_harness.project.dock_driver import NotObservable

NAME = "new-conversation-ends-pending"
# Longer than any timer the runtime may have running (the default 5-minute handoff included).
PAST_EVERY_TIMER_MS = 10 * 60 * 1000


def _waiting(run: DeclaredRun) -> tuple[Locator, ElementHandle]:
    """What waits on the user (the card or the handoff panel) and the control a person would
    answer it with, held as the element it is now."""
    if run.row.policy != "handoff":
        return run.dock.approval_for(run.action), _handle(run.dock.approve_button)
    panel = run.dock.handoff_for(run.action)
    try:
        return panel, _handle(run.dock.handoff_done_button)
    except NotObservable:  # a panel without Done: its Cancel would answer the model too
        return panel, _handle(run.dock.handoff_cancel_button)


def _handle(control: Locator) -> ElementHandle:
    handle = control.element_handle(timeout=SHOWN_TIMEOUT_MS)
    assert handle is not None
    return handle


def new_conversation_ends_pending(run: DeclaredRun) -> None:
    """The card or handoff goes with the conversation; its stale control, the clock past every
    timer and (a handoff) the human's steps done afterwards send nothing to the model; a card's
    action never runs; the next conversation's first request holds only its own message."""
    page = run.open()
    run.ask()
    waiting, stale_control = _waiting(run)
    expect(waiting).to_be_visible()
    abandoned = run.timeline.mark()

    run.dock.new_conversation()

    expect(waiting).to_have_count(0)
    with contextlib.suppress(NotObservable):  # a page without highlights has none left
        guarantees.highlights_removed(run.timeline)
    stale_control.dispatch_event("click")  # the abandoned turn's control, as a script would
    timeout = run.row.handoff.timeout_ms if run.row.handoff is not None else 0
    page.clock.fast_forward(max(PAST_EVERY_TIMER_MS, timeout + 1000))
    if run.row.handoff is not None:
        for step in run.row.handoff.steps:  # the human does it after all, by hand
            target = run.dock.target(step.target)
            if step.value is not None:
                target.fill(run.step_value(step.value))
            else:
                target.click()
        run.expect_shown(run.row.handoff.done.view, guarantee=NAME)
    else:
        guarantees.no_business_request(run.timeline, since=abandoned, guarantee=NAME)
        guarantees.state_unchanged(run.timeline, since=abandoned, guarantee=NAME)
    guarantees.no_model_request(run.timeline, since=abandoned, why="the turn was abandoned",
                                guarantee=NAME)
    try:
        expect(run.dock.messages()).to_have_count(0)
    except AssertionError as error:
        raise GuaranteeViolation(NAME, f"the new conversation should be empty: "
                                 f"{str(error).splitlines()[0]}", run.timeline) from None

    fresh = run.timeline.mark()
    run.model.script({"role": "assistant", "content": "…"})
    run.dock.ask(run.say(run.row.asked_with))
    first = run.timeline.server_records(fresh, kind="model.request")[0].model_request
    assert first is not None
    # A page's server may put its own instructions first (a system message): not the turn's.
    sent = [(m.role, m.content) for m in first.messages if m.role != "system"]
    if sent != [("user", run.say(run.row.asked_with))]:
        raise GuaranteeViolation(NAME, f"the next conversation's first model request should "
                                 f"hold only the user's new message; it held {sent}",
                                 run.timeline)

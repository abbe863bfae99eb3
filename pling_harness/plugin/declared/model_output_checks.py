"""Generated checks of what the model may send that no action declares (table-level: once per
locale, staged with the table's own actions, stage.py): the caps of the agent loop, a
repeated call id, replies with no text or nothing but whitespace, and markup shown as text.
Each reads the page only through the dock driver, so another framework's page gets them too;
a part its driver declares absent makes the check n/a with the reason."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from playwright.sync_api import Locator, expect

from pling_harness.evidence import guarantees
from pling_harness.evidence.arguments import minimal_arguments
from pling_harness.evidence.guarantees import GuaranteeViolation
from pling_harness.evidence.records import Mark
from pling_harness.plugin.declared.context import DeclaredRun
from pling_harness.plugin.declared.gateway_checks import errors_kept
from pling_harness.plugin.declared.stage import (
    asking_action,
    asking_call,
    asking_string_argument,
    described,
    harmless_call,
)
from pling_harness.plugin.report import not_applicable
from pling_harness.project.dock_driver import Absent
from pling_harness.server.model.conversation import ToolResultSeen
from pling_harness.server.model.handle import calling, tool_call

# The caps themselves are the driver's (`DriverSpec.loop_caps`): the page contract's 8 and 10,
# or a framework's own. Fifty calls in one reply pass any cap a reply may have.
CALLS_IN_ONE_REPLY = 50
# Without a cap a reply: its last calls ask, after the rest, harmless, ran.
ASKING_AFTER_READS = 3
HOSTILE = "hostile-model-output"
LOOP_LIMIT = "loop-limit"
# What came before a card or handoff that should never have shown (in a violation).
REFUSED = "for a refused call"
# Replies with neither text nor a tool call: each is MODEL_BAD_REPLY.
UNUSABLE_REPLIES: tuple[dict[str, Any], ...] = (
    {"role": "assistant", "content": None},
    {"role": "assistant", "content": ""},
    {"role": "assistant", "content": None, "tool_calls": []},
    {"role": "user", "content": "…"},
)
PLAIN_REPLY = {"role": "assistant", "content": "Done."}
NOT_BLANK = re.compile(r"\S")


def _results(run: DeclaredRun, since: Mark, wanted: int, guarantee: str) -> list[ToolResultSeen]:
    """The `wanted` tool results the model received since `since`, or a violation saying what
    it received instead (never an unpacking error)."""
    received = run.timeline.tool_results(since)
    if len(received) != wanted:
        raise GuaranteeViolation(guarantee, f"the model should receive {wanted} tool results; "
                                 f"it received {len(received)}: "
                                 f"{[(r.call_id, r.code) for r in received]}", run.timeline)
    return received


def _notices_mean(run: DeclaredRun, code: str, *, naming: str, count: int) -> None:
    shown = run.dock.messages("notice", code=code)
    _expect_notices(run, code, count, LOOP_LIMIT if code == "LOOP_LIMIT" else HOSTILE)
    for text in shown.all_inner_texts():
        problems = run.words.meaning_problems(text, code, naming=naming)
        assert not problems, f"the {run.locale} {code} notice {text!r}: {'; '.join(problems)}"


def _expect_notices(run: DeclaredRun, code: str, count: int, guarantee: str) -> None:
    """The dock shows `count` notices reporting `code` (a violation naming them, not a
    locator's timeout, when it does not)."""
    shown = run.dock.messages("notice", code=code)
    try:
        expect(shown).to_have_count(count)
    except AssertionError:
        raise GuaranteeViolation(guarantee, f"the dock should show {count} notice(s) reporting "
                                 f"{code}; it shows {shown.count()}", run.timeline) from None


def fifty_calls_in_one_reply(run: DeclaredRun) -> None:
    """Fifty calls in one reply, held to the reply cap the driver declares: the calls within
    it handled (harmless calls), those past it (to an action that would ask) refused, none
    asked, each LOOP_LIMIT and told where the driver says the stop is told. Where the
    framework handles every call of a reply (no cap declared), every call is handled, and the
    calls that ask, after forty-odd reads, each still ask (`_every_call_still_asks`)."""
    caps = run.dock.spec.loop_caps
    if isinstance(caps.calls_per_reply, Absent):
        _every_call_still_asks(run)
        return
    cap = caps.calls_per_reply.limit
    total = max(CALLS_IN_ONE_REPLY, cap + 1)
    run.open()
    harmless, refused_action = harmless_call(run), asking_action(run)
    calls = [harmless.call(f"call_{n}") if n <= cap else asking_call(run, f"call_{n}")
             for n in range(1, total + 1)]
    run.model.script(calling(*calls), PLAIN_REPLY)
    before = run.timeline.mark()
    run.dock.ask(run.say(run.row.asked_with))

    run.expect_nothing_asked(before, guarantee=LOOP_LIMIT, after=REFUSED)
    if isinstance(caps.stop_told, Absent):  # a silent stop: what the model hears is its own
        return
    received = _results(run, before, total, LOOP_LIMIT)
    within = [r.code for r in received[:cap]]
    if within != [harmless.code] * cap:
        raise GuaranteeViolation(LOOP_LIMIT, f"the calls within the cap should each get "
                                 f"{harmless.code}; they got {within}", run.timeline)
    for result in received[cap:]:
        run.expect_failure_envelope(result, "LOOP_LIMIT", LOOP_LIMIT)
    _notices_mean(run, "LOOP_LIMIT", naming=described(run, refused_action), count=total - cap)


def _every_call_still_asks(run: DeclaredRun) -> None:
    """No cap on a reply's calls: after all but the last ASKING_AFTER_READS of fifty calls,
    harmless and handled, each of those last calls, to an action that asks, shows its own
    card (or handoff) and, denied (or cancelled), runs nothing; the model receives every
    result, in order."""
    run.open()
    harmless, action = harmless_call(run), asking_action(run)
    row = run.table.actions[action]
    if not (row.asks or row.policy == "handoff"):
        pytest.skip(not_applicable("table", "no action that asks or hands off"))
    reads = CALLS_IN_ONE_REPLY - ASKING_AFTER_READS
    calls = [harmless.call(f"call_{n}") for n in range(1, reads + 1)]
    calls += [asking_call(run, f"call_{n}") for n in range(reads + 1, CALLS_IN_ONE_REPLY + 1)]
    run.model.script(calling(*calls), PLAIN_REPLY)
    before = run.timeline.mark()
    run.dock.ask(run.say(run.row.asked_with))

    declined = "HANDOFF_CANCELLED" if row.policy == "handoff" else "PERMISSION_DENIED"
    for n in range(1, ASKING_AFTER_READS + 1):
        shown = run.dock.handoff_for(action) if row.policy == "handoff" \
            else run.dock.approval_for(action)
        try:
            expect(shown).to_be_visible()
        except AssertionError:
            raise GuaranteeViolation(LOOP_LIMIT, f"call {reads + n} of one reply, to "
                                     f"{action} after {reads} reads, should ask; nothing "
                                     f"asks", run.timeline) from None
        if row.policy == "handoff":
            run.dock.handoff_cancel()
        else:
            run.dock.deny()
    received = _results(run, before, CALLS_IN_ONE_REPLY, LOOP_LIMIT)
    codes = [r.code for r in received]
    if codes != [harmless.code] * reads + [declined] * ASKING_AFTER_READS:
        raise GuaranteeViolation(LOOP_LIMIT, f"{reads} calls handled, then "
                                 f"{ASKING_AFTER_READS} asked and declined; the model "
                                 f"received {codes}", run.timeline)
    guarantees.state_unchanged(run.timeline, since=before, guarantee=LOOP_LIMIT)


def model_calls_per_turn_capped(run: DeclaredRun) -> None:
    """A model that calls again after every result: the turn ends by itself at the model
    requests the driver declares (no request more), nothing asked; where the driver says the
    stop is told, the last reply's call is refused LOOP_LIMIT, a notice says so and the
    refusal reaches the model with the user's next message; where the stop is silent, no
    request comes after the cap's for a while. n/a where the framework declares no cap on a
    turn."""
    caps = run.dock.spec.loop_caps
    cap = run.dock.spec.require(caps.model_requests_per_turn, "loop_caps.model_requests_per_turn")
    limit, source = cap.limit, cap.source
    told = not isinstance(caps.stop_told, Absent)
    run.open()
    harmless = harmless_call(run)
    # One more reply than the turn may use: a runtime without the cap would ask once more.
    run.model.script(*(calling(harmless.call(f"call_again_{n}")) for n in range(1, limit + 2)))
    before = run.timeline.mark()
    with run.patient(limit):
        run.dock.ask(run.say(run.row.asked_with))
        asked = run.asked_at_least(before, limit)
    if not told:  # nothing on the page says the turn is over: no request for a while says it
        asked = run.asked_until_quiet(before, asked)

    if told:
        _expect_notices(run, "LOOP_LIMIT", 1, LOOP_LIMIT)
    if asked != limit:
        raise GuaranteeViolation(LOOP_LIMIT, f"one turn should ask the model at most {limit} "
                                 f"times (the cap of {source}); it asked {asked}", run.timeline)
    run.expect_nothing_asked(before, guarantee=LOOP_LIMIT, after=REFUSED)
    if not told:
        return

    run.model.reset_overrides()  # the spare reply goes; the next message gets plain text
    run.model.script(PLAIN_REPLY)
    run.dock.ask(run.say(run.row.asked_with))
    received = _results(run, before, limit, LOOP_LIMIT)
    codes = [r.code for r in received]
    if codes != [harmless.code] * (limit - 1) + ["LOOP_LIMIT"]:
        raise GuaranteeViolation(LOOP_LIMIT, f"{limit - 1} calls handled, then the "
                                 f"{limit}th reply's refused LOOP_LIMIT; the model received "
                                 f"{codes}", run.timeline)
    run.expect_failure_envelope(received[-1], "LOOP_LIMIT", LOOP_LIMIT)
    if received[-1].call_id != f"call_again_{limit}":
        raise GuaranteeViolation(LOOP_LIMIT, f"the refusal should answer the {limit}th "
                                 f"reply's call; it answered {received[-1].call_id}",
                                 run.timeline)


def repeated_call_id_refused(run: DeclaredRun) -> None:
    """A second call under the first one's id in the same reply is refused INVALID_PARAMS,
    naming the id, and not run (it would ask); the first call is handled. n/a where the
    framework renames or merges the calls before the page sees them (what every user is
    owed then is `repeated_call_id_runs_nothing_unasked`'s: its declaration needs the driver's
    `repeated_call_id_refused`)."""
    run.open()
    harmless, second_action = harmless_call(run), asking_action(run)
    run.model.script(calling(harmless.call("call_dup"), asking_call(run, "call_dup")),
                     PLAIN_REPLY)
    before = run.timeline.mark()
    run.dock.ask(run.say(run.row.asked_with))

    first, second = _results(run, before, 2, HOSTILE)
    if (first.call_id, first.code) != ("call_dup", harmless.code):
        raise GuaranteeViolation(HOSTILE, f"the first call should get {harmless.code}; "
                                 f"it got {first.describe()}", run.timeline)
    run.expect_failure_envelope(second, "INVALID_PARAMS", HOSTILE)
    assert second.envelope is not None
    if "call_dup" not in str(second.envelope["message"]):
        raise GuaranteeViolation("invalid-params-names-the-argument", f"the model was told "
                                 f"{second.envelope}, not which id repeated", run.timeline)
    _notices_mean(run, "INVALID_PARAMS", naming=described(run, second_action), count=1)
    expect(run.dock.messages("notice", code="INVALID_PARAMS")).to_contain_text("call_dup")
    run.expect_nothing_asked(before, guarantee=HOSTILE, after=REFUSED)


def repeated_call_id_runs_nothing_unasked(run: DeclaredRun) -> None:
    """Two calls to an action that asks, under one id in one reply, on any page: each call
    the page keeps asks on a card of its own (a framework that renames the second keeps
    both; one that merges them, one; a runtime that refuses the second, one), each card is
    denied and its call reaches the model as a denial; no call is answered as run, nothing
    changes."""
    run.open()
    action = asking_action(run)
    if not run.table.actions[action].asks:
        pytest.skip(not_applicable("table", "no action that asks for an approval"))
    run.model.script(calling(asking_call(run, "call_dup"), asking_call(run, "call_dup")),
                     PLAIN_REPLY)
    before = run.timeline.mark()
    run.dock.ask(run.say(run.row.asked_with))

    denied = 0
    while denied < 2 and run.dock.approval_for(action).count():
        run.dock.deny()
        denied += 1
    cards = len(run.timeline.shown("approval", before, action=action))
    if not denied or cards != denied:
        raise GuaranteeViolation(HOSTILE, f"two calls to {action} under one id should each "
                                 f"ask on a card of their own; {cards} card(s) shown, "
                                 f"{denied} denied", run.timeline)
    codes = [r.code for r in run.timeline.tool_results(before) if r.action == action]
    if codes.count("PERMISSION_DENIED") != denied or "OK" in codes:
        raise GuaranteeViolation(HOSTILE, f"each denied card's call should reach the model "
                                 f"as PERMISSION_DENIED, and no call as run; it received "
                                 f"{codes}", run.timeline)
    guarantees.no_business_request(run.timeline, since=before, guarantee=HOSTILE)
    guarantees.state_unchanged(run.timeline, since=before, guarantee=HOSTILE)


def reply_without_text_or_calls(run: DeclaredRun) -> None:
    """Each reply with neither text nor a tool call is a MODEL_BAD_REPLY error saying so, not
    resent, nothing run; the conversation then goes on."""
    run.open()
    for n, reply in enumerate(UNUSABLE_REPLIES, start=1):
        run.model.script(reply)
        before = run.timeline.mark()
        run.dock.ask(run.say(run.row.asked_with))
        if isinstance(run.dock.spec.provider_fault_codes, Absent):
            # The framework tells the page only that the run failed: its error says so.
            errors = run.dock.messages("error")
            _expect_errors(errors, errors_kept(run, n))
            text = errors.last.inner_text()
            problems = run.words.detail_problems(text, "gateway.unknown-code")
        else:
            errors = run.dock.messages("error", code="MODEL_BAD_REPLY")
            _expect_errors(errors, errors_kept(run, n))
            text = errors.last.inner_text()
            problems = run.words.meaning_problems(text, "MODEL_BAD_REPLY")
        assert not problems, f"the MODEL_BAD_REPLY error {text!r}: {'; '.join(problems)}"
        refused = [(r.status, r.error_code)
                   for r in run.timeline.server_records(before, kind="model.error")]
        if refused != [(502, "MODEL_BAD_REPLY")]:
            raise GuaranteeViolation(HOSTILE, f"the reply {reply} should be refused 502 "
                                     f"MODEL_BAD_REPLY; the server answered {refused}",
                                     run.timeline)
        if len(run.timeline.page_model_requests(before)) != 1:
            raise GuaranteeViolation(HOSTILE, "the page resent a failed request", run.timeline)
        run.expect_nothing_asked(before, guarantee=HOSTILE, after=REFUSED)
        guarantees.no_business_request(run.timeline, since=before, guarantee=HOSTILE)

    run.model.script(PLAIN_REPLY)
    run.dock.ask(run.say(run.row.asked_with))
    expect(run.dock.messages("assistant")).to_have_count(1)
    kept = errors_kept(run, len(UNUSABLE_REPLIES))
    if kept is not None:
        expect(run.dock.messages("error")).to_have_count(kept)


def _expect_errors(errors: Locator, count: int | None) -> None:
    """`count` errors shown, or (None: the driver says earlier errors do not stay) some."""
    if count is None:
        expect(errors).not_to_have_count(0)
    else:
        expect(errors).to_have_count(count)


def whitespace_text_adds_no_message(run: DeclaredRun) -> None:
    """A reply whose text is only whitespace (beside a call) adds no blank message."""
    run.open()
    harmless = harmless_call(run)
    run.model.script({"role": "assistant", "content": " \n ",
                      "tool_calls": [harmless.call("call_blank")]}, PLAIN_REPLY)
    run.dock.ask(run.say(run.row.asked_with))

    # (A framework may show the call itself as a message with text of its own.)
    replies = run.dock.messages("assistant")
    expect(replies.last).to_have_text(str(PLAIN_REPLY["content"]))
    shown = replies.all_inner_texts()
    if not all(text.strip() for text in shown):
        raise GuaranteeViolation(HOSTILE, f"a blank assistant message is shown: {shown}",
                                 run.timeline)


def assistant_text_with_markup(run: DeclaredRun) -> None:
    """Markup in the model's text and in a tool name is shown as text: no
    element made of it, no handler run, nothing fetched. Our runtime's rule: n/a where the
    driver says the assistant renders the model's text as markdown (model_text_checks.py
    holds every page to what may not happen whatever the rendering)."""
    run.dock.spec.require_literal_text()
    page = run.open()
    markup = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script><b>b</b>'
    name_markup = "<img src=x onerror=window.__pwned=3>"
    run.model.script({"role": "assistant", "content": markup},
                     calling(tool_call("call_name", name_markup)), PLAIN_REPLY)
    before = run.timeline.mark()
    run.dock.ask(run.say(run.row.asked_with))
    expect(run.dock.messages("assistant")).to_have_text([markup])
    assert run.dock.messages("assistant").text_content() == markup
    run.dock.ask(run.say(run.row.asked_with))
    unknown = run.dock.messages("notice", code="UNKNOWN_ACTION")
    expect(unknown).to_have_count(1)
    expect(unknown).to_contain_text(name_markup)  # named as the model wrote it, as text

    for tag in ("img", "script", "b"):
        expect(run.dock.root.locator(tag)).to_have_count(0)
    assert page.evaluate("() => window.__pwned") is None, "a handler of the model's markup ran"
    fetched = [r.path for r in run.timeline.browser_requests(before)
               if not run.timeline.is_model_transport(r.path)]
    if fetched:
        raise GuaranteeViolation("model-text-is-text", f"the page fetched {fetched} for the "
                                 "model's markup", run.timeline)
    guarantees.no_business_request(run.timeline, since=before, guarantee="model-text-is-text")


def markup_in_arguments_shown_as_text(run: DeclaredRun) -> None:
    """Markup in a string argument of an action that asks is shown on its card as text: no
    element made of it, no handler run; denied, nothing changes."""
    page = run.open()
    staged = asking_string_argument(run)
    # No double quotes: the card shows arguments as JSON, which would escape them.
    markup = "<img src=x onerror=window.__pwned=4>"
    arguments = {**minimal_arguments(staged.params), staged.name: markup}
    run.model.script(calling(tool_call("call_args", staged.action, json.dumps(arguments))),
                     PLAIN_REPLY)
    before = run.timeline.mark()
    run.dock.ask(run.say(run.row.asked_with))

    expect(run.dock.approval_args).to_contain_text(markup)
    expect(run.dock.approval.locator("img")).to_have_count(0)
    run.dock.deny()
    expect(run.dock.root.locator("img")).to_have_count(0)
    assert page.evaluate("() => window.__pwned") is None, "a handler of the model's markup ran"
    guarantees.no_business_request(run.timeline, since=before, guarantee="model-text-is-text")
    guarantees.state_unchanged(run.timeline, since=before, guarantee="model-text-is-text")

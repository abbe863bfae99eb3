"""Generated checks that a fault the model brings is told and survived (table-level, once per
locale): an action name the page does not have (unknown, or a near miss of one it has) and
arguments that are not JSON. Each is told to the user in the page's language, leaves no card
without a decision or an outcome, asks and changes nothing, and the next ordinary request
gets its answer. Through the dock driver, so every framework's page gets them; a page that
shows nothing fails saying what its user sees, not that a wait timed out."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect

from pling_harness.browser.clicks import user_click
from pling_harness.evidence import guarantees
from pling_harness.evidence.arguments import near_miss_ids
from pling_harness.evidence.guarantees import GuaranteeViolation
from pling_harness.plugin.declared.context import DeclaredRun
from pling_harness.plugin.declared.stage import asking_action, undeclared_id
from pling_harness.server.model.handle import calling, tool_call

NAME = "hostile-model-output"
PLAIN_REPLY = {"role": "assistant", "content": "Done."}
# Arguments a model may send that are not JSON at all.
NOT_JSON = "{oops"
# How long the next ordinary request may take to be answered once a turn went wrong (ms).
ANSWER_TIMEOUT_MS = 10_000


@dataclass(frozen=True)
class Fault:
    """One faulty call the model sends: what it is (for the user's-eye report), the call,
    and the code the page tells it with."""

    what: str
    call: dict[str, Any]
    code: str


def unknown_action_told(run: DeclaredRun) -> None:
    """An action name the page does not have, then a near miss of one it has (in case):
    each told UNKNOWN_ACTION in the page's language, nothing asked or run, the model's
    answer shown; then the next ordinary request is answered."""
    run.open()
    target = asking_action(run)
    unknown, near_miss = undeclared_id(run), near_miss_ids(target)[0]
    _told_and_survived(run, [
        Fault(f"an action the page does not have ({unknown!r})",
              tool_call("call_unknown", unknown, "{}"), "UNKNOWN_ACTION"),
        Fault(f"a near miss of {target!r} ({near_miss!r})",
              tool_call("call_near_miss", near_miss, "{}"), "UNKNOWN_ACTION"),
    ])


def invalid_arguments_told(run: DeclaredRun) -> None:
    """Arguments that are not JSON, to an action that would ask: told INVALID_PARAMS in the
    page's language, no card left waiting with nothing to press, nothing run; then the next
    ordinary request is answered."""
    run.open()
    target = asking_action(run)
    _told_and_survived(run, [
        Fault(f"a call to {target!r} whose arguments are not JSON ({NOT_JSON!r})",
              tool_call("call_not_json", target, NOT_JSON), "INVALID_PARAMS"),
    ])


def _told_and_survived(run: DeclaredRun, faults: list[Fault]) -> None:
    for fault in faults:
        run.model.script(calling(fault.call), PLAIN_REPLY)
        before = run.timeline.mark()
        told_before = _told(run, fault.code).count()
        try:
            run.dock.ask(run.say(run.row.asked_with))
        except AssertionError:
            raise GuaranteeViolation(NAME, f"after the model sent {fault.what}, "
                                     f"{_what_the_user_sees(run)}; "
                                     f"{_next_request(run)}", run.timeline) from None
        shown = _told(run, fault.code)
        if shown.count() <= told_before:
            raise GuaranteeViolation(NAME, f"after the model sent {fault.what}, the user was "
                                     f"not told: no notice or error reports {fault.code} "
                                     f"({_what_the_user_sees(run)})", run.timeline)
        text = shown.last.inner_text()
        problems = run.words.meaning_problems(text, fault.code)
        if problems:
            raise GuaranteeViolation(NAME, f"the {run.locale} {fault.code} told for "
                                     f"{fault.what}, {text!r}: {'; '.join(problems)}",
                                     run.timeline)
        run.expect_nothing_asked(before, guarantee=NAME, after=f"for {fault.what}")
        guarantees.no_business_request(run.timeline, since=before, guarantee=NAME)
    answer = _next_request(run)
    if answer != ANSWERED:
        raise GuaranteeViolation(NAME, f"after the faults were told, {answer}", run.timeline)


def _told(run: DeclaredRun, code: str) -> Any:
    """The notices and errors reporting `code`."""
    return run.dock.messages("notice", code=code).or_(run.dock.messages("error", code=code))


ANSWERED = "the next message was answered"


def _next_request(run: DeclaredRun) -> str:
    """Send the next ordinary request (the model answers with text) and say what came of it,
    in the user's terms."""
    run.model.reset_overrides()
    run.model.script(PLAIN_REPLY)
    answers = run.dock.messages("assistant").filter(has_text=str(PLAIN_REPLY["content"]))
    before = answers.count()
    try:
        run.dock.input.fill(run.say(run.row.asked_with), timeout=ANSWER_TIMEOUT_MS)
        user_click(run.dock.send_button, timeout=ANSWER_TIMEOUT_MS)
        expect(answers).to_have_count(before + 1, timeout=ANSWER_TIMEOUT_MS)
    except (AssertionError, PlaywrightError):
        return (f"the next message also gets no answer within "
                f"{ANSWER_TIMEOUT_MS / 1000:g} s ({_what_the_user_sees(run)})")
    return ANSWERED


def _what_the_user_sees(run: DeclaredRun) -> str:
    """The dock as its user sees it: whether an answer or an error came, how the chat ends,
    and what it offers to press besides Send (a card left with nothing to press is dead)."""
    told = run.dock.messages("error").count() + run.dock.messages("notice").count()
    said = "no error or notice is shown" if told == 0 else f"{told} error(s) or notice(s)"
    tail = " ".join(run.dock.root.inner_text().split())[-TAIL_CHARS:]
    controls = run.dock.root.locator(f"button:enabled:not({run.dock.spec.dock.send})").all()
    names = [" ".join(c.inner_text().split()) or c.get_attribute("aria-label") or "?"
             for c in controls]
    return (f"no answer; {said}; the chat ends with {tail!r}; buttons to press besides "
            f"Send: {names or 'none'}")


# How much of the chat's end a violation quotes.
TAIL_CHARS = 200

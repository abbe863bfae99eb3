"""Generated checks that a fault the model brings is told and survived (table-level, once per
locale): an action name the page does not have (unknown, or a near miss of one it has) and
arguments that are not JSON. Each is told to the user in the page's language, leaves no card
without a decision or an outcome, asks and changes nothing, and the next ordinary request
gets its answer. Through the dock driver, so every framework's page gets them; a page that
shows nothing fails saying what its user sees, not that a wait timed out."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Locator, expect

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
ANSWERED = "the next message was answered"
# How much of the chat's end a violation quotes.
TAIL_CHARS = 200


@dataclass(frozen=True)
class Fault:
    """One faulty call the model sends: what it is (for the user's-eye report), the call,
    and the code the page tells it with."""

    what: str
    call: dict[str, Any]
    code: str


def unknown_action_told(run: DeclaredRun) -> None:
    """An action name the page does not have, then a near miss of one it has (in case):
    each told UNKNOWN_ACTION in the page's language, no dead card, nothing asked or run; then
    the next ordinary request is answered."""
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
        run.model.reset_overrides()  # a reply the last turn left unasked goes
        run.model.script(calling(fault.call), PLAIN_REPLY)
        before = run.timeline.mark()
        told_before = _told(run).count()
        # No answer in this turn is no break of every assistant's promise (the model may hear
        # the fault with the next message); what follows says what the user was left with.
        with contextlib.suppress(AssertionError):
            run.dock.ask(run.say(run.row.asked_with))
        problems = _told_problems(run, fault.code, told_before)
        if problems:
            raise GuaranteeViolation(NAME, f"after the model sent {fault.what}, the user was "
                                     f"not told: {problems} ({what_the_user_sees(run)}); "
                                     f"{_next_request(run)}", run.timeline)
        dead = dead_cards(run)
        if dead:
            raise GuaranteeViolation(NAME, f"after the model sent {fault.what}, a card is left "
                                     f"with no decision to make and no outcome: {dead}",
                                     run.timeline)
        run.expect_nothing_asked(before, guarantee=NAME, after=f"for {fault.what}")
        guarantees.no_business_request(run.timeline, since=before, guarantee=NAME)
    answer = _next_request(run)
    if answer != ANSWERED:
        raise GuaranteeViolation(NAME, f"after the faults were told, {answer}", run.timeline)


def _told(run: DeclaredRun, code: str | None = None) -> Locator:
    """The notices and errors (reporting `code`, if given)."""
    return run.dock.messages("notice", code=code).or_(run.dock.messages("error", code=code))


def _told_problems(run: DeclaredRun, code: str, told_before: int) -> str | None:
    """Why the newest notices and errors do not tell the fault (None if one does): a notice or
    error reporting `code` and meaning it in the locale, or an error saying the assistant
    could not answer (a framework that reports its own code for the fault, the onError of
    CopilotKit, still tells it)."""
    shown = _told(run).all()[told_before:]
    if not shown:
        return f"no notice or error reports {code}"
    for element in shown:
        text = element.inner_text()
        reported = element.and_(_told(run, code)).count() > 0
        problems = (run.words.meaning_problems(text, code) if reported
                    else run.words.detail_problems(text, "gateway.unknown-code"))
        if not problems:
            return None
    texts = [" ".join(element.inner_text().split()) for element in shown]
    return (f"what is shown, {texts}, neither reports {code} in words that mean it nor says "
            f"the assistant could not answer")


def dead_cards(run: DeclaredRun) -> list[str]:
    """The texts of the approval cards shown with no decision to make (no enabled Allow or
    Deny) and no outcome: cards a user can neither answer nor see answered."""
    assert run.page is not None
    approval = run.dock.spec.approval
    cards = run.page.locator(approval.shown or approval.card).filter(
        has_not=run.page.locator(f":is({approval.allow}, {approval.deny}):enabled"))
    if approval.outcome is not None:
        cards = cards.filter(has_not=run.page.locator(approval.outcome))
    return [" ".join(text.split()) for text in cards.all_inner_texts()]


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
                f"{ANSWER_TIMEOUT_MS / 1000:g} s ({what_the_user_sees(run)})")
    return ANSWERED


def what_the_user_sees(run: DeclaredRun) -> str:
    """The dock as its user sees it: whether an answer or an error came, how the chat ends,
    and what it offers to press besides Send (a card left with nothing to press is dead)."""
    messages = run.dock.messages()
    # An answer: the last message is the assistant's, with words (a call alone renders none).
    answered = (messages.count() and messages.last.and_(run.dock.messages("assistant")).count()
                and messages.last.inner_text().strip())
    told = run.dock.messages("error").count() + run.dock.messages("notice").count()
    said = "no error or notice is shown" if told == 0 else f"{told} error(s) or notice(s)"
    tail = " ".join(run.dock.root.inner_text().split())[-TAIL_CHARS:]
    dead = dead_cards(run)
    controls = run.dock.root.locator(f"button:enabled:not({run.dock.spec.dock.send})").all()
    names = [" ".join(c.inner_text().split()) or c.get_attribute("aria-label") or "?"
             for c in controls]
    last = "an answer last" if answered else "no answer"
    dead_part = f"; cards with nothing to press and no outcome: {dead}" if dead else ""
    return (f"{last}; {said}; the chat ends with {tail!r}; buttons to press besides Send: "
            f"{names or 'none'}{dead_part}")


"""A message the user writes while a card waits: the conversation goes on, and the card's action
does not run for it.

Two ways keep the promise, and the check takes whichever the page chose: the page holds the
message until the card is answered (its composer is disabled meanwhile), or it sends the
message and the model answers it while the action stays not run. The break it catches is the
one assistant-ui's PR #4196 fixed: the waiting call turned into a part the next request was
refused for, so the new message and every one after it failed."""

from __future__ import annotations

from playwright.sync_api import Locator, expect

from pling_harness.browser.clicks import user_click
from pling_harness.evidence.guarantees import GuaranteeViolation
from pling_harness.evidence.records import Mark
from pling_harness.plugin.declared.context import SHOWN_TIMEOUT_MS, DeclaredRun
from pling_harness.plugin.declared.rows import asks
from pling_harness.plugin.guarantee_registry import Generates, Guarantee, declare
from pling_harness.project.dock_driver import NotObservable

NAME = "message-while-card-waits"


def _reply(n: int) -> str:
    # Plain words the page renders as they are, told apart from every other message.
    return f"Noted, reply {n}."


def _written_while_waiting(run: DeclaredRun) -> bool:
    """The user writes their words; whether the page lets them send it now (a page may disable
    its composer, or its send control, while a card waits)."""
    if not run.dock.input.is_editable():
        return False
    run.dock.input.fill(run.request_words())
    return run.dock.send_button.is_enabled()


def _errors(run: DeclaredRun) -> Locator | None:
    try:
        return run.dock.messages("error")
    except NotObservable:  # a page without an error part: the missing reply says it alone
        return None


def _send_and_expect_reply(run: DeclaredRun, n: int, *, after: str) -> None:
    """The user sends their words; the model answers `_reply(n)`, which the page shows, with no
    error."""
    reply = _reply(n)
    run.model.script({"role": "assistant", "content": reply})
    errors = _errors(run)
    errors_before = errors.count() if errors is not None else 0
    sent = run.timeline.mark()
    run.dock.input.fill(run.request_words())
    user_click(run.dock.send_button)
    answered = run.dock.messages("assistant").filter(has_text=reply)
    told = answered if errors is None else answered.or_(errors.nth(errors_before))
    try:
        expect(told.first).to_be_visible(timeout=run.dock.settle_timeout_ms)
    except AssertionError:
        raise GuaranteeViolation(NAME, f"the message sent {after} got neither an answer nor an "
                                 f"error within {run.dock.settle_timeout_ms / 1000:g} s: the "
                                 f"conversation stopped", run.timeline) from None
    if errors is not None and errors.count() > errors_before:
        raise GuaranteeViolation(NAME, f"the message sent {after} was answered with an error "
                                 f"({errors.last.inner_text()!r}) instead of the model's "
                                 f"reply: the conversation does not go on", run.timeline)
    asked = [r.model_request for r in run.timeline.server_records(sent, kind="model.request")]
    if not any(request is not None and request.messages
               and request.messages[-1].role == "user" for request in asked):
        raise GuaranteeViolation(NAME, f"the message sent {after} never reached the model as "
                                 f"the user's message", run.timeline)


def message_while_card_waits(run: DeclaredRun) -> None:
    """Asked for, the action's card waits; the user writes again instead of answering it. The
    page either holds the message until the card is answered (the card still waits, Deny
    still answers it) or sends it: the model's reply is shown, no error, and the action has
    not run, nor is the model told it ran. A card still on screen after that is one the user
    may answer: Allow on it, then the next message is answered too."""
    run.open()
    run.ask()
    card = run.dock.approval_for(run.action)
    expect(card).to_be_visible()
    waiting = run.timeline.mark()
    if _written_while_waiting(run):
        _send_and_expect_reply(run, 1, after="while the card waited")
        _expect_not_run(run, waiting)
        if card.count() and card.first.is_visible():  # it still asks: the user answers it late
            run.dock.approve()
            _send_and_expect_reply(run, 2, after="once the card left waiting was allowed")
        else:
            _send_and_expect_reply(run, 2, after="after that")
            _expect_not_run(run, waiting)
    else:  # the page holds the message: the card must still be there to answer
        expect(card).to_be_visible(timeout=SHOWN_TIMEOUT_MS)
        run.dock.deny()
        _send_and_expect_reply(run, 1, after="once the card was denied")
        _expect_not_run(run, waiting)


def _expect_not_run(run: DeclaredRun, since: Mark) -> None:
    """Nothing of the action ran since `since`, and the model was never told it did."""
    run.expect_nothing_yet(since, NAME)
    told_ran = [r.describe() for r in run.timeline.tool_results(since)
                if r.action == run.action and r.ok]
    if told_ran:
        raise GuaranteeViolation(NAME, f"the model was told the action ran, though it never "
                                 f"did: {told_ran}", run.timeline)


declare(Guarantee(
    name=NAME,
    means="the user may write again while a card waits: the page either holds the message "
          "until the card is answered, or sends it and the conversation goes on (the model's "
          "reply is shown, no error); the card's action does not run for it, and the model is "
          "never told it ran. A card still asking afterwards may still be answered: after "
          "Allow on it, the next message is answered too",
    breaks="a message written instead of answering the card, or a late answer to the card "
           "left asking, kills the conversation: every later message fails (assistant-ui "
           "PR #4196), or the action runs though nobody allowed it",
    checks=(Generates(NAME, message_while_card_waits, when=asks, order=215,
                      rows="`ask`, `ask-always`: asked, its card waits, the user writes "
                           "again: held until the card is denied, or answered with the "
                           "action not run; a card left asking is allowed, and the next "
                           "message is answered too"),),
))

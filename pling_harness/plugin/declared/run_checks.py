"""Generated checks of an action with a `run`: its policy row, approval before side effects,
denial, the session grant or its absence, the declared effect, success only after the
business answer, exactly the shown arguments, and hidden characters refused."""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.sync_api import expect

from pling_harness.browser.dock import FORGE_ROUTES
from pling_harness.browser.held_requests import HeldRequests
from pling_harness.evidence import guarantees
from pling_harness.evidence.arguments import (
    edge_arguments,
    hidden_at_the_ends,
    hidden_values,
    minimal_arguments,
    properties,
    valid_arguments,
)
from pling_harness.evidence.guarantees import GuaranteeViolation
from pling_harness.plugin.declared.context import DeclaredRun
from pling_harness.plugin.declared.examples import run_examples
from pling_harness.project.dock_driver import Absent, NotObservable, Reading
from pling_harness.project.hidden_characters import describe, refused_in_name


def policy_table(run: DeclaredRun) -> None:
    """The card (or none) of the row's policy: `none` runs at once, every call; `ask` and
    `ask-always` show a card saying so, "always allow" only for `ask`."""
    run.open()
    if run.row.policy == "none":
        for _ in range(2):
            before = run.ask()
            run.expect_cards(before, "policy-table", 0)
            run.expect_ran_once(before, run.call_arguments(before), "policy-table")
        return
    before = run.ask()
    run.expect_cards(before, "policy-table", 1)
    card = run.timeline.shown("approval", before, action=run.action)[0]
    says = run.dock.spec.approval
    # Only what this assistant's card shows is read (its driver's parts; an absent one says
    # nothing, as in every guarantee).
    if isinstance(says.policy, Reading) and card.policy != run.row.policy:
        raise GuaranteeViolation("policy-table", f"the card for {run.action} says policy "
                                 f"{card.policy!r}; the table declares {run.row.policy!r}",
                                 run.timeline)
    if not isinstance(says.always, Absent) and card.always != (run.row.policy == "ask"):
        raise GuaranteeViolation("policy-table", f"the card for {run.action} "
                                 f"{'offers' if card.always else 'does not offer'} 'always "
                                 f"allow' under policy {run.row.policy!r}", run.timeline)
    run.expect_nothing_yet(before, "policy-table")
    run.dock.deny()


def approval_before_side_effects(run: DeclaredRun) -> None:
    run.open()
    before = run.ask()
    # The turn settled: a call that asks is waiting on its card (a framework that loses the
    # card, or answers the call without one, fails here by name, not on a click's timeout).
    run.expect_cards(before, "approval-before-side-effects", 1)
    run.expect_nothing_yet(before, "approval-before-side-effects")
    run.dock.approve()
    guarantees.approval_before_side_effects(run.timeline, action=run.action, since=before)
    guarantees.model_received(run.timeline, action=run.action, code="OK", since=before,
                              guarantee="approval-before-side-effects")


def denial_respected(run: DeclaredRun) -> None:
    run.open()
    before = run.ask()
    decided = run.timeline.mark()
    run.dock.deny()
    guarantees.denial_respected(run.timeline, action=run.action, since=before,
                                success_phrases=run.model.success_phrases(run.action, run.locale))
    guarantees.no_silent_retry(run.timeline, since=decided)


def declared_effect(run: DeclaredRun) -> None:
    """Allowed (or at once, for `none`), it runs once and leaves exactly the declared state
    (where the page's server makes its request out of sight, the state is read all the
    same: `DeclaredRun.expect_ran_as_shown`)."""
    run.open()
    start = run.state()
    before = run.ask()
    if run.row.asks:
        run.dock.approve()
    arguments = run.call_arguments(before)
    run.expect_ran_as_shown(before, start, arguments, "declared-effect")
    run.expect_effect(start, arguments, guarantee="declared-effect")


def session_grant_for_ask(run: DeclaredRun) -> None:
    """Allow is for one call; "always allow" for the session, ended by a new conversation and
    by a reload."""
    name = "session-grant-for-ask"
    run.open()
    run.ask()
    guarantees.always_allow_offered(run.timeline, action=run.action)
    run.dock.approve()
    again = run.ask()
    run.expect_cards(again, name, 1)
    run.expect_nothing_yet(again, name)
    run.dock.approve_always()
    granted = run.ask()
    run.expect_cards(granted, name, 0)
    run.expect_ran_once(granted, run.call_arguments(granted), name)
    for end_the_session in (run.dock.new_conversation, run.reload):
        end_the_session()
        ended = run.ask()
        run.expect_cards(ended, name, 1)
        run.expect_nothing_yet(ended, name)
        guarantees.always_allow_offered(run.timeline, action=run.action)
        run.dock.approve_always()


def ask_always_never_granted(run: DeclaredRun) -> None:
    """No "always allow" offered, and every call asks: after Deny, after Allow, and after a
    forged "always" (every way page script can send it), which grants nothing. (An action
    its own effect disables, e.g. archive, is asked again after Deny only: after an Allow it
    is unavailable, which rejected-when-unavailable proves.)"""
    name = "ask-always-never-granted"
    run.open()
    before = run.ask()
    run.dock.deny()
    again = run.ask()
    run.expect_cards(again, name, 1)
    run.expect_nothing_yet(again, name)
    if not run.row.disables_itself:
        run.dock.approve()
        after_allow = run.ask()
        run.expect_cards(after_allow, name, 1)
        run.expect_nothing_yet(after_allow, name)
        try:
            for route in FORGE_ROUTES:
                run.dock.forge_decision("always", route)
                asked = run.ask()
                run.expect_cards(asked, name, 1)
                run.expect_nothing_yet(asked, name)
        except NotObservable:
            pass  # a dock decided otherwise has no delegated decision to forge
    run.dock.deny()
    guarantees.always_allow_never_offered(run.timeline, action=run.action, since=before)


def success_after_business_answer(run: DeclaredRun) -> None:
    """Its success reaches the model only after its business request answered; a failed
    answer is RUN_FAILED, never success, and changes nothing."""
    assert run.row.calls is not None
    if not run.dock.spec.business_requests_in_browser:
        # Held only in the browser: one the page's server makes never passes through it,
        # even where the fixture server's log shows it (a page the check starts itself).
        _outcomes_told_where_the_server_runs(run)
        return
    page = run.open()
    path = run.row.calls.path
    arguments = _sample(run)
    # The failure first: it changes nothing, so the action is still available for the answer.
    for outcome in ("failed", "answered"):
        held = HeldRequests(page, path)
        start = run.state()
        if run.row.asks:
            run.call(arguments)
            expect(run.dock.approval_for(run.action)).to_be_visible()
            approved = run.timeline.mark()
            held.start(run.dock.approve_button.click)
        else:
            approved = run.timeline.mark()
            held.start(lambda: run.send_call(arguments))
        guarantees.no_model_request(run.timeline, since=approved, why=f"{path} is unanswered",
                                    guarantee="success-after-business-answer")
        if outcome == "answered":
            held.release()
            run.dock.wait_until_settled()
            guarantees.success_after_business_answer(run.timeline, call_id=run.last_call_id,
                                                     path=path, since=approved)
        else:
            held.fail(503, {"ok": False, "code": "UNAVAILABLE", "message": "try again later"})
            run.dock.wait_until_settled()
            codes = [r.code for r in run.timeline.tool_results(approved)
                     if r.call_id == run.last_call_id]
            if codes != ["RUN_FAILED"] or run.state() != start:
                raise GuaranteeViolation("run-failure-reported", f"a failed {path} should "
                                         f"reach the model as RUN_FAILED and change nothing; "
                                         f"it got {codes}, state {run.state().fields()}",
                                         run.timeline)
        held.stop_holding()


def _outcomes_told_where_the_server_runs(run: DeclaredRun) -> None:
    """The page's server makes the business request (the driver's assistant endpoints, its
    tools not run in the browser), so the check cannot hold or fail it at the network: it
    reads the business state itself. A value the business API refuses (the row's `refused`,
    one the card takes) fails the run: the model hears a failure, never success, the user a
    RUN_FAILED notice, and nothing changes; then a value it takes: the model's success
    arrives once the state holds the run's change. n/a for an action the API refuses no
    value of: nothing the check does could make its request fail."""
    assert run.row.calls is not None
    run.open()
    refused = _refused_by_the_api(run)
    if refused is None:
        raise NotObservable(run.dock.spec.name, "assistant_endpoints",
                            f"the page's server runs an approved call itself, where the check "
                            f"cannot fail its business request, and the business API refuses "
                            f"no value of {run.action}'s arguments that the card takes"
                            + run.dock.spec.where_approved_calls_run)
    start = run.state()
    allowed = run.call(refused)
    if run.row.asks:
        run.dock.approve()
    run.dock.wait_until_settled()
    codes = [r.code for r in run.timeline.tool_results(allowed)
             if r.call_id == run.last_call_id]
    notice = run.dock.last_message("notice", code="RUN_FAILED")
    if codes != ["RUN_FAILED"] or run.state() != start or not notice.count():
        raise GuaranteeViolation("run-failure-reported", f"{run.action} with {refused!r}, "
                                 f"which the business API refuses, should reach the model as "
                                 f"RUN_FAILED, show a RUN_FAILED notice and change nothing; "
                                 f"the model got {codes}, {notice.count()} such notice, state "
                                 f"{run.state().fields()}", run.timeline)
    arguments = _sample(run)
    before = run.state()
    approved = run.call(arguments)
    if run.row.asks:
        run.dock.approve()
    run.dock.wait_until_settled()
    guarantees.success_after_business_state(run.timeline, call_id=run.last_call_id,
                                            since=approved, unchanged=before)


def _refused_by_the_api(run: DeclaredRun) -> dict[str, Any] | None:
    """Arguments the card takes (the page's schema) but the business API refuses: a blank
    value of a string argument the row says refuses blanks, else None."""
    params = run.params()
    base = minimal_arguments(params)
    for name, row in run.row.arguments.items():
        schema = properties(params).get(name, {})
        if "blank" in row.refused and schema.get("type") == "string":
            blank = " " * max(int(schema.get("minLength", 0)), 1)
            if len(blank) <= int(schema.get("maxLength", len(blank))):
                return {**base, name: blank}
    return None


def _sample(run: DeclaredRun) -> dict[str, Any]:
    """Arguments the page and its API take: the first edge value, else none."""
    params = run.params()
    edges = edge_arguments(params, run.refused())
    return edges[0] if edges else {}


def approval_shows_exact_arguments(run: DeclaredRun, config: pytest.Config, nodeid: str) -> None:
    """The card shows each argument whole, hidden characters as codes; Allow then sends
    exactly what was shown, once. (An action without arguments: one Allow, one run.)"""
    name = "approval-shows-exact-arguments"
    run.open()
    params = run.params()
    for shown in hidden_values(params):  # shown as codes, then denied
        before = run.call(shown)
        guarantees.approval_shows_arguments(run.timeline, action=run.action, words=run.words,
                                            values=[v for v in shown.values()
                                                    if isinstance(v, str)])
        run.expect_nothing_yet(before, name)
        run.dock.deny()

    def allowed(arguments: dict[str, Any]) -> None:
        run.call(arguments)
        values = [v for v in arguments.values() if isinstance(v, str)]
        if values:
            guarantees.approval_shows_arguments(run.timeline, action=run.action,
                                                words=run.words, values=values)
        approved = run.timeline.mark()
        run.dock.approve()
        run.expect_ran_once(approved, arguments, name)

    if not properties(params):
        allowed({})
        return
    run_examples(config, nodeid, edges=edge_arguments(params, run.refused()),
                 drawn=valid_arguments(params, run.refused()), check=allowed)


def approval_shows_whole_values(run: DeclaredRun, config: pytest.Config, nodeid: str) -> None:
    """Each edge value (the longest, the shortest, spaces that matter) and drawn value shown
    whole on the card, nothing cut, collapsed or hidden by overflow; Allow then runs with
    exactly what was shown. Needs only the card's values: hidden characters and their marker
    are `approval-shows-exact-arguments`'s."""
    name = "approval-shows-exact-arguments"
    run.open()
    params = run.params()

    def allowed(arguments: dict[str, Any]) -> None:
        before = run.state()
        run.call(arguments)
        values = [v for v in arguments.values() if isinstance(v, str)]
        if values:
            guarantees.approval_shows_whole_values(run.timeline, action=run.action,
                                                   values=values, guarantee=name)
        approved = run.timeline.mark()
        run.dock.approve()
        run.expect_ran_as_shown(approved, before, arguments, name)

    if not properties(params):
        allowed({})
        return
    run_examples(config, nodeid, edges=edge_arguments(params, run.refused()),
                 drawn=valid_arguments(params, run.refused()), check=allowed)


def hidden_characters_refused(run: DeclaredRun) -> None:
    """A value holding a character the API refuses, inside it or at either end (where a trim
    would drop it): the page refuses it after Allow with no request (RUN_FAILED naming U+XXXX
    and its position), the server with a 4xx naming it."""
    name = "hidden-characters-refused"
    page = run.open()
    params = run.params()
    refusing = [a for a, row in run.row.arguments.items() if "hidden-characters" in row.refused]
    for shown in [*hidden_values(params), *hidden_at_the_ends(params)]:
        for argument in refusing:
            value = shown.get(argument)
            found = refused_in_name(value) if isinstance(value, str) else None
            if found is None:
                continue
            position, character = found
            code = describe(character).split(" ")[0]
            run.call(shown)
            allowed = run.timeline.mark()
            run.dock.approve()
            guarantees.model_received(run.timeline, action=run.action, code="RUN_FAILED",
                                      since=allowed, guarantee=name)
            run.expect_nothing_yet(allowed, name)
            told = [str((r.envelope or {}).get("message", ""))
                    for r in run.timeline.tool_results(allowed) if r.action == run.action]
            assert run.row.calls is not None
            answer = page.request.fetch(f"{run.served.url}{run.row.calls.path}",
                                        method=run.row.calls.method,
                                        headers={"Content-Type": "application/json"},
                                        data=json.dumps(run.expected_body(shown)))
            said = {"the model was told": " ".join(told),
                    f"the server answered {answer.status}": answer.text()}
            for where, text in said.items():
                if code not in text or str(position) not in text:
                    raise GuaranteeViolation(name, f"{where} {text!r}; it should name {code} "
                                             f"and its position {position}", run.timeline)
            if not 400 <= answer.status < 500 or run.state() != allowed.server_state:
                raise GuaranteeViolation(name, f"the server answered {answer.status} and holds "
                                         f"{run.state().fields()}", run.timeline)

"""SPEC §2's policy table, row by row, shown by what the page did and what the server received.

r-15's own declarations are driven on the r-15 page; the rows it does not declare are
declared on the testbed page, whose actions POST to `/api/testbed/run/<id>`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from harness import guarantees
from harness.dock import Dock
from harness.guarantees import GuaranteeViolation
from harness.model_handle import ModelHandle
from harness.serve import TutorialServer
from harness.timeline import Mark, Timeline

Say = Callable[[str], str]
GUARANTEE = "policy-table"

# ---- r-15's declared rows -----------------------------------------------------------------

# (what the user asks, action, policy its declaration resolves to, business call it makes).
R15_ROWS = [
    pytest.param("status", "get_workspace", "none", "GET /api/workspace", id="read"),
    pytest.param("save", "save_workspace_name", "ask", "POST /api/workspace/name",
                 id="write-confirm-true"),
    pytest.param("archive", "archive_workspace", "ask-always", "POST /api/workspace/archive",
                 id="danger-confirm-true"),
    pytest.param("reset", "reset_workspace", "ask-always", "POST /api/workspace/reset",
                 id="danger"),
]


def calls_at_server(timeline: Timeline, since: Mark) -> list[str]:
    """Every workspace/testbed API call the server answered since `since`: "METHOD /path"."""
    return [f"{r.method} {r.path}" for r in timeline.server_records(since, kind="api")
            if r.path.startswith(("/api/workspace", "/api/testbed/run/"))]


def card_matches_policy(timeline: Timeline, dock: Dock, *, action: str, policy: str) -> None:
    """The card on screen is for `action`, says `policy`, and offers "always allow" iff `ask`."""
    if policy == "ask":
        guarantees.always_allow_offered(timeline, action=action)
    else:
        expect(dock.approval).to_have_attribute("data-action", action)
        guarantees.always_allow_never_offered(timeline, action=action)


def no_prompt_and_ran(timeline: Timeline, *, action: str, since: Mark, call: str) -> None:
    """No approval card since `since`, the server received `call` once, the model got OK."""
    cards = timeline.shown("pling-approval", since)
    if cards:
        raise GuaranteeViolation(GUARANTEE, f"{action} should run without a prompt, but "
                                 f"{len(cards)} approval card(s) were shown", timeline)
    received = calls_at_server(timeline, since)
    if received != [call]:
        raise GuaranteeViolation(GUARANTEE, f"{action} should make exactly {call!r}; the "
                                 f"server received {received}", timeline)
    guarantees.model_received(timeline, action=action, code="OK", since=since,
                              guarantee=GUARANTEE)


@pytest.mark.guarantee(GUARANTEE)
@pytest.mark.parametrize(("request_key", "action", "policy", "call"), R15_ROWS)
def test_r15_declared_row(
    tutorial_page: Page, dock: Dock, timeline: Timeline, say: Say,
    request_key: str, action: str, policy: str, call: str,
) -> None:
    start = timeline.mark()
    dock.ask(say(request_key))

    if policy == "none":
        no_prompt_and_ran(timeline, action=action, since=start, call=call)
        return
    card_matches_policy(timeline, dock, action=action, policy=policy)
    if calls_at_server(timeline, start):
        raise GuaranteeViolation(GUARANTEE, f"{action} reached the server while its card was "
                                 "open", timeline)
    dock.approve()
    guarantees.approval_before_side_effects(timeline, action=action, since=start)
    if calls_at_server(timeline, start) != [call]:
        raise GuaranteeViolation(GUARANTEE, f"after Allow, {action} should make exactly "
                                 f"{call!r}", timeline)


# ---- the testbed's rows -------------------------------------------------------------------

# What a user types to make the model call a testbed action (a `when_user` rule answers it).
RUN_REQUEST = {"en": "please run {id}", "zh": "请运行 {id}"}
# The arguments each testbed call carries, echoed into the server's record.
ARGUMENTS = {"note": "row"}
PARAMS = {"type": "object", "properties": {"note": {"type": "string"}},
          "required": ["note"], "additionalProperties": False}
DECLARE = "decl => window.plingTestbed.declare(decl)"

# Rows r-15 does not declare: (kind, confirm or None for absent, policy).
TESTBED_ROWS = [
    pytest.param("read", False, "none", id="read-confirm-false"),
    pytest.param("write", False, "none", id="write-confirm-false"),
    pytest.param("danger", False, "none", id="danger-confirm-false"),
    pytest.param("write", None, "none", id="write"),
    pytest.param("read", "always", "ask-always", id="read-confirm-always"),
    pytest.param("write", "always", "ask-always", id="write-confirm-always"),
    pytest.param("danger", "always", "ask-always", id="danger-confirm-always"),
    pytest.param("read", True, "ask", id="read-confirm-true"),
]


def declare(page: Page, model: ModelHandle, decl: dict[str, Any]) -> str:
    """Declare `decl` on the testbed and make "please run <id>" call it; returns the policy
    the runtime resolved (for the failure message only: behaviour is what is checked)."""
    action = str(decl["id"])
    model.when_user(rf"(?:run|运行) {action}\b", action, ARGUMENTS)
    declared = page.evaluate(DECLARE, decl)
    return str(declared["policy"])


def run_request(locale: str, action: str) -> str:
    return RUN_REQUEST[locale].format(id=action)


@pytest.mark.guarantee(GUARANTEE)
@pytest.mark.parametrize(("kind", "confirm", "policy"), TESTBED_ROWS)
def test_testbed_row(
    testbed_page: Page, dock: Dock, timeline: Timeline, model: ModelHandle,
    tutorial_server: TutorialServer, locale: str, kind: str, confirm: bool | str | None,
    policy: str,
) -> None:
    action = f"row_{kind}"
    call = f"POST /api/testbed/run/{action}"
    resolved = declare(testbed_page, model, {"id": action, "desc": f"Row {kind}", "kind": kind,
                                             "confirm": confirm, "params": PARAMS})
    note = f"declared {kind}/confirm={confirm!r}, resolved {resolved!r}, want {policy!r}"

    first = timeline.mark()
    dock.ask(run_request(locale, action))
    if policy == "none":
        no_prompt_and_ran(timeline, action=action, since=first, call=call)
        assert [c.body for c in tutorial_server.testbed.calls(action)] == [ARGUMENTS], note
        return

    card_matches_policy(timeline, dock, action=action, policy=policy)
    if calls_at_server(timeline, first):
        raise GuaranteeViolation(GUARANTEE, f"{note}: the call ran while its card was open",
                                 timeline)
    if policy == "ask":
        # Offered, and honoured for the session: the next call runs without a card.
        dock.approve_always()
        if calls_at_server(timeline, first) != [call]:
            raise GuaranteeViolation(GUARANTEE, f"{note}: Always allow did not run it once",
                                     timeline)
        second = timeline.mark()
        dock.ask(run_request(locale, action))
        no_prompt_and_ran(timeline, action=action, since=second, call=call)
        return

    # ask-always: never granted, not even by a decision page script forges; asks every time.
    dock.forge_decision("always")
    second = timeline.mark()
    dock.ask(run_request(locale, action))
    card_matches_policy(timeline, dock, action=action, policy=policy)
    if calls_at_server(timeline, second):
        raise GuaranteeViolation(GUARANTEE, f"{note}: the second call ran without asking",
                                 timeline)
    dock.approve()
    guarantees.prompted_for_every_call(timeline, action=action)
    guarantees.approval_before_side_effects(timeline, action=action, since=second)
    if calls_at_server(timeline, second) != [call]:
        raise GuaranteeViolation(GUARANTEE, f"{note}: after Allow the call should run once",
                                 timeline)


# ---- handoff rows: never through approval -------------------------------------------------

HANDOFF_ROWS = [
    pytest.param("write", True, id="write-confirm-true"),
    pytest.param("danger", None, id="danger"),
    pytest.param("read", "always", id="read-confirm-always"),
]


@pytest.mark.guarantee("handoff-no-stacking")
@pytest.mark.parametrize(("kind", "confirm"), HANDOFF_ROWS)
def test_handoff_is_never_put_through_approval(
    testbed_page: Page, dock: Dock, timeline: Timeline, model: ModelHandle,
    tutorial_server: TutorialServer, locale: str, kind: str, confirm: bool | str | None,
) -> None:
    action = f"handoff_{kind}"
    model.when_user(rf"(?:run|运行) {action}\b", action, {})
    testbed_page.evaluate(DECLARE, {"id": action, "desc": f"Handoff {kind}", "kind": kind,
                                    "confirm": confirm, "handoff": True})

    start = timeline.mark()
    dock.ask(run_request(locale, action))
    guarantees.handoff_without_approval(timeline, action=action, since=start)

    # The human does the step; the handoff ends on its own once the page shows it done.
    testbed_page.get_by_test_id(f"testbed-input-{action}").click()
    testbed_page.keyboard.type("42")
    testbed_page.get_by_test_id(f"testbed-finish-{action}").click()
    dock.wait_until_handoff_ends()

    guarantees.handoff_without_approval(timeline, action=action, since=start)
    guarantees.model_received(timeline, action=action, code="OK", since=start,
                              guarantee="handoff-no-stacking")
    assert tutorial_server.testbed.calls() == []  # a handoff has no run: nothing was called

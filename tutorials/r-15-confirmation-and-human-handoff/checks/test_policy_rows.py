"""SPEC §2's policy table, row by row, shown by what the page did and what the server received.

For each row the checks watch the page, not the runtime's policy function: does a card
appear, does it offer "always allow", does the next call ask again. Every row is declared
on the testbed page (its actions POST to `/api/testbed/run/<id>`, so each run is seen at the
server). r-15's own declarations show the card of their row in test_confirmation.py and the
acceptance walk; handoff rows, which never ask: test_handoff.py.
"""

from __future__ import annotations

from typing import Any

import pytest
from testbed_actions import REQUESTS

from pling_harness import Dock, GuaranteeViolation, Mark, ModelHandle, Testbed, Timeline, guarantees

GUARANTEE = "policy-table"

# What a user types to make the model call a testbed action (a `when_user` rule answers it).
RUN_REQUEST = REQUESTS["run_action"]
# The arguments each testbed call carries, echoed into the server's record.
ARGUMENTS = {"note": "row"}
PARAMS = {"type": "object", "properties": {"note": {"type": "string"}},
          "required": ["note"], "additionalProperties": False}

# SPEC §2, every row: (kind, confirm or None for absent). First match wins.
ROWS_WITHOUT_A_GATE = [
    pytest.param("read", False, id="read-confirm-false"),
    pytest.param("write", False, id="write-confirm-false"),
    pytest.param("danger", False, id="danger-confirm-false"),
    pytest.param("read", None, id="read"),
    pytest.param("write", None, id="write"),
]
ASK_ROWS = [
    pytest.param("read", True, id="read-confirm-true"),
    pytest.param("write", True, id="write-confirm-true"),
]
ASK_ALWAYS_ROWS = [
    pytest.param("read", "always", id="read-confirm-always"),
    pytest.param("write", "always", id="write-confirm-always"),
    pytest.param("danger", "always", id="danger-confirm-always"),
    pytest.param("danger", True, id="danger-confirm-true"),
    pytest.param("danger", None, id="danger"),
]


def declare_row(testbed: Testbed, model: ModelHandle, *, kind: str,
                confirm: bool | str | None) -> tuple[str, str]:
    """Declare the row's action on the testbed and make "please run <id>" call it; returns
    (action id, the business call each run makes)."""
    action = f"row_{kind}"
    model.when_user(rf"(?:run|运行) {action}\b", action, ARGUMENTS)
    decl: dict[str, Any] = {"id": action, "desc": f"Row {kind}", "kind": kind,
                            "confirm": confirm, "params": PARAMS}
    testbed.declare(decl)
    return action, f"POST /api/testbed/run/{action}"


def run_request(locale: str, action: str) -> str:
    return RUN_REQUEST[locale].format(id=action)


def calls_at_server(timeline: Timeline, since: Mark) -> list[str]:
    """Every workspace/testbed API call the server answered since `since`: "METHOD /path"."""
    return [str(call) for call in timeline.api_calls(since)
            if call.path.startswith(("/api/workspace", "/api/testbed/run/"))]


def ran_once_without_a_card(timeline: Timeline, *, action: str, since: Mark, call: str) -> None:
    """No approval card since `since`, the server received `call` once, the model got OK."""
    cards = timeline.shown("approval", since)
    if cards:
        raise GuaranteeViolation(GUARANTEE, f"{action} should run without a card, but "
                                 f"{len(cards)} approval card(s) were shown", timeline)
    ran_once(timeline, action=action, since=since, call=call)


def ran_once(timeline: Timeline, *, action: str, since: Mark, call: str) -> None:
    """The server received `call` exactly once since `since` and the model got OK."""
    received = calls_at_server(timeline, since)
    if received != [call]:
        raise GuaranteeViolation(GUARANTEE, f"{action} should make exactly {call!r}; the "
                                 f"server received {received}", timeline)
    guarantees.model_received(timeline, action=action, code="OK", since=since,
                              guarantee=GUARANTEE)


def asked_with_card(timeline: Timeline, *, action: str, since: Mark, policy: str) -> None:
    """One card for `action` appeared since `since`, saying `policy`, offering "always allow"
    exactly when the policy is `ask`; nothing reached the server while it waits."""
    cards = timeline.shown("approval", since, action=action)
    if len(cards) != 1:
        raise GuaranteeViolation(GUARANTEE, f"the call to {action} should show one approval "
                                 f"card, {len(cards)} appeared", timeline)
    card = cards[0]
    if card.policy != policy or card.always != (policy == "ask"):
        raise GuaranteeViolation(GUARANTEE, f"the card for {action} should say {policy!r} and "
                                 f"{'' if policy == 'ask' else 'not '}offer always allow; it "
                                 f"said {card.policy!r} and "
                                 f"{'offered' if card.always else 'did not offer'} it", timeline)
    received = calls_at_server(timeline, since)
    if received:
        raise GuaranteeViolation(GUARANTEE, f"{action} reached the server while its card was "
                                 f"open: {received}", timeline)


# ---- the rows, on the testbed -------------------------------------------------------------


@pytest.mark.guarantee(GUARANTEE)
@pytest.mark.parametrize(("kind", "confirm"), ROWS_WITHOUT_A_GATE)
def test_row_without_a_gate_runs_every_call_without_a_card(
    testbed: Testbed, dock: Dock, timeline: Timeline, model: ModelHandle, locale: str,
    kind: str, confirm: bool | str | None,
) -> None:
    action, call = declare_row(testbed, model, kind=kind, confirm=confirm)

    for _ in range(2):
        start = timeline.mark()
        dock.ask(run_request(locale, action))
        ran_once_without_a_card(timeline, action=action, since=start, call=call)
    assert [c.body for c in testbed.calls(action)] == [ARGUMENTS] * 2


@pytest.mark.guarantee(GUARANTEE)
@pytest.mark.parametrize(("kind", "confirm"), ASK_ROWS)
def test_ask_row_asks_until_the_user_chooses_always_allow(
    testbed: Testbed, dock: Dock, timeline: Timeline, model: ModelHandle, locale: str,
    kind: str, confirm: bool | str | None,
) -> None:
    action, call = declare_row(testbed, model, kind=kind, confirm=confirm)

    # Allow is for this call only: the next one asks again, and offers always allow again.
    first = timeline.mark()
    dock.ask(run_request(locale, action))
    asked_with_card(timeline, action=action, since=first, policy="ask")
    dock.approve()
    ran_once(timeline, action=action, since=first, call=call)

    second = timeline.mark()
    dock.ask(run_request(locale, action))
    asked_with_card(timeline, action=action, since=second, policy="ask")
    dock.approve_always()
    ran_once(timeline, action=action, since=second, call=call)

    # Always allow holds for the session: no card any more.
    third = timeline.mark()
    dock.ask(run_request(locale, action))
    ran_once_without_a_card(timeline, action=action, since=third, call=call)


@pytest.mark.guarantee(GUARANTEE)
@pytest.mark.parametrize(("kind", "confirm"), ASK_ALWAYS_ROWS)
def test_ask_always_row_asks_on_every_call(
    testbed: Testbed, dock: Dock, timeline: Timeline, model: ModelHandle, locale: str,
    kind: str, confirm: bool | str | None,
) -> None:
    action, call = declare_row(testbed, model, kind=kind, confirm=confirm)

    first = timeline.mark()
    dock.ask(run_request(locale, action))
    asked_with_card(timeline, action=action, since=first, policy="ask-always")
    dock.approve()
    ran_once(timeline, action=action, since=first, call=call)

    # Not even a decision page script forges makes it stick ("never honoured").
    second = timeline.mark()
    dock.ask(run_request(locale, action))
    asked_with_card(timeline, action=action, since=second, policy="ask-always")
    dock.forge_decision("always")

    third = timeline.mark()
    dock.ask(run_request(locale, action))
    asked_with_card(timeline, action=action, since=third, policy="ask-always")
    dock.deny()
    guarantees.model_received(timeline, action=action, code="PERMISSION_DENIED", since=third,
                              guarantee=GUARANTEE)
    if calls_at_server(timeline, third):
        raise GuaranteeViolation(GUARANTEE, f"{action} ran although it was denied", timeline)

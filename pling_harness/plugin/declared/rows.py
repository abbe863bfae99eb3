"""What an action table's row declares, in the words the generated checks' declarations use
(`pling_harness/plugin/guarantees/`: the rows a check is for)."""

from __future__ import annotations

from pling_harness.project.action_table import ActionRow


def asks(row: ActionRow) -> bool:
    """`ask` or `ask-always`: a card before it runs."""
    return row.asks


def is_handoff(row: ActionRow) -> bool:
    return row.policy == "handoff"


def runs(row: ActionRow) -> bool:
    """Every action without a handoff: it has a `run`."""
    return row.policy != "handoff"


def has_calls(row: ActionRow) -> bool:
    """It declares its business request (`calls`)."""
    return runs(row) and row.calls is not None


def writes(row: ActionRow) -> bool:
    """Its `calls` is a request that changes the state (a read changes nothing)."""
    return has_calls(row) and row.calls is not None and row.calls.method != "GET"


def changes_state(row: ActionRow) -> bool:
    """Whether the row declares a business request that is not a read (its `calls`, or its
    handoff's `done.request`): one another site could send around the dock."""
    requests = [row.calls, row.handoff.done.request if row.handoff else None]
    return any(request is not None and request.method != "GET" for request in requests)

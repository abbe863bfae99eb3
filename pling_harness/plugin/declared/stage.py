"""What the table-level checks of the model's faults stage their calls with: a call that is
handled without any prompt (the table's first action that asks nothing and changes nothing,
run; else a call to an id no page declares, refused), and an action that would ask (so a call
that should have been refused, yet was handled, shows as a card)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest

from pling_harness.evidence.arguments import minimal_arguments, string_arguments
from pling_harness.plugin.declared.context import DeclaredRun
from pling_harness.plugin.report import not_applicable
from pling_harness.server.model.handle import tool_call


@dataclass(frozen=True)
class HarmlessCall:
    """A call the page handles with no prompt and no change: `action`, sent with
    `arguments`, answered `code`."""

    action: str
    arguments: str
    code: str

    def call(self, call_id: str) -> dict[str, Any]:
        return tool_call(call_id, self.action, self.arguments)


@dataclass(frozen=True)
class StringArgument:
    """A string argument, `name`, of an action that asks, `action`, as the page offers it
    (`params`: its projected JSON Schema): where markup can reach an approval card."""

    action: str
    name: str
    params: dict[str, Any]


def asking_string_argument(run: DeclaredRun) -> StringArgument:
    """The first string argument of an action that asks; the check is n/a without one."""
    offered = run.projection()
    for action, row in run.table.actions.items():
        if not row.asks:
            continue
        params: dict[str, Any] = dict(offered[action].parameters or {})
        for name in string_arguments(params):
            return StringArgument(action, name, params)
    pytest.skip(not_applicable("table", "no action that asks takes a string argument"))


def harmless_call(run: DeclaredRun) -> HarmlessCall:
    """The table's first `none` action without an effect, run with its smallest valid
    arguments (projected `params`), else an undeclared id, refused UNKNOWN_ACTION."""
    for action, row in run.table.actions.items():
        if row.policy == "none" and not row.effect:
            params = dict(run.projection()[action].parameters or {})
            return HarmlessCall(action, json.dumps(minimal_arguments(params)), "OK")
    return HarmlessCall(undeclared_id(run), "{}", "UNKNOWN_ACTION")


def undeclared_id(run: DeclaredRun) -> str:
    """An action id the table does not declare."""
    first = next(iter(run.table.actions))
    candidate = f"not_{first}"
    while candidate in run.table.actions:
        candidate = f"not_{candidate}"
    return candidate


def asking_action(run: DeclaredRun) -> str:
    """The table's first action that asks (a card) or hands off, else its first action."""
    for action, row in run.table.actions.items():
        if row.asks or row.policy == "handoff":
            return action
    return next(iter(run.table.actions))


def asking_call(run: DeclaredRun, call_id: str) -> dict[str, Any]:
    """A call to `asking_action` with its smallest valid arguments: handled at all, it asks."""
    action = asking_action(run)
    params = dict(run.projection()[action].parameters or {})
    return tool_call(call_id, action, json.dumps(minimal_arguments(params)))


def described(run: DeclaredRun, action: str) -> str:
    """How the page describes `action` to the model (its declaration's `desc`), the name a
    notice about it uses; its id where the page gives no description."""
    return run.projection()[action].description or action

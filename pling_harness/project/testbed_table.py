"""A tutorial's testbed table (`tutorials/<id>/testbed-actions.json`): rows the runtime itself
promises, each declared on the harness's testbed page (`/testbed/`) rather than on the
tutorial's page. A row is the declaration a check registers there (kind, confirm, params,
scope) and the policy SPEC §2 gives it; each row becomes an action row
(`pling_harness.project.action_table.ActionRow`) whose business request is the testbed's own
`POST /api/testbed/run/<id>`, so the generated kinds run over it as over the tutorial's actions
(`pling_harness.plugin.declared.testbed_run`). It is for a runtime's own rules (the policy
table, handoff timeouts of any size, refusals when a page takes an action out of scope or
makes it unavailable), which no one tutorial page can show in full; a tutorial's own actions
belong in `actions.json`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any, Literal, Self

from pydantic import Field, model_validator

from pling_harness.project.action_table import ActionId, ActionRow, Row, TableError
from pling_harness.project.contract import ApiRequest
from pling_harness.project.datafile import load_json_model

TESTBED_TABLE_FILE_NAME = "testbed-actions.json"
# Where the testbed page's actions send their runs; the server records each one.
TESTBED_RUN_PATH = "/api/testbed/run/"

RowName = Annotated[str, Field(pattern=r"^[a-z][a-z0-9-]*$", max_length=60)]
# What the page does to a declared row, in a row's `page` (testbed_run.PAGE_MOVES does each).
PageMove = Literal["activate-scope", "deactivate-scope", "switch-off", "switch-on",
                   "disable-button", "aria-disable-button", "remove-button"]
# What a call answers when the page has made its action unavailable (SPEC §3 steps 1 to 4).
RefusalCode = Literal["INVALID_PARAMS", "OUT_OF_SCOPE", "UNAVAILABLE"]


class TestbedHandoff(Row):
    """A testbed handoff's declared `handoff` block: its field and Finish button are the
    testbed's own, so only its timeout is the row's."""

    timeout: int = Field(ge=1000, le=3_600_000)
    """Its `handoff.timeout` (ms): SPEC §4's range, a second to an hour."""


class TestbedRow(Row):
    """One declaration on the testbed and the policy the runtime must give it."""

    __test__ = False  # a table row, whatever pytest makes of its name

    kind: Literal["read", "write", "danger"]
    confirm: bool | Literal["always"] | None = None
    """As declared; absent (null) is a row of its own in SPEC §2."""
    policy: Literal["none", "ask", "ask-always", "handoff"]
    handoff: TestbedHandoff | None = None
    """For policy "handoff": declared with this `handoff` block."""
    params: dict[str, Any] | None = None
    """Its JSON Schema; none: the table's `params`."""
    scope: ActionId | None = None
    """A scope it is declared in, activated once it is declared."""
    arguments: dict[str, Any] | None = None
    """What the model calls it with; none: the table's `arguments`."""

    page: tuple[PageMove, ...] | None = None
    """What the page does once it is declared, in order; none: activate its `scope`. A row
    with `page` is checked only for what those moves leave: `refused`, or (none) that it
    asks and runs as its policy says."""
    refused: RefusalCode | None = None
    """The code its call answers, before any prompt, after `page`."""

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        if (self.policy == "handoff") != (self.handoff is not None):
            raise ValueError("policy \"handoff\" and a `handoff` block go together: give both "
                             "or neither")
        if self.refused is not None and self.page is None:
            raise ValueError("a `refused` row says how the page makes it unavailable: give "
                             "`page`")
        if self.page is not None and self.refused is None and self.policy not in ("ask",
                                                                                  "ask-always"):
            raise ValueError("a row whose `page` leaves it available is checked asking: give "
                             "it an asking policy, or `refused`")
        if self.page is not None and self.scope is None and any("scope" in move
                                                                 for move in self.page):
            raise ValueError("`page` moves a scope: give the row its `scope`")
        return self


class TestbedTable(Row):
    """The rows, and what they share: the `user_requests` name (its words hold `{id}`) that
    makes the scripted model call a row's action, its params and arguments."""

    __test__ = False

    asked_with: Annotated[str, Field(pattern=r"^[a-z][a-z0-9_-]*$")]
    params: dict[str, Any]
    arguments: dict[str, Any]
    rows: dict[RowName, TestbedRow] = Field(min_length=1)

    def check_against(self, *, path: Path, user_requests: Sequence[str]) -> None:
        """`asked_with` is one of the tutorial's user_requests; else a TableError naming the
        file and the field."""
        if self.asked_with not in user_requests:
            raise TableError(f"{path}: field asked_with: {self.asked_with!r} is not one of the "
                             f"tutorial's user_requests ({', '.join(sorted(user_requests))})")

    def declaration(self, name: str) -> dict[str, Any]:
        """What a check registers on the testbed for row `name` (`window.plingTestbed.declare`)."""
        row = self.rows[name]
        declared: dict[str, Any] = {
            "id": action_id(name), "desc": f"Testbed row {name}", "kind": row.kind,
            "confirm": row.confirm,
            "params": row.params if row.params is not None else self.params}
        if row.scope is not None:
            declared["scope"] = row.scope
        if row.handoff is not None:
            declared["handoff"] = {"timeout": row.handoff.timeout}
        return declared

    def call_arguments(self, name: str) -> dict[str, Any]:
        row = self.rows[name]
        return dict(row.arguments if row.arguments is not None else self.arguments)

    def action_row(self, name: str) -> ActionRow:
        """Row `name` as an action row: its policy, its run the testbed's recorded POST. A
        handoff row's has no `handoff` block (no business steps or done state of the
        tutorial's: the testbed's Finish is its done), so it is built unvalidated; its
        checks read the timeout from the testbed row (`TestbedRun.handoff_timeout_ms`)."""
        calls = ApiRequest(method="POST", path=f"{TESTBED_RUN_PATH}{action_id(name)}")
        policy = self.rows[name].policy
        if policy == "handoff":
            return ActionRow.model_construct(asked_with=self.asked_with, policy=policy,
                                             calls=calls)
        return ActionRow(asked_with=self.asked_with, policy=policy, calls=calls)


def action_id(name: str) -> str:
    """The id row `name` is declared under on the testbed (`danger-confirm-true` →
    `danger_confirm_true`)."""
    return name.replace("-", "_")


def path_of_testbed_table(tutorial_directory: Path) -> Path:
    return tutorial_directory / TESTBED_TABLE_FILE_NAME


def load_testbed_table(path: Path) -> TestbedTable:
    """The table at `path`; an unreadable or invalid file raises a TableError naming the file
    and the field."""
    return load_json_model(path, TestbedTable, TableError)

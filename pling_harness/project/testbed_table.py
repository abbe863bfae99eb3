"""A tutorial's testbed table (`tutorials/<id>/testbed-actions.json`): rows the runtime itself
promises, each declared on the harness's testbed page (`/testbed/`) rather than on the
tutorial's page. A row is the declaration a check registers there (kind, confirm, params,
scope) and the policy SPEC §2 gives it; each row becomes an action row
(`pling_harness.project.action_table.ActionRow`) whose business request is the testbed's own
`POST /api/testbed/run/<id>`, so the generated kinds run over it as over the tutorial's actions
(`pling_harness.plugin.declared.testbed_run`). It is for a runtime's own rules (the policy
table), which no one tutorial page can show in full; a tutorial's own actions belong in
`actions.json`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field

from pling_harness.project.action_table import ActionId, ActionRow, Row, TableError
from pling_harness.project.contract import ApiRequest
from pling_harness.project.datafile import load_json_model

TESTBED_TABLE_FILE_NAME = "testbed-actions.json"
# Where the testbed page's actions send their runs; the server records each one.
TESTBED_RUN_PATH = "/api/testbed/run/"

RowName = Annotated[str, Field(pattern=r"^[a-z][a-z0-9-]*$", max_length=60)]


class TestbedRow(Row):
    """One declaration on the testbed and the policy the runtime must give it."""

    __test__ = False  # a table row, whatever pytest makes of its name

    kind: Literal["read", "write", "danger"]
    confirm: bool | Literal["always"] | None = None
    """As declared; absent (null) is a row of its own in SPEC §2."""
    policy: Literal["none", "ask", "ask-always"]
    params: dict[str, Any] | None = None
    """Its JSON Schema; none: the table's `params`."""
    scope: ActionId | None = None
    """A scope it is declared in, activated once it is declared."""
    arguments: dict[str, Any] | None = None
    """What the model calls it with; none: the table's `arguments`."""


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
        return declared

    def call_arguments(self, name: str) -> dict[str, Any]:
        row = self.rows[name]
        return dict(row.arguments if row.arguments is not None else self.arguments)

    def action_row(self, name: str) -> ActionRow:
        """Row `name` as an action row: its policy, its run the testbed's recorded POST."""
        return ActionRow(asked_with=self.asked_with, policy=self.rows[name].policy,
                         calls=ApiRequest(method="POST",
                                          path=f"{TESTBED_RUN_PATH}{action_id(name)}"))


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

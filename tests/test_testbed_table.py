"""The testbed table (`tutorials/<id>/testbed-actions.json`): validated with errors naming the
file and the field, held to its tutorial's user requests, each row turned into the
declaration registered on the testbed and into checks with stable ids; SPEC §2's rows in
r-15's table resolve as the table says."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pling_harness.plugin.declared.testbed_run import checks_of_testbed_rows
from pling_harness.plugin.guarantee_registry import registry
from pling_harness.project.action_table import TableError
from pling_harness.project.testbed_table import (
    TestbedTable,
    load_testbed_table,
    path_of_testbed_table,
)
from pling_harness.project.tutorials import load_tutorial

ROOT = Path(__file__).resolve().parents[1]
R15 = load_tutorial("r-15", ROOT)
VALID: dict[str, Any] = {"asked_with": "run_action", "params": {"type": "object"},
                         "arguments": {}, "rows": {"read": {"kind": "read", "policy": "none"}}}


def r15_testbed_table() -> TestbedTable:
    return load_testbed_table(path_of_testbed_table(R15.directory(ROOT)))


def resolved_policy(kind: str, confirm: bool | str | None) -> str:
    """SPEC §2, first match wins (written out here to hold the table to the spec)."""
    if confirm is False:
        return "none"
    if confirm == "always" or kind == "danger":
        return "ask-always"
    return "ask" if confirm is True else "none"


def test_r15_table_holds_every_kind_and_confirm_of_spec_2_with_its_policy() -> None:
    table = r15_testbed_table()
    table.check_against(path=Path("t.json"), user_requests=list(R15.user_requests))
    rows = {(row.kind, row.confirm): row.policy for row in table.rows.values()
            if row.page is None and row.handoff is None}  # the policy rows
    assert set(rows) == {(kind, confirm) for kind in ("read", "write", "danger")
                         for confirm in (False, True, "always", None)}
    assert rows == {key: resolved_policy(*key) for key in rows}


@pytest.mark.parametrize(("change", "says"), [
    ({"rows": {"read": {"kind": "read", "policy": "none", "colour": "red"}}},
     "field rows.read.colour: Extra inputs are not permitted"),
    ({"rows": {"read": {"kind": "read", "policy": "hand-off"}}}, "field rows.read.policy"),
    ({"rows": {"read": {"kind": "danger", "policy": "handoff"}}},
     "policy \"handoff\" and a `handoff` block go together"),
    ({"rows": {"read": {"kind": "danger", "policy": "ask-always",
                        "handoff": {"timeout": 3000}}}}, "go together"),
    ({"rows": {"read": {"kind": "danger", "policy": "handoff", "handoff": {"timeout": 999}}}},
     "field rows.read.handoff.timeout"),
    ({"rows": {"read": {"kind": "read", "policy": "none", "refused": "UNAVAILABLE"}}},
     "give `page`"),
    ({"rows": {"read": {"kind": "read", "policy": "none", "page": ["switch-off"]}}},
     "give it an asking policy, or `refused`"),
    ({"rows": {"read": {"kind": "read", "policy": "none", "page": ["deactivate-scope"],
                        "refused": "OUT_OF_SCOPE"}}}, "give the row its `scope`"),
    ({"rows": {"read": {"kind": "read", "policy": "none", "page": ["hide"],
                        "refused": "UNAVAILABLE"}}}, "field rows.read.page.0"),
    ({"rows": {"Read_it": {"kind": "read", "policy": "none"}}}, "rows.Read_it"),
])
def test_an_invalid_table_names_the_file_and_the_field(tmp_path: Path, change: dict[str, Any],
                                                       says: str) -> None:
    path = tmp_path / "testbed-actions.json"
    path.write_text(json.dumps({**VALID, **change}), encoding="utf-8")
    with pytest.raises(TableError) as raised:
        load_testbed_table(path)
    assert str(path) in str(raised.value) and says in str(raised.value)


def test_a_user_request_its_tutorial_lacks_is_an_error_naming_the_field() -> None:
    table = TestbedTable.model_validate({**VALID, "asked_with": "nope"})
    with pytest.raises(TableError, match=r"t.json: field asked_with: 'nope' is not one of"):
        table.check_against(path=Path("t.json"), user_requests=["run_action"])


def test_a_row_is_declared_with_its_own_fields_or_the_tables() -> None:
    table = TestbedTable.model_validate({**VALID, "rows": {
        "danger-confirm-true": {"kind": "danger", "confirm": True, "policy": "ask-always",
                                "scope": "wizard", "params": {"type": "object",
                                                              "properties": {}}},
        "write": {"kind": "write", "policy": "none", "arguments": {"note": "x"}}}})
    assert table.declaration("danger-confirm-true") == {
        "id": "danger_confirm_true", "desc": "Testbed row danger-confirm-true",
        "kind": "danger", "confirm": True, "scope": "wizard",
        "params": {"type": "object", "properties": {}}}
    assert table.declaration("write")["params"] == VALID["params"]
    assert table.declaration("write")["confirm"] is None  # absent: a row of its own
    assert table.call_arguments("write") == {"note": "x"}
    run = table.action_row("danger-confirm-true")
    assert (run.policy, run.asked_with) == ("ask-always", "run_action")
    assert run.calls is not None
    assert run.calls.describe() == "POST /api/testbed/run/danger_confirm_true"


def test_a_handoff_row_is_declared_with_its_timeout_and_checked_for_it_alone() -> None:
    table = TestbedTable.model_validate({**VALID, "rows": {
        "handoff-3s": {"kind": "danger", "policy": "handoff", "handoff": {"timeout": 3000}}}})
    assert table.declaration("handoff-3s")["handoff"] == {"timeout": 3000}
    assert table.action_row("handoff-3s").policy == "handoff"
    assert [(c.id, c.guarantees) for c in checks_of_testbed_rows(table)] == [
        ("testbed-handoff-3s-handoff-timeout", ("handoff-custom-timeout",))]


def test_a_row_the_page_moves_is_checked_for_what_the_moves_leave_alone() -> None:
    table = TestbedTable.model_validate({**VALID, "rows": {
        "off": {"kind": "danger", "policy": "ask-always", "page": ["switch-off"],
                "refused": "UNAVAILABLE"},
        "on-again": {"kind": "write", "confirm": True, "policy": "ask", "scope": "editor",
                     "page": ["activate-scope", "switch-off", "switch-on"]},
        "wizard": {"kind": "danger", "policy": "ask-always", "scope": "wizard", "page": [],
                   "refused": "OUT_OF_SCOPE"}}})
    assert [c.id for c in checks_of_testbed_rows(table)] == [
        "testbed-off-refused-before-prompt", "testbed-on-again-asks-and-runs-again",
        "testbed-wizard-refused-before-prompt"]
    assert all(c.guarantees == ("rejected-before-prompt",)
               for c in checks_of_testbed_rows(table))
    assert table.declaration("wizard")["scope"] == "wizard"  # declared, never activated


def test_r15_testbed_checks_have_stable_ids_each_naming_a_check() -> None:
    checks = checks_of_testbed_rows(r15_testbed_table())
    assert all(check.check in registry().kinds for check in checks)
    ids = [check.id for check in checks]
    assert ids[:3] == ["testbed-read-confirm-false-policy-table",
                       "testbed-write-confirm-false-policy-table",
                       "testbed-danger-confirm-false-policy-table"]
    assert "testbed-danger-ask-always-never-granted" in ids
    assert "testbed-write-confirm-true-session-grant-for-ask" in ids
    assert "testbed-read-session-grant-for-ask" not in ids  # `none` asks nothing
    # 12 policy rows: 12 policy-table, a grant check for each of the 7 that ask, approval and
    # denial on the first row of each asking policy; 4 handoff timeouts; 8 refusals and 2
    # switches undone.
    assert len(ids) == len(set(ids)) == 12 + 7 + 2 * 2 + 4 + 8 + 2
    assert [i for i in ids if i.endswith("denial-respected")] == [
        "testbed-danger-confirm-always-denial-respected",
        "testbed-read-confirm-true-denial-respected"]

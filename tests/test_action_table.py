"""The action table (`tutorials/<id>/actions.json`): validated with errors naming the file and
the field, held to its tutorial and to the page's projection, and turned into checks with
stable ids; the argument examples are the same every run unless asked otherwise."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import strategies as st

from pling_harness.evidence.arguments import invalid_calls, valid_arguments
from pling_harness.plugin.declared.examples import EXAMPLE_OPTION, run_examples
from pling_harness.plugin.declared.matrix import declared_checks
from pling_harness.plugin.guarantee_registry import registry
from pling_harness.project.action_table import (
    ActionTable,
    TableError,
    action_table_path,
    load_action_table,
)
from pling_harness.project.tutorials import load_tutorial

R15 = "r-15"
ROOT = Path(__file__).resolve().parents[1]


def r15_table() -> tuple[ActionTable, Path]:
    path = action_table_path(load_tutorial(R15, ROOT).directory(ROOT))
    return load_action_table(path), path


def write(tmp_path: Path, table: dict[str, Any]) -> Path:
    path = tmp_path / "actions.json"
    path.write_text(json.dumps(table), encoding="utf-8")
    return path


def test_r15_table_holds_to_its_tutorial() -> None:
    table, path = r15_table()
    tutorial = load_tutorial(R15, ROOT)
    table.check_against(path=path, user_requests=list(tutorial.user_requests),
                        initial_state=tutorial.api.initial_state,
                        business_view=list(tutorial.page.business_view))
    assert table.names() == sorted(["get_workspace", "save_workspace_name", "archive_workspace",
                                    "reset_workspace", "publish_changes"])


@pytest.mark.parametrize(("row", "says"), [
    ({"asked_with": "status", "policy": "sometimes"}, "field actions.get_it.policy"),
    ({"asked_with": "status", "policy": "none", "colour": "red"},
     "field actions.get_it.colour: Extra inputs are not permitted"),
    ({"asked_with": "status", "policy": "handoff"}, "policy \"handoff\" and a `handoff` block"),
    ({"asked_with": "status", "policy": "none", "effect": {"archived": True}},
     "must say which business request makes it (`calls`)"),
    ({"asked_with": "status", "policy": "none", "effect": {"archived": True},
      "calls": {"method": "GET", "path": "/api/workspace/archive"}},
     "a GET request changes nothing"),
])
def test_an_invalid_row_names_the_file_and_the_field(tmp_path: Path, row: dict[str, Any],
                                                     says: str) -> None:
    path = write(tmp_path, {"actions": {"get_it": row}})
    with pytest.raises(TableError) as raised:
        load_action_table(path)
    assert str(path) in str(raised.value)
    assert says in str(raised.value)


def test_a_table_that_is_not_json_says_where(tmp_path: Path) -> None:
    path = tmp_path / "actions.json"
    path.write_text('{"actions": ', encoding="utf-8")
    with pytest.raises(TableError, match=r"actions.json: not valid JSON \(line 1"):
        load_action_table(path)


@pytest.mark.parametrize(("row", "says"), [
    ({"asked_with": "lunch", "policy": "none"},
     "field actions.get_it.asked_with: 'lunch' is not one of the tutorial's user_requests"),
    ({"asked_with": "status", "policy": "ask", "calls": {"method": "POST", "path": "/api/x"},
      "effect": {"colour": "red"}},
     "field actions.get_it.effect: ['colour'] not in the tutorial's api.initial_state"),
    ({"asked_with": "status", "policy": "none", "shows": {"colour": "red"}},
     "field actions.get_it.shows: ['colour'] not in the tutorial's page.business_view"),
])
def test_a_name_its_tutorial_does_not_declare_is_an_error(tmp_path: Path, row: dict[str, Any],
                                                          says: str) -> None:
    path = write(tmp_path, {"actions": {"get_it": row}})
    tutorial = load_tutorial(R15, ROOT)
    with pytest.raises(TableError) as raised:
        load_action_table(path).check_against(
            path=path, user_requests=list(tutorial.user_requests),
            initial_state=tutorial.api.initial_state,
            business_view=list(tutorial.page.business_view))
    assert str(path) in str(raised.value) and says in str(raised.value)


def test_table_and_projection_that_disagree_name_both_sides() -> None:
    table, _ = r15_table()
    assert table.stale_against(table.names()) is None
    projected = [name for name in table.names() if name != "reset_workspace"] + ["delete_all"]
    said = table.stale_against(projected)
    assert said is not None
    assert "the page offers the model ['delete_all'], which the table does not list" in said
    assert "the table lists ['reset_workspace'], which the page does not offer" in said


def test_r15_matrix_ids_are_stable_and_each_names_a_check() -> None:
    checks = declared_checks(r15_table()[0])
    ids = [check.id for check in checks]
    assert len(ids) == len(set(ids))
    # Each names a kind a guarantee declares, proving that guarantee first.
    kinds = registry().kinds
    assert all(kinds[check.check][0].name == check.guarantees[0] for check in checks)
    # The tutorial's words first (a copy mutant meets them first), then the table's order;
    # these are what shards and durations key on.
    assert ids[:4] == ["table-copy-files-agree", "table-page-speaks-its-locale",
                       "get_workspace-policy-table", "get_workspace-declared-effect"]
    # Each action's notices; a handoff's timeout; a failed run of one that changes state.
    assert {"get_workspace-notices-mean-their-codes", "archive_workspace-notices-mean-their-codes",
            "publish_changes-timeout-notice-means-its-code",
            "save_workspace_name-run-failure-notice-means-its-code"} <= set(ids)
    assert "get_workspace-run-failure-notice-means-its-code" not in ids  # a read changes nothing
    assert "archive_workspace-denial-respected" in ids
    assert "archive_workspace-ask-always-never-granted" in ids
    assert "save_workspace_name-session-grant-for-ask" in ids
    assert "archive_workspace-session-grant-for-ask" not in ids  # "always" is for ask alone
    assert "publish_changes-handoff-timeout" in ids
    assert "get_workspace-approval-before-side-effects" not in ids  # policy none asks nothing
    # What waits on the user (a card, a handoff) is ended by a new conversation; a read waits
    # on nobody.
    assert {"save_workspace_name-new-conversation-ends-pending",
            "archive_workspace-new-conversation-ends-pending",
            "publish_changes-new-conversation-ends-pending"} <= set(ids)
    assert "get_workspace-new-conversation-ends-pending" not in ids
    assert "publish_changes-handoff-steps-advance" in ids
    # Each request that changes the state is refused when sent another way than its page's;
    # a read (get_workspace) changes nothing another site could want.
    assert {f"{action}-refuses-foreign-requests" for action in (
        "save_workspace_name", "archive_workspace", "reset_workspace", "publish_changes")
            } <= set(ids)
    assert "get_workspace-refuses-foreign-requests" not in ids
    # Every action registered once as served, after a re-render and after a remount, each
    # lifecycle its own check (n/a apart where the driver names no page hooks).
    by_id = {check.id: check.guarantees for check in checks}
    for action in ("get_workspace", "save_workspace_name", "archive_workspace",
                   "reset_workspace", "publish_changes"):
        assert {f"{action}-registered-once-{lifecycle}"
                for lifecycle in ("as-served", "rerender", "remount")} <= set(ids)
    assert by_id["get_workspace-registered-once-remount"] == (
        "projection-complete", "calls-one-after-another")
    assert by_id["archive_workspace-registered-once-as-served"] == (
        "projection-complete", "approval-before-side-effects", "denial-respected")
    assert by_id["publish_changes-registered-once-rerender"] == (
        "projection-complete", "handoff-no-stacking")
    # What every tutorial's server promises whatever its actions, once per locale, last.
    # The table's own checks come last (those after the actions'), once each, in their order.
    table_checks = [kind.name for kind in registry().of("table") if kind.order >= 0]
    assert ids[-len(table_checks):] == [f"table-{check}" for check in table_checks]
    assert {"table-projection-complete", "table-endpoints-refuse-foreign-requests",
            "table-dev-server-refuses-other-sites", "table-new-document-starts-clean",
            "table-nothing-reaches-the-next-test", "table-provider-faults",
            "table-repeated-call-id-refused"} <= set(ids[-len(table_checks):])


def test_a_one_step_handoff_has_no_step_to_advance(tmp_path: Path) -> None:
    done = {"request": {"method": "POST", "path": "/api/workspace/publish"},
            "state": {"published": True}}
    path = write(tmp_path, {"actions": {"publish_changes": {
        "asked_with": "publish", "policy": "handoff", "effect": {"published": True},
        "handoff": {"steps": [{"click": "publish_changes"}], "done": done}}}})
    checks = [check.check for check in declared_checks(load_action_table(path))]
    assert "handoff-no-stacking" in checks
    assert "handoff-steps-advance" not in checks


def test_r15_matrix_proves_every_guarantee_of_each_policy() -> None:
    proven: dict[str, set[str]] = {}
    for check in declared_checks(r15_table()[0]):
        proven.setdefault(check.action, set()).update(check.guarantees)
    assert {"approval-before-side-effects", "denial-respected", "session-grant-for-ask",
            "approval-shows-exact-arguments", "declared-effect", "success-after-business-answer",
            "hidden-characters-refused", "rejected-before-prompt"} <= proven["save_workspace_name"]
    assert {"ask-always-never-granted", "rejected-before-prompt"} <= proven["archive_workspace"]
    assert {"handoff-cancel", "handoff-timeout", "handoff-done-requires-expect",
            "success-only-after-published", "handoff-never-writes-target"
            } <= proven["publish_changes"]


PARAMS = {"type": "object", "properties": {"name": {"type": "string", "minLength": 1,
                                                      "maxLength": 12}},
          "required": ["name"], "additionalProperties": False}


def drawn_by(config: Any, nodeid: str) -> list[dict[str, Any]]:
    seen: list[dict[str, Any]] = []
    run_examples(config, nodeid, edges=[], drawn=valid_arguments(PARAMS, {"name": ("blank",)}),
                 check=seen.append)
    return seen


class Options:
    def __init__(self, **given: str | None) -> None:
        self.given = given

    def getoption(self, name: str) -> str | None:
        return self.given.get(name)


def test_drawn_examples_are_the_same_every_run_and_differ_per_check() -> None:
    fixed = Options(**{"--pling-seed": "0", EXAMPLE_OPTION: None})
    first = drawn_by(fixed, "a.json::test_declared[x]")
    assert first == drawn_by(fixed, "a.json::test_declared[x]")
    assert first != drawn_by(fixed, "a.json::test_declared[y]")
    assert all(1 <= len(example["name"]) <= 12 and example["name"].strip() for example in first)


def test_a_failing_example_is_shrunk_and_printed_with_the_option_that_replays_it() -> None:
    config = Options(**{"--pling-seed": "0", EXAMPLE_OPTION: None})

    def fails_on_long(arguments: dict[str, Any]) -> None:
        assert len(arguments["name"]) < 3, "too long"

    with pytest.raises(AssertionError) as raised:
        run_examples(config, "t::c", edges=[{"name": "ok"}],
                     drawn=st.fixed_dictionaries({"name": st.text("ab", min_size=3,
                                                                   max_size=9)}),
                     check=fails_on_long)
    notes = "\n".join(getattr(raised.value, "__notes__", []))
    assert 'generated example: {"name": "aaa"}' in notes  # shrunk to the smallest
    assert f"""replay it: pytest 't::c' {EXAMPLE_OPTION} '{{"name": "aaa"}}'""" in notes
    replayed: list[dict[str, Any]] = []
    run_examples(Options(**{EXAMPLE_OPTION: '{"name": "aaa"}'}), "t::c", edges=[{"name": "ok"}],
                 drawn=st.nothing(), check=replayed.append)
    assert replayed == [{"name": "aaa"}]


def test_invalid_calls_break_each_keyword_of_params() -> None:
    cases = {call.case for call in invalid_calls(PARAMS)}
    assert {"not-json", "not-an-object", "empty", "unexpected-argument", "name-missing",
            "name-wrong-type", "name-too-short", "name-too-long"} <= cases


@pytest.mark.parametrize("given", ["{oops", "[1, 2]"])
def test_a_replayed_example_that_is_no_argument_object_is_a_usage_error(given: str) -> None:
    with pytest.raises(pytest.UsageError, match=f"{EXAMPLE_OPTION} '"):
        run_examples(Options(**{EXAMPLE_OPTION: given}), "t::c", edges=[], drawn=st.nothing(),
                     check=lambda _: None)

"""The generated-mutant tooling without running Stryker: its report parsing and judging, the
plan file, the config and command it gives Stryker, and the incremental file's upkeep."""

from __future__ import annotations

import ast
import datetime as dt
import json
import shlex
from pathlib import Path
from typing import Any

import pytest

from pling_harness.mutation.stryker.plan import (
    Equivalent,
    Group,
    IgnoredLine,
    MutateSpec,
    Plan,
    PlanError,
    load_plan,
    plan_path,
)
from pling_harness.mutation.stryker.render import render_markdown, render_text
from pling_harness.mutation.stryker.report import (
    GroupOutcome,
    MutantRecord,
    ReportError,
    judge,
    read_report,
)
from pling_harness.mutation.stryker.run import (
    FINGERPRINT_KEY,
    GroupPaths,
    check_command,
    compact_incremental,
    fingerprint,
    prepare_incremental,
    stryker_config,
)
from pling_harness.plugin.declared.matrix import declared_checks
from pling_harness.plugin.declared.testbed_run import checks_of_testbed_rows
from pling_harness.project.action_table import (
    ACTION_TABLE_FILE_NAME,
    action_table_path,
    load_action_table,
)
from pling_harness.project.testbed_table import load_testbed_table, path_of_testbed_table

# The harness's own checkout: the project these tests check.
PROJECT_ROOT = Path(__file__).resolve().parents[1]

SOURCE = """export function resolvePolicy(decl) {
  if (decl.confirm === false) return "none";
  emit({ kind: "x" });
  return "ask";
}
"""
PYTEST_FAILURE = """F
=================================== FAILURES ===================================
___________ test_testbed_row[en-chromium] ___________
AssertionError: expected a card
=========================== short test summary info ============================
FAILED ../../../tutorials/r-15/checks/test_rows.py::test_testbed_row[en-chromium] - AssertionError
!!!!!!!!!!!!!!!!!!!!!!!!!! stopping after 1 failures !!!!!!!!!!!!!!!!!!!!!!!!!!!
1 failed in 9.81s
"""


def mutant(id_: str, mutator: str, replacement: str, start: tuple[int, int],
           end: tuple[int, int], status: str, reason: str = "") -> dict[str, Any]:
    return {"id": id_, "mutatorName": mutator, "replacement": replacement,
            "location": {"start": {"line": start[0], "column": start[1]},
                         "end": {"line": end[0], "column": end[1]}},
            "status": status, "statusReason": reason, "static": False,
            "coveredBy": [], "killedBy": ["all"] if status == "Killed" else [],
            "testsCompleted": 1, "duration": 1234, "description": "not kept"}


def stryker_report() -> dict[str, Any]:
    return {
        "schemaVersion": "2",
        "thresholds": {"high": 80, "low": 60},
        "projectRoot": "/home/someone/pling",
        "files": {"pling_harness/web/runtime/policy.js": {
                                              "language": "javascript", "source": SOURCE,
                                              "mutants": [
            mutant("1", "EqualityOperator", 'decl.confirm !== false', (2, 7), (2, 29),
                   "Killed", PYTEST_FAILURE),
            mutant("2", "StringLiteral", '""', (2, 38), (2, 44), "Survived"),
            mutant("3", "BooleanLiteral", "true", (2, 24), (2, 29), "Timeout"),
            mutant("4", "ObjectLiteral", "{}", (3, 8), (3, 21), "Ignored", "debug event"),
            mutant("5", "StringLiteral", '""', (4, 10), (4, 15), "NoCoverage"),
            mutant("6", "BlockStatement", "{}", (1, 37), (5, 2), "RuntimeError"),
        ]}},
        "testFiles": {"": {"tests": [{"id": "all", "name": "All tests"}]}},
    }


@pytest.fixture
def report_file(tmp_path: Path) -> Path:
    path = tmp_path / "mutation.json"
    path.write_text(json.dumps(stryker_report()), encoding="utf-8")
    return path


def by_id(records: list[MutantRecord]) -> dict[str, MutantRecord]:
    return {record.id: record for record in records}


# ---- reading the report -------------------------------------------------------------------


def test_read_report_gives_each_mutant_its_original_code_and_line(report_file: Path) -> None:
    records = by_id(read_report(report_file))

    assert records["1"].original == "decl.confirm === false"
    assert records["1"].replacement == "decl.confirm !== false"
    assert records["1"].where == "pling_harness/web/runtime/policy.js:2"
    assert records["1"].line_text == 'if (decl.confirm === false) return "none";'


def test_read_report_joins_a_mutant_spanning_lines(report_file: Path) -> None:
    block = by_id(read_report(report_file))["6"]

    assert block.original.startswith("{\n  if (decl.confirm")
    assert block.original.endswith('return "ask";\n}')


def test_read_report_names_the_check_that_killed_a_mutant(report_file: Path) -> None:
    records = by_id(read_report(report_file))

    assert records["1"].killed_by == (
        "tutorials/r-15/checks/test_rows.py::test_testbed_row[en-chromium]")
    assert records["2"].killed_by is None


def test_read_report_not_a_stryker_report_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "other.json"
    path.write_text('{"results": []}', encoding="utf-8")

    with pytest.raises(ReportError, match=r"other\.json: not a Stryker mutation report"):
        read_report(path)


# ---- judging ------------------------------------------------------------------------------


def test_judge_counts_timeouts_as_detected_and_leaves_ignored_and_errors_out(
    report_file: Path,
) -> None:
    judgement = judge(read_report(report_file), lambda record: None)

    total = judgement.total
    assert (total.killed, total.timeout, total.survived, total.no_coverage) == (1, 1, 1, 1)
    assert (total.ignored, total.errors) == (1, 1)
    assert total.detected == 2
    assert total.non_equivalent == 4
    assert total.score == 0.5
    assert judgement.ignored_reasons == {"debug event": 1}


def test_judge_equivalent_survivor_leaves_the_total_and_keeps_its_reason(
    report_file: Path,
) -> None:
    def equivalence(record: MutantRecord) -> str | None:
        return "the text is never shown" if record.id == "2" else None

    judgement = judge(read_report(report_file), equivalence)

    assert judgement.total.non_equivalent == 3
    assert [s.record.id for s in judgement.survivors] == ["2", "5"]
    assert [s.record.id for s in judgement.open_survivors] == ["5"]
    assert judgement.survivors[0].equivalent_reason == "the text is never shown"


def test_judge_goal_is_met_only_at_or_above_the_share(report_file: Path) -> None:
    judgement = judge(read_report(report_file), lambda record: None)

    assert judgement.meets(0.5)
    assert not judgement.meets(0.51)


def test_render_lists_every_survivor_with_its_classification(report_file: Path) -> None:
    judgement = judge(read_report(report_file),
                      lambda r: "never shown" if r.id == "2" else None)
    plan = Plan(tutorial="t", groups=(Group(name="policy", mutate=(
        MutateSpec(file="pling_harness/web/runtime/policy.js"),), checks=("test_x.py",)),))
    outcomes = [GroupOutcome(name="policy", report=report_file, seconds=75.0)]

    text = render_text(judgement, plan=plan, outcomes=outcomes)
    markdown = render_markdown(judgement, plan=plan, outcomes=outcomes,
                               when=dt.datetime(2026, 12, 1, tzinfo=dt.UTC),
                               command="pling-tutorial mutate t --generated")

    assert "pling_harness/web/runtime/policy.js:2  StringLiteral  '\"none\"' -> '\"\"'  " \
           "[equivalent: never shown]" in text
    assert "pling_harness/web/runtime/policy.js:4  StringLiteral" in text and "[OPEN]" in text
    assert "DOES NOT meet the goal of 90.0%" in text
    assert markdown.startswith("Measured 2026-12-01 with `pling-tutorial mutate t --generated`")
    assert "**2 of 3 non-equivalent mutants detected (66.7%)**" in markdown
    assert ("| `pling_harness/web/runtime/policy.js:4` | StringLiteral | `` \"ask\" `` "
            "| `` \"\" `` | OPEN |") in markdown
    assert "| policy | 1m15s |" in markdown


# ---- the plan -----------------------------------------------------------------------------


def test_plan_of_r15_is_valid_and_every_group_resolves_today() -> None:
    plan = load_plan(plan_path("r-15-confirmation-and-human-handoff", PROJECT_ROOT))
    checks = PROJECT_ROOT / "tutorials" / plan.tutorial / "checks"

    for group in plan.groups:
        assert group.check_files(checks)
        assert [spec.stryker_pattern(PROJECT_ROOT) for spec in group.mutate]


def test_plan_of_r15_names_only_check_functions_that_exist() -> None:
    plan = load_plan(plan_path("r-15-confirmation-and-human-handoff", PROJECT_ROOT))
    checks = PROJECT_ROOT / "tutorials" / plan.tutorial / "checks"
    generated = {check.id for check in [
        *declared_checks(load_action_table(action_table_path(checks.parent))),
        *checks_of_testbed_rows(load_testbed_table(path_of_testbed_table(checks.parent)))]}
    missing = []
    for group in plan.groups:
        for pattern in group.checks:
            file, _, test = pattern.partition("::")
            if not test:
                continue
            if file == ACTION_TABLE_FILE_NAME:  # a generated check: its id must be collected
                if test.removeprefix("test_declared[").removesuffix("-en-chromium]") not in \
                        generated:
                    missing.append(f"{group.name}: {pattern}")
                continue
            tree = ast.parse((checks / file).read_text(encoding="utf-8"))
            # A function, or a test class's method as pytest names it (`Class::method`).
            defined = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
            defined |= {f"{node.name}::{method.name}" for node in tree.body
                        if isinstance(node, ast.ClassDef) for method in node.body
                        if isinstance(method, ast.FunctionDef)}
            if test not in defined:
                missing.append(f"{group.name}: {pattern}")

    assert not missing, f"the plan names check functions that are gone: {missing}"


def test_mutate_range_is_exact_to_the_character_with_babels_end_column(tmp_path: Path) -> None:
    runtime = tmp_path / "pling_harness" / "web" / "runtime"
    runtime.mkdir(parents=True)
    (runtime / "dock.js").write_text('a\nh({class: "x", "data-decision": "deny"});\nb\n',
                                     encoding="utf-8")
    spec = MutateSpec(file="pling_harness/web/runtime/dock.js", start='"data-decision"',
                      end='"deny"')

    assert spec.stryker_pattern(tmp_path) == "pling_harness/web/runtime/dock.js:2:15-2:38"


def test_mutate_range_spans_lines_from_start_text_through_end_text(tmp_path: Path) -> None:
    runtime = tmp_path / "pling_harness" / "web" / "runtime"
    runtime.mkdir(parents=True)
    (runtime / "dock.js").write_text("a\n  start();\n  b();\n  end();\n", encoding="utf-8")
    spec = MutateSpec(file="pling_harness/web/runtime/dock.js", start="start();", end="end();")

    assert spec.stryker_pattern(tmp_path) == "pling_harness/web/runtime/dock.js:2:2-4:8"


def test_mutate_range_end_text_twice_after_start_is_ambiguous(tmp_path: Path) -> None:
    runtime = tmp_path / "pling_harness" / "web" / "runtime"
    runtime.mkdir(parents=True)
    (runtime / "dock.js").write_text("a\nstart\nend\nend\n", encoding="utf-8")
    spec = MutateSpec(file="pling_harness/web/runtime/dock.js", start="start", end="end")

    with pytest.raises(PlanError, match="'end' occurs 2 times after line 2"):
        spec.stryker_pattern(tmp_path)


def test_mutate_range_anchor_gone_says_the_plan_is_stale(tmp_path: Path) -> None:
    (tmp_path / "pling_harness" / "web" / "runtime").mkdir(parents=True)
    (tmp_path / "pling_harness" / "web" / "runtime" / "dock.js").write_text("a\n", encoding="utf-8")
    spec = MutateSpec(file="pling_harness/web/runtime/dock.js", start="gone", end="a")

    with pytest.raises(PlanError, match="'gone' is no longer found; update the plan"):
        spec.stryker_pattern(tmp_path)


def test_mutate_spec_outside_the_runtime_is_refused() -> None:
    with pytest.raises(ValueError, match=r"must be a \.js file under pling_harness/web/runtime/"):
        MutateSpec(file="pling_harness/server/app.py")


def test_group_check_pattern_matching_nothing_is_stale(tmp_path: Path) -> None:
    (tmp_path / "test_a.py").write_text("", encoding="utf-8")
    group = Group(name="g", mutate=(MutateSpec(file="pling_harness/web/runtime/a.js"),),
                  checks=("test_a.py", "test_gone*.py"))

    with pytest.raises(PlanError, match=r"check pattern 'test_gone\*\.py' matches no file"):
        group.check_files(tmp_path)


def test_group_check_files_keep_the_plan_order_each_once(tmp_path: Path) -> None:
    for name in ("test_a.py", "test_b.py", "test_c.py"):
        (tmp_path / name).write_text("", encoding="utf-8")
    group = Group(name="g", mutate=(MutateSpec(file="pling_harness/web/runtime/a.js"),),
                  checks=("test_c.py", "test_*.py"))

    assert [Path(path).name for path in group.check_files(tmp_path)] == [
        "test_c.py", "test_a.py", "test_b.py"]


def test_group_check_can_select_one_test_function_of_a_file(tmp_path: Path) -> None:
    (tmp_path / "test_a.py").write_text("", encoding="utf-8")
    group = Group(name="g", mutate=(MutateSpec(file="pling_harness/web/runtime/a.js"),),
                  checks=("test_a.py::test_one", "test_a.py"))

    assert group.check_files(tmp_path) == (
        f"{tmp_path / 'test_a.py'}::test_one", str(tmp_path / "test_a.py"))


def test_plan_equivalence_matches_by_line_text_not_line_number() -> None:
    plan = Plan(tutorial="t", groups=(Group(name="g", mutate=(
        MutateSpec(file="pling_harness/web/runtime/a.js"),), checks=("x.py",)),), equivalent=(
        Equivalent(file="pling_harness/web/runtime/a.js", mutator="StringLiteral", replacement='""',
                   line='return "ask";', reason="why"),))

    assert plan.equivalence(file="pling_harness/web/runtime/a.js", mutator="StringLiteral",
                            replacement='""', line='    return "ask";') == "why"
    assert plan.equivalence(file="pling_harness/web/runtime/a.js", mutator="StringLiteral",
                            replacement='"x"', line='return "ask";') is None


# ---- what Stryker is given ----------------------------------------------------------------


def test_check_command_serves_the_sandbox_loads_the_mutant_plugin_and_stops_at_a_failure(
) -> None:
    command = shlex.split(check_command(check_files=["/p/checks/test_a.py"],
                                        root=Path("/p"), locale="en", python="/venv/python"))

    # The sandbox's own pling_harness, so the runtime it serves is the mutated one.
    assert command[:3] == ["/venv/python", "pling_harness/mutation/launch.py",
                           "/p/checks/test_a.py"]
    assert command[command.index("--pling-root") + 1] == "."
    assert command[command.index("--pling-locale") + 1] == "en"
    assert "pling_harness.mutation.stryker.browser_mutant" in command
    assert {"-x", "-rf"} <= set(command)


def test_stryker_config_for_r15_dock_mutates_line_ranges_with_the_command_runner() -> None:
    plan = load_plan(plan_path("r-15-confirmation-and-human-handoff", PROJECT_ROOT))
    paths = GroupPaths(root=PROJECT_ROOT, tutorial_id=plan.tutorial, group="dock")

    config = stryker_config(plan=plan, group=plan.group("dock"), paths=paths, concurrency=1)

    assert config["testRunner"] == "command"
    assert {entry.split(":")[0] for entry in config["mutate"]} == {
        "pling_harness/web/runtime/dock.js", "pling_harness/web/runtime/approval-card.js"}
    assert all(entry.count(":") == 3 for entry in config["mutate"])  # path:line:column-line:column
    assert config["incremental"] is True
    assert config["incrementalFile"] == (
        "tools/stryker/incremental/r-15-confirmation-and-human-handoff/dock.json")
    assert "/tutorials/*/checks" in config["ignorePatterns"]
    assert "!/pling_harness" in config["ignorePatterns"]
    assert config["ignorers"] == ["pling"]


# ---- the incremental file -----------------------------------------------------------------


def test_compact_incremental_keeps_what_reuse_needs_and_the_killing_check(tmp_path: Path) -> None:
    path = tmp_path / "policy.json"
    path.write_text(json.dumps(stryker_report()), encoding="utf-8")

    compact_incremental(path, "abc")

    report = json.loads(path.read_text(encoding="utf-8"))
    assert report[FINGERPRINT_KEY] == "abc"
    assert "projectRoot" not in report
    killed, *_ = report["files"]["pling_harness/web/runtime/policy.js"]["mutants"]
    assert killed["statusReason"] == (
        "FAILED ../../../tutorials/r-15/checks/test_rows.py::test_testbed_row[en-chromium]"
        " - AssertionError")
    assert "duration" not in killed and "description" not in killed
    assert report["files"]["pling_harness/web/runtime/policy.js"]["source"] == SOURCE


def test_prepare_incremental_changed_fingerprint_drops_undetected_mutants(tmp_path: Path) -> None:
    path = tmp_path / "policy.json"
    path.write_text(json.dumps(stryker_report()), encoding="utf-8")
    compact_incremental(path, "before")

    dropped = prepare_incremental(path, "after")

    statuses = [m["status"] for m in json.loads(path.read_text(encoding="utf-8"))
                ["files"]["pling_harness/web/runtime/policy.js"]["mutants"]]
    assert dropped == 3
    assert statuses == ["Killed", "Timeout", "Ignored"]


def test_prepare_incremental_same_fingerprint_keeps_every_result(tmp_path: Path) -> None:
    path = tmp_path / "policy.json"
    path.write_text(json.dumps(stryker_report()), encoding="utf-8")
    compact_incremental(path, "same")
    before = path.read_text(encoding="utf-8")

    assert prepare_incremental(path, "same") == 0
    assert path.read_text(encoding="utf-8") == before


def test_plan_ignore_entry_whose_line_is_gone_is_stale(tmp_path: Path) -> None:
    (tmp_path / "pling_harness" / "web" / "runtime").mkdir(parents=True)
    (tmp_path / "pling_harness" / "web" / "runtime" / "a.js").write_text("const x = 1;\n",
                                                                         encoding="utf-8")
    plan = Plan(tutorial="t", groups=(Group(name="g", mutate=(
        MutateSpec(file="pling_harness/web/runtime/a.js"),), checks=("x.py",)),), ignore=(
        IgnoredLine(file="pling_harness/web/runtime/a.js", line="const y = 2;", reason="why"),))

    with pytest.raises(PlanError, match="'const y = 2;' is no longer a line of"):
        plan.ignored_lines(tmp_path, ("pling_harness/web/runtime/a.js",))


def test_stryker_config_hands_the_groups_ignored_lines_to_the_ignorer() -> None:
    plan = load_plan(plan_path("r-15-confirmation-and-human-handoff", PROJECT_ROOT))
    paths = GroupPaths(root=PROJECT_ROOT, tutorial_id=plan.tutorial, group="executor")

    config = stryker_config(plan=plan, group=plan.group("executor"), paths=paths, concurrency=1)

    ignored = config["pling"]["ignore"]
    assert ignored
    assert {entry["file"] for entry in ignored} == {"pling_harness/web/runtime/executor.js"}
    assert all(set(entry) == {"file", "line", "reason"} for entry in ignored)


def test_fingerprint_changes_with_a_check_file_or_the_checks_run_not_with_the_mutated_file(
    tmp_path: Path,
) -> None:
    checks = tmp_path / "tutorials" / "t" / "checks"
    checks.mkdir(parents=True)
    runtime = tmp_path / "pling_harness" / "web" / "runtime"
    runtime.mkdir(parents=True)
    (tmp_path / "fixtures").mkdir()
    (checks / "test_a.py").write_text("one", encoding="utf-8")
    (runtime / "policy.js").write_text("a", encoding="utf-8")
    mutated = ["pling_harness/web/runtime/policy.js"]
    before = fingerprint(tmp_path, "t", mutated, ["en", "test_a.py"])

    (runtime / "policy.js").write_text("b", encoding="utf-8")
    assert fingerprint(tmp_path, "t", mutated, ["en", "test_a.py"]) == before
    assert fingerprint(tmp_path, "t", mutated, ["en", "test_*.py"]) != before
    (checks / "test_a.py").write_text("two", encoding="utf-8")
    assert fingerprint(tmp_path, "t", mutated, ["en", "test_a.py"]) != before

"""scripts/mutate_gate.py's own reckoning: what counts for and against the score, which
mutants it never runs, and how it reads cosmic-ray's results and its configuration."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

# The harness's own checkout, whose scripts these tests read.
PROJECT_ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = PROJECT_ROOT / "scripts"


@pytest.fixture(scope="module")
def tool() -> ModuleType:
    sys.path.insert(0, str(SCRIPTS))
    try:
        return importlib.import_module("gate_mutants")
    finally:
        sys.path.remove(str(SCRIPTS))


DIFF = """--- mutation diff ---
--- a/m.py
+++ b/m.py
@@ -1,3 +1,3 @@
 def f(a):
-    return a + 1
+    return a - 1
"""


def dump_line(outcome: str | None, worker: str = "normal", output: str = "") -> str:
    item = {"job_id": "j", "mutations": [{
        "module_path": "m.py", "operator_name": "core/ReplaceBinaryOperator_Add_Sub",
        "occurrence": 0, "start_pos": [2, 13], "end_pos": [2, 14], "operator_args": {},
        "definition_name": "f"}]}
    result = {"worker_outcome": worker, "output": output, "test_outcome": outcome,
              "diff": DIFF}
    return json.dumps([item, result])


def test_cosmic_rays_results_become_outcomes_with_the_changed_line(tool: ModuleType) -> None:
    lines = [dump_line("killed"), dump_line("killed", output="timeout"),
             dump_line("survived"), dump_line("incompetent"), dump_line(None, "skipped"),
             dump_line(None, "exception")]

    mutants = tool.read_dump(lines, "m.py")

    assert [m.outcome for m in mutants] == ["killed", "timeout", "survived", "incompetent",
                                            "skipped", "incompetent"]
    assert (mutants[0].line, mutants[0].before, mutants[0].after) == (
        2, "return a + 1", "return a - 1")


def test_a_removed_decorator_is_found_by_its_line_not_the_blank_lines_around_it(
    tool: ModuleType
) -> None:
    diff = ("--- a/m.py\n+++ b/m.py\n@@ -1,6 +1,2 @@\n-\n-# hooks\n"
            "-@pytest.hookimpl(trylast=True)\n def f():\n")

    assert tool.changed_lines(diff) == ("@pytest.hookimpl(trylast=True)", "")


def test_a_listed_equivalent_survivor_leaves_the_score_and_an_unmatched_one_is_stale(
    tool: ModuleType
) -> None:
    mutants = tool.read_dump([dump_line("killed"), dump_line("survived")], "m.py")
    same = tool.Equivalent(module="m.py", line="return a + 1", mutant="return a - 1",
                           reason="a is 0")
    gone = tool.Equivalent(module="m.py", line="x", mutant="y", reason="moved")

    marked, stale = tool.mark_equivalents(mutants, [same, gone])

    assert tool.score(mutants) == (1, 2)
    assert [m.outcome for m in marked] == ["killed", "equivalent"]
    assert marked[1].reason == "a is 0"
    assert tool.score(marked) == (1, 1)
    assert stale == [gone]


def test_mutants_inside_annotations_no_one_evaluates_are_found(tool: ModuleType) -> None:
    source = ("from __future__ import annotations\n"
              "class M:\n"
              "    field: int | None = None\n"
              "def f(a: int | None) -> str | None:\n"
              "    b: int | None = a\n"
              "    return a | 1\n")
    spans = tool.annotation_spans(source)

    assert tool.in_annotation((4, 13), spans) and tool.in_annotation((4, 29), spans)
    assert tool.in_annotation((5, 11), spans)
    assert not tool.in_annotation((3, 15), spans)  # a class's fields are read (pydantic)
    assert not tool.in_annotation((6, 13), spans)


def test_only_names_the_lines_of_top_level_definitions(tool: ModuleType) -> None:
    source = "A = 1\n\ndef f():\n    return 2\n\nclass C:\n    pass\n"

    assert tool.definition_lines(source, ["f", "A"], "m.py") == ["3-4", "1-1"]
    with pytest.raises(tool.ConfigError, match=r"m\.py defines no g at its top level"):
        tool.definition_lines(source, ["g"], "m.py")


def test_the_projects_configuration_reads_and_names_only_modules_that_exist(
    tool: ModuleType
) -> None:
    config = tool.GateConfig.read(SCRIPTS / "mutate_gate.toml")

    assert config.threshold >= 0.9
    for module in config.modules:
        assert (PROJECT_ROOT / module.path).is_file(), module.path
        for test in module.tests:
            assert (PROJECT_ROOT / test.split("::")[0]).is_file(), test


def test_a_configuration_with_an_unknown_field_is_an_error_naming_it(
    tool: ModuleType, tmp_path: Path
) -> None:
    path = tmp_path / "gate.toml"
    path.write_text('threshold = 0.9\ntimeout_factor = 2\nthreshhold = 1\n'
                    '[[modules]]\npath = "m.py"\ntests = ["t.py"]\n', encoding="utf-8")

    with pytest.raises(tool.ConfigError, match="threshhold: Extra inputs are not permitted"):
        tool.GateConfig.read(path)


def test_every_equivalent_in_the_configuration_is_listed_with_its_reason_in_the_docs(
    tool: ModuleType
) -> None:
    config = tool.GateConfig.read(SCRIPTS / "mutate_gate.toml")
    page = (PROJECT_ROOT / "docs" / "gate-mutation.md").read_text(encoding="utf-8")

    unlisted = [e.line for e in config.equivalents
                if e.line.replace("|", "\\|") not in page or e.reason.replace("|", "\\|")
                not in page]
    assert unlisted == [], "docs/gate-mutation.md's survivors table lacks these"

"""A mutant meets its own checks first, each guarantee's only until one fails, and the rest of
the suite only when they did not kill it (`--pling-stop-at-kill`, `--pling-skip-guarantee`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from pling_harness.mutation import run_plugin
from pling_harness.mutation.catalogue import Mutant
from pling_harness.mutation.runner import SuiteInvocation, run_mutant
from pling_harness.plugin.report import SuiteReport, TestRecord

pytest_plugins = ["pytester"]

TUTORIAL_ID = "r-15-confirmation-and-human-handoff"
# The harness's own checkout, whose r-15 page the mutants below change.
PROJECT_ROOT = Path(__file__).resolve().parents[1]
ON_PROJECT = SuiteInvocation(tutorial_id=TUTORIAL_ID, source_root=PROJECT_ROOT)
ON_PROJECT_FOCUSED = SuiteInvocation(tutorial_id=TUTORIAL_ID, source_root=PROJECT_ROOT,
                                     focused=True)
# Checks of two guarantees, "alpha" (denial-respected) and "beta" (no-silent-retry), and one
# of neither (policy-table): real names, as a guarantee no one declared is a collection error.
CHECKS = """
import pytest

@pytest.fixture
def broken():
    raise RuntimeError("a crash, not a failed check")

@pytest.mark.guarantee("denial-respected")
def test_alpha_crashes(broken):
    pass

@pytest.mark.guarantee("denial-respected")
def test_alpha_fails():
    assert False, "alpha broken"

@pytest.mark.guarantee("denial-respected")
def test_alpha_would_fail_again():
    assert False, "alpha broken again"

@pytest.mark.guarantee("no-silent-retry")
def test_beta_holds():
    pass

@pytest.mark.guarantee("no-silent-retry")
def test_beta_fails():
    assert False, "beta broken"

@pytest.mark.guarantee("no-silent-retry")
def test_beta_after_the_kill():
    pass

@pytest.mark.guarantee("policy-table")
def test_gamma_holds():
    pass
"""


def test_stop_at_kill_skips_a_guarantee_once_it_failed_and_stops_when_all_have(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(CHECKS)

    result = pytester.runpytest_subprocess(
        "-p", "no:randomly", "-p", run_plugin.PLUGIN, "-rs",
        "--pling-guarantee", "denial-respected", "--pling-guarantee", "no-silent-retry",
        "--pling-stop-at-kill")

    # The crash does not count: alpha's next check runs and fails; its third is skipped.
    result.assert_outcomes(errors=1, failed=2, passed=1, skipped=1, deselected=1)
    result.stdout.fnmatch_lines([
        "*SKIPPED*a check of denial-respected has failed already*",
        "*a check of each of denial-respected, no-silent-retry has failed*"])
    result.stdout.no_fnmatch_line("*test_beta_after_the_kill*PASSED*")


def test_skip_guarantee_leaves_out_the_checks_of_that_guarantee(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(CHECKS)

    result = pytester.runpytest_subprocess(
        "-p", "no:randomly", "-p", run_plugin.PLUGIN, "--pling-skip-guarantee", "denial-respected",
        "--pling-skip-guarantee", "no-silent-retry")

    result.assert_outcomes(passed=1, deselected=6)


def test_the_runners_options_are_offered_only_with_its_plugin(pytester: pytest.Pytester) -> None:
    offered = pytester.runpytest_subprocess("--help").stdout.str()
    with_plugin = pytester.runpytest_subprocess("-p", run_plugin.PLUGIN, "--help").stdout.str()

    assert "--pling-guarantee" in offered  # a user's filter too
    assert "--pling-stop-at-kill" not in offered and "--pling-skip-guarantee" not in offered
    assert "--pling-stop-at-kill" in with_plugin and "--pling-skip-guarantee" in with_plugin


class FakeSuite:
    """Answers each stage with a canned report and remembers how it was asked."""

    def __init__(self, *reports: SuiteReport) -> None:
        self.reports = list(reports)
        self.stages: list[dict[str, object]] = []

    def __call__(self, invocation: SuiteInvocation, *, served_root: Path,
                 locales: Sequence[str], workdir: Path, also_run: Sequence[str] = (),
                 only_guarantees: Sequence[str] = (), skip_guarantees: Sequence[str] = (),
                 stop_at_first: bool = False, base_url: str | None = None) -> SuiteReport:
        self.stages.append({"only": tuple(only_guarantees), "skip": tuple(skip_guarantees),
                            "stop_at_first": stop_at_first})
        return self.reports.pop(0)


def record(nodeid: str, outcome: str, *guarantees: str) -> TestRecord:
    return TestRecord.model_validate(
        {"nodeid": nodeid, "guarantees": guarantees, "outcome": outcome, "locale": "en"})


def app_mutant() -> Mutant:
    return Mutant.model_validate({
        "name": "page-says-hello", "description": "a harmless change to the page",
        "file": "fixtures/r-15-confirmation-and-human-handoff/app.js",
        "original": "// r-15 · Confirmation and human handoff",
        "replacement": "// r-15 · Confirmation and human handoff (hello)",
        "expected": ["denial-respected"]})


KILLED = SuiteReport(tests=[record("a", "failed", "denial-respected"),
                            record("b", "skipped", "denial-respected")])
NOT_KILLED = SuiteReport(tests=[record("a", "passed", "denial-respected")])
OTHERS_FAIL = SuiteReport(tests=[record("c", "failed", "bilingual-copy")])
OTHERS_PASS = SuiteReport(tests=[record("c", "passed", "bilingual-copy")])


def test_mutant_killed_by_its_own_checks_meets_nothing_else() -> None:
    suite = FakeSuite(KILLED)

    result = run_mutant(app_mutant(), ON_PROJECT, run=suite)

    assert result.verdict == "killed"
    assert suite.stages == [{"only": ("denial-respected",), "skip": (), "stop_at_first": True}]


def test_mutant_its_checks_miss_meets_the_rest_of_the_suite_up_to_a_failure() -> None:
    suite = FakeSuite(NOT_KILLED, OTHERS_FAIL)

    result = run_mutant(app_mutant(), ON_PROJECT, run=suite)

    assert result.verdict == "misattributed"
    assert suite.stages[1] == {"only": (), "skip": ("denial-respected",), "stop_at_first": True}


def test_mutant_nothing_catches_survives() -> None:
    suite = FakeSuite(NOT_KILLED, OTHERS_PASS)

    result = run_mutant(app_mutant(), ON_PROJECT, run=suite)

    assert result.verdict == "survived"


def test_focused_mutant_its_checks_miss_is_not_tried_on_the_rest() -> None:
    suite = FakeSuite(NOT_KILLED)

    result = run_mutant(app_mutant(), ON_PROJECT_FOCUSED,
                        run=suite)

    assert result.verdict == "survived"
    assert len(suite.stages) == 1


def test_a_rows_mutants_are_checked_with_the_check_run_starting_the_copys_page() -> None:
    # `mutate --page react`: the copy is the run's root, so the row's cwd names the copy's
    # page folder; nothing is served beside the run (no --base-url), with or without
    # --external.
    for external in (False, True):
        invocation = SuiteInvocation(tutorial_id=TUTORIAL_ID, source_root=PROJECT_ROOT,
                                     page="react", external=external)
        copy = Path("/tmp/a-mutants-copy")

        command = invocation.command(served_root=copy, report=copy / "report.json",
                                     locales=("en",))

        assert invocation.launches_row
        assert command[command.index("--pling-page") + 1] == "react"
        assert command[command.index("--pling-root") + 1] == str(copy)
        assert "--base-url" not in command
    assert not ON_PROJECT.launches_row
    assert "--pling-page" not in ON_PROJECT.command(served_root=PROJECT_ROOT,
                                                    report=Path("r.json"), locales=())

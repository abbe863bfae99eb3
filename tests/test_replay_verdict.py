"""The release replay's verdict (pling_harness/cli/releases/verdict.py), read from the check runs'
JSON reports: a bug is caught only when a check of each expected guarantee FAILED with that
guarantee's own violation; an error (a page that did not start, a reset that did not happen,
a run with no report) is an error, never a catch."""

from __future__ import annotations

import pytest

from pling_harness.cli.releases.verdict import (
    CheckRun,
    Judged,
    judge_release,
    row_outcome,
    violation_of,
)
from pling_harness.evidence.guarantees import GuaranteeViolation
from pling_harness.evidence.timeline import Timeline
from pling_harness.plugin.report import Outcome, SuiteReport, TestRecord
from pling_harness.plugin.reporting import violation_parts

DENIAL = "denial-respected"
APPROVAL = "approval-honoured"


def violation_message(guarantee: str, problem: str) -> str:
    """The report's message of a real GuaranteeViolation, as the plugin writes it."""
    return violation_parts(GuaranteeViolation(guarantee, problem, Timeline()))[0]


def record(name: str, outcome: Outcome, guarantees: tuple[str, ...] = (DENIAL,),
           message: str | None = None) -> TestRecord:
    return TestRecord(nodeid=f"checks/test_x.py::{name}", guarantees=guarantees,
                      outcome=outcome, message=message,
                      failure=None if message is None else message.splitlines()[0])


def run(*records: TestRecord, interrupted: str | None = None) -> CheckRun:
    """One seat's run holding `records` (a real run holds one check; more test the reader)."""
    return CheckRun(records[0].nodeid, SuiteReport(tests=list(records), interrupted=interrupted))


def test_the_guarantee_a_violation_names_is_read_from_its_real_message() -> None:
    message = violation_message(DENIAL, "the page never showed the denial\nsecond line")
    assert violation_of(record("a", "failed", message=message)) == (DENIAL, message)
    # Any other assertion, even one that mentions a guarantee, is no violation.
    other = f"AssertionError: guarantee '{DENIAL}' violated: written by hand"
    assert violation_of(record("a", "failed", message=other)) is None
    assert violation_of(record("a", "error", message=message)) is None


def test_a_check_of_the_expected_guarantee_failing_with_its_violation_is_a_catch() -> None:
    message = violation_message(DENIAL, "no notice reporting PERMISSION_DENIED")
    judged = judge_release([DENIAL], [run(record("a", "failed", message=message)),
                                      run(record("b", "passed"))])
    assert judged.verdict == "caught"
    assert judged.caught == {DENIAL: message}
    assert (judged.ran, judged.passed) == (2, 1)


def test_an_errored_check_is_an_error_even_when_its_message_is_the_expected_violation() -> None:
    # A reset that did not happen breaks the check's setup: "error", whatever it says.
    message = violation_message(DENIAL, "no notice reporting PERMISSION_DENIED")
    judged = judge_release([DENIAL], [run(record("a", "error", message=message))])
    assert judged.verdict == "error" and judged.caught == {}
    assert "checks/test_x.py::a" in judged.errors


def test_a_page_that_did_not_start_or_a_run_without_report_is_an_error() -> None:
    caught = run(record("a", "failed", message=violation_message(DENIAL, "x")))
    for broken in (CheckRun("checks/test_x.py::b", None, "the page did not start: Vite exited"),
                   CheckRun("checks/test_x.py::b", None)):
        judged = judge_release([DENIAL], [caught, broken])
        assert judged.verdict == "error", broken
        assert judged.errors["checks/test_x.py::b"] in (
            "the page did not start: Vite exited", "the check run wrote no report")


def test_an_interrupted_run_or_a_check_not_run_is_an_error() -> None:
    caught = record("a", "failed", message=violation_message(DENIAL, "x"))
    assert judge_release([DENIAL], [run(caught, interrupted="SIGTERM")]).verdict == "error"
    assert judge_release([DENIAL], [run(caught), run(record("b", "not run"))]).verdict == "error"


def test_each_expected_guarantee_gets_its_own_message_and_needs_its_own_catch() -> None:
    denial = violation_message(DENIAL, "the denial was never shown")
    approval = violation_message(APPROVAL, "the approved call never ran")
    both = judge_release([DENIAL, APPROVAL], [
        run(record("a", "failed", (DENIAL,), denial)),
        run(record("b", "failed", (APPROVAL,), approval))])
    assert both.verdict == "caught"
    assert both.caught == {DENIAL: denial, APPROVAL: approval}

    one = judge_release([DENIAL, APPROVAL], [run(record("a", "failed", (DENIAL,), denial)),
                                             run(record("b", "passed", (APPROVAL,)))])
    assert one.verdict == "failed" and one.caught == {DENIAL: denial}


@pytest.mark.parametrize("failed", [
    # A wait that ran out is no violation of the expected guarantee.
    record("a", "failed", message="AssertionError: the assistant did not settle within 10 s"),
    # Another guarantee's violation, from a check of the expected one.
    record("a", "failed", (DENIAL, APPROVAL), violation_message(APPROVAL, "never ran")),
    # The expected guarantee's violation from a check that does not prove it.
    record("a", "failed", (APPROVAL,), violation_message(DENIAL, "x")),
])
def test_a_failure_that_is_not_the_expected_violation_is_no_catch(failed: TestRecord) -> None:
    judged = judge_release([DENIAL], [run(failed)])
    assert judged.verdict == "failed" and judged.caught == {}
    assert list(judged.failures) == [failed.nodeid]


def test_checks_that_were_all_n_a_prove_nothing_and_are_an_error() -> None:
    judged = judge_release([DENIAL], [run(record("a", "n/a")), run(record("b", "skipped"))])
    assert judged.verdict == "error" and judged.ran == 0


def test_every_check_passing_is_a_pass() -> None:
    judged = judge_release([DENIAL], [run(record("a", "passed")), run(record("b", "n/a"))])
    assert (judged.verdict, judged.ran) == ("passed", 1)


@pytest.mark.parametrize(("buggy", "fixed", "outcome"), [
    ("caught", "passed", "caught"),
    ("caught", None, "open"),
    ("caught", "caught", "failed"),
    ("caught", "failed", "failed"),
    ("passed", "passed", "passed"),
    ("passed", None, "passed"),
    ("failed", "passed", "failed"),
    ("failed", None, "failed"),
    ("error", "passed", "error"),
    ("caught", "error", "error"),
    ("error", None, "error"),
])
def test_a_rows_outcome_from_its_two_releases(buggy: str, fixed: str | None,
                                              outcome: str) -> None:
    assert row_outcome(Judged(buggy),  # type: ignore[arg-type]
                       None if fixed is None else Judged(fixed)) == outcome  # type: ignore[arg-type]

"""What a replay's check runs say about a bug, read from each run's JSON report
(`--pling-report`), and nothing else: no check run's exit code, no first failure copied.

One release's verdict (`judge_release`):
- "error": a check could not be judged: its page or server did not start, its run wrote no
  report or was interrupted, a check errored (its setup or teardown broke, a reset that did
  not happen) or was not run, or no check ran at all (every one n/a or skipped);
- "caught": every expected guarantee has a check proving it that FAILED with that
  guarantee's own violation ("guarantee 'x' violated: ...", GuaranteeViolation's message);
- "passed": every check that ran passed;
- "failed": checks failed, but not as a catch (another assertion, such as a wait that ran
  out, or another guarantee's violation, or not every expected guarantee's).

A row's outcome (`row_outcome`) from its two releases: "caught" (caught on the last buggy
release, passed on the first fixed one), "open" (no fixed release yet: caught on the newest
release), "error" (either release), "passed" (the buggy release passed: the bug was not
caught), "failed" (a failure that is not a catch, on the buggy release, or any failure on the
fixed one). Only "caught" and "open" are as expected; "not replayed" rows say why, from the
releases file.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from pling_harness.plugin.report import SuiteReport, TestRecord

ReleaseVerdict = Literal["caught", "passed", "failed", "error"]
RowOutcome = Literal["caught", "open", "passed", "failed", "error", "not replayed"]
AS_EXPECTED: frozenset[RowOutcome] = frozenset({"caught", "open"})
# GuaranteeViolation's message (pling_harness/evidence/guarantees/violation.py, the report's
# `message` field as pling_harness/plugin/reporting.py writes it): the guarantee it names.
VIOLATION = re.compile(r"^guarantee '(?P<guarantee>[^']+)' violated: (?P<problem>.*)$",
                       re.DOTALL)


def violation_of(record: TestRecord) -> tuple[str, str] | None:
    """(guarantee, the whole message) when `record` failed with a guarantee's violation; None
    for a pass, an error, or a failure of any other assertion."""
    if record.outcome != "failed" or record.message is None:
        return None
    found = VIOLATION.match(record.message)
    return None if found is None else (found.group("guarantee"), record.message)


@dataclass(frozen=True)
class CheckRun:
    """One check replayed in a seat of its own: its report, or why there is none."""

    check: str
    """The check's node id (or, for a seat that failed before its check was known, a name)."""
    report: SuiteReport | None
    problem: str | None = None
    """Why the run could not be judged (page did not start, no report, ...); None when ran."""
    output: str = ""
    """Where the run's output was kept (a folder), for the reader."""


@dataclass(frozen=True)
class Judged:
    """One release's verdict, and what each check said."""

    verdict: ReleaseVerdict
    caught: dict[str, str] = field(default_factory=dict)
    """Expected guarantee -> its own violation's message (first line), on this release."""
    failures: dict[str, str] = field(default_factory=dict)
    """Check -> the first line of a failure that is not an expected guarantee's violation."""
    errors: dict[str, str] = field(default_factory=dict)
    """Check -> why it could not be judged."""
    passed: int = 0
    ran: int = 0


def first_line(text: str | None) -> str:
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    return lines[0] if lines else "(no message)"


def judge_release(expected: Sequence[str], runs: Sequence[CheckRun]) -> Judged:
    """The verdict of one release from its check runs (each its own seat and report)."""
    caught: dict[str, str] = {}
    failures: dict[str, str] = {}
    errors: dict[str, str] = {}
    passed = ran = 0
    for run in runs:
        if run.report is None or run.problem is not None:
            errors[run.check] = run.problem or "the check run wrote no report"
            continue
        if run.report.interrupted is not None:
            errors[run.check] = f"the check run was interrupted: {run.report.interrupted}"
        for record in run.report.tests:
            name = record.nodeid
            if record.outcome in ("error", "not run"):
                errors[name] = f"{record.outcome}: {first_line(record.message or record.failure)}"
                continue
            if record.outcome == "passed":
                passed += 1
                ran += 1
                continue
            if record.outcome != "failed":
                continue  # n/a or skipped: proves nothing either way
            ran += 1
            violation = violation_of(record)
            if (violation is not None and violation[0] in expected
                    and violation[0] in record.guarantees):
                caught.setdefault(violation[0], first_line(violation[1]))
            else:
                failures[name] = first_line(record.message or record.failure)
    if not errors and ran == 0:
        errors["(none)"] = "no check ran: every selected check was n/a or skipped"
    verdict: ReleaseVerdict
    if errors:
        verdict = "error"
    elif set(expected) <= set(caught):
        verdict = "caught"
    elif caught or failures:
        verdict = "failed"
    else:
        verdict = "passed"
    return Judged(verdict, caught, failures, errors, passed, ran)


def row_outcome(buggy: Judged, fixed: Judged | None) -> RowOutcome:
    """A replayed bug's outcome from its buggy release and its fixed one (None: no fixed
    release yet, `buggy` is the newest)."""
    if buggy.verdict == "error" or (fixed is not None and fixed.verdict == "error"):
        return "error"
    if buggy.verdict == "passed":
        return "passed"
    if buggy.verdict == "failed":
        return "failed"
    if fixed is None:
        return "open"
    return "caught" if fixed.verdict == "passed" else "failed"

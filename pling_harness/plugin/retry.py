"""With the HTML report, a failing check is run again once, traced, in the same session.

Playwright Test's way (`retries` with `trace: 'on-first-retry'`): tracing every check would
give each its own context (pytest-playwright traces per context) instead of the warm page,
and double the run's time. So the first run is untraced, on the warm page; a check that
fails there (setup, body or teardown) is run once more on a fresh context with
`--tracing on`, its trace kept in `<output>/<check>-retry1/` (pytest-playwright names the
folder after `execution_count`, as for pytest-rerunfailures). Only the retry's reports are
logged, so pytest, JUnit and the report count the check once; the first run's failure
rides on the retry's first report (`FIRST_TRY_ATTRIBUTE`). A check that passes only on the
retry is flaky: its report is turned into a failure saying so (exit code non-zero, JUnit
`<failure>`), marked with `FLAKY_ATTRIBUTE` for the report writer.

On only when the HTML report chose the tracing (plugin/configure.py): a user who passes
`--tracing` gets exactly that, one run per check, no retry.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from _pytest.runner import runtestprotocol

from pling_harness.plugin.report import FirstTry, ReportExtras
from pling_harness.plugin.report_writer import (
    FIRST_TRY_ATTRIBUTE,
    FLAKY_ATTRIBUTE,
    attach_extras,
    extras_of,
    first_line,
)
from pling_harness.plugin.stash_keys import RETRYING_KEY

# Set on config.option with the HTML report, unless --tracing is given (plugin/configure.py).
RETRY_OPTION = "pling_trace_retry"
# A JUnit property of a flaky check: its first run's failure.
FLAKY_PROPERTY = "pling_flaky"
# pytest-playwright's `output_path` puts attempt N's artifacts in `<check>-retry<N-1>`,
# N read from the item's `execution_count` (pytest-rerunfailures' name).
EXECUTION_COUNT = "execution_count"
RETRY_EXECUTION_COUNT = 2
RETRY_TRACING = "on"


def retries_failures(config: pytest.Config) -> bool:
    return bool(getattr(config.option, RETRY_OPTION, False))


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> bool | None:
    if not retries_failures(item.config):
        return None
    item.ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
    reports = runtestprotocol(item, nextitem=nextitem, log=False)
    first = first_try_of(reports)
    if first is not None and not (item.session.shouldstop or item.session.shouldfail):
        reports = _run_traced(item, nextitem, first, gallery_of(reports))
    for report in reports:
        item.ihook.pytest_runtest_logreport(report=report)
    item.ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
    return True


def _run_traced(item: pytest.Item, nextitem: pytest.Item | None, first: FirstTry,
                gallery: ReportExtras) -> list[pytest.TestReport]:
    """Run `item` again on a fresh context, traced; its reports carry the first try."""
    config = item.config
    # pytest-playwright's option (absent without it: then the retry has no trace to keep).
    tracing = getattr(config.option, "tracing", None)
    if tracing is not None:
        config.option.tracing = RETRY_TRACING
    config.stash[RETRYING_KEY] = True
    setattr(item, EXECUTION_COUNT, RETRY_EXECUTION_COUNT)
    try:
        reports = runtestprotocol(item, nextitem=nextitem, log=False)
    finally:
        if tracing is not None:
            config.option.tracing = tracing
        config.stash[RETRYING_KEY] = False
        delattr(item, EXECUTION_COUNT)
    if not any(report.failed for report in reports):
        mark_flaky(reports, first)
    opening = reports[0]
    setattr(opening, FIRST_TRY_ATTRIBUTE, first.model_dump(mode="json"))
    extras = extras_of(opening)
    extras.gallery = gallery.gallery + extras.gallery
    extras.gallery_notes = gallery.gallery_notes + extras.gallery_notes
    attach_extras(opening, extras)
    return reports


def first_try_of(reports: Sequence[pytest.TestReport]) -> FirstTry | None:
    """How a run failed (None: it did not), told the way the report tells a check's
    failure: the body's failure first, else setup's or teardown's (an error)."""
    failed = [report for report in reports if report.failed]
    if not failed:
        return None
    body = [report for report in failed if report.when == "call"]
    report = (body or failed)[0]
    extras = extras_of(report)
    failure = first_line(report)
    return FirstTry(outcome="failed" if body else "error", failure=failure,
                    message=extras.message or failure, timeline=extras.timeline,
                    details=report.longreprtext,
                    duration=sum(report.duration for report in reports))


def gallery_of(reports: Sequence[pytest.TestReport]) -> ReportExtras:
    """The pictures the first run took (its reports are never logged)."""
    extras = ReportExtras()
    for report in reports:
        taken = extras_of(report)
        extras.gallery += taken.gallery
        extras.gallery_notes += taken.gallery_notes
    return extras


def mark_flaky(reports: Sequence[pytest.TestReport], first: FirstTry) -> None:
    """Turn the retry's body report (or its setup's, when there was no body) into a
    failure saying the check is flaky, so nothing counts it as a pass."""
    report = next((r for r in reports if r.when == "call"), reports[0])
    report.outcome = "failed"
    report.longrepr = (f"flaky: failed on the first run, passed when run again (traced): "
                       f"{first.failure or first.outcome}")
    setattr(report, FLAKY_ATTRIBUTE, True)
    for each in reports:  # JUnit XML writes the teardown report's properties
        each.user_properties.append((FLAKY_PROPERTY, first.failure or first.outcome))


def pytest_report_teststatus(report: pytest.TestReport) -> tuple[str, str, str] | None:
    if getattr(report, FLAKY_ATTRIBUTE, False):
        return "failed", "F", "FLAKY"
    return None

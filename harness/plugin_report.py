"""--pling-report: collect each test's locale, guarantees and outcome into a SuiteReport.

Locale and guarantee names ride on each report's `user_properties` (set at collection),
so the controller of a pytest-xdist run, which never sees the items, still has them; they
also show up as properties in --junitxml.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.report import Outcome, SuiteReport, TestRecord

LOCALE_PROPERTY = "pling_locale"
GUARANTEE_PROPERTY = "pling_guarantee"


def locale_of(item: pytest.Item) -> str | None:
    callspec = getattr(item, "callspec", None)
    value = callspec.params.get("locale") if callspec is not None else None
    return str(value) if value is not None else None


def guarantees_of(item: pytest.Item) -> list[str]:
    """Names from @pytest.mark.guarantee("name") on the test, its class and module, sorted."""
    names: set[str] = set()
    for marker in item.iter_markers("guarantee"):
        if len(marker.args) != 1 or not isinstance(marker.args[0], str) or marker.kwargs:
            raise pytest.UsageError(
                f"{item.nodeid}: @pytest.mark.guarantee takes exactly one name, e.g. "
                f"@pytest.mark.guarantee(\"denial-respected\"); got args={marker.args!r} "
                f"kwargs={marker.kwargs!r}")
        names.add(marker.args[0])
    return sorted(names)


def first_line(report: pytest.TestReport) -> str | None:
    """The failure's first line, e.g. "AssertionError: guarantee 'x' violated: ..."."""
    crash = getattr(report.longrepr, "reprcrash", None)
    text = getattr(crash, "message", None)
    if text is None:
        text = report.longreprtext
    lines = [line for line in str(text).splitlines() if line.strip()]
    return lines[0].strip() if lines else None


class ReportWriter:
    """A pytest plugin object: gathers test outcomes and writes the report at the end."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.records: dict[str, TestRecord] = {}

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        # Everything selected is listed, so a collect-only run reports the guarantees too;
        # a test that never runs (collect-only, -x) stays "skipped".
        for item in session.items:
            self.records[item.nodeid] = TestRecord(
                nodeid=item.nodeid, locale=locale_of(item), guarantees=tuple(guarantees_of(item)),
                outcome="skipped")

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        known = self.records.get(report.nodeid)
        locales = [str(v) for k, v in report.user_properties if k == LOCALE_PROPERTY]
        record = known or TestRecord(
            nodeid=report.nodeid,
            locale=locales[0] if locales else None,
            guarantees=tuple(str(v) for k, v in report.user_properties
                             if k == GUARANTEE_PROPERTY),
            outcome="skipped",
        )
        outcome, failure = self._outcome(report, record)
        self.records[report.nodeid] = record.model_copy(
            update={"outcome": outcome, "failure": failure})

    @staticmethod
    def _outcome(report: pytest.TestReport, record: TestRecord) -> tuple[Outcome, str | None]:
        if report.when == "setup":
            if report.failed:
                return "error", first_line(report)
            return ("skipped", None) if report.skipped else ("passed", None)
        if report.when == "call":
            if report.failed:
                return "failed", first_line(report)
            return ("skipped", None) if report.skipped else ("passed", None)
        # teardown: only a failure here changes a passed test.
        if report.failed and record.outcome == "passed":
            return "error", first_line(report)
        return record.outcome, record.failure

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        SuiteReport(tests=list(self.records.values())).write(self.path)

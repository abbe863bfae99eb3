"""--pling-report and --pling-html: collect each test's locale, guarantees and outcome into a
SuiteReport, and write it as JSON, as an HTML page, or both.

Locale and guarantee names ride on each report's `user_properties` (set at collection),
so the controller of a pytest-xdist run, which never sees the items, still has them; they
also show up as properties in --junitxml. A failure's message and timeline, and the gallery
pictures a test took, ride on the report as the plain attribute `pling_extras` (a dict,
which pytest-xdist carries to the controller like any report attribute). Playwright traces
come from pytest-playwright's `playwright_trace` user property on the teardown report. A
check the HTML report ran again (plugin/retry.py) brings its first run's failure along, and
is "flaky" when it passed only the second time.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path

import pytest

from pling_harness.plugin import launched_page
from pling_harness.plugin.html_report import GALLERY_DIR_NAME, REPORT_FILE_NAME, write_html_report
from pling_harness.plugin.interrupt import interrupted_reason
from pling_harness.plugin.report import (
    CollectionError,
    FirstTry,
    GalleryCapture,
    Outcome,
    ReportExtras,
    ShardRecord,
    SuiteReport,
    TestRecord,
    collection_error_line,
    not_applicable_reason_of,
)
from pling_harness.project.run_choices import ShownChoice

LOCALE_PROPERTY = "pling_locale"
GUARANTEE_PROPERTY = "pling_guarantee"
# pytest-playwright names each trace it keeps in the teardown report's user properties.
TRACE_PROPERTY = "playwright_trace"
EXTRAS_ATTRIBUTE = "pling_extras"
# Set by plugin/retry.py on the reports of a check run again, traced: the first report
# carries the first run's failure (a FirstTry, as a dict); a report that passed only then
# is turned into a failure, marked flaky.
FIRST_TRY_ATTRIBUTE = "pling_first_try"
FLAKY_ATTRIBUTE = "pling_flaky"
# The name the plugin registers its ReportWriter under.
REPORT_PLUGIN_NAME = "pling-report"
# Beside index.html: the report as JSON, what `pling-tutorial merge-reports` reads.
SUITE_FILE_NAME = "report.json"


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


def not_applicable_reason(report: pytest.TestReport) -> str | None:
    """The reason of a check skipped as `n/a (<who>: <why>)` (`<who>: <why>`), else None."""
    if not report.skipped or not isinstance(report.longrepr, tuple):
        return None
    return not_applicable_reason_of(str(report.longrepr[2]).removeprefix("Skipped: "))


def attach_extras(report: pytest.TestReport, extras: ReportExtras) -> None:
    """Put `extras` on `report` (only when it says something), for the report writer."""
    if extras != ReportExtras():
        setattr(report, EXTRAS_ATTRIBUTE, extras.model_dump(mode="json"))


def extras_of(report: pytest.TestReport) -> ReportExtras:
    raw = getattr(report, EXTRAS_ATTRIBUTE, None)
    return ReportExtras.model_validate(raw) if raw is not None else ReportExtras()


def clear_html_report(folder: Path) -> None:
    """Remove what an earlier run wrote there (only the report's own files)."""
    shutil.rmtree(folder / GALLERY_DIR_NAME, ignore_errors=True)
    (folder / REPORT_FILE_NAME).unlink(missing_ok=True)
    (folder / SUITE_FILE_NAME).unlink(missing_ok=True)


class ReportWriter:
    """A pytest plugin object: gathers test outcomes and writes the reports at the end."""

    def __init__(self, *, json_path: Path | None = None, html_folder: Path | None = None,
                 locales: Sequence[str] = (), base_dir: Path | None = None,
                 choices: Sequence[ShownChoice] = (), gallery_taken: bool = False) -> None:
        self.json_path = json_path
        self.choices = list(choices)
        """The run's choices and their sources, as the reports show them."""
        self.html_folder = html_folder
        self.locales = tuple(locales)
        self.base_dir = base_dir or Path.cwd()
        """Where relative artifact paths (pytest-playwright's) start."""
        self.records: dict[str, TestRecord] = {}
        self.gallery: dict[tuple[str, str], GalleryCapture] = {}
        self.gallery_notes: list[str] = []
        self.gallery_taken = gallery_taken
        self.ended: set[str] = set()
        """Checks whose outcome is known: their body ran, or their setup failed or skipped."""
        self.interrupted: str | None = None
        self.collection_errors: list[CollectionError] = []
        self.collected_ids: tuple[str, ...] = ()
        self.shard: ShardRecord | None = None
        """Set by pling_harness/plugin/shards.py when the run is one part of the suite."""

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        # Everything selected is listed, so a collect-only run reports the guarantees too;
        # a test that never runs (collect-only, -x) stays "skipped".
        for item in session.items:
            self.records[item.nodeid] = TestRecord(
                nodeid=item.nodeid, locale=locale_of(item), guarantees=tuple(guarantees_of(item)),
                outcome="skipped")

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: object, ids: Sequence[str]) -> None:
        # A pytest-xdist controller never sees the items, only their ids: enough to list
        # the checks an interrupted run never got to (without locale or guarantees).
        self.collected_ids = self.collected_ids or tuple(ids)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        # A check file that does not import stops the whole run before any check: without
        # this the report would only show checks that never ran, and not why.
        if report.failed:
            self.collection_errors.append(CollectionError(
                nodeid=report.nodeid or ".", error=collection_error_line(report.longreprtext)))

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        known = self.records.get(report.nodeid)
        if report.when == "call" or (report.when == "setup" and not report.passed):
            self.ended.add(report.nodeid)
        locales = [str(v) for k, v in report.user_properties if k == LOCALE_PROPERTY]
        record = known or TestRecord(
            nodeid=report.nodeid,
            locale=locales[0] if locales else None,
            guarantees=tuple(str(v) for k, v in report.user_properties
                             if k == GUARANTEE_PROPERTY),
            outcome="skipped",
        )
        outcome, failure = self._outcome(report, record)
        update: dict[str, object] = {
            "outcome": outcome, "failure": failure,
            "duration": record.duration + report.duration,
        }
        reason = not_applicable_reason(report)
        if reason is not None and report.when in ("setup", "call"):
            update.update(outcome="n/a", reason=reason)
        extras = extras_of(report)
        if report.failed and (report.when != "teardown" or record.outcome == "passed"):
            # This phase's failure is the one the test is reported with (see _outcome).
            update.update(message=extras.message or failure, timeline=extras.timeline,
                          details=report.longreprtext)
        traces = [self.base_dir / str(v) for k, v in report.user_properties
                  if k == TRACE_PROPERTY]
        if traces:
            update["traces"] = record.traces + tuple(str(path) for path in traces)
        first_try = getattr(report, FIRST_TRY_ATTRIBUTE, None)
        if first_try is not None:
            update["first_try"] = FirstTry.model_validate(first_try)
        self.records[report.nodeid] = record.model_copy(update=update)
        for capture in extras.gallery:
            # The first picture of each state per locale wins, whichever worker took it.
            self.gallery.setdefault((capture.state, capture.locale), capture)
        self.gallery_notes += extras.gallery_notes

    @staticmethod
    def _outcome(report: pytest.TestReport, record: TestRecord) -> tuple[Outcome, str | None]:
        flaky = bool(getattr(report, FLAKY_ATTRIBUTE, False))
        if report.when == "setup":
            if report.failed:
                return ("flaky" if flaky else "error"), first_line(report)
            return ("skipped", None) if report.skipped else ("passed", None)
        if report.when == "call":
            if report.failed:
                return ("flaky" if flaky else "failed"), first_line(report)
            return ("skipped", None) if report.skipped else ("passed", None)
        # teardown: only a failure here changes a passed test.
        if report.failed and record.outcome == "passed":
            return "error", first_line(report)
        return record.outcome, record.failure

    def pytest_keyboard_interrupt(self, excinfo: pytest.ExceptionInfo[BaseException]) -> None:
        self.interrupted = interrupted_reason(excinfo.value)

    def suite_report(self) -> SuiteReport:
        tests = list(self.records.values())
        if self.interrupted is not None:
            # What the stop left unfinished did not pass: the check it interrupted (setup
            # passed, body cut off) and those it never got to.
            tests = [test if test.nodeid in self.ended
                     else test.model_copy(update={"outcome": "not run", "failure": None})
                     for test in tests]
            tests += [TestRecord(nodeid=nodeid, outcome="not run")
                      for nodeid in self.collected_ids if nodeid not in self.records]
        shard = self.shard
        if shard is not None and self.html_folder is not None:
            shard = shard.model_copy(update={"folder": str(self.html_folder)})
        return SuiteReport(tests=tests, gallery=list(self.gallery.values()),
                           gallery_notes=self.gallery_notes, gallery_taken=self.gallery_taken,
                           interrupted=self.interrupted,
                           collection_errors=self.collection_errors,
                           shard=shard, choices=self.choices)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        suite = self.suite_report().model_copy(
            update={"page_stopped": launched_page.stopped_early(session.config)})
        if self.json_path is not None:
            suite.write(self.json_path)
        if self.html_folder is not None:
            write_html_report(suite, self.html_folder, locales=self.locales)
            suite.write(self.html_folder / SUITE_FILE_NAME)

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if self.html_folder is not None:
            terminalreporter.write_line(
                f"pling: HTML report written to {self.html_folder / REPORT_FILE_NAME}")

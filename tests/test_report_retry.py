"""The HTML report's retry in a real browser (pling_harness/plugin/retry.py): a passing check runs
once on the warm page and leaves no trace; a failing one is run again on a fresh, traced
context and keeps that trace and its first run's failure; one that fails once is flaky and
fails the run; a user's own --tracing runs nothing twice. (The decisions without a browser:
tests/test_gate_retry.py.)"""

from __future__ import annotations

import re
import urllib.parse
import zipfile
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from pling_harness.cli.main import main
from pling_harness.plugin.report import SuiteReport, TestRecord

pytest_plugins = ["pytester"]

# Fails on its first run only: the model is told to deny the archive, the check expects OK.
FAILS_ONCE = """
from pathlib import Path

import pytest
from pling_harness.evidence import guarantees

@pytest.mark.guarantee("model-received")
def test_archive(tutorial_page, dock, timeline):
    counter = Path("archive.runs")
    first = not counter.exists()
    counter.write_text("ran")
    dock.ask("archive the workspace")
    if first:
        dock.deny()
        guarantees.model_received(timeline, action="archive_workspace", code="OK")
"""
ALWAYS_FAILS = """
import pytest
from pling_harness.evidence import guarantees

@pytest.mark.guarantee("model-received")
def test_archive(tutorial_page, dock, timeline):
    dock.ask("archive the workspace")
    dock.deny()
    guarantees.model_received(timeline, action="archive_workspace", code="OK")
"""
PASSES_ON_THE_WARM_PAGE = """
def test_read(tutorial_page, pling_warm_page):
    assert pling_warm_page is not None and tutorial_page is pling_warm_page.page
"""
COUNTS_ITS_RUNS = """
from pathlib import Path

def test_fails():
    counter = Path("fails.runs")
    counter.write_text(counter.read_text() + "x" if counter.exists() else "x")
    assert False
"""


def only_record(folder: Path) -> TestRecord:
    [record] = SuiteReport.read(folder / "report.json").tests
    return record


def kept_traces(folder: Path) -> list[Path]:
    return sorted((folder / "traces").rglob("*.zip"))


def test_a_check_that_always_fails_keeps_the_retrys_trace_and_its_first_failure(
    pytester: pytest.Pytester, tmp_path: Path, page: Page
) -> None:
    pytester.makepyfile(ALWAYS_FAILS)
    folder = tmp_path / "report"

    result = pytester.runpytest_subprocess("--pling-locale", "en", "--pling-html", str(folder))

    result.assert_outcomes(failed=1)
    record = only_record(folder)
    assert record.outcome == "failed" and record.first_try is not None
    assert record.first_try.failure is not None and \
        "guarantee 'model-received' violated" in record.first_try.failure
    assert record.first_try.timeline is not None and \
        "SHOWN approval action=archive_workspace" in record.first_try.timeline
    [trace] = record.traces
    assert Path(trace).parent.name.endswith("-retry1") and zipfile.is_zipfile(trace)
    assert kept_traces(folder) == [Path(trace)]
    page.goto((folder / "index.html").as_uri())
    entry = page.locator("[data-testid='check'][data-outcome='failed']")
    expect(entry.get_by_test_id("first-try-message")).to_have_text(re.compile(
        r"^guarantee 'model-received' violated"))
    expect(entry.get_by_test_id("first-try-timeline")).to_contain_text("archive_workspace")
    href = entry.get_by_test_id("trace-link").get_attribute("href")
    assert href is not None and (folder / urllib.parse.unquote(href)) == Path(trace)


def test_a_check_that_fails_once_is_flaky_fails_the_run_and_keeps_the_retrys_trace(
    pytester: pytest.Pytester, tmp_path: Path, page: Page
) -> None:
    pytester.makepyfile(FAILS_ONCE)
    folder = tmp_path / "report"

    result = pytester.runpytest_subprocess("--pling-locale", "en", "--pling-html", str(folder))

    assert result.ret == pytest.ExitCode.TESTS_FAILED
    record = only_record(folder)
    assert record.outcome == "flaky"
    assert record.first_try is not None and record.first_try.outcome == "failed"
    [trace] = record.traces
    assert zipfile.is_zipfile(trace)
    page.goto((folder / "index.html").as_uri())
    entry = page.locator("[data-testid='check'][data-outcome='flaky']")
    expect(entry.locator(".badge")).to_have_text("FLAKY")
    expect(entry.get_by_test_id("first-try-message")).to_contain_text("model-received")
    expect(page.get_by_test_id("report-summary")).to_contain_text("0/1 guarantees proven")


def test_a_passing_check_uses_the_warm_page_and_leaves_no_trace(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    pytester.makepyfile(PASSES_ON_THE_WARM_PAGE)
    folder = tmp_path / "report"

    result = pytester.runpytest_subprocess("--pling-locale", "en", "--pling-html", str(folder))

    result.assert_outcomes(passed=1)
    assert only_record(folder).traces == ()
    assert kept_traces(folder) == []


def test_a_users_own_tracing_runs_no_check_twice(pytester: pytest.Pytester,
                                                 tmp_path: Path) -> None:
    pytester.makepyfile(COUNTS_ITS_RUNS)

    pytester.runpytest_subprocess("--pling-html", str(tmp_path / "report"),
                                  "--tracing", "retain-on-failure").assert_outcomes(failed=1)

    assert (pytester.path / "fails.runs").read_text() == "x"


def test_check_with_a_report_passes_without_a_trace(tmp_path: Path,
                                                    capfd: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "report"

    code = main(["check", "r-15", "--locale", "en", "--report", str(folder),
                 "-k", "testbed-read-policy-table", "-q", "-p", "no:cacheprovider"])

    out = capfd.readouterr().out
    assert code == 0, out
    assert {t.outcome for t in SuiteReport.read(folder / "report.json").tests} == {"passed"}
    assert kept_traces(folder) == []

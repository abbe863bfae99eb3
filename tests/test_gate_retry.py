"""The HTML report's retry (pling_harness/plugin/retry.py): a failing check is run again once,
and a check that passes only then is flaky, a failure of the run (exit code, JSON, JUnit),
never a pass; a passing check runs once. Small suites run by pytester in this process
(pytest-playwright left out: its soft-assertion scope is one per process; the browser side,
traces and the warm page, is tests/test_report_retry.py)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Literal

import pytest

from pling_harness.plugin.report import GalleryCapture, ReportExtras, SuiteReport, TestRecord
from pling_harness.plugin.report_writer import attach_extras
from pling_harness.plugin.retry import FLAKY_PROPERTY, gallery_of

pytest_plugins = ["pytester"]

# Each check counts its runs in a file of its own, and fails on the runs it is told to.
SUITE = """
from pathlib import Path

import pytest

def run_number(name):
    counter = Path(name + ".runs")
    runs = int(counter.read_text()) + 1 if counter.exists() else 1
    counter.write_text(str(runs))
    return runs

@pytest.mark.guarantee("denial-respected")
def test_passes():
    run_number("passes")

@pytest.mark.guarantee("denial-respected")
def test_always_fails():
    run = run_number("always_fails")
    assert False, f"broken on run {run}"

@pytest.mark.guarantee("policy-table")
def test_fails_once():
    run = run_number("fails_once")
    assert run > 1, f"broken on run {run}"

@pytest.fixture
def setup_breaks_once():
    run = run_number("setup_breaks_once")
    if run == 1:
        raise RuntimeError("setup broke on run 1")

def test_setup_breaks_once(setup_breaks_once):
    pass

@pytest.mark.skip(reason="not here")
def test_skipped():
    run_number("skipped")
"""


def run(pytester: pytest.Pytester, *args: str
        ) -> tuple[pytest.RunResult, dict[str, TestRecord]]:
    pytester.makepyfile(test_suite=SUITE)
    report = pytester.path / "out" / "report.json"
    result = pytester.runpytest("--pling-report", str(report), "-p", "no:playwright",
                                "-p", "no:cacheprovider", *args)
    records = {t.nodeid.split("::", 1)[1]: t for t in SuiteReport.read(report).tests}
    return result, records


def runs(pytester: pytest.Pytester, name: str) -> int:
    counter = pytester.path / f"{name}.runs"
    return int(counter.read_text()) if counter.exists() else 0


def html(pytester: pytest.Pytester) -> str:
    return str(pytester.path / "html")


def test_with_the_html_report_a_failing_check_runs_twice_and_a_passing_one_once(
    pytester: pytest.Pytester
) -> None:
    run(pytester, "--pling-html", html(pytester))

    assert {name: runs(pytester, name) for name in (
        "passes", "always_fails", "fails_once", "setup_breaks_once", "skipped")} == {
        "passes": 1, "always_fails": 2, "fails_once": 2, "setup_breaks_once": 2,
        "skipped": 0}


def test_a_check_passing_only_when_run_again_is_flaky_and_fails_the_run(
    pytester: pytest.Pytester
) -> None:
    result, records = run(pytester, "--pling-html", html(pytester))

    assert {name: r.outcome for name, r in records.items()} == {
        "test_passes": "passed", "test_always_fails": "failed", "test_fails_once": "flaky",
        "test_setup_breaks_once": "flaky", "test_skipped": "skipped"}
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    # pytest counts each check once: the first runs are never logged.
    result.assert_outcomes(passed=1, failed=3, skipped=1)
    result.stdout.fnmatch_lines(["FLAKY *test_fails_once - flaky: failed on the first run*"])


def test_only_flaky_checks_still_fail_the_run(pytester: pytest.Pytester) -> None:
    result, records = run(pytester, "--pling-html", html(pytester), "-k", "fails_once")

    assert [r.outcome for r in records.values()] == ["flaky"]
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_each_retried_check_keeps_its_first_runs_failure(pytester: pytest.Pytester) -> None:
    _, records = run(pytester, "--pling-html", html(pytester))

    always = records["test_always_fails"]
    assert always.failure == "AssertionError: broken on run 2"
    assert always.first_try is not None
    assert always.first_try.outcome == "failed" and always.first_try.duration > 0
    assert always.first_try.failure == "AssertionError: broken on run 1"
    assert always.first_try.details is not None and "def test_always_fails" in \
        always.first_try.details
    # The whole message, not only its first line.
    assert always.first_try.message == "AssertionError: broken on run 1\nassert False"
    flaky = records["test_fails_once"]
    assert flaky.first_try is not None and flaky.first_try.failure == \
        "AssertionError: broken on run 1"
    assert flaky.failure == ("flaky: failed on the first run, passed when run again (traced): "
                             "AssertionError: broken on run 1")
    setup = records["test_setup_breaks_once"].first_try
    assert setup is not None and setup.outcome == "error"
    assert setup.failure == "RuntimeError: setup broke on run 1"
    assert records["test_passes"].first_try is None


def test_junit_reports_a_flaky_check_once_as_a_failure_naming_its_first_failure(
    pytester: pytest.Pytester
) -> None:
    junit = pytester.path / "junit.xml"
    run(pytester, "--pling-html", html(pytester), f"--junitxml={junit}")

    cases = {case.get("name", ""): case for case in ET.parse(junit).getroot().iter("testcase")}
    assert sorted(cases) == ["test_always_fails", "test_fails_once", "test_passes",
                             "test_setup_breaks_once", "test_skipped"]
    flaky = cases["test_fails_once"]
    failure = flaky.find("failure")
    assert failure is not None and "flaky" in (failure.get("message") or "")
    properties = {p.get("name"): p.get("value") for p in flaky.iter("property")}
    assert properties[FLAKY_PROPERTY] == "AssertionError: broken on run 1"
    assert cases["test_passes"].find("failure") is None


def test_without_the_html_report_nothing_runs_twice(pytester: pytest.Pytester) -> None:
    result, records = run(pytester)

    assert runs(pytester, "always_fails") == runs(pytester, "fails_once") == 1
    assert records["test_fails_once"].outcome == "failed"
    assert records["test_fails_once"].first_try is None
    result.assert_outcomes(passed=1, failed=2, errors=1, skipped=1)


def test_the_report_file_has_the_flaky_outcome(pytester: pytest.Pytester) -> None:
    run(pytester, "--pling-html", html(pytester))

    suite = SuiteReport.read(Path(html(pytester)) / "report.json")
    assert {t.nodeid.split("::", 1)[1]: t.outcome for t in suite.tests}["test_fails_once"] == \
        "flaky"
    assert suite.guarantee_outcomes()[("policy-table", "-")] == "flaky"


# pytest-playwright's option, declared here as it does (it is left out of these runs).
TRACING_OPTION = """
def pytest_addoption(parser):
    parser.addoption("--tracing", default="off")
"""
# Each run of a check writes what it was run with: the tracing, pytest-playwright's
# execution count and the retry's flag (which the `context` fixture reads).
RUN_CONDITIONS = """
from pathlib import Path

import pytest
from pling_harness.plugin.stash_keys import RETRYING_KEY

def write_conditions(request, name):
    seen = (request.config.getoption("--tracing"),
            getattr(request.node, "execution_count", 1),
            request.config.stash.get(RETRYING_KEY, False))
    with Path(name + ".conditions").open("a") as log:
        log.write(repr(seen) + "\\n")

def test_a_fails(request):
    write_conditions(request, "a")
    assert False

def test_b_passes(request):
    write_conditions(request, "b")
"""


def conditions(pytester: pytest.Pytester, name: str) -> list[str]:
    return (pytester.path / f"{name}.conditions").read_text().splitlines()


def test_the_retry_alone_is_traced_and_counted_as_the_second_run(
    pytester: pytest.Pytester
) -> None:
    pytester.makeconftest(TRACING_OPTION)
    pytester.makepyfile(test_conditions=RUN_CONDITIONS)

    pytester.runpytest("-p", "no:playwright", "-p", "no:cacheprovider",
                       "--pling-html", html(pytester))

    assert conditions(pytester, "a") == ["('off', 1, False)", "('on', 2, True)"]
    # Everything is put back for the next check.
    assert conditions(pytester, "b") == ["('off', 1, False)"]


@pytest.mark.parametrize("stop", ["shouldstop", "shouldfail"])
def test_a_run_that_is_stopping_runs_no_check_again(pytester: pytest.Pytester,
                                                     stop: str) -> None:
    pytester.makepyfile(test_stops=f"""
        from pathlib import Path

        def test_stops_the_run(request):
            counter = Path("stops.runs")
            counter.write_text(counter.read_text() + "x" if counter.exists() else "x")
            request.session.{stop} = "stopping"
            assert False
    """)

    pytester.runpytest("-p", "no:playwright", "-p", "no:cacheprovider",
                       "--pling-html", html(pytester))

    assert runs_text(pytester, "stops") == "x"


def runs_text(pytester: pytest.Pytester, name: str) -> str:
    return (pytester.path / f"{name}.runs").read_text()


def test_the_first_runs_pictures_are_kept_in_order() -> None:
    pictures = [GalleryCapture(state=state, title=state, locale="en", image=f"{state}.png",
                               nodeid="t") for state in ("approval-ask", "handoff-step-1")]
    reports = []
    phases: list[tuple[Literal["setup", "call"], GalleryCapture, str]] = [
        ("setup", pictures[0], "one"), ("call", pictures[1], "two")]
    for when, capture, note in phases:
        report = pytest.TestReport("t", ("t.py", 0, "t"), {}, "passed", None, when)
        attach_extras(report, ReportExtras(gallery=[capture], gallery_notes=[note]))
        reports.append(report)

    assert gallery_of(reports) == ReportExtras(gallery=pictures, gallery_notes=["one", "two"])


def test_under_xdist_each_worker_retries_its_failing_checks(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_suite=SUITE)
    report = pytester.path / "out" / "report.json"

    result = pytester.runpytest_subprocess(
        "-n", "2", "--pling-report", str(report), "--pling-html", html(pytester),
        "-p", "no:playwright", "-p", "no:cacheprovider")

    assert runs(pytester, "fails_once") == 2 and runs(pytester, "passes") == 1
    outcomes = {t.nodeid.split("::", 1)[1]: t.outcome for t in SuiteReport.read(report).tests}
    assert outcomes["test_fails_once"] == "flaky"
    assert result.ret == pytest.ExitCode.TESTS_FAILED


# Another plugin's run protocol (registered after ours, as a conftest is), which runs each
# check once the plain way: the retry must still come first.
PLAIN_PROTOCOL = """
from _pytest.runner import runtestprotocol

def pytest_runtest_protocol(item, nextitem):
    item.ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
    runtestprotocol(item, nextitem=nextitem)
    item.ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
    return True
"""


def test_the_retry_runs_ahead_of_another_plugins_run_protocol(
    pytester: pytest.Pytester
) -> None:
    pytester.makeconftest(PLAIN_PROTOCOL)

    run(pytester, "--pling-html", html(pytester), "-k", "fails_once")

    assert runs(pytester, "fails_once") == 2


FIRST_RUN_BREAKS_THEN_SKIPS = """
from pathlib import Path

import pytest

@pytest.fixture
def first_run():
    counter = Path("twice.runs")
    first = not counter.exists()
    counter.write_text("ran")
    return first

@pytest.fixture
def teardown_breaks_on_run_1(first_run):
    yield
    if first_run:
        raise RuntimeError("teardown broke on run 1")

@pytest.fixture
def breaks_twice_on_run_1(teardown_breaks_on_run_1, first_run):
    if first_run:
        raise RuntimeError("setup broke on run 1")

@pytest.fixture
def first_run_breaks():
    counter = Path("skip.runs")
    if not counter.exists():
        counter.write_text("ran")
        raise RuntimeError("broke on run 1")
    pytest.skip("not on this page")

def test_setup_and_teardown_break_once(breaks_twice_on_run_1):
    pass

def test_breaks_then_skips(first_run_breaks):
    pass
"""


def test_a_first_run_is_told_by_its_first_failure_and_a_skipped_retry_is_no_pass(
    pytester: pytest.Pytester
) -> None:
    pytester.makepyfile(test_suite=FIRST_RUN_BREAKS_THEN_SKIPS)
    report = pytester.path / "out" / "report.json"

    result = pytester.runpytest("--pling-report", str(report), "--pling-html", html(pytester),
                                "-p", "no:playwright", "-p", "no:cacheprovider")

    records = {t.nodeid.split("::", 1)[1]: t for t in SuiteReport.read(report).tests}
    first = records["test_setup_and_teardown_break_once"].first_try
    assert first is not None and first.failure == "RuntimeError: setup broke on run 1"
    assert records["test_breaks_then_skips"].outcome == "flaky"
    assert result.ret == pytest.ExitCode.TESTS_FAILED

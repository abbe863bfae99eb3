"""--pling-connect: checks run in a browser another process serves (Playwright's browser server,
started here on 127.0.0.1 with the system Chromium by pling_harness.browser.remote). The served
browser carries a user agent of its own, so a check can tell it is the one driving."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright._impl._driver import compute_driver_executable, get_driver_env

from pling_harness.browser.remote import BrowserServer
from pling_harness.plugin.report import SuiteReport
from pling_harness.server.runner import TutorialServer

# The harness's own checkout: the project these tests check.
PROJECT_ROOT = Path(__file__).resolve().parents[1]

pytest_plugins = ["pytester"]

SERVED_MARK = "pling-served-browser"
CHECKS = PROJECT_ROOT / "tutorials" / "r-15-confirmation-and-human-handoff" / "checks"
# Real r-15 checks that lean on what must cross the connection: the paused clock moved by
# the check (handoff timeout), init scripts and the probe's binding (every timeline),
# trusted user clicks, and the gallery's screenshots (--pling-html).
OVER_THE_CONNECTION = (
    "publish_changes-handoff-timeout or save_workspace_name-session-grant-for-ask"
    " or publish_changes-success-only-after-published or publish_changes-handoff-cancel"
    " or reset_workspace-ask-always-never-granted")
# The checks generated from r-15's action table sit beside its checks folder.
ACTION_TABLE = CHECKS.parent / "actions.json"
SERVED_BROWSER_PROBE = f"""
import pytest

@pytest.mark.guarantee("denial-respected")
def test_runs_in_the_served_browser(tutorial_page, dock, say):
    assert "{SERVED_MARK}" in tutorial_page.evaluate("navigator.userAgent")
    dock.ask(say("archive"))
    dock.deny()
"""
# A page served elsewhere: its model endpoint answered by a Playwright route, in the browser.
EXTERNAL_CHECK = """
import pytest
from pling_harness import calling, guarantees, tool_call

@pytest.mark.guarantee("approval-before-side-effects")
def test_archive_approved(tutorial_page, dock, timeline, model, tutorial_server, say):
    assert "SERVED_MARK" in tutorial_page.evaluate("navigator.userAgent")
    model.script(calling(tool_call("call_scripted", "archive_workspace")))
    dock.ask(say("archive"))
    dock.approve()
    guarantees.approval_before_side_effects(timeline, action="archive_workspace")
    assert model.result_codes("archive_workspace") == ["OK"]
"""


@pytest.fixture(scope="module")
def browser_server() -> Iterator[BrowserServer]:
    with BrowserServer(port=0, args=[f"--user-agent={SERVED_MARK}"]) as server:
        yield server


def endpoint(server: BrowserServer) -> str:
    assert server.endpoint is not None
    return server.endpoint


def test_r15_checks_pass_in_a_browser_served_by_another_process(
    browser_server: BrowserServer, tmp_path: Path
) -> None:
    probe = tmp_path / "test_served_browser_probe.py"
    probe.write_text(SERVED_BROWSER_PROBE, encoding="utf-8")
    report = tmp_path / "report"

    result = subprocess.run(
        [sys.executable, "-m", "pytest", str(CHECKS), str(ACTION_TABLE), str(probe), "--rootdir",
         str(PROJECT_ROOT), "-p", "no:cacheprovider", "--pling-locale", "en",
         "-k", f"runs_in_the_served_browser or {OVER_THE_CONNECTION}",
         "--pling-connect", endpoint(browser_server), "--pling-html", str(report),
         "--pling-gallery"],
        cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=600, check=False)

    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    suite = SuiteReport.read(report / "report.json")
    assert len(suite.tests) == 6 and {t.outcome for t in suite.tests} == {"passed"}
    assert {"handoff-timeout", "session-grant-for-ask"} <= {
        g for t in suite.tests for g in t.guarantees}
    # Screenshots taken in the served browser, saved here.
    assert suite.gallery and not suite.gallery_notes, suite.gallery_notes
    assert all((report / "gallery" / c.image).stat().st_size > 0 for c in suite.gallery)


def test_external_page_checked_through_a_served_browser_answers_the_model_route_there(
    pytester: pytest.Pytester, browser_server: BrowserServer
) -> None:
    pytester.makepyfile(EXTERNAL_CHECK.replace("SERVED_MARK", SERVED_MARK))
    with TutorialServer(tutorial="r-15", environ={}) as target:
        result = pytester.runpytest_subprocess(
            "--pling-locale", "en", "-p", "no:cacheprovider", "--base-url", target.url,
            "--pling-connect", endpoint(browser_server))

        result.assert_outcomes(passed=1)
        assert target.log.records(kind="model.request") == []
        assert target.state.snapshot().archived


def test_connect_to_something_not_a_browser_server_is_a_usage_error_naming_it(
    pytester: pytest.Pytester
) -> None:
    pytester.makepyfile("def test_nothing():\n    pass\n")

    result = pytester.runpytest_subprocess("--pling-connect", "http://127.0.0.1:9/")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--pling-connect 'http://127.0.0.1:9/' is not a browser "
                                 "server's address*"])


@pytest.fixture
def run_server() -> Iterator[str]:
    """`playwright run-server --unsafe` on 127.0.0.1: it launches a browser per client, with
    the client's launch options (the system Chromium's path among them)."""
    node, cli = compute_driver_executable()
    server = subprocess.Popen([node, cli, "run-server", "--host", "127.0.0.1", "--port", "0",
                               "--unsafe"], stdout=subprocess.PIPE, text=True,
                              env=get_driver_env())
    try:
        assert server.stdout is not None
        line = server.stdout.readline()  # "Listening on ws://127.0.0.1:PORT/"
        [address] = [word for word in line.split() if word.startswith("ws://")]
        yield address
    finally:
        server.terminate()
        server.wait(timeout=30)
        if server.stdout is not None:
            server.stdout.close()


def test_check_passes_in_a_browser_that_playwright_run_server_launched(
    pytester: pytest.Pytester, run_server: str
) -> None:
    pytester.makepyfile(SERVED_BROWSER_PROBE.replace(
        f'assert "{SERVED_MARK}" in', "assert 'HeadlessChrome' in"))

    result = pytester.runpytest_subprocess("--pling-locale", "en", "-p", "no:cacheprovider",
                                           "--pling-connect", run_server)

    result.assert_outcomes(passed=1)


BROKEN_PROMISE_CHECK = """
import pytest
from pling_harness.evidence import guarantees

@pytest.mark.guarantee("model-received")
def test_denied_archive_counted_as_success(tutorial_page, dock, timeline):
    dock.ask("archive the workspace")
    dock.deny()
    guarantees.model_received(timeline, action="archive_workspace", code="OK")
"""


def test_failure_in_a_served_browser_keeps_its_timeline_and_trace_in_the_report(
    pytester: pytest.Pytester, browser_server: BrowserServer, tmp_path: Path
) -> None:
    pytester.makepyfile(BROKEN_PROMISE_CHECK)
    report = tmp_path / "report"

    pytester.runpytest_subprocess(
        "--pling-locale", "en", "-p", "no:cacheprovider", "--pling-html", str(report),
        "--pling-connect", endpoint(browser_server)).assert_outcomes(failed=1)

    [failed] = SuiteReport.read(report / "report.json").tests
    assert failed.timeline and "SHOWN approval action=archive_workspace" in failed.timeline
    assert failed.traces and all(zipfile.is_zipfile(trace) for trace in failed.traces)

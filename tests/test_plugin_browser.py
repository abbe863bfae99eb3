"""The pling plugin in a real browser, through pytester: failures carry the timeline, and
pytest-playwright's artifact flags still work on our pages."""

from __future__ import annotations

from pathlib import Path

import pytest

from pling_harness.plugin.report import SuiteReport

pytest_plugins = ["pytester"]

BROKEN_PROMISE_CHECK = """
import pytest
from pling_harness.evidence import guarantees

@pytest.mark.guarantee("model-received")
def test_denied_archive_counted_as_success(tutorial_page, dock, timeline):
    dock.ask("archive the workspace")
    dock.deny()
    guarantees.model_received(timeline, action="archive_workspace", code="OK")
"""


def test_failing_guarantee_fails_the_run_with_a_readable_timeline(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    pytester.makepyfile(BROKEN_PROMISE_CHECK)
    report = tmp_path / "report.json"
    result = pytester.runpytest_subprocess("--pling-locale", "en", "--pling-report", str(report))

    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([
        "*guarantee 'model-received' violated: expected the model to receive OK for "
        "archive_workspace, it received: archive_workspace (call_1) → PERMISSION_DENIED",
        "*timeline (page = in-page probe*",
        "*page*SHOWN approval action=archive_workspace policy=ask-always always=no",
        "*page*user click on deny (decision deny)",
        "*server*model request carrying tool result(s) call_1*PERMISSION_DENIED*",
    ])
    [record] = SuiteReport.read(report).tests
    assert record.outcome == "failed"
    assert record.guarantees == ("model-received",)
    assert record.failure is not None
    assert "guarantee 'model-received' violated" in record.failure


def test_other_failure_in_a_browser_check_gets_the_timeline_section(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile("""
        def test_wrong_expectation(tutorial_page, dock, timeline):
            dock.ask("what is the workspace status?")
            assert dock.last_assistant_text() == "something else"
    """)
    result = pytester.runpytest_subprocess("--pling-locale", "en")

    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([
        "*- pling timeline -*",
        "*server*model replied with tool call(s) get_workspace*",
    ])


def test_output_option_keeps_screenshots_and_traces_of_our_pages(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    pytester.makepyfile("""
        def test_opens(tutorial_page):
            assert tutorial_page.get_by_test_id("pling-dock").is_visible()
    """)
    output = tmp_path / "artifacts"
    result = pytester.runpytest_subprocess(
        "--pling-locale", "zh", "--screenshot", "on", "--tracing", "on", "--output", str(output))

    result.assert_outcomes(passed=1)
    [folder] = output.iterdir()
    assert folder.name.startswith("test-output-option")
    assert sorted(path.name for path in folder.iterdir()) == ["test-finished-1.png", "trace.zip"]

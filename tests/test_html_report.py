"""The HTML report (--pling-html): a failing check's entry, the guarantee table's links, text
rendered as text, the tracing defaults it sets, and pytest-xdist runs (the retry that traces a
failure: tests/test_report_retry.py)."""

from __future__ import annotations

import base64
import datetime as dt
import re
import urllib.parse
import zipfile
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from pling_harness.plugin.gallery import GALLERY_FILE_NAME, load_page_states
from pling_harness.plugin.html_report import GALLERY_DIR_NAME, write_html_report
from pling_harness.plugin.report import GalleryCapture, SuiteReport, TestRecord
from pling_harness.project.tutorials import TutorialError, load_tutorial

# The harness's own checkout: the project these tests check.
PROJECT_ROOT = Path(__file__).resolve().parents[1]

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
OPTIONS_PROBE = """
def test_options(pytestconfig):
    print("tracing=" + pytestconfig.getoption("--tracing"))
    print("output=" + pytestconfig.getoption("--output"))
"""
# Two checks that both meet the ask-always card: one picture of it must stay.
TWO_ARCHIVE_CHECKS = """
import pytest

@pytest.mark.parametrize("attempt", [1, 2])
def test_archive_denied(tutorial_page, dock, attempt):
    dock.ask("archive the workspace")
    dock.deny()
"""
# The smallest PNG there is: one transparent pixel.
ONE_PIXEL_PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=")
GENERATED = dt.datetime(2025, 1, 6, 9, 0, tzinfo=dt.UTC)
HOSTILE_TEXT = ("<img src=x onerror=\"document.title='script ran'\">"
                "<script>document.title='script ran'</script>")


def record(nodeid: str, locale: str, outcome: str, **fields: object) -> TestRecord:
    return TestRecord.model_validate({"nodeid": nodeid, "locale": locale,
                                      "guarantees": ["denial-respected"], "outcome": outcome,
                                      **fields})


def open_report(page: Page, folder: Path) -> None:
    page.goto((folder / "index.html").as_uri())


def test_failing_check_entry_carries_its_timeline_and_a_trace_and_no_unasked_gallery(
    pytester: pytest.Pytester, tmp_path: Path, page: Page
) -> None:
    pytester.makepyfile(BROKEN_PROMISE_CHECK)
    folder = tmp_path / "report"

    pytester.runpytest_subprocess("--pling-locale", "en", "--pling-html", str(folder)
                                  ).assert_outcomes(failed=1)

    open_report(page, folder)
    entry = page.locator("[data-testid='check'][data-outcome='failed']")
    expect(entry).to_have_count(1)
    expect(entry.get_by_test_id("failure-message")).to_have_text(re.compile(
        r"^guarantee 'model-received' violated: expected the model to receive OK"))
    expect(entry.get_by_test_id("timeline")).to_contain_text(
        "SHOWN approval action=archive_workspace policy=ask-always")
    href = entry.get_by_test_id("trace-link").get_attribute("href")
    assert href is not None
    trace = folder / urllib.parse.unquote(href)
    assert trace.is_file() and zipfile.is_zipfile(trace), f"{href} is not a trace file"
    # The check met an approval card, but no one asked for pictures (--pling-gallery).
    expect(page.get_by_test_id("gallery-not-taken")).to_be_visible()
    assert not (folder / GALLERY_DIR_NAME).exists()


def test_guarantee_cell_links_to_that_guarantees_checks_in_that_locale(
    tmp_path: Path, page: Page
) -> None:
    suite = SuiteReport(tests=[record("checks/test_a.py::test_deny[zh]", "zh", "passed"),
                               record("checks/test_a.py::test_deny[en]", "en", "failed",
                                      failure="AssertionError: broken")])
    write_html_report(suite, tmp_path, locales=["zh", "en"], generated=GENERATED)

    open_report(page, tmp_path)
    page.locator("[data-guarantee='denial-respected'] td[data-locale='en'] a").click()

    target = page.locator(":target")
    expect(target).to_have_count(1)
    expect(target.get_by_test_id("check")).to_have_attribute(
        "data-nodeid", "checks/test_a.py::test_deny[en]")


def test_report_shows_model_and_failure_text_as_text_and_runs_no_script(
    tmp_path: Path, page: Page
) -> None:
    suite = SuiteReport(tests=[record("checks/test_a.py::test_deny[en]", "en", "failed",
                                      failure=HOSTILE_TEXT, message=HOSTILE_TEXT,
                                      timeline=HOSTILE_TEXT)])
    write_html_report(suite, tmp_path, locales=["en"], generated=GENERATED)

    open_report(page, tmp_path)

    expect(page.get_by_test_id("failure-message")).to_have_text(HOSTILE_TEXT)
    assert page.evaluate("document.scripts.length") == 0
    expect(page).to_have_title("pling check report")


def test_gallery_state_met_in_one_locale_says_the_other_is_missing(
    tmp_path: Path, page: Page
) -> None:
    (tmp_path / GALLERY_DIR_NAME).mkdir()
    (tmp_path / GALLERY_DIR_NAME / "approval-ask.zh.png").write_bytes(ONE_PIXEL_PNG)
    suite = SuiteReport(
        tests=[record("checks/test_a.py::test_deny[zh]", "zh", "passed"),
               record("checks/test_a.py::test_deny[en]", "en", "passed")],
        gallery=[GalleryCapture(state="approval-ask", title="Approval card, policy ask",
                                locale="zh", image="approval-ask.zh.png",
                                nodeid="checks/test_a.py::test_deny[zh]")])
    write_html_report(suite, tmp_path, locales=["zh", "en"], generated=GENERATED)

    open_report(page, tmp_path)

    row = page.locator("tr[data-state='approval-ask']")
    expect(row.locator("td[data-locale='zh'] img")).to_have_count(1)
    expect(row.locator("td[data-locale='en']")).to_have_text(
        "not met in en by the checks that ran")


def test_html_option_traces_no_first_run_and_keeps_traces_inside_the_report(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    pytester.makepyfile(OPTIONS_PROBE)
    folder = tmp_path / "report"

    result = pytester.runpytest_subprocess("-s", "--pling-html", str(folder))

    # Only a failing check's retry is traced (plugin/retry.py, tests/test_report_retry.py).
    result.stdout.fnmatch_lines(["*tracing=off", f"output={folder / 'traces'}"])
    assert (folder / "index.html").is_file()


def test_gallery_option_without_the_html_report_is_a_usage_error(
    pytester: pytest.Pytester
) -> None:
    pytester.makepyfile(OPTIONS_PROBE)

    result = pytester.runpytest_subprocess("--pling-gallery")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--pling-gallery pictures states for the HTML report; "
                                 "give --pling-html DIR too*"])


def test_html_option_leaves_the_users_tracing_and_output_alone(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    pytester.makepyfile(OPTIONS_PROBE)
    output = tmp_path / "artifacts"

    result = pytester.runpytest_subprocess(
        "-s", "--pling-html", str(tmp_path / "report"), "--tracing", "on", f"--output={output}")

    result.stdout.fnmatch_lines(["*tracing=on", f"output={output}"])


def test_html_report_under_xdist_keeps_one_loaded_picture_per_state_and_locale(
    pytester: pytest.Pytester, tmp_path: Path, page: Page
) -> None:
    pytester.makepyfile(TWO_ARCHIVE_CHECKS)
    folder = tmp_path / "report"

    pytester.runpytest_subprocess("-n", "2", "--pling-locale", "en", "--pling-html", str(folder),
                                  "--pling-gallery").assert_outcomes(passed=2)

    pictures = sorted(p.name for p in (folder / GALLERY_DIR_NAME).glob("approval-ask-always.*"))
    assert len(pictures) == 1, pictures
    open_report(page, folder)
    image = page.locator("tr[data-state='approval-ask-always'] td[data-locale='en'] img")
    expect(image).to_have_js_property("complete", True)
    assert image.evaluate("img => img.naturalWidth") > 0


def test_r15_gallery_file_declares_its_page_states() -> None:
    tutorial = load_tutorial("r-15")

    states = load_page_states(tutorial, PROJECT_ROOT)

    assert [state.name for state in states] == ["wrong-code", "published"]


def test_gallery_file_with_an_unknown_field_is_an_error_naming_file_and_field(
    tmp_path: Path
) -> None:
    tutorial = load_tutorial("r-15")
    folder = tutorial.directory(tmp_path)
    folder.mkdir(parents=True)
    (folder / GALLERY_FILE_NAME).write_text(
        '{"page_states": [{"name": "published", "title": "Published", '
        '"testid": "workspace-status", "attribute": "data-state", "value": "published", '
        '"selector": "#status"}]}')

    with pytest.raises(TutorialError, match=r"gallery\.json: field page_states\.0\.selector"):
        load_page_states(tutorial, tmp_path)

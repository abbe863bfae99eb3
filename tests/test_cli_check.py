"""`pling-tutorial check`: runs the check suite through pytest and summarises guarantees."""

from __future__ import annotations

from pathlib import Path

import pytest

from pling_harness.cli.check import render_summary
from pling_harness.cli.main import main
from pling_harness.plugin.report import SuiteReport, TestRecord


def record(nodeid: str, locale: str, guarantee: str, outcome: str) -> TestRecord:
    return TestRecord.model_validate(
        {"nodeid": nodeid, "locale": locale, "guarantees": [guarantee], "outcome": outcome})


def test_render_summary_one_failure_marks_that_guarantee_and_locale() -> None:
    report = SuiteReport(tests=[
        record("a[zh]", "zh", "denial-respected", "passed"),
        record("a[en]", "en", "denial-respected", "failed"),
        record("b[zh]", "zh", "policy-table", "passed"),
        record("b[en]", "en", "policy-table", "passed"),
    ])

    summary = render_summary(report, ["zh", "en"]).splitlines()

    assert summary[1].split() == ["denial-respected", "pass", "FAIL"]
    assert summary[2].split() == ["policy-table", "pass", "pass"]
    assert summary[-1] == "1/2 guarantees proven in zh, en"


def test_check_one_guarantee_passes_prints_summary_and_writes_junit(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    junit = tmp_path / "junit.xml"

    code = main(["check", "r-15", "--locale", "en", "--pling-guarantee", "policy-table",
                 "-k", "testbed-read-policy-table",
                 f"--junitxml={junit}", "-q", "-p", "no:cacheprovider"])

    out = capfd.readouterr().out
    assert code == 0, out
    assert "policy-table" in out and "1/1 guarantees proven in en" in out
    assert junit.is_file() and "pling_guarantee" in junit.read_text()


def test_check_locale_not_offered_is_a_usage_error(capfd: pytest.CaptureFixture[str]) -> None:
    code = main(["check", "r-15", "--locale", "fr"])

    assert code == 2
    assert "use --locale with one of: zh, en" in capfd.readouterr().err


def test_check_gallery_without_a_report_is_a_usage_error(
    capfd: pytest.CaptureFixture[str]
) -> None:
    code = main(["check", "r-15", "--locale", "en", "--gallery"])

    assert code == 2
    assert "--gallery pictures states for the HTML report; give --report DIR too" in \
        capfd.readouterr().err


def test_unknown_option_on_other_commands_is_rejected(capfd: pytest.CaptureFixture[str]) -> None:
    assert main(["list", "--junitxml=x.xml"]) == 2
    assert "unrecognized arguments" in capfd.readouterr().err

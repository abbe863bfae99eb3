"""The summary a gate reads: each guarantee's outcome per locale (the worst of its checks),
the table `check` and `merge-reports` print, its counts, and the HTML report's one line.
Built from reports made here, so every figure is known in advance."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from pling_harness.cli.check import interrupted_line, render_summary
from pling_harness.plugin.html_report import guarantee_names, summary_line
from pling_harness.plugin.report import Outcome, SuiteReport, TestRecord

# From the outcome that proves most to the one that proves least.
BETTER_TO_WORSE: list[Outcome] = ["n/a", "passed", "skipped", "not run", "flaky", "failed",
                                   "error"]


def checked(nodeid: str, outcome: Outcome, locale: str | None = "zh", *guarantees: str,
         reason: str | None = None) -> TestRecord:
    return TestRecord(nodeid=nodeid, locale=locale, guarantees=guarantees, outcome=outcome,
                      reason=reason)


@pytest.mark.parametrize(("better", "worse"), list(itertools.combinations(BETTER_TO_WORSE, 2)))
def test_a_guarantee_gets_the_worst_outcome_of_its_checks_in_either_order(
    better: Outcome, worse: Outcome
) -> None:
    for first, second in ((better, worse), (worse, better)):
        report = SuiteReport(tests=[checked("a", first, "zh", "g"),
                                    checked("b", second, "zh", "g")])
        assert report.guarantee_outcomes() == {("g", "zh"): worse}, (first, second)


def test_guarantee_outcomes_are_kept_apart_by_guarantee_and_locale() -> None:
    report = SuiteReport(tests=[
        checked("a", "failed", "zh", "g", "h"), checked("b", "passed", "en", "g"),
        checked("c", "passed", None, "h"), checked("d", "error", "zh")])

    assert report.guarantee_outcomes() == {("g", "zh"): "failed", ("h", "zh"): "failed",
                                           ("g", "en"): "passed", ("h", "-"): "passed"}


def test_report_written_and_read_back_is_the_same(tmp_path: Path) -> None:
    report = SuiteReport(tests=[checked("a", "n/a", "en", "g", reason="why")],
                         interrupted="interrupted by SIGTERM")
    path = tmp_path / "out" / "deep" / "report.json"

    report.write(path)
    report.write(path)  # again, over the last run's

    assert SuiteReport.read(path) == report


SUITE = SuiteReport(tests=[
    checked("t1", "passed", "zh", "denial-respected"),
    checked("t2", "passed", "en", "denial-respected"),
    checked("t3", "failed", "zh", "loop-limit"), checked("t4", "passed", "en", "loop-limit"),
    checked("t5", "passed", "zh", "model-received"),
    checked("t6", "skipped", "en", "handoff-timeout"), checked("t7", "error", "zh")])


def test_summary_is_a_row_per_guarantee_in_first_seen_order_and_the_proven_count() -> None:
    assert render_summary(SUITE, ["zh", "en"]).splitlines() == [
        "guarantee         zh    en    ",
        "denial-respected  pass  pass  ",
        "loop-limit        FAIL  pass  ",
        "model-received    pass  -     ",
        "handoff-timeout   -     skip  ",
        "2/4 guarantees proven in zh, en",
    ]


def test_summary_of_one_locale_counts_only_what_was_checked_in_that_locale() -> None:
    # model-received has no check in en: not proven there, and not n/a either.
    assert render_summary(SUITE, ["en"]).splitlines()[-1] == (
        "2/4 guarantees proven in en")


def test_summary_labels_every_outcome_and_widens_its_columns_to_the_longest() -> None:
    tests = [checked(f"t-{outcome}", outcome, "zh", f"g-{index}")
             for index, outcome in enumerate(BETTER_TO_WORSE)]

    lines = render_summary(SuiteReport(tests=tests), ["zh"]).splitlines()

    assert lines[:8] == [
        "guarantee  zh       ",
        "g-0        n/a      ",
        "g-1        pass     ",
        "g-2        skip     ",
        "g-3        not run  ",
        "g-4        FLAKY    ",
        "g-5        FAIL     ",
        "g-6        ERROR    ",
    ]
    assert lines[8] == "1/7 guarantees proven in zh; 1 n/a"


def test_summary_of_a_run_with_na_checks_counts_those_that_ran_and_why_the_others_did_not(
) -> None:
    provider = "external: faults are injected at the provider"
    tests = [checked("a", "passed", "zh", "denial-respected"),
             checked("b", "n/a", "zh", "gateway-faults", reason=provider),
             checked("c", "n/a", "en", "gateway-faults", reason=provider),
             checked("d", "n/a", "zh", "tests-isolated", "secrets", reason="external: a seat"),
             checked("e", "passed", "en", "denial-respected"),
             checked("f", "n/a", "en", reason="acme: handoff.timer: no countdown")]

    lines = render_summary(SuiteReport(tests=tests), ["zh", "en"]).splitlines()

    assert lines[5:] == [
        "1/4 guarantees proven in zh, en; 3 n/a",
        "2 of 6 checks ran against the page (33%); 4 are n/a:",
        f"  2 × gateway-faults: {provider}",
        "  1 × tests-isolated, secrets: external: a seat",
        "  1 × -: acme: handoff.timer: no countdown",
    ]


@pytest.mark.parametrize(("ran", "na", "percent"), [(2, 1, 66), (1, 1, 50), (1, 2, 33)])
def test_summary_rounds_the_share_of_checks_that_ran_down(ran: int, na: int,
                                                          percent: int) -> None:
    tests = [checked(f"r{i}", "passed", "zh", "g") for i in range(ran)] + [
        checked(f"n{i}", "n/a", "zh", "h", reason="r") for i in range(na)]

    lines = render_summary(SuiteReport(tests=tests), ["zh"]).splitlines()

    assert lines[4] == (f"{ran} of {ran + na} checks ran against the page ({percent}%); "
                        f"{na} are n/a:")


def test_summary_of_a_guarantee_na_in_one_locale_and_passed_in_the_other_is_neither(
) -> None:
    tests = [checked("a", "passed", "zh", "g"), checked("b", "n/a", "en", "g", reason="r")]

    lines = render_summary(SuiteReport(tests=tests), ["zh", "en"]).splitlines()

    assert lines[2] == "0/1 guarantees proven in zh, en"


def test_summary_shows_checks_without_a_locale_in_a_column_and_never_counts_a_failure(
) -> None:
    # A tutorial's check that takes no locale: once counted proven (and n/a) when it failed.
    tests = [checked("a", "failed", None, "g"), checked("b", "passed", "zh", "h"),
             checked("c", "passed", None, "h")]

    lines = render_summary(SuiteReport(tests=tests), ["zh", "en"]).splitlines()

    assert lines == ["guarantee  zh    en    -     ",
                     "g          -     -     FAIL  ",
                     "h          pass  -     pass  ",
                     "1/2 guarantees proven in zh, en"]
    assert summary_line(SuiteReport(tests=tests), ["zh", "en"]).endswith(
        "1/2 guarantees proven in zh, en.")


def test_summary_without_guarantees_says_none_ran() -> None:
    assert render_summary(SuiteReport(tests=[checked("a", "passed")]), ["zh"]) == (
        "no guarantee checks ran")


def test_summary_of_an_interrupted_run_ends_with_what_ran_and_what_did_not() -> None:
    report = SUITE.model_copy(update={
        "interrupted": "interrupted by SIGTERM",
        "tests": [*SUITE.tests, checked("t8", "not run", "zh", "loop-limit"),
                  checked("t9", "not run", "en")]})

    lines = render_summary(report, ["zh", "en"]).splitlines()

    assert lines[2] == "loop-limit        FAIL  pass  "
    assert lines[-1] == "INTERRUPTED (interrupted by SIGTERM): 7 of 9 checks ran, 2 not run"
    assert interrupted_line(report) == lines[-1]


def test_summary_of_a_run_interrupted_before_any_guarantee_check_says_both() -> None:
    report = SuiteReport(tests=[checked("a", "not run")], interrupted="interrupted by SIGINT")

    assert render_summary(report, ["zh"]).splitlines() == [
        "INTERRUPTED (interrupted by SIGINT): 0 of 1 checks ran, 1 not run",
        "no guarantee checks ran"]


def test_html_summary_line_counts_outcomes_in_a_fixed_order_and_the_proven() -> None:
    tests = [*SUITE.tests, checked("t8", "n/a", "en", "x", reason="r"), checked("t9", "not run")]

    line = summary_line(SuiteReport(tests=tests), ["zh", "en"])

    assert line == ("9 checks: 4 passed, 1 failed, 1 error, 1 skipped, 1 n/a, 1 not run. "
                    "2/5 guarantees proven in zh, en.")


def test_a_flaky_check_proves_nothing_in_the_summary_nor_the_html_line() -> None:
    report = SuiteReport(tests=[checked("a", "passed", "zh", "g"),
                                checked("b", "flaky", "zh", "g"),
                                checked("c", "passed", "zh", "h")])

    assert render_summary(report, ["zh"]).splitlines()[-1] == "1/2 guarantees proven in zh"
    assert summary_line(report, ["zh"]) == (
        "3 checks: 2 passed, 1 flaky. 1/2 guarantees proven in zh.")


def test_html_summary_line_of_an_empty_interrupted_run() -> None:
    report = SuiteReport(interrupted="interrupted by SIGINT")

    assert summary_line(report, []) == ("Interrupted (interrupted by SIGINT). 0 checks: "
                                        "none ran. 0/0 guarantees proven in -.")


def test_guarantee_names_come_in_the_order_the_run_met_them_once_each() -> None:
    assert guarantee_names(SUITE) == ["denial-respected", "loop-limit", "model-received",
                                      "handoff-timeout"]

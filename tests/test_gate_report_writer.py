"""What the report says of each check (pling_harness/plugin/report_writer.py): its outcome
from every phase (a teardown failure never hides behind a pass, a skip of `n/a (<who>: <why>)`
is n/a with its reason, never a pass), its locale, guarantees, failure, time and traces, and
what pytest-xdist's controller, which never sees the items, gets from the reports alone.
Small suites run by pytester in this process (pytest-playwright left out: its soft-assertion
scope is one per process)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pling_harness.plugin.report import (
    CollectionError,
    GalleryCapture,
    ReportExtras,
    ShardRecord,
    SuiteReport,
    TestRecord,
    not_applicable,
)
from pling_harness.plugin.report_writer import (
    EXTRAS_ATTRIBUTE,
    GUARANTEE_PROPERTY,
    LOCALE_PROPERTY,
    SUITE_FILE_NAME,
    TRACE_PROPERTY,
    ReportWriter,
    attach_extras,
    clear_html_report,
    extras_of,
    first_line,
    not_applicable_reason,
)

pytest_plugins = ["pytester"]

OUTCOMES = f"""
import pytest

@pytest.mark.guarantee("denial-respected")
def test_passes(locale):
    pass

@pytest.mark.guarantee("policy-table")
def test_fails():
    assert 1 == 2, "the model heard success\\nsecond line"

@pytest.fixture
def broken():
    raise RuntimeError("setup went wrong")

def test_setup_breaks(broken):
    pass

@pytest.fixture
def breaks_after():
    yield
    raise RuntimeError("teardown went wrong")

def test_passes_then_teardown_breaks(breaks_after):
    pass

def test_fails_then_teardown_breaks(breaks_after):
    assert False, "the body failed first"

@pytest.mark.skip(reason="not on this page")
def test_skipped():
    pass

def test_skips_itself():
    pytest.skip("nothing to see")

@pytest.mark.xfail(reason="known", strict=True)
def test_expected_failure():
    assert False

@pytest.mark.skip(reason="{not_applicable("external", "needs the provider")}")
def test_na_by_mark():
    pass

def test_na_in_its_body():
    pytest.skip("{not_applicable("external", "needs a seat")}")
"""


def run(pytester: pytest.Pytester, source: str, *args: str
        ) -> tuple[pytest.RunResult, dict[str, TestRecord]]:
    pytester.makepyfile(test_suite=source)
    path = pytester.path / "out" / "report.json"
    result = pytester.runpytest("--pling-report", str(path), "-p", "no:playwright",
                                "-p", "no:cacheprovider", *args)
    records = {t.nodeid.split("::", 1)[1]: t for t in SuiteReport.read(path).tests}
    return result, records


def test_each_check_gets_the_outcome_of_its_worst_phase(pytester: pytest.Pytester) -> None:
    _, records = run(pytester, OUTCOMES)

    assert {name: (r.outcome, r.failure) for name, r in records.items()} == {
        "test_passes[zh]": ("passed", None),
        "test_passes[en]": ("passed", None),
        "test_fails": ("failed", "AssertionError: the model heard success"),
        "test_setup_breaks": ("error", "RuntimeError: setup went wrong"),
        "test_passes_then_teardown_breaks": ("error", "RuntimeError: teardown went wrong"),
        "test_fails_then_teardown_breaks": ("failed", "AssertionError: the body failed first"),
        "test_skipped": ("skipped", None),
        "test_skips_itself": ("skipped", None),
        "test_expected_failure": ("skipped", None),
        "test_na_by_mark": ("n/a", None),
        "test_na_in_its_body": ("n/a", None),
    }


def test_an_na_check_keeps_its_reason_and_others_have_none(pytester: pytest.Pytester) -> None:
    _, records = run(pytester, OUTCOMES)

    assert {name: r.reason for name, r in records.items() if r.reason} == {
        "test_na_by_mark": "external: needs the provider",
        "test_na_in_its_body": "external: needs a seat"}


def test_a_failure_keeps_its_whole_message_and_pytests_details(
    pytester: pytest.Pytester
) -> None:
    _, records = run(pytester, OUTCOMES)

    failed = records["test_fails"]
    assert failed.message is not None and failed.message.startswith(
        "AssertionError: the model heard success\n  second line")
    assert failed.details is not None and "def test_fails():" in failed.details
    teardown = records["test_passes_then_teardown_breaks"]
    assert teardown.message == "RuntimeError: teardown went wrong"
    # The body's failure is what the check is reported with, not its teardown's.
    both = records["test_fails_then_teardown_breaks"]
    assert both.message is not None and "the body failed first" in both.message
    assert both.details is not None and "teardown went wrong" not in both.details
    assert records["test_passes[zh]"].message is None


def test_a_check_records_its_locale_and_sorted_guarantees(pytester: pytest.Pytester) -> None:
    _, records = run(pytester, """
        import pytest

        pytestmark = pytest.mark.guarantee("policy-table")

        @pytest.mark.guarantee("denial-respected")
        class TestCard:
            @pytest.mark.guarantee("approval-only-by-click")
            @pytest.mark.guarantee("denial-respected")
            def test_card(self, locale):
                pass
    """)

    names = ("approval-only-by-click", "denial-respected", "policy-table")
    assert {name: (r.locale, r.guarantees) for name, r in records.items()} == {
        "TestCard::test_card[zh]": ("zh", names), "TestCard::test_card[en]": ("en", names)}


def test_a_checks_time_is_its_three_phases_together(pytester: pytest.Pytester) -> None:
    result, records = run(pytester, OUTCOMES)

    phases = [r for r in result.reprec.getreports("pytest_runtest_logreport")  # type: ignore[attr-defined]
              if r.nodeid.endswith("test_passes_then_teardown_breaks")]
    assert [r.when for r in phases] == ["setup", "call", "teardown"]
    expected = 0.0
    for phase in phases:
        expected += phase.duration
    assert records["test_passes_then_teardown_breaks"].duration == expected > 0


def test_a_trace_kept_at_teardown_is_recorded_from_where_pytest_started(
    pytester: pytest.Pytester
) -> None:
    _, records = run(pytester, f"""
        import pytest

        @pytest.fixture
        def traced(request):
            yield
            request.node.user_properties.append(("{TRACE_PROPERTY}", "traces/a/trace.zip"))

        def test_traced(traced):
            pass

        def test_untraced():
            pass
    """)

    assert records["test_traced"].traces == (str(pytester.path / "traces/a/trace.zip"),)
    assert records["test_untraced"].traces == ()


def test_collect_only_lists_every_check_as_skipped(pytester: pytest.Pytester) -> None:
    _, records = run(pytester, OUTCOMES, "--collect-only")

    assert len(records) == 11 and {r.outcome for r in records.values()} == {"skipped"}
    assert records["test_passes[en]"].guarantees == ("denial-respected",)


def test_a_check_file_that_does_not_import_is_reported_by_name_with_its_error(
    pytester: pytest.Pytester
) -> None:
    pytester.makepyfile(test_fine="def test_ok():\n    pass\n",
                        test_broken="import no_such_module_here\n")
    path = pytester.path / "report.json"

    result = pytester.runpytest("--pling-report", str(path), "-p", "no:playwright",
                                "-p", "no:cacheprovider")

    assert result.ret == pytest.ExitCode.INTERRUPTED
    assert SuiteReport.read(path).collection_errors == [CollectionError(
        nodeid="test_broken.py",
        error="ModuleNotFoundError: No module named 'no_such_module_here'")]


@pytest.mark.parametrize("marker", ['guarantee()', 'guarantee("a", "b")', 'guarantee(3)',
                                    'guarantee("a", why="b")'])
def test_a_guarantee_marker_without_exactly_one_name_is_a_usage_error(
    pytester: pytest.Pytester, marker: str
) -> None:
    pytester.makepyfile(test_bad=f"""
        import pytest

        @pytest.mark.{marker}
        def test_x():
            pass
    """)

    result = pytester.runpytest("-p", "no:playwright", "-p", "no:cacheprovider",
                                "--pling-report", str(pytester.path / "r.json"))

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*test_bad.py::test_x: @pytest.mark.guarantee takes "
                                 "exactly one name*"])


def phase(nodeid: str, when: str, outcome: str = "passed", *, longrepr: object = None,
          user_properties: list[tuple[str, object]] | None = None) -> pytest.TestReport:
    return pytest.TestReport(nodeid, ("x.py", 1, nodeid), {}, outcome,  # type: ignore[arg-type]
                             longrepr, when, user_properties=user_properties or [])  # type: ignore[arg-type]


def test_a_controller_takes_locale_and_guarantees_from_the_reports_alone() -> None:
    writer = ReportWriter()
    properties: list[tuple[str, object]] = [
        (LOCALE_PROPERTY, "en"), (GUARANTEE_PROPERTY, "denial-respected"),
        (GUARANTEE_PROPERTY, "policy-table"), ("other", "x")]
    for when in ("setup", "call", "teardown"):
        writer.pytest_runtest_logreport(phase("t::a[en]", when, user_properties=properties))
    writer.pytest_runtest_logreport(phase("t::b", "setup"))

    assert writer.records["t::a[en]"] == TestRecord(
        nodeid="t::a[en]", locale="en", guarantees=("denial-respected", "policy-table"),
        outcome="passed")
    assert writer.records["t::b"].locale is None and writer.records["t::b"].guarantees == ()


def test_a_controller_lists_the_checks_a_stop_never_reached_as_not_run() -> None:
    writer = ReportWriter()
    writer.pytest_xdist_node_collection_finished(None, ["t::a", "t::b", "t::c"])
    writer.pytest_xdist_node_collection_finished(None, ["t::other"])  # the first wins
    for when in ("setup", "call", "teardown"):
        writer.pytest_runtest_logreport(phase("t::a", when))
    writer.pytest_runtest_logreport(phase("t::b", "setup"))  # body cut off
    writer.interrupted = "interrupted by SIGTERM"

    report = writer.suite_report()

    assert [(t.nodeid, t.outcome) for t in report.tests] == [
        ("t::a", "passed"), ("t::b", "not run"), ("t::c", "not run")]
    assert report.interrupted == "interrupted by SIGTERM"


def test_a_run_that_was_not_stopped_lists_no_unreached_check() -> None:
    writer = ReportWriter()
    writer.pytest_xdist_node_collection_finished(None, ["t::a", "t::b"])
    writer.pytest_runtest_logreport(phase("t::a", "setup"))

    assert [(t.nodeid, t.outcome) for t in writer.suite_report().tests] == [
        ("t::a", "passed")]


def picture(state: str, locale: str, image: str) -> GalleryCapture:
    return GalleryCapture(state=state, title=state, locale=locale, image=image, nodeid="t::a")


def test_the_first_picture_of_each_state_and_locale_wins_and_notes_add_up() -> None:
    writer = ReportWriter()
    for image, notes in (("1.png", ["no picture of x"]), ("2.png", ["no picture of y"])):
        report = phase("t::a", "call")
        attach_extras(report, ReportExtras(gallery=[picture("ask", "zh", image),
                                                    picture(image, "en", image)],
                                           gallery_notes=notes))
        writer.pytest_runtest_logreport(report)

    suite = writer.suite_report()

    assert [c.image for c in suite.gallery] == ["1.png", "1.png", "2.png"]
    assert suite.gallery_notes == ["no picture of x", "no picture of y"]


def test_extras_ride_on_a_report_only_when_they_say_something() -> None:
    quiet, loud = phase("t::a", "call"), phase("t::a", "call")
    extras = ReportExtras(message="guarantee 'x' violated", timeline="t=0 page")

    attach_extras(quiet, ReportExtras())
    attach_extras(loud, extras)

    assert not hasattr(quiet, EXTRAS_ATTRIBUTE) and extras_of(quiet) == ReportExtras()
    assert extras_of(loud) == extras


def test_a_failed_phase_reports_the_guarantees_message_and_timeline() -> None:
    writer = ReportWriter()
    report = phase("t::a", "call", "failed", longrepr="AssertionError: short")
    attach_extras(report, ReportExtras(message="guarantee 'x' violated: long", timeline="t=0"))

    writer.pytest_runtest_logreport(report)

    record = writer.records["t::a"]
    assert (record.outcome, record.failure, record.message, record.timeline, record.details) == (
        "failed", "AssertionError: short", "guarantee 'x' violated: long", "t=0",
        "AssertionError: short")


def test_first_line_is_the_first_line_that_says_something() -> None:
    assert first_line(phase("t", "call", "failed", longrepr="\n  \n  Boom: x  \nmore")) == (
        "Boom: x")
    assert first_line(phase("t", "call", "failed", longrepr="")) is None


def test_only_a_skip_reading_n_a_with_its_reason_is_na() -> None:
    location = ("x.py", 1, "Skipped: ")
    na = not_applicable("external", "why")
    skipped = phase("t", "setup", "skipped", longrepr=(*location[:2], f"Skipped: {na}"))
    by_driver = phase("t", "call", "skipped", longrepr=(
        *location[:2], f"Skipped: {not_applicable('acme', 'handoff.timer: no countdown')}"))

    assert not_applicable_reason(skipped) == "external: why"
    assert not_applicable_reason(by_driver) == "acme: handoff.timer: no countdown"
    assert not_applicable_reason(phase("t", "setup", "skipped",
                                       longrepr=(*location[:2], "Skipped: other"))) is None
    assert not_applicable_reason(phase("t", "setup", "skipped",
                                       longrepr=(*location[:2], "Skipped: n/a (no end"))) is None
    assert not_applicable_reason(phase("t", "setup", "skipped", longrepr=na)) is None
    assert not_applicable_reason(phase("t", "call", "failed",
                                       longrepr=(*location[:2], na))) is None


def test_the_writer_writes_json_and_html_and_says_where(pytester: pytest.Pytester) -> None:
    html = pytester.path / "html"
    pytester.makepyfile(test_one="def test_a():\n    pass\n")

    result = pytester.runpytest("-p", "no:playwright", "-p", "no:cacheprovider",
                                "--pling-html", str(html))

    assert SuiteReport.read(html / SUITE_FILE_NAME).tests[0].outcome == "passed"
    assert (html / "index.html").is_file()
    result.stdout.fnmatch_lines([f"pling: HTML report written to {html / 'index.html'}"])


def test_a_shards_report_records_the_folder_it_was_written_in(tmp_path: Path) -> None:
    record = ShardRecord(index=2, count=3, collected=[])
    with_html = ReportWriter(html_folder=tmp_path)
    with_html.shard = record
    json_only = ReportWriter(json_path=tmp_path / "r.json")
    json_only.shard = record

    assert with_html.suite_report().shard == record.model_copy(
        update={"folder": str(tmp_path)})
    assert json_only.suite_report().shard == record


def test_clearing_a_report_folder_removes_only_the_reports_own_files(tmp_path: Path) -> None:
    for name in ("gallery/a.png", "index.html", SUITE_FILE_NAME, "junit.xml",
                 "traces/t.zip"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x", encoding="utf-8")

    clear_html_report(tmp_path)

    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")) == [
        "junit.xml", "traces", "traces/t.zip"]


def test_the_writer_works_without_pytest_xdist(pytester: pytest.Pytester) -> None:
    # pytest-xdist is optional: its hooks are optional hooks of the writer.
    pytester.makepyfile(test_one="def test_a():\n    pass\n")
    path = pytester.path / "r.json"

    result = pytester.runpytest("-p", "no:playwright", "-p", "no:cacheprovider",
                                "-p", "no:xdist", "--pling-report", str(path))

    assert result.ret == pytest.ExitCode.OK
    assert [t.outcome for t in SuiteReport.read(path).tests] == ["passed"]


def test_a_relative_trace_is_read_from_the_writers_base_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    given, default = ReportWriter(base_dir=tmp_path / "project"), ReportWriter()
    for writer in (given, default):
        writer.pytest_runtest_logreport(phase("t::a", "teardown", user_properties=[
            (TRACE_PROPERTY, "traces/t.zip"), (TRACE_PROPERTY, "traces/u.zip")]))

    assert given.records["t::a"].traces == (str(tmp_path / "project" / "traces" / "t.zip"),
                                            str(tmp_path / "project" / "traces" / "u.zip"))
    assert default.records["t::a"].traces[0] == str(tmp_path / "traces" / "t.zip")

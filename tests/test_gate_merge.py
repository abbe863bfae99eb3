"""What `merge-reports` decides, from shard reports written as a shard writes them: a check
lost, doubled or foreign, a shard missing or given twice, a guarantee left unproven, each
fails the merge with a problem that names it; the merged files keep the gallery, the traces
and the JUnit cases. Fast: no pytest run, the reports are built here (tests/test_shards.py
cuts real suites)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from pling_harness.cli.merge import (
    MERGE_SUITE_NAME,
    MergeError,
    Shard,
    merge,
    merge_junit,
    read_shard,
    run_merge,
    shown_locales,
    write_merged,
)
from pling_harness.plugin.report import (
    CollectedCheck,
    GalleryCapture,
    Outcome,
    ShardRecord,
    SuiteReport,
    TestRecord,
)
from pling_harness.plugin.report_writer import SUITE_FILE_NAME
from pling_harness.project.run_choices import ShownChoice

DENIAL = "checks/test_a.py::test_denial[zh]"
DENIAL_EN = "checks/test_a.py::test_denial[en]"
HANDOFF = "checks/test_a.py::test_handoff[zh]"
PLAIN = "checks/test_a.py::test_plain[zh]"


def check(nodeid: str) -> CollectedCheck:
    locale = nodeid[-3:-1]
    guarantee = {"denial": "denial-respected", "handoff": "handoff-receipt"}.get(
        nodeid.split("::test_")[1].split("[")[0])
    return CollectedCheck(nodeid=nodeid, locale=locale,
                          guarantees=(guarantee,) if guarantee else ())


SUITE = [check(DENIAL), check(DENIAL_EN), check(HANDOFF), check(PLAIN)]


def record(nodeid: str, outcome: Outcome = "passed", **fields: object) -> TestRecord:
    collected = check(nodeid)
    return TestRecord(nodeid=nodeid, locale=collected.locale, guarantees=collected.guarantees,
                      outcome=outcome, **fields)  # type: ignore[arg-type]


def shard(index: int, count: int, tests: list[TestRecord], *, folder: Path | None = None,
          suite: list[CollectedCheck] = SUITE, **fields: object) -> Shard:
    record_ = ShardRecord(index=index, count=count, collected=suite)
    report = SuiteReport(tests=tests, shard=record_, **fields)  # type: ignore[arg-type]
    return Shard(folder=folder or Path(f"shard-{index}"), report=report, record=record_)


def two_shards(first: list[TestRecord], second: list[TestRecord]) -> list[Shard]:
    return [shard(1, 2, first), shard(2, 2, second)]


def passing() -> list[Shard]:
    return two_shards([record(DENIAL), record(HANDOFF)], [record(DENIAL_EN), record(PLAIN)])


def outcomes(tests: list[TestRecord]) -> dict[str, str]:
    return {t.nodeid: t.outcome for t in tests}


def test_merge_of_shards_that_ran_everything_once_passes_in_suite_order() -> None:
    merged = merge(passing())

    assert merged.ok and merged.problems == []
    assert [t.nodeid for t in merged.report.tests] == [DENIAL, DENIAL_EN, HANDOFF, PLAIN]
    assert merged.report.interrupted is None


@pytest.mark.parametrize("outcome", ["failed", "error", "flaky"])
def test_merge_with_a_failed_or_broken_check_fails_without_a_problem_of_its_own(
    outcome: Outcome
) -> None:
    merged = merge(two_shards([record(DENIAL, outcome), record(HANDOFF)],
                              [record(DENIAL_EN), record(PLAIN)]))

    assert not merged.ok and merged.problems == []


def test_merge_with_skipped_and_na_checks_of_no_unproven_guarantee_passes() -> None:
    merged = merge(two_shards([record(DENIAL), record(HANDOFF, "n/a", reason="no provider")],
                              [record(DENIAL_EN), record(PLAIN, "skipped")]))

    assert merged.ok, merged.problems
    assert merged.report.guarantee_outcomes()[("handoff-receipt", "zh")] == "n/a"


def test_a_check_in_no_shard_is_an_error_with_its_locale_and_guarantees() -> None:
    merged = merge(two_shards([record(DENIAL)], [record(DENIAL_EN), record(PLAIN)]))

    problem = "ran in no shard: every check of the suite must run in exactly one"
    assert merged.problems == [f"{HANDOFF} {problem}"]
    [lost] = [t for t in merged.report.tests if t.nodeid == HANDOFF]
    assert lost == TestRecord(nodeid=HANDOFF, locale="zh", guarantees=("handoff-receipt",),
                              outcome="error", failure=problem, message=problem)
    assert not merged.ok


def test_a_check_run_in_two_shards_is_an_error_naming_both_and_their_outcomes() -> None:
    merged = merge(two_shards([record(DENIAL), record(HANDOFF, duration=2.0)],
                              [record(DENIAL_EN), record(PLAIN), record(HANDOFF, "failed")]))

    problem = "ran in 2 shards: 1/2 (passed), 2/2 (failed); a check runs in exactly one"
    assert merged.problems == [f"{HANDOFF} {problem}"]
    [doubled] = [t for t in merged.report.tests if t.nodeid == HANDOFF]
    assert (doubled.outcome, doubled.failure, doubled.message, doubled.duration) == (
        "error", problem, problem, 2.0)
    assert len(merged.report.tests) == len(SUITE)


def test_a_check_not_in_the_suite_the_shards_were_cut_from_is_an_error() -> None:
    foreign = "checks/test_b.py::test_other[en]"
    merged = merge(two_shards([record(DENIAL), record(HANDOFF)],
                              [record(DENIAL_EN), record(PLAIN), record(foreign)]))

    problem = "ran in shard 2/2 but is not in the suite the shards were cut from"
    assert merged.problems == [f"{foreign} {problem}"]
    assert merged.report.tests[-1].model_dump(include={"nodeid", "outcome", "failure"}) == {
        "nodeid": foreign, "outcome": "error", "failure": problem}


def test_a_foreign_check_run_in_two_shards_is_one_error_naming_both() -> None:
    foreign = "checks/test_b.py::test_other[en]"
    merged = merge(two_shards([record(DENIAL), record(HANDOFF), record(foreign, duration=1.0)],
                              [record(DENIAL_EN), record(PLAIN), record(foreign, duration=2.0)]))

    problem = "ran in shard 1/2, 2/2 but is not in the suite the shards were cut from"
    assert merged.problems == [f"{foreign} {problem}"]
    [error] = [t for t in merged.report.tests if t.nodeid == foreign]
    assert (error.outcome, error.duration) == ("error", 1.0)


@pytest.mark.parametrize("outcome", ["skipped", "not run"])
def test_a_guarantee_with_a_check_left_unrun_is_not_proven(outcome: Outcome) -> None:
    merged = merge(two_shards([record(DENIAL), record(HANDOFF, outcome)],
                              [record(DENIAL_EN), record(PLAIN)]))

    assert merged.problems == [f"guarantee 'handoff-receipt' in zh is not proven: {HANDOFF} "
                               f"({outcome}) did not run"]
    assert not merged.ok


def test_an_unproven_guarantee_names_only_its_unrun_checks_in_that_locale() -> None:
    suite = [*SUITE,
             CollectedCheck(nodeid="x::test_more[zh]", locale="zh",
                            guarantees=("denial-respected",)),
             CollectedCheck(nodeid="x::test_more[en]", locale="en",
                            guarantees=("denial-respected",))]
    # PLAIN (skipped, no guarantee) and the en check leave denial-respected in zh alone.
    tests = [record(DENIAL, "skipped"), record(DENIAL_EN), record(HANDOFF),
             record(PLAIN, "skipped"),
             TestRecord(nodeid="x::test_more[zh]", locale="zh", guarantees=("denial-respected",),
                        outcome="not run"),
             TestRecord(nodeid="x::test_more[en]", locale="en", guarantees=("denial-respected",),
                        outcome="passed")]

    merged = merge([shard(1, 1, tests, suite=suite)])

    assert merged.problems == [f"guarantee 'denial-respected' in zh is not proven: {DENIAL} "
                               "(skipped), x::test_more[zh] (not run) did not run"]


def test_a_guarantee_of_checks_without_a_locale_is_reported_under_a_dash() -> None:
    suite = [CollectedCheck(nodeid="t::test_x", guarantees=("loop-limit",))]

    merged = merge([shard(1, 1, [TestRecord(nodeid="t::test_x", guarantees=("loop-limit",),
                                            outcome="skipped")], suite=suite)])

    assert merged.problems == ["guarantee 'loop-limit' in - is not proven: t::test_x "
                               "(skipped) did not run"]


def test_a_missing_shard_is_a_problem_and_its_checks_are_lost() -> None:
    shards = [shard(1, 3, [record(DENIAL)]), shard(3, 3, [record(PLAIN)])]

    merged = merge(shards)

    assert merged.problems[0] == ("shard 2/3 is missing: give every shard's report folder "
                                  "(its checks count as lost)")
    assert outcomes(merged.report.tests) == {DENIAL: "passed", DENIAL_EN: "error",
                                             HANDOFF: "error", PLAIN: "passed"}


def test_the_last_shard_missing_is_a_problem_too() -> None:
    merged = merge([shard(1, 2, [record(DENIAL), record(DENIAL_EN), record(HANDOFF),
                                 record(PLAIN)])])

    assert merged.problems == ["shard 2/2 is missing: give every shard's report folder "
                               "(its checks count as lost)"]


def test_a_shard_given_twice_is_a_problem_naming_both_folders() -> None:
    first = shard(1, 2, [record(DENIAL), record(HANDOFF)], folder=Path("a"))
    again = shard(1, 2, [], folder=Path("b"))
    second = shard(2, 2, [record(DENIAL_EN), record(PLAIN)])

    merged = merge([first, again, second])

    assert merged.problems == ["shard 1/2 is given twice: a, b"]


def test_shards_cut_into_different_counts_are_a_problem_naming_each() -> None:
    shards = [shard(1, 2, [record(DENIAL), record(HANDOFF)], folder=Path("a")),
              shard(2, 3, [record(DENIAL_EN), record(PLAIN)], folder=Path("b"))]

    problems = merge(shards).problems

    assert problems[0] == ("the shards were cut into different numbers of parts: "
                           "a is 1/2, b is 2/3")
    # The largest count is the one the missing parts are counted against.
    assert problems[1:] == ["shard 3/3 is missing: give every shard's report folder (its "
                            "checks count as lost)"]


def test_a_shard_cut_from_another_suite_is_a_problem_counting_the_difference() -> None:
    other = [*SUITE[1:], check("checks/test_c.py::test_new[zh]"),
             check("checks/test_c.py::test_new[en]")]
    shards = [shard(1, 2, [record(DENIAL), record(HANDOFF)], folder=Path("a")),
              shard(2, 2, [record(DENIAL_EN), record(PLAIN)], folder=Path("b"), suite=other)]

    problems = merge(shards).problems

    assert problems[0] == ("shard 2/2 (b) was cut from another suite than 1/2 (a): 2 checks "
                           "only there, 1 missing there; run every shard on the same commit "
                           "with the same options")


def test_no_shard_at_all_is_a_problem() -> None:
    merged = merge([])

    assert merged.problems == ["no shard reports given"] and not merged.ok


def test_merge_keeps_the_first_picture_of_each_state_and_locale_and_every_note() -> None:
    def capture(state: str, locale: str, image: str) -> GalleryCapture:
        return GalleryCapture(state=state, title=state, locale=locale, image=image,
                              nodeid=DENIAL)

    first = shard(1, 2, [record(DENIAL), record(HANDOFF)], gallery=[
        capture("approval-ask", "zh", "a.png"), capture("approval-ask", "en", "b.png")],
        gallery_notes=["one"])
    second = shard(2, 2, [record(DENIAL_EN), record(PLAIN)], gallery=[
        capture("approval-ask", "zh", "c.png"), capture("handoff", "zh", "d.png")],
        gallery_notes=["two"])

    report = merge([first, second]).report

    assert [c.image for c in report.gallery] == ["a.png", "b.png", "d.png"]
    assert report.gallery_notes == ["one", "two"]


def test_merge_says_which_shards_were_interrupted_and_why() -> None:
    shards = [shard(1, 3, [record(DENIAL)], interrupted="interrupted by SIGTERM"),
              shard(2, 3, [record(DENIAL_EN), record(HANDOFF)]),
              shard(3, 3, [record(PLAIN)], interrupted="interrupted by SIGINT")]

    merged = merge(shards)

    assert merged.report.interrupted == ("shard 1/3 interrupted by SIGTERM; "
                                         "shard 3/3 interrupted by SIGINT")


def write_shard(folder: Path, tests: list[TestRecord], *, index: int = 1, count: int = 1,
                junit: str | None = None, **fields: object) -> Path:
    record_ = ShardRecord(index=index, count=count, collected=SUITE, folder=str(folder))
    SuiteReport(tests=tests, shard=record_, **fields).write(  # type: ignore[arg-type]
        folder / SUITE_FILE_NAME)
    if junit is not None:
        (folder / "junit.xml").write_text(junit, encoding="utf-8")
    return folder


def test_read_shard_of_a_folder_without_a_report_names_the_folder(tmp_path: Path) -> None:
    with pytest.raises(MergeError, match=f"{tmp_path} has no {SUITE_FILE_NAME}: give the "
                                         "folder a shard wrote"):
        read_shard(tmp_path)


def test_read_shard_of_a_file_that_is_no_report_says_so(tmp_path: Path) -> None:
    (tmp_path / SUITE_FILE_NAME).write_text('{"tests": 3}', encoding="utf-8")

    with pytest.raises(MergeError, match="is not a pling report"):
        read_shard(tmp_path)


def test_read_shard_of_a_run_that_was_not_cut_is_the_whole_suite(tmp_path: Path) -> None:
    tests = [record(DENIAL), record(HANDOFF, "failed")]
    SuiteReport(tests=tests).write(tmp_path / SUITE_FILE_NAME)

    read = read_shard(tmp_path)

    assert (read.record.index, read.record.count, read.label) == (1, 1, "1/1")
    assert read.record.collected == [check(DENIAL), check(HANDOFF)]
    assert read.folder == tmp_path


def test_shown_locales_keeps_the_tutorials_order_once_each_and_drops_locale_less_checks() -> None:
    # The suite runs each check in the tutorial's locales one after another, so the order of
    # first appearance is the tutorial's order (a tutorial may list "fr" before "en").
    report = SuiteReport(tests=[TestRecord(nodeid=f"t{i}{loc}", locale=loc, outcome="passed")
                                for i in range(2) for loc in ("fr", "en", None, "de")])

    assert shown_locales(report) == ["fr", "en", "de"]


JUNIT = """<?xml version="1.0" encoding="utf-8"?>
<testsuites name="pytest tests"><testsuite name="pytest" tests="1">
<testcase classname="checks.test_a" name="{name}"/></testsuite></testsuites>"""


def test_merged_junit_renames_each_shards_suites_and_lists_the_problems(tmp_path: Path) -> None:
    first = write_shard(tmp_path / "s1", [record(DENIAL)], index=1, count=3,
                        junit=JUNIT.format(name="test_denial[zh]"))
    # A bare <testsuite> root, as older pytest wrote it.
    second = write_shard(tmp_path / "s2", [record(DENIAL_EN)], index=2, count=3,
                         junit='<testsuite name="pytest"><testcase name="test_denial[en]"/>'
                               "</testsuite>")
    third = write_shard(tmp_path / "s3", [record(PLAIN)], index=3, count=3)
    shards = [read_shard(folder) for folder in (first, second, third)]
    merged = merge(shards)
    path = tmp_path / "out" / "deep" / "junit.xml"

    absent = merge_junit(shards, merged, path)

    assert absent == [str(third)]
    root = ET.parse(path).getroot()
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == ["pytest (shard 1/3)", "pytest (shard 2/3)",
                                               MERGE_SUITE_NAME]
    problems = suites[-1]
    assert problems.get("tests") == problems.get("errors") == str(len(merged.problems)) == "1"
    [case] = problems.findall("testcase")
    assert case.get("name") == "problem-1"
    error = case.find("error")
    assert error is not None and error.get("message") == error.text == merged.problems[0]


def test_merged_junit_of_a_clean_merge_has_no_problem_suite(tmp_path: Path) -> None:
    folder = write_shard(tmp_path / "s1", [record(n) for n in (DENIAL, DENIAL_EN, HANDOFF,
                                                               PLAIN)],
                         junit=JUNIT.format(name="x"))
    shards = [read_shard(folder)]

    merge_junit(shards, merge(shards), tmp_path / "junit.xml")

    names = [s.get("name") for s in ET.parse(tmp_path / "junit.xml").getroot()]
    assert names == ["pytest (shard 1/1)"]


def test_merged_gallery_keeps_the_first_shards_picture_when_two_shards_name_theirs_alike(
    tmp_path: Path
) -> None:
    folders = []
    for index in (1, 2):
        folder = tmp_path / f"s{index}"
        capture = GalleryCapture(state="s", title="S", locale="zh", image="s-zh.png",
                                 nodeid=DENIAL)
        write_shard(folder, [record(DENIAL)] if index == 1 else [record(n) for n in (
            DENIAL_EN, HANDOFF, PLAIN)], index=index, count=2, gallery=[capture])
        (folder / "gallery").mkdir()
        (folder / "gallery" / "s-zh.png").write_bytes(f"shard {index}".encode())
        folders.append(folder)
    shards = [read_shard(folder) for folder in folders]
    out = tmp_path / "deep" / "merged"

    write_merged(merge(shards), shards, out)

    assert (out / "gallery" / "s-zh.png").read_bytes() == b"shard 1"


def test_merged_folder_holds_the_report_the_wanted_pictures_and_the_traces(
    tmp_path: Path
) -> None:
    # The shard wrote its folder at `written`, CI downloaded it to `downloaded`.
    written, downloaded = tmp_path / "runner" / "report", tmp_path / "downloaded" / "s1"
    trace = written / "traces" / "test-denial" / "trace.zip"
    # The folder the shard wrote is still there, holding an older trace: the downloaded
    # folder given to the merge is the one that counts.
    trace.parent.mkdir(parents=True)
    trace.write_bytes(b"older")
    elsewhere = tmp_path / "elsewhere.zip"
    elsewhere.write_bytes(b"kept")
    gone = tmp_path / "gone" / "trace.zip"
    tests = [record(DENIAL, "failed", traces=(str(trace), str(elsewhere), str(gone))),
             record(DENIAL_EN), record(HANDOFF), record(PLAIN)]
    pictures = [GalleryCapture(state="s", title="S", locale=loc, image=f"{loc}.png",
                               nodeid=DENIAL) for loc in ("zh", "en")]
    record_ = ShardRecord(index=1, count=1, collected=SUITE, folder=str(written))
    SuiteReport(tests=tests, shard=record_, gallery=pictures).write(
        downloaded / SUITE_FILE_NAME)
    (downloaded / "gallery").mkdir()
    for name in ("zh.png", "en.png", "stray.png"):
        (downloaded / "gallery" / name).write_bytes(name.encode())
    (downloaded / "traces" / "test-denial").mkdir(parents=True)
    (downloaded / "traces" / "test-denial" / "trace.zip").write_bytes(b"zip")
    out = tmp_path / "merged"
    (out / "gallery").mkdir(parents=True)
    (out / "gallery" / "old.png").write_bytes(b"from an earlier merge")
    shards = [read_shard(downloaded)]

    write_merged(merge(shards), shards, out)

    merged = SuiteReport.read(out / SUITE_FILE_NAME)
    assert (out / "index.html").is_file()
    assert sorted(p.name for p in (out / "gallery").iterdir()) == ["en.png", "zh.png"]
    assert (out / "gallery" / "zh.png").read_bytes() == b"zh.png"
    copied = out / "traces" / "shard-1-of-1" / "test-denial" / "trace.zip"
    kept = out / "traces" / "shard-1-of-1" / "elsewhere.zip"
    assert merged.tests[0].traces == (str(copied.resolve()), str(kept.resolve()), str(gone))
    assert copied.read_bytes() == b"zip" and kept.read_bytes() == b"kept"


def test_run_merge_prints_the_shards_the_summary_and_the_problems(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = write_shard(tmp_path / "s1", [record(DENIAL), record(HANDOFF)], index=1, count=2)
    second = write_shard(tmp_path / "s2", [record(DENIAL_EN)], index=2, count=2)
    out = tmp_path / "merged"

    code = run_merge([first, second], report_folder=out, junit=tmp_path / "junit.xml")

    printed = capsys.readouterr()
    assert code == 1
    assert printed.out.splitlines()[0] == ("Merged 2 shard report(s): 1/2 (2 checks), "
                                           "2/2 (1 checks)")
    assert f"merge problem: {PLAIN} ran in no shard" in printed.out
    assert "denial-respected" in printed.out and "2/2 guarantees proven in zh, en" in printed.out
    assert printed.out.rstrip().endswith(f"HTML report: {out / 'index.html'}")
    assert f"{first} has no junit.xml" in printed.err and f"{second} has no" in printed.err
    assert (out / SUITE_FILE_NAME).is_file() and (tmp_path / "junit.xml").is_file()


def test_run_merge_of_a_clean_run_exits_0_and_writes_nothing_unasked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write_shard(tmp_path / "s1", [record(n) for n in (DENIAL, DENIAL_EN, HANDOFF,
                                                               PLAIN)])

    code = run_merge([folder], report_folder=None, junit=None)

    printed = capsys.readouterr()
    assert code == 0
    assert "merge problem" not in printed.out and "HTML report" not in printed.out
    assert printed.err == ""
    assert sorted(p.name for p in folder.iterdir()) == [SUITE_FILE_NAME]


def test_merge_keeps_the_choices_the_shards_ran_with() -> None:
    choices = [ShownChoice(name="driver", value="acme-assistant",
                           source="from --driver: drivers/acme-assistant.json")]
    merged = merge([shard(1, 2, [record(DENIAL), record(HANDOFF)], choices=choices),
                    shard(2, 2, [record(DENIAL_EN), record(PLAIN)], choices=choices)])

    assert merged.report.choices == choices

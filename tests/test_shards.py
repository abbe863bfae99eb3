"""Shards (--pling-shard K/N) and their merge (pling-tutorial merge-reports): every check in
exactly one part, the merged verdict the same as one serial run's, and a lost check, a check
run twice or a failed shard each failing the merge. Small suites of browserless checks, run
by pytester in subprocesses; one browser suite for the gallery and traces."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from pling_harness.cli.main import main
from pling_harness.cli.merge import merge, read_shard
from pling_harness.plugin.report import SuiteReport
from pling_harness.plugin.report_writer import SUITE_FILE_NAME
from pling_harness.plugin.shards import DURATIONS_FILE_NAME

# The harness's own checkout: the project these tests check.
PROJECT_ROOT = Path(__file__).resolve().parents[1]

pytest_plugins = ["pytester"]

# Ten checks in each of two locales, under a checks/ folder as a tutorial's are.
SMALL_SUITE = """
import pytest

@pytest.mark.guarantee("denial-respected")
@pytest.mark.parametrize("case", range(4))
def test_denial(locale, case):
    assert locale in ("zh", "en")

@pytest.mark.guarantee("handoff-cancel")
@pytest.mark.parametrize("case", range(3))
def test_handoff(locale, case):
    assert case < 3

@pytest.mark.guarantee("model-received")
def test_model_received(locale):
    assert FAIL_MODEL_RECEIVED is False, "the model heard success"

def test_skipped_here(locale):
    pytest.skip("not on this page")

def test_without_guarantee(locale):
    pass
"""
CHECK_FILE = Path("checks", "test_small.py")
R15_CHECKS = PROJECT_ROOT / "tutorials" / "r-15-confirmation-and-human-handoff" / "checks"


def write_suite(pytester: pytest.Pytester, *, failing: bool = False) -> None:
    pytester.path.joinpath("checks").mkdir(exist_ok=True)
    source = SMALL_SUITE.replace("FAIL_MODEL_RECEIVED", "True" if failing else "False")
    pytester.path.joinpath(CHECK_FILE).write_text(source, encoding="utf-8")


def write_durations(pytester: pytest.Pytester, durations: dict[str, float]) -> None:
    path = pytester.path / "checks" / DURATIONS_FILE_NAME
    path.write_text(json.dumps(durations), encoding="utf-8")


def uneven_durations(pytester: pytest.Pytester, tmp_path: Path, slow: str) -> dict[str, float]:
    """`slow` takes 100 s, every other check of the suite 1 s."""
    folder = tmp_path / "collected"
    run_shard(pytester, folder, None, "--collect-only")
    return {nodeid: 100.0 if nodeid == slow else 1.0 for nodeid in nodeids_run(folder)}


def run_shard(pytester: pytest.Pytester, folder: Path, shard: str | None,
              *args: str) -> pytest.RunResult:
    """One shard (or, with None, the serial run) writing its --pling-html folder, with its
    JUnit file inside it as CI's shards write it."""
    flags = ["--pling-shard", shard] if shard else []
    return pytester.runpytest_subprocess(
        str(CHECK_FILE), *flags, "--pling-html", str(folder),
        f"--junitxml={folder / 'junit.xml'}", "-p", "no:cacheprovider", *args)


def nodeids_run(folder: Path) -> list[str]:
    return [test.nodeid for test in SuiteReport.read(folder / SUITE_FILE_NAME).tests]


def verdict(report: SuiteReport) -> set[tuple[str, str | None, tuple[str, ...], str]]:
    return {(t.nodeid, t.locale, t.guarantees, t.outcome) for t in report.tests}


def test_shards_cover_every_check_exactly_once_and_cut_the_same_way_each_time(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    write_suite(pytester)
    serial = tmp_path / "serial"
    run_shard(pytester, serial, None, "--collect-only")
    suite = nodeids_run(serial)

    parts = []
    for index in (1, 2, 3):
        folder = tmp_path / f"shard-{index}"
        run_shard(pytester, folder, f"{index}/3", "--collect-only")
        parts.append(nodeids_run(folder))
    again = tmp_path / "shard-2-again"
    run_shard(pytester, again, "2/3", "--collect-only")

    assert len(suite) == 20
    assert sorted(n for part in parts for n in part) == sorted(suite), parts
    assert all(parts), f"a shard got no check: {parts}"
    assert nodeids_run(again) == parts[1]
    recorded = SuiteReport.read(tmp_path / "shard-1" / SUITE_FILE_NAME).shard
    assert recorded is not None and (recorded.index, recorded.count) == (1, 3)
    assert [c.nodeid for c in recorded.collected] == suite


def test_shards_are_balanced_by_the_recorded_durations(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    write_suite(pytester)
    slow = f"{CHECK_FILE.as_posix()}::test_denial[zh-0]"
    write_durations(pytester, uneven_durations(pytester, tmp_path, slow))

    parts = []
    for index in (1, 2):
        folder = tmp_path / f"shard-{index}"
        run_shard(pytester, folder, f"{index}/2", "--collect-only")
        parts.append(nodeids_run(folder))

    # The slow check outweighs the other nineteen together: it has a part alone.
    assert sorted(parts, key=len) == [[slow], [n for n in parts[0] + parts[1] if n != slow]]


def test_pytest_splits_own_options_cut_the_same_parts(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    write_suite(pytester)
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"

    run_shard(pytester, ours, "2/3", "--collect-only")
    run_shard(pytester, theirs, None, "--collect-only", "--splits", "3", "--group", "2")

    assert nodeids_run(theirs) == nodeids_run(ours)


def test_merged_report_of_shards_names_what_one_serial_run_names(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    write_suite(pytester, failing=True)
    run_shard(pytester, tmp_path / "serial", None).assert_outcomes(
        passed=16, failed=2, skipped=2)
    shards = [tmp_path / f"shard-{index}" for index in (1, 2, 3)]
    for index, folder in enumerate(shards, start=1):
        run_shard(pytester, folder, f"{index}/3")
    out = tmp_path / "merged"

    code = main(["merge-reports", *map(str, shards), "--report", str(out),
                 "--junitxml", str(out / "junit.xml")])

    serial = SuiteReport.read(tmp_path / "serial" / SUITE_FILE_NAME)
    merged = SuiteReport.read(out / SUITE_FILE_NAME)
    assert code == 1  # a check failed, as in the serial run
    assert verdict(merged) == verdict(serial)
    assert merged.guarantee_outcomes() == serial.guarantee_outcomes()
    assert (out / "index.html").is_file()
    cases = ET.parse(out / "junit.xml").getroot().iter("testcase")
    assert sorted(case.get("name", "") for case in cases) == sorted(
        nodeid.split("::")[-1] for nodeid in nodeids_run(tmp_path / "serial"))


def test_merge_of_passing_shards_passes(pytester: pytest.Pytester, tmp_path: Path) -> None:
    write_suite(pytester)
    shards = [tmp_path / f"shard-{index}" for index in (1, 2)]
    for index, folder in enumerate(shards, start=1):
        assert run_shard(pytester, folder, f"{index}/2").ret == pytest.ExitCode.OK

    assert main(["merge-reports", *map(str, shards)]) == 0


def test_a_shard_with_a_failed_check_fails_the_merge(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    write_suite(pytester, failing=True)
    shards = [tmp_path / f"shard-{index}" for index in (1, 2)]
    for index, folder in enumerate(shards, start=1):
        run_shard(pytester, folder, f"{index}/2")

    merged = merge([read_shard(folder) for folder in shards])

    assert not merged.ok and not merged.problems
    assert merged.report.guarantee_outcomes()[("model-received", "en")] == "failed"
    assert main(["merge-reports", *map(str, shards)]) == 1


def test_a_missing_shard_loses_its_checks_and_fails_the_merge(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    write_suite(pytester)
    shards = [tmp_path / f"shard-{index}" for index in (1, 2, 3)]
    for index, folder in enumerate(shards, start=1):
        run_shard(pytester, folder, f"{index}/3")
    lost = nodeids_run(shards[2])

    merged = merge([read_shard(folder) for folder in shards[:2]])

    assert not merged.ok
    assert "shard 3/3 is missing" in merged.problems[0]
    errors = {t.nodeid for t in merged.report.tests if t.outcome == "error"}
    assert errors == set(lost)
    assert main(["merge-reports", *map(str, shards[:2])]) == 1


def test_a_check_lost_from_a_shards_report_fails_the_merge(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    write_suite(pytester)
    shards = [tmp_path / f"shard-{index}" for index in (1, 2)]
    for index, folder in enumerate(shards, start=1):
        run_shard(pytester, folder, f"{index}/2")
    path = shards[1] / SUITE_FILE_NAME
    report = SuiteReport.read(path)
    lost = report.tests.pop(0)
    report.write(path)

    merged = merge([read_shard(folder) for folder in shards])

    assert merged.problems == [f"{lost.nodeid} ran in no shard: every check of the suite "
                               "must run in exactly one"]
    [record] = [t for t in merged.report.tests if t.nodeid == lost.nodeid]
    assert record.outcome == "error"
    for guarantee in lost.guarantees:
        assert merged.report.guarantee_outcomes()[(guarantee, lost.locale or "-")] == "error"


@pytest.mark.parametrize("outcome", ["skipped", "not run"])
def test_a_guarantee_check_left_unrun_by_a_shard_fails_the_merge(
    pytester: pytest.Pytester, tmp_path: Path, outcome: str
) -> None:
    # What a shard that stopped early leaves: checks skipped (-x) or not run (a cancelled
    # runner's SIGTERM, plugin/interrupt.py).
    write_suite(pytester)
    shards = [tmp_path / f"shard-{index}" for index in (1, 2)]
    for index, folder in enumerate(shards, start=1):
        run_shard(pytester, folder, f"{index}/2")
    path = shards[0] / SUITE_FILE_NAME
    report = SuiteReport.read(path)
    index, never_ran = next((i, t) for i, t in enumerate(report.tests) if t.guarantees)
    report.tests[index] = never_ran.model_copy(update={"outcome": outcome})
    report.write(path)

    merged = merge([read_shard(folder) for folder in shards])

    assert merged.problems == [
        f"guarantee {never_ran.guarantees[0]!r} in {never_ran.locale} is not proven: "
        f"{never_ran.nodeid} ({outcome}) did not run"]
    assert main(["merge-reports", *map(str, shards)]) == 1


def test_a_check_run_in_two_shards_fails_the_merge(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    # The durations file changed between the shards' runs (say, two commits): the cuts differ.
    write_suite(pytester)
    first, second = tmp_path / "shard-1", tmp_path / "shard-2"
    run_shard(pytester, first, "1/2")
    write_durations(pytester, uneven_durations(
        pytester, tmp_path, f"{CHECK_FILE.as_posix()}::test_denial[zh-0]"))
    run_shard(pytester, second, "2/2")
    twice = set(nodeids_run(first)) & set(nodeids_run(second))

    merged = merge([read_shard(first), read_shard(second)])

    assert twice, "the test needs the two cuts to overlap"
    doubled = {p.split(" ", 1)[0] for p in merged.problems if " ran in 2 shards: " in p}
    assert doubled == twice
    assert all(t.outcome == "error" for t in merged.report.tests if t.nodeid in twice)
    assert main(["merge-reports", str(first), str(second)]) == 1


def test_a_folder_without_a_report_is_an_error_naming_it(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]
                                                         ) -> None:
    assert main(["merge-reports", str(tmp_path)]) == 1
    assert f"{tmp_path} has no {SUITE_FILE_NAME}" in capsys.readouterr().err


# Two browser checks, one of which breaks its promise: a picture each and a trace.
BROWSER_SUITE = """
import pytest
from pling_harness.evidence import guarantees

@pytest.mark.guarantee("denial-respected")
def test_archive_denied(tutorial_page, dock):
    dock.ask("archive the workspace")
    dock.deny()

@pytest.mark.guarantee("model-received")
def test_denied_archive_counted_as_success(tutorial_page, dock, timeline):
    dock.ask("archive the workspace")
    dock.deny()
    guarantees.model_received(timeline, action="archive_workspace", code="OK")
"""


def test_merged_report_keeps_the_shards_gallery_and_the_failures_trace(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    pytester.path.joinpath("checks").mkdir()
    pytester.path.joinpath(CHECK_FILE).write_text(BROWSER_SUITE, encoding="utf-8")
    shards = [tmp_path / "runner-a" / "report", tmp_path / "runner-b" / "report"]
    for index, folder in enumerate(shards, start=1):
        run_shard(pytester, folder, f"{index}/2", "--pling-locale", "en", "--pling-gallery")
    # CI downloads each shard's folder somewhere else than where it was written.
    moved = [tmp_path / "downloaded" / f"shard-{index}" for index in (1, 2)]
    for folder, target in zip(shards, moved, strict=True):
        target.parent.mkdir(parents=True, exist_ok=True)
        folder.rename(target)
    out = tmp_path / "merged"

    assert main(["merge-reports", *map(str, moved), "--report", str(out)]) == 1

    merged = SuiteReport.read(out / SUITE_FILE_NAME)
    assert merged.gallery and all((out / "gallery" / c.image).is_file() for c in merged.gallery)
    [failed] = [t for t in merged.tests if t.outcome == "failed"]
    assert failed.traces and all(Path(trace).is_file() and Path(trace).is_relative_to(out)
                                 for trace in failed.traces), failed.traces
    assert failed.timeline and "archive_workspace" in failed.timeline


def test_a_shard_run_by_pytest_xdist_workers_records_the_same_part(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    write_suite(pytester)
    alone, workers = tmp_path / "alone", tmp_path / "workers"
    run_shard(pytester, alone, "2/3")

    run_shard(pytester, workers, "2/3", "-n", "2")

    expected = SuiteReport.read(alone / SUITE_FILE_NAME).shard
    assert sorted(nodeids_run(workers)) == sorted(nodeids_run(alone))
    assert expected is not None
    assert SuiteReport.read(workers / SUITE_FILE_NAME).shard == expected.model_copy(
        update={"folder": str(workers)})


# r-15's copy files, each locale's against the others' (a generated check per locale).
COPY_CHECKS = "table-copy-files-agree"


def test_check_command_runs_its_shards_and_merge_reports_gives_the_verdict(
    tmp_path: Path
) -> None:
    folders = [tmp_path / f"shard-{index}" for index in (1, 2)]
    codes = [main(["check", "r-15", "--shard", f"{index}/2", "-k", COPY_CHECKS, "-q",
                   "--report", str(folder)]) for index, folder in enumerate(folders, start=1)]
    reports = [SuiteReport.read(folder / SUITE_FILE_NAME) for folder in folders]

    assert codes == [0, 0]
    assert [(r.shard.index, r.shard.count) for r in reports if r.shard] == [(1, 2), (2, 2)]
    assert reports[0].shard is not None and len(reports[0].shard.collected) == sum(
        len(r.tests) for r in reports) > 1
    assert main(["merge-reports", *map(str, folders)]) == 0


def test_check_command_refuses_a_shard_outside_its_count_before_running(
    capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check", "r-15", "--shard", "5/4"]) == 2
    assert "--shard '5/4': give K/N with 1 <= K <= N" in capsys.readouterr().err


def collected_ids(command: list[str]) -> list[str]:
    result = subprocess.run([*command, str(R15_CHECKS / "test_acceptance_walk.py"),
                             "--collect-only", "-q", "-p", "no:cacheprovider"],
                            cwd=PROJECT_ROOT, capture_output=True, text=True, check=False)
    return [line for line in result.stdout.splitlines() if "::" in line]


def test_node_ids_are_the_same_however_pytest_is_started() -> None:
    # `python -m pytest` (how check starts it) loads the project's entry points in another
    # order than the `pytest` script; the durations file's ids must fit both.
    script = Path(sys.executable).with_name("pytest")

    by_module = collected_ids([sys.executable, "-m", "pytest"])

    assert by_module and by_module == collected_ids([str(script)])
    assert all("[zh-" in nodeid or "[en-" in nodeid for nodeid in by_module), by_module

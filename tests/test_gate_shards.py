"""How --pling-shard K/N cuts the suite: which checks each part gets from the recorded
durations, what it says about them, which durations it reads, what it refuses, and the
record of the whole suite it hands the report (and pytest-xdist's controller). Small
suites run by pytester in this process (pytest-playwright left out: one soft-assertion
scope per process); tests/test_shards.py runs the parts in real subprocesses and merges."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from pling_harness.plugin.report import CollectedCheck, ShardRecord, SuiteReport
from pling_harness.plugin.shards import (
    DURATIONS_FILE_NAME,
    SHARD_KEY,
    WORKER_OUTPUT_KEY,
    ShardCutter,
    checks_folder,
    parse_shard,
)
from pling_harness.project.action_table import ACTION_TABLE_FILE_NAME

pytest_plugins = ["pytester"]

# Four checks that take 4, 3, 2 and 1 s by the durations file below.
SUITE = """
import pytest

@pytest.mark.guarantee("denial-respected")
def test_a(locale):
    pass

def test_b():
    pass
"""
FILE = "checks/test_cut.py"
DURATIONS = {f"{FILE}::test_a[zh]": 4.0, f"{FILE}::test_a[en]": 3.0, f"{FILE}::test_b": 2}
NOT_PLAYWRIGHT = ("-p", "no:playwright", "-p", "no:cacheprovider")


def write_suite(pytester: pytest.Pytester, durations: object = DURATIONS) -> None:
    (pytester.path / "checks").mkdir(exist_ok=True)
    (pytester.path / FILE).write_text(SUITE, encoding="utf-8")
    if durations is not None:
        (pytester.path / "checks" / DURATIONS_FILE_NAME).write_text(
            json.dumps(durations), encoding="utf-8")


def cut(pytester: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, SuiteReport]:
    path = pytester.path / "report.json"
    path.unlink(missing_ok=True)  # each run's own report, never the last one's
    result = pytester.runpytest(FILE, "--pling-report", str(path), *NOT_PLAYWRIGHT, *args)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str() + result.stderr.str()
    return result, SuiteReport.read(path)


def names(report: SuiteReport) -> list[str]:
    return [t.nodeid.split("::")[1] for t in report.tests]


def test_each_part_gets_the_longest_check_left_until_all_are_given(
    pytester: pytest.Pytester
) -> None:
    write_suite(pytester)

    parts = [names(cut(pytester, "--pling-shard", f"{k}/2")[1]) for k in (1, 2)]

    # 4 s → part 1, 3 s → part 2, 2 s (average, unknown) → part 2, ... in suite order.
    assert parts == [["test_a[zh]"], ["test_a[en]", "test_b"]]


def test_three_parts_of_three_checks_get_one_each_and_say_what_they_hold(
    pytester: pytest.Pytester
) -> None:
    write_suite(pytester)

    result, report = cut(pytester, "--pling-shard", "3/3")

    assert names(report) == ["test_b"]
    result.stdout.fnmatch_lines(["pling: shard 3/3: 1 of 3 checks, about 2 s by the recorded "
                                 "durations (3 of 3 checks recorded)"])
    result.assert_outcomes(passed=1, deselected=2)


def test_a_part_cut_with_unrecorded_checks_says_how_to_refresh_them(
    pytester: pytest.Pytester
) -> None:
    # test_b is not recorded: it counts as the average, 6 s.
    write_suite(pytester, durations={f"{FILE}::test_a[zh]": 10.0, f"{FILE}::test_a[en]": 2.0})

    result, report = cut(pytester, "--pling-shard", "1/2")

    assert names(report) == ["test_a[zh]"]
    result.stdout.fnmatch_lines([
        "pling: shard 1/2: 1 of 3 checks, about 10 s by the recorded durations (2 of 3 "
        "checks recorded; refresh them with pling-tutorial check <id> --store-durations)"])


def test_a_part_records_the_whole_suite_it_was_cut_from(pytester: pytest.Pytester) -> None:
    write_suite(pytester)

    _, report = cut(pytester, "--pling-shard", "2/2")

    assert report.shard == ShardRecord(index=2, count=2, collected=[
        CollectedCheck(nodeid=f"{FILE}::test_a[zh]", locale="zh",
                       guarantees=("denial-respected",)),
        CollectedCheck(nodeid=f"{FILE}::test_a[en]", locale="en",
                       guarantees=("denial-respected",)),
        CollectedCheck(nodeid=f"{FILE}::test_b")])


def test_pytest_splits_own_options_cut_the_same_part(pytester: pytest.Pytester) -> None:
    write_suite(pytester)

    _, ours = cut(pytester, "--pling-shard", "2/2")
    _, theirs = cut(pytester, "--splits", "2", "--group", "2")

    assert names(theirs) == names(ours) and theirs.shard == ours.shard


def test_pytest_splits_algorithm_is_taken_when_given_on_the_command_line(
    pytester: pytest.Pytester
) -> None:
    write_suite(pytester)

    _, report = cut(pytester, "--pling-shard", "1/2",
                    "--splitting-algorithm", "duration_based_chunks")

    # Chunks in suite order up to half the time: 4 s fills the first part... and 3 s too.
    assert names(report) == ["test_a[zh]", "test_a[en]"]


def test_a_run_without_a_shard_is_not_cut(pytester: pytest.Pytester) -> None:
    write_suite(pytester)

    result, report = cut(pytester)

    assert len(report.tests) == 3 and report.shard is None
    assert "pling: shard" not in result.stdout.str()


def test_our_shard_and_pytest_splits_together_are_refused(pytester: pytest.Pytester) -> None:
    write_suite(pytester)

    result = pytester.runpytest(FILE, *NOT_PLAYWRIGHT, "--pling-shard", "1/2", "--splits", "2",
                                "--group", "1")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*give either --pling-shard K/N or pytest-split's --splits N "
                                 "--group K, not both*"])


def test_a_durations_path_the_user_names_is_read_instead(pytester: pytest.Pytester) -> None:
    write_suite(pytester)
    named = pytester.path / "elsewhere.json"
    named.write_text(json.dumps({**DURATIONS, f"{FILE}::test_b": 100.0}), encoding="utf-8")

    _, report = cut(pytester, "--pling-shard", "1/2", "--durations-path", str(named))

    assert names(report) == ["test_b"]


@pytest.mark.parametrize(("text", "problem"), [
    ("{not json", "is not a durations file (Expecting property name"),
    ('["a"]', "is not a durations file (node id → seconds)"),
    ('{"a": "slow"}', "is not a durations file (node id → seconds)"),
])
def test_a_broken_durations_file_is_a_usage_error_naming_it_and_the_fix(
    pytester: pytest.Pytester, text: str, problem: str
) -> None:
    write_suite(pytester, durations=None)
    (pytester.path / "checks" / DURATIONS_FILE_NAME).write_text(text, encoding="utf-8")

    result = pytester.runpytest(FILE, *NOT_PLAYWRIGHT, "--pling-shard", "1/2")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*checks/{DURATIONS_FILE_NAME} {problem}*refresh it with "
                                 "pling-tutorial check <id> --store-durations*"])


@pytest.mark.parametrize(("text", "expected"), [("2/4", (2, 4)), (" 1/1 ", (1, 1)),
                                                 ("4/4", (4, 4)), ("10/12", (10, 12))])
def test_a_shard_is_k_of_n(text: str, expected: tuple[int, int]) -> None:
    assert parse_shard(text) == expected


@pytest.mark.parametrize("text", ["0/4", "5/4", "2", "a/b", "2/4/1", "-1/4", "2/0", ""])
def test_a_shard_outside_one_to_n_is_a_usage_error_naming_it(text: str) -> None:
    with pytest.raises(pytest.UsageError, match=f"--pling-shard {text!r}: give K/N with "
                                                "1 <= K <= N, e.g. --pling-shard 2/4"):
        parse_shard(text)


def test_the_checks_folder_is_the_nearest_one_named_checks(tmp_path: Path) -> None:
    assert checks_folder(tmp_path / "t" / "checks" / "sub" / "test_x.py") == (
        tmp_path / "t" / "checks")
    assert checks_folder(tmp_path / "t" / "tests" / "test_x.py") is None


def test_the_checks_folder_of_checks_generated_from_an_action_table_is_the_one_beside_it(
    tmp_path: Path
) -> None:
    # Their durations are recorded there, with the tutorial's hand-written checks'.
    assert checks_folder(tmp_path / "t" / ACTION_TABLE_FILE_NAME) == tmp_path / "t" / "checks"


def test_an_xdist_worker_sends_its_record_and_the_controller_keeps_the_first() -> None:
    record = ShardRecord(index=1, count=2, collected=[CollectedCheck(nodeid="t::a")])
    other = record.model_copy(update={"index": 2})
    worker_config = SimpleNamespace(stash={SHARD_KEY: record}, workeroutput={})
    worker = ShardCutter(1, 2, worker_config)  # type: ignore[arg-type]
    worker.pytest_sessionfinish(SimpleNamespace(config=worker_config))  # type: ignore[arg-type]

    stash: dict[object, object] = {}
    controller_config = SimpleNamespace(stash=stash, pluginmanager=SimpleNamespace(
        get_plugin=lambda name: None))
    controller = ShardCutter(1, 2, controller_config)  # type: ignore[arg-type]
    controller.pytest_testnodedown(SimpleNamespace(workeroutput={}), None)
    controller.pytest_testnodedown(SimpleNamespace(workeroutput=worker_config.workeroutput), None)
    controller.pytest_testnodedown(SimpleNamespace(workeroutput={
        WORKER_OUTPUT_KEY: other.model_dump_json()}), None)

    assert worker_config.workeroutput == {WORKER_OUTPUT_KEY: record.model_dump_json()}
    assert stash == {SHARD_KEY: record}


def test_a_process_that_is_no_xdist_worker_sends_nothing() -> None:
    config = SimpleNamespace(stash={SHARD_KEY: ShardRecord(index=1, count=1, collected=[])})
    cutter = ShardCutter(1, 1, config)  # type: ignore[arg-type]

    cutter.pytest_sessionfinish(SimpleNamespace(config=config))  # type: ignore[arg-type]

    assert not hasattr(config, "workeroutput")


def test_a_part_is_cut_without_pytest_xdist(pytester: pytest.Pytester) -> None:
    # pytest-xdist is optional: its hook is an optional hook of the cutter.
    write_suite(pytester)

    result, report = cut(pytester, "--pling-shard", "1/2", "-p", "no:xdist")

    assert result.ret == pytest.ExitCode.OK and names(report) == ["test_a[zh]"]


def test_a_part_is_cut_from_the_suite_as_k_selected_it(pytester: pytest.Pytester) -> None:
    write_suite(pytester)

    result, report = cut(pytester, "--pling-shard", "1/2", "-k", "test_a")

    assert report.shard is not None
    assert [c.nodeid for c in report.shard.collected] == [f"{FILE}::test_a[zh]",
                                                          f"{FILE}::test_a[en]"]
    assert names(report) == ["test_a[zh]"]
    result.stdout.fnmatch_lines(["pling: shard 1/2: 1 of 2 checks, *"])


def test_a_part_is_cut_in_a_run_without_a_terminal(pytester: pytest.Pytester) -> None:
    # Some CI wrappers run pytest with `-p no:terminal`: the cut says nothing, and holds.
    write_suite(pytester)

    _, report = cut(pytester, "--pling-shard", "1/2", "-p", "no:terminal")

    assert names(report) == ["test_a[zh]"]


def test_pytest_splits_cutter_configured_before_ours_is_taken_out(
    pytester: pytest.Pytester
) -> None:
    # Which of the two configures first follows the order the entry points load in: when
    # pytest-split's is first, its cutter is there already and must not cut a second time.
    write_suite(pytester)
    pytester.makeconftest("""
        import pytest
        from pytest_split.plugin import PytestSplitPlugin

        @pytest.hookimpl(tryfirst=True)
        def pytest_configure(config):
            if config.option.splits and config.option.group:
                config.pluginmanager.register(PytestSplitPlugin(config), "pytestsplitplugin")
    """)

    _, ours = cut(pytester, "--pling-shard", "2/2")
    _, theirs = cut(pytester, "--splits", "2", "--group", "2")

    assert names(theirs) == names(ours) == ["test_a[en]", "test_b"]

"""A second tutorial, different from r-15 and from what `new` writes, whose whole matrix comes
from its action table alone (issue 29): a shared board with a read (`none`), a rename with
an argument (`ask`), a clear (`ask-always`) and a lock the human does with a code (a handoff
with two steps and a one-minute timeout). It is built in a temporary folder from
tests/helpers/board_tutorial/ over what `new` writes (the page, backend, table, model
rules and catalogue replaced); it has no hand-written check. Its page's mutants, one per
promise, are each killed by the generated checks."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from pling_harness.cli.main import main

BOARD_ID, BOARD_SHORT_ID = "r-94-board", "r-94"
DATA = Path(__file__).parent / "helpers" / "board_tutorial"


def build_board(root: Path) -> Path:
    """The board tutorial under `root`: `new`'s files, then the board's own."""
    assert main(["new", BOARD_ID, "--short-id", BOARD_SHORT_ID, "--locales", "en",
                 "--root", str(root)]) == 0
    tutorial = root / "tutorials" / BOARD_ID
    page = root / "fixtures" / BOARD_ID
    shutil.rmtree(tutorial / "mutation")
    for name in ("tutorial.json", "actions.json", "backend.py", "model-rules.json"):
        shutil.copy(DATA / name, tutorial / name)
    shutil.copy(DATA / "copy.en.json", tutorial / "copy" / "en.json")
    for written in page.iterdir():
        written.unlink()
    for name in ("index.html", "app.js"):
        shutil.copy(DATA / name, page / name)
    (tutorial / "mutation" / "catalogue").mkdir(parents=True)
    shutil.copy(DATA / "catalogue.json", tutorial / "mutation" / "catalogue" / "board.json")
    return root


@pytest.fixture(scope="module")
def board(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_board(tmp_path_factory.mktemp("board"))


def check(root: Path, report: Path, *args: str) -> tuple[int, list[dict[str, Any]]]:
    code = main(["check", BOARD_SHORT_ID, "--root", str(root), "-p", "no:cacheprovider",
                 "--pling-report", str(report), *args])
    return code, json.loads(report.read_text(encoding="utf-8"))["tests"]


def test_its_whole_matrix_comes_from_its_table_and_passes(
    board: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    code, tests = check(board, tmp_path / "report.json")
    out = capsys.readouterr().out

    assert code == 0, out
    assert not (board / "tutorials" / BOARD_ID / "checks").exists()
    assert all(t["nodeid"].startswith(f"tutorials/{BOARD_ID}/actions.json::test_declared[")
               for t in tests), tests
    checks = {t["nodeid"].split("[", 1)[1].removesuffix("-en-chromium]") for t in tests}
    # Each policy gets its own checks, the handoff its own, from the declaration alone.
    assert {"get_board-policy-table", "rename_board-session-grant-for-ask",
            "rename_board-hidden-characters-refused", "clear_board-ask-always-never-granted",
            "clear_board-rejected-when-unavailable", "lock_board-handoff-timeout",
            "lock_board-success-only-after-published", "lock_board-handoff-steps-advance",
            "clear_board-new-conversation-ends-pending", "table-projection-complete",
            "lock_board-refuses-foreign-requests", "table-dev-server-refuses-other-sites",
            "table-nothing-reaches-the-next-test", "get_board-registered-once-as-served",
            "clear_board-registered-once-remount"} <= checks
    assert "get_board-refuses-foreign-requests" not in checks  # a read
    # Its highlights follow content added above them; but the page is 185 px of unstyled
    # text: no window the dock works in hides a target, none scrolls it, no width moves it.
    outcomes = {t["nodeid"].split("[", 1)[1].removesuffix("-en-chromium]"): t["outcome"]
                for t in tests if "-highlight-" in t["nodeid"]}
    assert outcomes == {"lock_board-highlight-brings-target-into-view": "n/a",
                        "lock_board-highlight-follows-scroll": "n/a",
                        "lock_board-highlight-follows-resize": "n/a",
                        "lock_board-highlight-follows-layout": "passed"}, outcomes
    assert "clear_board-session-grant-for-ask" not in checks
    # Every guarantee its checks prove is proven, however many the harness declares.
    proven = re.search(r"(\d+)/(\d+) guarantees proven in en", out)
    assert proven is not None and proven[1] == proven[2], out


def test_its_node_ids_are_the_same_from_any_starting_folder(
    board: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A folder beside the board: with no rootdir given, pytest would take their common
    # ancestor (the temp folder) and prefix every node id with the board's own path.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)

    code, tests = check(board, tmp_path / "report.json", "-k", "table-projection-complete")

    assert code == 0
    assert [t["nodeid"] for t in tests] == [
        f"tutorials/{BOARD_ID}/actions.json::test_declared[table-projection-complete-en-chromium]"]


def test_a_table_that_misses_an_action_of_the_page_fails_naming_both(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    root = build_board(tmp_path / "root")
    table_path = root / "tutorials" / BOARD_ID / "actions.json"
    table = json.loads(table_path.read_text(encoding="utf-8"))
    del table["actions"]["clear_board"]
    table_path.write_text(json.dumps(table), encoding="utf-8")

    code, tests = check(root, tmp_path / "report.json", "-k", "table-projection-complete")
    out = capsys.readouterr().out

    assert code == 1, out
    assert [t["outcome"] for t in tests] == ["failed"]
    assert "the page offers the model ['clear_board'], which the table does not list" in \
        tests[0]["failure"]


@pytest.mark.mutation
def test_a_mutant_of_its_page_for_each_promise_is_killed(
    board: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["mutate", BOARD_SHORT_ID, "--root", str(board), "--focused", "--jobs", "2"])
    out = capsys.readouterr().out

    assert code == 0, out
    mutants = len(json.loads((DATA / "catalogue.json").read_text(encoding="utf-8"))["mutants"])
    assert f"score: {mutants}/{mutants} mutants killed by the checks meant to catch them" in out
    assert "guarantees with no mutant that they kill" not in out

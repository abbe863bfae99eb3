"""The release replay's table and exit code (pling_harness/cli/releases/declared.py): a run
rewrites the rows it replayed, in their place, and keeps the last run of every other row, so
a replay of one page or one bug never drops the other page's rows; every row has an outcome;
an error exits non-zero, and so does a bug not replayed."""

from __future__ import annotations

from pathlib import Path

import pytest

from pling_harness.cli.releases.declared import (
    BEGIN,
    END,
    EXIT_NOT_ALL_REPLAYED,
    EXIT_NOT_AS_EXPECTED,
    HEADER,
    Row,
    exit_code,
    table,
    write_table,
)
from pling_harness.cli.releases.verdict import RowOutcome

ORDER = ("ai-sdk", "copilotkit")


def row(page: str, bug: str, said: str, outcome: RowOutcome = "caught",
        output: str = "") -> Row:
    return Row(page, bug, f"https://example.com/{bug}", outcome, "x@1.0.0", said, "x@1.0.1",
               "passed (1 check)", "a-guarantee", output, "2026-12-07")


def rows_in(path: Path) -> list[tuple[str, str, str]]:
    """(bug cell, outcome cell, buggy release's cell) of each row between the markers."""
    lines = path.read_text().split(BEGIN)[1].split(END)[0].strip().splitlines()
    assert lines[0] == HEADER
    return [(cells[2].strip(), cells[3].strip(), cells[5].strip())
            for cells in (line.split("|") for line in lines[2:])]


def test_a_run_rewrites_its_rows_in_place_and_keeps_the_others(tmp_path: Path) -> None:
    document = tmp_path / "replay.md"
    first = [row("ai-sdk", "a-1", "old"), row("ai-sdk", "a-2", "old"),
             row("copilotkit", "c-1", "old")]
    document.write_text(f"prose\n{BEGIN}\n{table(first)}{END}\nmore prose\n")

    write_table(document, [row("ai-sdk", "a-1", "new", "error")], ["ai-sdk"], {"a-1"}, ORDER)
    write_table(document, [row("copilotkit", "CK-9", "new")], ["copilotkit"], {"CK-9"}, ORDER)

    assert rows_in(document) == [
        ("[a-1](https://example.com/a-1)", "**error**", "new"),
        ("[a-2](https://example.com/a-2)", "**caught**", "old"),
        ("[c-1](https://example.com/c-1)", "**caught**", "old"),
        ("[CK-9](https://example.com/CK-9)", "**caught**", "new")]
    assert document.read_text().startswith("prose\n") and document.read_text().endswith(
        f"{END}\nmore prose\n")


def test_a_run_of_a_whole_page_drops_that_pages_rows_it_no_longer_has(tmp_path: Path) -> None:
    document = tmp_path / "replay.md"
    first = [row("ai-sdk", "a-1", "old"), row("copilotkit", "c-gone", "old")]
    document.write_text(f"{BEGIN}\n{table(first)}{END}\n")

    write_table(document, [row("copilotkit", "c-1", "new")], ["copilotkit"], set(), ORDER)

    assert rows_in(document) == [("[a-1](https://example.com/a-1)", "**caught**", "old"),
                                 ("[c-1](https://example.com/c-1)", "**caught**", "new")]


def test_a_rows_output_folder_is_shown_relative_to_the_table(tmp_path: Path) -> None:
    folder = tmp_path / "replay-runs" / "ai-sdk" / "a-1"
    folder.mkdir(parents=True)
    text = table([row("ai-sdk", "a-1", "x | y", output=str(folder))], tmp_path)
    assert "`replay-runs/ai-sdk/a-1`" in text
    assert "x \\| y" in text  # a message's bar never splits the row


@pytest.mark.parametrize(("outcomes", "code"), [
    (["caught", "open"], 0),
    (["caught", "not replayed"], EXIT_NOT_ALL_REPLAYED),
    (["caught", "error"], EXIT_NOT_AS_EXPECTED),
    (["error", "not replayed"], EXIT_NOT_AS_EXPECTED),
    (["passed"], EXIT_NOT_AS_EXPECTED),
    (["failed"], EXIT_NOT_AS_EXPECTED),
])
def test_the_exit_code_says_whether_every_row_was_replayed_as_expected(
        outcomes: list[RowOutcome], code: int) -> None:
    assert exit_code([row("ai-sdk", f"b-{i}", "-", outcome)
                      for i, outcome in enumerate(outcomes)]) == code


def test_the_pages_keep_their_place_in_the_table_whatever_order_the_files_give(
        tmp_path: Path) -> None:
    document = tmp_path / "replay.md"
    first = table([row("ai-sdk", "a-1", "old"), row("copilotkit", "c-1", "old")])
    document.write_text(f"{BEGIN}\n{first}{END}\n")

    write_table(document, [row("ai-sdk", "a-1", "new")], ["ai-sdk"], set(),
                ("copilotkit", "ai-sdk", "assistant-ui"))
    write_table(document, [row("assistant-ui", "u-1", "new")], ["assistant-ui"], set(),
                ("copilotkit", "ai-sdk", "assistant-ui"))

    assert [bug for bug, _, _ in rows_in(document)] == [
        "[a-1](https://example.com/a-1)", "[c-1](https://example.com/c-1)",
        "[u-1](https://example.com/u-1)"]

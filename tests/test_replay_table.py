"""The release replay's table (scripts/release_replay/replay_all.py --table): a run rewrites
the rows it replayed, in their place, and keeps the last run of every other row, so a replay
of one page or one bug never drops the other page's rows."""

from __future__ import annotations

import sys
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT_ROOT / "scripts" / "release_replay"))

from replay_all import BEGIN, END, Row, table, write_table  # noqa: E402 (a script's module)


def row(page: str, bug: str, said: str) -> Row:
    return Row(page, bug, f"https://example.com/{bug}", "1.0.0", "1.0.1", "a-guarantee", said,
               True)


def rows_in(path: Path) -> list[tuple[str, str]]:
    """(bug cell, first failure cell) of each row between the markers."""
    lines = path.read_text().split(BEGIN)[1].split(END)[0].strip().splitlines()[2:]
    return [(line.split("|")[2].strip(), line.split("|")[6].strip()) for line in lines]


def test_a_run_rewrites_its_rows_in_place_and_keeps_the_others(tmp_path: Path) -> None:
    document = tmp_path / "replay.md"
    first = [row("ai-sdk", "a-1", "old"), row("ai-sdk", "a-2", "old"),
             row("copilotkit", "c-1", "old")]
    document.write_text(f"prose\n{BEGIN}\n{table(first)}{END}\nmore prose\n")

    write_table(document, [row("ai-sdk", "a-1", "new")], ["ai-sdk"], {"a-1"})
    write_table(document, [row("copilotkit", "CK-9", "new")], ["copilotkit"], {"CK-9"})

    assert rows_in(document) == [
        ("[a-1](https://example.com/a-1)", "new"), ("[a-2](https://example.com/a-2)", "old"),
        ("[c-1](https://example.com/c-1)", "old"), ("[CK-9](https://example.com/CK-9)", "new")]
    assert document.read_text().startswith("prose\n") and document.read_text().endswith(
        f"{END}\nmore prose\n")


def test_a_run_of_a_whole_page_drops_that_pages_rows_it_no_longer_has(tmp_path: Path) -> None:
    document = tmp_path / "replay.md"
    first = [row("ai-sdk", "a-1", "old"), row("copilotkit", "c-gone", "old")]
    document.write_text(f"{BEGIN}\n{table(first)}{END}\n")

    write_table(document, [row("copilotkit", "c-1", "new")], ["copilotkit"], set())

    assert rows_in(document) == [("[a-1](https://example.com/a-1)", "old"),
                                 ("[c-1](https://example.com/c-1)", "new")]

"""The current figures: docs/measurements.json, one record per figure, and the page
docs/measurements.md written from it (the page is never edited by hand).

    .venv/bin/python scripts/figures.py            # rewrite docs/measurements.md from the records
    .venv/bin/python scripts/figures.py --check    # exit 1 if the page is not what the records give

A measuring script records what it measured with `record(...)` (scripts/measure.py does);
a figure measured by hand is a record edited in the JSON, then this command. Each record
carries its date, commit, the machine's load and the command that measures it again; what a
record replaces goes to docs/history/ if it is worth keeping, never into the page.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

PROJECT_ROOT = Path(__file__).resolve().parent.parent
FIGURES = PROJECT_ROOT / "docs" / "measurements.json"
PAGE = PROJECT_ROOT / "docs" / "measurements.md"

Text = Annotated[str, Field(min_length=1, max_length=400)]


class Figure(BaseModel):
    """One measured figure, as the page shows it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    key: Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9-]*$", max_length=80)]
    """Stable name, so a script that measures it again replaces this record."""
    topic: Text
    what: Text
    value: Text
    goal: Text | None = None
    date: Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$")]
    commit: Annotated[str, Field(pattern=r"^[0-9a-f]{7,40}$")]
    load: Annotated[str, Field(max_length=40)]
    """The load average while it ran (a busy machine makes every time an upper bound)."""
    command: Text


class Figures(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    figures: tuple[Figure, ...]


HEADER = """\
# Measurements

The project's current figures, one row each, with the date, the commit, the machine's
load average while it ran (2 cores, shared: a busy machine makes every time an upper bound)
and the command that measures it again. Slow measurements run by their own command, never
inside `.ci/run`. This page is written by `scripts/figures.py` from
[measurements.json](measurements.json); do not edit it by hand. How figures were reached,
and the ones they replaced: [history/measurements-2026-12.md](history/measurements-2026-12.md).
"""


def load(path: Path = FIGURES) -> Figures:
    return Figures.model_validate_json(path.read_text(encoding="utf-8"))


def cell(text: str) -> str:
    return text.replace("|", "\\|")


def render(figures: Figures) -> str:
    """The page: a table per topic, in the records' order."""
    topics = list(dict.fromkeys(figure.topic for figure in figures.figures))
    lines = [HEADER]
    for topic in topics:
        lines += [f"## {topic}", "", "| what | figure | goal | measured | command |",
                  "|---|---|---|---|---|"]
        for figure in (f for f in figures.figures if f.topic == topic):
            measured = f"{figure.date}, {figure.commit}, load {figure.load}"
            lines.append(f"| {cell(figure.what)} | {cell(figure.value)} | "
                         f"{cell(figure.goal or '—')} | {measured} | `{cell(figure.command)}` |")
        lines.append("")
    return "\n".join(lines)


def record(new: Sequence[Figure], path: Path = FIGURES, page: Path = PAGE) -> None:
    """Replace the records with the same keys (new keys go last), then rewrite the page."""
    figures = load(path)
    by_key = {figure.key: figure for figure in new}
    kept = [by_key.pop(figure.key, figure) for figure in figures.figures]
    updated = Figures(figures=(*kept, *by_key.values()))
    path.write_text(updated.model_dump_json(indent=2) + "\n", encoding="utf-8")
    page.write_text(render(updated), encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="exit 1 if docs/measurements.md is not what the records give")
    args = parser.parse_args(argv)
    written = render(load())
    if args.check:
        if PAGE.read_text(encoding="utf-8") != written:
            print(f"{PAGE.relative_to(PROJECT_ROOT)} is out of date: run "
                  "scripts/figures.py", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(written, encoding="utf-8")
    print(f"wrote {PAGE.relative_to(PROJECT_ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

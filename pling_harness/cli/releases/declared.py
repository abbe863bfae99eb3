"""The tutorial's declared framework bugs replayed: each bug of a page's releases file
(`tutorials/<id>/mutation/releases.json`, `releases-<page>.json`) on its last buggy release
(a check of each expected guarantee must fail with that guarantee's own violation) and its
first fixed one (the same checks must pass); a bug with no fixed release yet on the newest
release it shows on (caught there: an open bug). Judged by the tutorial's own checks through
the page's row and its dock driver, one check a seat (`seats`), from each run's JSON report
(`verdict`).

The table (`--table FILE`) is written between the file's markers; a run of one page, or of
named bugs, keeps the other rows' last run. Every run's output is kept in `--runs` (default:
beside the table, `<table>-runs/`, one folder per row).

Exit 0: every selected bug replayed as expected (caught or open). Exit 1: a row is an
error, passed or failed. Exit 3: the replayed rows were as expected, but some bug was not
replayed (each row says why).
"""

from __future__ import annotations

import datetime
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pling_harness.cli.releases import seats
from pling_harness.cli.releases.serving import Place
from pling_harness.cli.releases.verdict import (
    AS_EXPECTED,
    Judged,
    RowOutcome,
    judge_release,
    row_outcome,
)
from pling_harness.mutation.releases import ReleaseBug, load_pages_release_bugs

EXIT_NOT_AS_EXPECTED = 1
EXIT_NOT_ALL_REPLAYED = 3
# How much of one message a table cell shows (the whole is in the run's folder).
MESSAGE_CHARS = 300
NO_FIXED_RELEASE = "none yet"
BEGIN, END = "<!-- replay table: begin -->", "<!-- replay table: end -->"


@dataclass(frozen=True)
class Row:
    page: str
    bug: str
    report: str
    outcome: RowOutcome
    buggy: str
    buggy_said: str
    fixed: str
    fixed_said: str
    checks: str
    output: str
    """The row's folder of kept output ("" for none)."""
    run: str
    """When the row was replayed (a date)."""


def declared_bugs(place: Place) -> dict[str, tuple[ReleaseBug, ...]]:
    """Every page's declared bugs, by page, in the order of the tutorial's releases files."""
    pages = load_pages_release_bugs(place.tutorial, place.root)
    return {page: bugs.bugs for page, bugs in pages.items()}


def runs_folder(table_path: Path | None, asked: Path | None, root: Path) -> Path:
    if asked is not None:
        return asked
    if table_path is None:
        return root / "out" / "release-replay-runs"
    return table_path.with_name(f"{table_path.stem}-runs")


def shown(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MESSAGE_CHARS else text[:MESSAGE_CHARS - 1] + "…"


def check_name(nodeid: str) -> str:
    return nodeid.split("::")[-1]


def what_it_said(judged: Judged, expected: Sequence[str]) -> str:
    """One release's verdict, and each expected guarantee's own message (or why none)."""
    if judged.verdict == "error":
        return "error: " + "; ".join(f"{check_name(check)}: {shown(why)}"
                                     for check, why in judged.errors.items())
    if judged.verdict == "passed":
        return f"passed ({judged.ran} check{'s' * (judged.ran != 1)})"
    # A caught guarantee's own violation names it ("guarantee 'x' violated: ...").
    parts = [shown(judged.caught[guarantee]) if guarantee in judged.caught
             else f"{guarantee}: no check failed with its violation" for guarantee in expected]
    parts += [f"also {check_name(check)}: {shown(line)}"
              for check, line in judged.failures.items()]
    return f"{judged.verdict}: " + " · ".join(parts)


def replay_bug(place: Place, bug: ReleaseBug, runs: Path, today: str) -> Row:
    """One bug of the page's releases file: each release judged from its checks' reports."""
    folder = runs / place.page / bug.name
    buggy_name = seats.release_name(bug.buggy)
    fixed_name = seats.release_name(bug.fixed) if bug.fixed is not None else NO_FIXED_RELEASE
    if bug.checks is None:
        assert bug.not_replayed is not None  # ReleaseBug requires the reason
        return Row(place.page, bug.name, str(bug.report), "not replayed", buggy_name, "-",
                   fixed_name, "-", f"not replayed: {bug.not_replayed}", "", today)
    shutil.rmtree(folder, ignore_errors=True)
    buggy = judge_release(bug.expected, seats.replay_release(
        place, bug.checks, bug.buggy, folder / "buggy", bug.page_swaps))
    fixed = None if bug.fixed is None else judge_release(bug.expected, seats.replay_release(
        place, bug.checks, bug.fixed, folder / "fixed", bug.page_swaps))
    return Row(place.page, bug.name, str(bug.report), row_outcome(buggy, fixed), buggy_name,
               what_it_said(buggy, bug.expected), fixed_name,
               "-" if fixed is None else what_it_said(fixed, bug.expected),
               f"{', '.join(bug.expected)} (`-k \"{bug.checks}\"`)", str(folder), today)


def replay_declared(place: Place, bugs: Sequence[ReleaseBug], runs: Path) -> list[Row]:
    """The page's `bugs`, one row each, printed as each is replayed."""
    today = datetime.datetime.now(datetime.UTC).date().isoformat()
    rows = []
    for bug in bugs:
        row = replay_bug(place, bug, runs, today)
        print(f"{row.bug}: {row.outcome.upper()}; {row.buggy}: {row.buggy_said}; "
              f"{row.fixed}: {row.fixed_said}", flush=True)
        rows.append(row)
    return rows


HEADER = ("| page | bug | outcome | last buggy release (open: newest) | what its checks said "
          "| first fixed release | what its checks said | checks | output | run |")
RULE = "|---|---|---|---|---|---|---|---|---|---|"


def table(rows: Sequence[Row], base: Path | None = None) -> str:
    """The rows as markdown; output folders relative to `base` (the table's folder)."""
    lines = [HEADER, RULE]
    for row in rows:
        output = row.output
        if output and base is not None:
            output = relative(Path(output), base)
        cells = [row.page, f"[{row.bug}]({row.report})" if row.report.startswith("http")
                 else f"{row.bug} ({row.report})", f"**{row.outcome}**", row.buggy,
                 row.buggy_said, row.fixed, row.fixed_said, row.checks,
                 f"`{output}`" if output else "-", row.run]
        lines.append("| " + " | ".join(cell.replace("|", "\\|").replace("\n", " ")
                                        for cell in cells) + " |")
    return "\n".join(lines) + "\n"


def relative(path: Path, base: Path) -> str:
    try:
        return str(path.resolve().relative_to(base.resolve()))
    except ValueError:
        return str(path)


def exit_code(rows: Sequence[Row]) -> int:
    if any(row.outcome not in AS_EXPECTED | {"not replayed"} for row in rows):
        return EXIT_NOT_AS_EXPECTED
    if any(row.outcome == "not replayed" for row in rows):
        return EXIT_NOT_ALL_REPLAYED
    return 0


def summary(rows: Sequence[Row]) -> str:
    counts: dict[str, int] = {}
    for row in rows:
        counts[row.outcome] = counts.get(row.outcome, 0) + 1
    return ", ".join(f"{count} {outcome}" for outcome, count in counts.items())


def write_table(path: Path, rows: list[Row], pages: Sequence[str], names: set[str],
                order: Sequence[str]) -> None:
    """Replace what lies between the markers in `path` (the rest is prose) with the table of
    `rows`, keeping the rows already there that this run did not replay (another page, or a
    bug not named), each page where the table had it (a new one after, in `order`): a
    replay of one page or one bug leaves the others' last run in the table."""
    document = path.read_text(encoding="utf-8")
    if BEGIN not in document or END not in document:
        raise TableError(f"{path} has no {BEGIN} … {END} markers to write the table between")
    head, rest = document.split(BEGIN, 1)
    old, tail = rest.split(END, 1)
    new_lines = table(rows, path.parent).splitlines()[2:]
    fresh = {row_cells(line): line for line in new_lines}
    lines = []
    for line in old.strip().splitlines()[2:]:
        page, bug = row_cells(line)
        if (page, bug) in fresh:
            lines.append(fresh.pop((page, bug)))  # in its place
        elif page not in pages or (names and bug not in names):
            lines.append(line)  # not replayed by this run
    # Pages keep their place in the table; a page new to it goes after them, in `order`.
    kept_order = [row_cells(line)[0] for line in old.strip().splitlines()[2:]]
    ranks = {page: index for index, page in enumerate(dict.fromkeys([*kept_order, *order]))}
    lines = sorted(lines + list(fresh.values()),
                   key=lambda line: ranks.get(row_cells(line)[0], len(ranks)))
    path.write_text(f"{head}{BEGIN}\n" + "\n".join([HEADER, RULE, *lines]) + f"\n{END}{tail}",
                    encoding="utf-8")


class TableError(ValueError):
    """The table file cannot take the table (no markers)."""


def row_cells(line: str) -> tuple[str, str]:
    """The page and the bug's name of a table row ("| ai-sdk | [name](link) | …")."""
    cells = [cell.strip() for cell in line.split("|")[1:3]]
    return cells[0], cells[1].lstrip("[").split("]", 1)[0].split(" (", 1)[0]

"""Replay the frameworks' own fixed bugs on r-15's framework pages: each bug on its last buggy
release (it must be caught, by a message naming the broken promise) and on its first fixed
one (the same checks must pass). One command for both pages:

    .venv/bin/python scripts/release_replay/replay_all.py                  # every bug, both pages
    .venv/bin/python scripts/release_replay/replay_all.py --page ai-sdk    # one page
    .venv/bin/python scripts/release_replay/replay_all.py vercel-ai-17136-denial-stuck-responded
    .venv/bin/python scripts/release_replay/replay_all.py --table docs/release-replay.md

Each page's bugs are data (`tutorials/r-15-…/mutation/releases.json` for the AI SDK page,
`releases-copilotkit.json` for CopilotKit's), judged by r-15's checks through the page's dock
driver (release_checks.py). The CopilotKit bugs those checks cannot catch yet stay its own
Playwright reproductions (scripts/copilotkit_replay/, with why); they run behind this same
command and fill the same table. Exit 0 when every bug replayed as expected.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "copilotkit_replay"))

import release_checks  # noqa: E402 (beside this script)

PAGES = ("ai-sdk", "copilotkit")
LOCALE = "en"


@dataclass(frozen=True)
class Row:
    page: str
    bug: str
    report: str
    buggy: str
    fixed: str
    caught_by: str
    first_failure: str
    as_expected: bool


def replay_page(page: str, names: set[str]) -> list[Row]:
    """`page`'s bugs of its releases file, each judged by r-15's checks on both releases."""
    rows = []
    for bug in release_checks.page_bugs(page):
        if names and bug.name not in names:
            continue
        buggy_name = release_checks.release_name(bug.buggy)
        fixed_name = release_checks.release_name(bug.fixed)
        if bug.checks is None:
            rows.append(Row(page, bug.name, str(bug.report), buggy_name, fixed_name,
                            "not replayed", f"not replayed: {bug.needs}", True))
            print(f"{bug.name}: not replayed ({bug.needs})", flush=True)
            continue
        buggy = release_checks.check_release(page, bug, bug.buggy, LOCALE)
        fixed = release_checks.check_release(page, bug, bug.fixed, LOCALE)
        caught = [g for g in bug.expected if g in buggy.failures]
        ok = bool(caught) and not fixed.caught and fixed.ran > 0
        first = next(iter(buggy.failures.values()), "(nothing failed)")
        print(f"{bug.name}: buggy {buggy.release}: "
              f"{'caught' if buggy.caught else 'NOT caught'} ({first}); "
              f"fixed {fixed.release}: "
              f"{'passed' if not fixed.caught else 'FAILED ' + str(fixed.failures)} "
              f"({fixed.ran} checks ran){'' if ok else '  UNEXPECTED'}", flush=True)
        rows.append(Row(page, bug.name, str(bug.report), buggy.release, fixed.release,
                        f"{', '.join(caught) or '-'} (`-k \"{bug.checks}\"`)", first, ok))
    return rows


def replay_copilotkit(names: set[str]) -> list[Row]:
    from bugs import BUGS  # scripts/copilotkit_replay/
    from replay import reproduce

    rows = []
    for bug in BUGS:
        if names and bug.key not in names:
            continue
        shown = reproduce(bug, bug.last_buggy)
        absent = reproduce(bug, bug.first_fixed)
        ok = shown is not None and absent is None
        print(f"{bug.key}: {bug.last_buggy}: {'shows' if shown else 'ABSENT'}; "
              f"{bug.first_fixed}: {'absent' if absent is None else 'SHOWS ' + absent}"
              f"{'' if ok else '  UNEXPECTED'}", flush=True)
        rows.append(Row("copilotkit", bug.key, bug.links, bug.last_buggy, bug.first_fixed,
                        f"{bug.guarantee} (Playwright reproduction)", shown or "(did not show)",
                        ok))
    return rows


def table(rows: list[Row]) -> str:
    lines = ["| page | bug | last buggy | first fixed | caught by | first failure line on the "
             "buggy release | as expected |", "|---|---|---|---|---|---|---|"]
    for row in rows:
        cells = [row.page, f"[{row.bug}]({row.report})" if row.report.startswith("http")
                 else f"{row.bug} ({row.report})", row.buggy, row.fixed, row.caught_by,
                 row.first_failure.replace("|", "\\|").replace("\n", " ")[:300],
                 "not replayed" if row.caught_by == "not replayed"
                 else "yes" if row.as_expected else "**no**"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("bugs", nargs="*", help="bug names (default: every bug of the pages)")
    parser.add_argument("--page", choices=PAGES, action="append",
                        help="replay this page's bugs only (repeatable; default: both)")
    parser.add_argument("--table", type=Path,
                        help="write the table between the markers of this markdown file")
    args = parser.parse_args(argv)
    pages = args.page or list(PAGES)
    names = set(args.bugs)
    rows = [row for page in pages for row in replay_page(page, names)] + \
        (replay_copilotkit(names) if "copilotkit" in pages else [])
    if not rows:
        parser.error(f"no bug named {sorted(names)} on {pages}")
    print("\n" + table(rows))
    if args.table is not None:
        write_table(args.table, rows, pages, names)
    return 0 if all(row.as_expected for row in rows) else 1


BEGIN, END = "<!-- replay table: begin -->", "<!-- replay table: end -->"


def write_table(path: Path, rows: list[Row], pages: list[str], names: set[str]) -> None:
    """Replace what lies between the markers in `path` (the rest is prose) with the table of
    `rows`, keeping the rows already there that this run did not replay (another page, or a
    bug not named), in the pages' order: a replay of one page or one bug leaves the others'
    last run in the table."""
    document = path.read_text(encoding="utf-8")
    if BEGIN not in document or END not in document:
        raise SystemExit(f"{path} has no {BEGIN} … {END} markers to write the table between")
    head, rest = document.split(BEGIN, 1)
    old, tail = rest.split(END, 1)
    header, new_lines = table(rows).splitlines()[:2], table(rows).splitlines()[2:]
    fresh = {row_cells(line): line for line in new_lines}
    lines = []
    for line in old.strip().splitlines()[2:]:
        page, bug = row_cells(line)
        if (page, bug) in fresh:
            lines.append(fresh.pop((page, bug)))  # in its place
        elif page not in pages or (names and bug not in names):
            lines.append(line)  # not replayed by this run
    lines = sorted(lines + list(fresh.values()), key=lambda line: PAGES.index(row_cells(line)[0]))
    path.write_text(f"{head}{BEGIN}\n" + "\n".join(header + lines) + f"\n{END}{tail}",
                    encoding="utf-8")


def row_cells(line: str) -> tuple[str, str]:
    """The page and the bug's name of a table row ("| ai-sdk | [name](link) | …")."""
    cells = [cell.strip() for cell in line.split("|")[1:3]]
    return cells[0], cells[1].lstrip("[").split("]", 1)[0].split(" (", 1)[0]


if __name__ == "__main__":
    sys.exit(main())

"""Replay the frameworks' own bugs on r-15's framework pages: each bug on its last buggy
release (a check of each expected guarantee must fail with that guarantee's violation) and on
its first fixed one (the same checks must pass); a bug with no fixed release yet on the
newest release it shows on (it must be caught there: an open bug). One command for both pages:

    .venv/bin/python scripts/release_replay/replay_all.py                  # every bug, both pages
    .venv/bin/python scripts/release_replay/replay_all.py --page ai-sdk    # one page
    .venv/bin/python scripts/release_replay/replay_all.py vercel-ai-17136-denial-stuck-responded
    .venv/bin/python scripts/release_replay/replay_all.py --table docs/release-replay.md

Each page's bugs are data (`tutorials/r-15-…/mutation/releases.json` for the AI SDK page,
`releases-copilotkit.json` for CopilotKit's), judged by r-15's checks through the page's dock
driver, each check in a seat of its own (release_checks.py), from each run's JSON report
(verdict.py). The CopilotKit bugs those checks cannot catch yet stay its own Playwright
reproductions (scripts/copilotkit_replay/, with why); they run behind this same command and
fill the same table. Every run's output is kept in `--runs` (default: beside the table,
`<table>-runs/`, one folder per row).

Exit 0: every selected bug replayed as expected (caught, open, or reproduced). Exit 1: a
row is an error, passed or failed. Exit 3: the replayed rows were as expected, but some bug
was not replayed (each row says why).
"""

from __future__ import annotations

import argparse
import datetime
import shutil
import sys
import traceback
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "copilotkit_replay"))

import release_checks  # noqa: E402 (beside this script)
from verdict import AS_EXPECTED, Judged, RowOutcome, judge_release, row_outcome  # noqa: E402

from pling_harness.mutation.releases import ReleaseBug  # noqa: E402

PAGES = ("ai-sdk", "copilotkit")
LOCALE = "en"
DEFAULT_TABLE = release_checks.PROJECT_ROOT / "docs" / "release-replay.md"
EXIT_NOT_AS_EXPECTED = 1
EXIT_NOT_ALL_REPLAYED = 3
# How much of one message a table cell shows (the whole is in the run's folder).
MESSAGE_CHARS = 300
NO_FIXED_RELEASE = "none yet"


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
    """The row's folder of kept output, relative to the table's folder ("" for none)."""
    run: str
    """When the row was replayed (a date)."""


def runs_folder(table_path: Path | None, asked: Path | None) -> Path:
    if asked is not None:
        return asked
    table_path = table_path if table_path is not None else DEFAULT_TABLE
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


def replay_bug(page: str, bug: ReleaseBug, runs: Path, today: str) -> Row:
    """One bug of `page`'s releases file: each release judged from its checks' reports."""
    folder = runs / page / bug.name
    buggy_name = release_checks.release_name(bug.buggy)
    fixed_name = (release_checks.release_name(bug.fixed) if bug.fixed is not None
                  else NO_FIXED_RELEASE)
    if bug.checks is None:
        assert bug.not_replayed is not None  # ReleaseBug requires the reason
        return Row(page, bug.name, str(bug.report), "not replayed", buggy_name, "-",
                   fixed_name, "-", f"not replayed: {bug.not_replayed}", "", today)
    shutil.rmtree(folder, ignore_errors=True)
    buggy = judge_release(bug.expected, release_checks.replay_release(
        page, bug, bug.buggy, LOCALE, folder / "buggy"))
    fixed = None if bug.fixed is None else judge_release(
        bug.expected, release_checks.replay_release(page, bug, bug.fixed, LOCALE,
                                                    folder / "fixed"))
    return Row(page, bug.name, str(bug.report), row_outcome(buggy, fixed), buggy_name,
               what_it_said(buggy, bug.expected), fixed_name,
               "-" if fixed is None else what_it_said(fixed, bug.expected),
               f"{', '.join(bug.expected)} (`-k \"{bug.checks}\"`)", str(folder), today)


def replay_page(page: str, names: set[str], runs: Path, today: str) -> list[Row]:
    rows = []
    for bug in release_checks.page_bugs(page):
        if names and bug.name not in names:
            continue
        row = replay_bug(page, bug, runs, today)
        print(f"{row.bug}: {row.outcome.upper()}; {row.buggy}: {row.buggy_said}; "
              f"{row.fixed}: {row.fixed_said}", flush=True)
        rows.append(row)
    return rows


def replay_copilotkit(names: set[str], runs: Path, today: str) -> list[Row]:
    """CopilotKit's hand reproductions (scripts/copilotkit_replay/): "reproduced" when the
    bug showed on its buggy release and not on its fixed one."""
    from bugs import BUGS  # type: ignore[import-not-found,unused-ignore]  # scripts/copilotkit_replay/
    from replay import reproduce  # type: ignore[import-not-found,unused-ignore]

    rows = []
    for bug in BUGS:
        if names and bug.key not in names:
            continue
        folder = runs / "copilotkit" / bug.key
        shutil.rmtree(folder, ignore_errors=True)
        said: dict[str, tuple[str, str]] = {}
        for role, version in (("buggy", bug.last_buggy), ("fixed", bug.first_fixed)):
            (folder / role).mkdir(parents=True)
            try:
                seen = reproduce(bug, version, folder / role)
                said[role] = ("shows", seen) if seen is not None else ("absent", "")
            except Exception as error:  # a page that fails is an error row, not a stop
                (folder / role / "error.txt").write_text(traceback.format_exc())
                said[role] = ("error", f"{type(error).__name__}: {error}")
        outcome: RowOutcome = (
            "error" if "error" in (said["buggy"][0], said["fixed"][0])
            else "passed" if said["buggy"][0] == "absent"
            else "reproduced" if said["fixed"][0] == "absent" else "failed")
        row = Row("copilotkit", bug.key, bug.links, outcome, bug.last_buggy,
                  shown(f"{said['buggy'][0]}: {said['buggy'][1]}"), bug.first_fixed,
                  shown(f"{said['fixed'][0]}{': ' if said['fixed'][1] else ''}"
                        f"{said['fixed'][1]}"),
                  f"{bug.guarantee} (a Playwright reproduction, not a check)", str(folder),
                  today)
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("bugs", nargs="*", help="bug names (default: every bug of the pages)")
    parser.add_argument("--page", choices=PAGES, action="append",
                        help="replay this page's bugs only (repeatable; default: both)")
    parser.add_argument("--table", type=Path,
                        help="write the table between the markers of this markdown file")
    parser.add_argument("--runs", type=Path,
                        help="keep each run's output here (default: <table>-runs/ beside "
                             "the table, docs/release-replay-runs/ without --table)")
    args = parser.parse_args(argv)
    pages = args.page or list(PAGES)
    names = set(args.bugs)
    known = {bug.name for page in pages for bug in release_checks.page_bugs(page)}
    if "copilotkit" in pages:
        from bugs import BUGS  # scripts/copilotkit_replay/
        known |= {bug.key for bug in BUGS}
    if names - known:
        parser.error(f"no bug named {sorted(names - known)} on {pages}")
    runs = runs_folder(args.table, args.runs).resolve()
    today = datetime.datetime.now(datetime.UTC).date().isoformat()
    rows = [row for page in pages for row in replay_page(page, names, runs, today)] + \
        (replay_copilotkit(names, runs, today) if "copilotkit" in pages else [])
    base = (args.table or DEFAULT_TABLE).parent
    print("\n" + table(rows, base))
    code = exit_code(rows)
    print(f"{summary(rows)}; output kept in {runs}; exit {code}")
    if args.table is not None:
        write_table(args.table, rows, pages, names)
    return code


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
    new_lines = table(rows, path.parent).splitlines()[2:]
    fresh = {row_cells(line): line for line in new_lines}
    lines = []
    for line in old.strip().splitlines()[2:]:
        page, bug = row_cells(line)
        if (page, bug) in fresh:
            lines.append(fresh.pop((page, bug)))  # in its place
        elif page not in pages or (names and bug not in names):
            lines.append(line)  # not replayed by this run
    lines = sorted(lines + list(fresh.values()), key=lambda line: PAGES.index(row_cells(line)[0]))
    path.write_text(f"{head}{BEGIN}\n" + "\n".join([HEADER, RULE, *lines]) + f"\n{END}{tail}",
                    encoding="utf-8")


def row_cells(line: str) -> tuple[str, str]:
    """The page and the bug's name of a table row ("| ai-sdk | [name](link) | …")."""
    cells = [cell.strip() for cell in line.split("|")[1:3]]
    return cells[0], cells[1].lstrip("[").split("]", 1)[0].split(" (", 1)[0]


if __name__ == "__main__":
    sys.exit(main())

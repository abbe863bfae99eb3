"""`pling-tutorial frameworks <tutorial>`: docs/frameworks.md, generated from real runs: the
tutorial's checks on each page of its pages table that has a `column` (r-15: our reference
runtime, the AI SDK page, the CopilotKit page and the assistant-ui page, each through its
dock driver), and the replays of each framework's fixed bugs on its releases
(`releases --bugs`).

    pling-tutorial frameworks r-15                          # run everything, then write
    pling-tutorial frameworks r-15 --pages ours copilotkit --locales en
    pling-tutorial frameworks r-15 --render-only            # write from the kept runs
    pling-tutorial frameworks r-15 --replay                 # also replay both frameworks'
                                                            # bugs (slow: old releases)
    pling-tutorial frameworks r-15 --found-only             # rewrite only the Found block

Each run's JSON report (`--pling-report`) is kept in `--runs` (default out/frameworks/):
`<page>.<locale>.json`; the bug replays' table is the one `releases --bugs --table
docs/release-replay.md` wrote. The page shows what those files say and nothing else: a page
without a kept run is marked "not run" with the reason. Every cell is one command away from
being repeated. The Found block lists the open breaks of current releases from
`fixtures/found/<break>/found.json`, each beside its reproduction, and a fail cell of a
guarantee a break names links that reproduction. A break no check can fail on (a server's
timing, which a check on a shared machine cannot hold) names the benchmark that measures it
instead, and no guarantee: no cell fails on it, so none links it.
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import subprocess
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, model_validator

from pling_harness.cli.usage import SubParsers, UsageError, add_root_option, tutorial_root
from pling_harness.plugin.report import SuiteReport, TestRecord
from pling_harness.project.page_rows import FrameworkColumn, PageRow
from pling_harness.project.pages_table import pages_table, row_directory, row_driver
from pling_harness.project.paths import FIXTURES_DIR_NAME
from pling_harness.project.tutorials import Tutorial, load_tutorial

# The CLI, run by this interpreter (a checkout's or a wheel's).
PLING_TUTORIAL = (sys.executable, "-m", "pling_harness.cli.main")
# A run's own address (a free port each time) says nothing about the page.
LOCAL_URL = re.compile(r"http://127\.0\.0\.1:\d+")
DOC = Path("docs") / "frameworks.md"
# Both frameworks' fixed bugs, replayed by one command that writes its table into this page.
REPLAY_DOC = Path("docs") / "release-replay.md"
REPLAY_BEGIN, REPLAY_END = "<!-- replay table: begin -->", "<!-- replay table: end -->"
# Open breaks of current releases, each with a reproduction that needs no harness.
FOUND = Path(FIXTURES_DIR_NAME) / "found"
FOUND_FILE = "found.json"
FOUND_BEGIN, FOUND_END = "<!-- found: begin -->", "<!-- found: end -->"


@dataclass(frozen=True)
class Where:
    """The project and tutorial the page is written for."""

    root: Path
    tutorial: Tutorial

    @property
    def drivers(self) -> Path:
        return self.tutorial.directory(self.root) / "drivers"

    def shown(self, path: Path) -> str:
        return str(path.relative_to(self.root)) if path.is_relative_to(self.root) else str(path)


class Found(BaseModel):
    """`fixtures/found/<slug>/found.json`: one open break, beside its reproduction."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    page: str
    """The key of the page whose framework breaks it (`copilotkit`, `ai-sdk`): a row of the
    pages table, a column or not (`assistant-ui-v6`)."""
    title: str = Field(min_length=1, max_length=200)
    user_sees: str = Field(min_length=1, max_length=600)
    guarantees: tuple[str, ...] = ()
    """The guarantees whose checks fail on it: their cells link here."""
    check: str | None = Field(default=None, min_length=1, max_length=200)
    """The check that fails on it."""
    measured_by: str | None = Field(default=None, min_length=1, max_length=300)
    """For a break no check fails on: the benchmark that measures it, and its goal."""
    confirmed_on: tuple[str, ...] = Field(min_length=1)
    known: str = Field(min_length=1, max_length=600)
    """What the framework's tracker says (or that nothing was found, and where we looked)."""

    @model_validator(mode="after")
    def _caught_one_way(self) -> Found:
        # A check names the guarantees whose cells it fails; a benchmark fails no cell, so a
        # guarantee beside it would link a reproduction from cells that pass.
        if (self.check is None) == (self.measured_by is None):
            raise ValueError("name either the check that fails on it or the benchmark that "
                             "measures it (measured_by), not both")
        if self.check is not None and not self.guarantees:
            raise ValueError("a check's break names the guarantees whose checks fail on it")
        if self.measured_by is not None and self.guarantees:
            raise ValueError("a measured break fails no check: it names no guarantee")
        return self

    def caught_by(self) -> str:
        """The Found block's "caught by" cell."""
        if self.check is not None:
            return f"`{self.check}` ({', '.join(self.guarantees)})"
        return f"no check; measured by {self.measured_by}"


def found_breaks(root: Path) -> dict[str, Found]:
    """Every open break by its folder's name."""
    return {path.parent.name: Found.model_validate_json(path.read_text(encoding="utf-8"))
            for path in sorted((root / FOUND).glob(f"*/{FOUND_FILE}"))}


def found_section(breaks: dict[str, Found], titles: dict[str, str]) -> list[str]:
    """The page's "Found" block, between its markers; `titles`: each page's column head."""
    lines = [FOUND_BEGIN, "## Found: what current releases break", "",
             "Open breaks of the newest releases on the registry, each caught by a check (or,",
             "for a server's timing, measured by a benchmark) and each with a reproduction a",
             "maintainer can run without the harness (`fixtures/found/<break>/`, its README",
             "says how).", "",
             "| framework | break | what the user sees | caught by | confirmed on | "
             "known upstream |", "|---|---|---|---|---|---|"]
    for slug, found in breaks.items():
        lines.append(f"| {titles.get(found.page, found.page)} | "
                     f"[{found.title}](../fixtures/found/{slug}/) | {found.user_sees} | "
                     f"{found.caught_by()} | "
                     f"{'; '.join(found.confirmed_on)} | {found.known} |")
    return [*lines, FOUND_END]


def column_titles(where: Where) -> dict[str, str]:
    return {page.key: page.title for page in framework_pages(where)}


def write_found_only(out: Path, where: Where) -> None:
    """Rewrite the Found block of an existing page, leaving its run cells as they are."""
    text = out.read_text(encoding="utf-8")
    block = "\n".join(found_section(found_breaks(where.root), column_titles(where)))
    if FOUND_BEGIN in text and FOUND_END in text:
        head, rest = text.split(FOUND_BEGIN, 1)
        text = head + block + rest.split(FOUND_END, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    out.write_text(text, encoding="utf-8")


@dataclass(frozen=True)
class Page:
    """A column of the page: a row of the tutorial's pages table that has a `column`."""

    key: str
    row: PageRow
    column: FrameworkColumn

    @property
    def title(self) -> str:
        return self.column.title

    @property
    def judged(self) -> str | None:
        return self.column.judged

    def missing(self, where: Where) -> str | None:
        """Why this page cannot be run from this checkout, or None."""
        driver = row_driver(self.row, where.tutorial, where.root)
        if driver is not None and not driver.is_file():
            return f"no dock driver {where.shown(driver)} in this checkout"
        directory = row_directory(self.row, where.root)
        if not self.row.served_by_fixture_server and not (directory / "node_modules").is_dir():
            return f"{where.shown(directory)} is not installed (./scripts/bootstrap)"
        return None

    def versions(self, where: Where) -> str:
        if not self.column.packages:
            return "this checkout's runtime (pling_harness/web/runtime)"
        manifest = row_directory(self.row, where.root) / "package.json"
        pinned = json.loads(manifest.read_text(encoding="utf-8"))["dependencies"]
        return ", ".join(f"`{name}` {pinned[name]}" for name in self.column.packages
                         if name in pinned)


def framework_pages(where: Where) -> tuple[Page, ...]:
    """The page's columns, in the pages table's order: each row with a `column`."""
    return tuple(Page(name, row, row.column)
                 for name, row in pages_table(where.tutorial, where.root).items()
                 if row.column is not None)


JUDGED = "frameworks-judged.md"



def run_checks(where: Where, page: Page, locale: str, runs: Path,
               selection: str | None = None) -> None:
    report = runs / f"{page.key}.{locale}.json"
    command = [*PLING_TUTORIAL, "check", where.tutorial.id, "--root", str(where.root),
               "--locale", locale, "--pling-report", str(report), "-q", "-p", "no:randomly",
               *(["-k", selection] if selection else [])]
    print(f"frameworks: {page.key} in {locale}", flush=True)
    # The page's row (tutorial.json `pages`) starts it over the check's own fixture server,
    # so the checks that need that server's internals run on it as on ours.
    subprocess.run([*command, "--page", page.key], cwd=where.root, check=False)


def run_replay(where: Where) -> int:
    """Replay both frameworks' bugs (`releases --bugs`), which rewrites
    docs/release-replay.md's table. Its exit code: 0 every bug as expected, 1 an error or a
    row not as expected, 3 some bug not replayed (each row says why)."""
    code = subprocess.run([*PLING_TUTORIAL, "releases", where.tutorial.id, "--root",
                           str(where.root), "--bugs", "--table",
                           str(where.root / REPLAY_DOC)],
                          cwd=where.root, check=False).returncode
    if code != 0:
        print(f"frameworks: the replay exited {code}: "
              f"{'some bug was not replayed' if code == 3 else 'a row is not as expected'} "
              f"(see the outcome column of {REPLAY_DOC})", flush=True)
    return code


# ---- the page ---------------------------------------------------------------------------

def cell(tests: list[TestRecord], reproductions: tuple[str, ...] = ()) -> str:
    """What the checks of one guarantee on one page said, over its locales; a fail links the
    reproductions of the open breaks it is."""
    if not tests:
        return "—"
    outcomes = [t.outcome for t in tests]
    locales = sorted({t.locale or "any locale" for t in tests if t.outcome == "passed"},
                     reverse=True)
    failed = [t for t in tests if t.outcome in ("failed", "error", "not run")]
    ran = [t for t in tests if t.outcome != "n/a"]
    if failed:
        # The whole message where there is one: a guarantee's problem may start on its
        # second line ("the zh page shows text that is not zh:" / "initial page: …").
        first = " ".join((failed[0].message or failed[0].failure or failed[0].outcome).split())
        first = LOCAL_URL.sub("the page", first).replace("|", "\\|")[:160]
        links = "".join(f" ([reproduction](../fixtures/found/{slug}/))" for slug in reproductions)
        return f"**fails** {len(failed)}/{len(ran)} checks: {first}{links}"
    if ran:
        na = outcomes.count("n/a")
        return (f"kept ({', '.join(locales)}; {outcomes.count('passed')} checks"
                f"{f', {na} n/a' if na else ''})")
    reasons = sorted({LOCAL_URL.sub("the page", t.reason or "n/a") for t in tests})
    # Whole: a framework's n/a ends with its citation (the driver's docs or source).
    return "n/a: " + "; ".join(r.replace("|", "\\|") for r in reasons)


def judged(page: Page, text: str) -> str:
    """An n/a cell of a framework's page, linking where it is judged with the framework's
    own source or docs (its reason may name only the harness: "external: …")."""
    if page.judged is None or not text.startswith("n/a"):
        return text
    return f"{text} ([judged]({JUDGED}#{page.judged}))"


def page_results(where: Where, page: Page, runs: Path, locales: tuple[str, ...]
                 ) -> tuple[dict[str, list[TestRecord]], str]:
    """Each guarantee's checks on `page`, and a line saying what was run."""
    by_guarantee: dict[str, list[TestRecord]] = defaultdict(list)
    found = []
    for locale in locales:
        path = runs / f"{page.key}.{locale}.json"
        if not path.is_file():
            continue
        report = SuiteReport.read(path)
        found.append(f"{locale} ({datetime.date.fromtimestamp(path.stat().st_mtime)}"
                     f"{', interrupted' if report.interrupted else ''})")
        for test in report.tests:
            for guarantee in test.guarantees:
                by_guarantee[guarantee].append(test)
    if not found:
        why = page.missing(where) or "no kept run"
        return by_guarantee, f"not run: {why}"
    return by_guarantee, "run in " + ", ".join(found)


def replay_table(root: Path) -> list[str]:
    """The replay command's last table (docs/release-replay.md), or why there is none."""
    path = root / REPLAY_DOC
    text = path.read_text(encoding="utf-8") if path.is_file() else ""
    if REPLAY_BEGIN not in text or REPLAY_END not in text:
        return [f"Not run: {REPLAY_DOC} holds no replay table."]
    return text.split(REPLAY_BEGIN, 1)[1].split(REPLAY_END, 1)[0].strip().splitlines()


def render(where: Where, runs: Path) -> str:
    pages = framework_pages(where)
    results = {page.key: page_results(where, page, runs, where.tutorial.locales)
               for page in pages}
    guarantees = sorted({g for by, _ in results.values() for g in by})
    lines = [
        "# Frameworks side by side",
        "",
        f"What {where.tutorial.short_id}'s checks proved on the same page built "
        f"{len(pages)} ways ({', '.join(page.title for page in pages)}),",
        "each read through its dock driver (docs/dock-drivers.md): the columns are the rows of",
        "its pages table that have a `column` (docs/adding-a-page.md). **kept**: every check",
        "of the guarantee that could run passed; **n/a**: the framework does not offer what the",
        "guarantee needs (the driver's reason), never a pass; **fails**: the first failure.",
        f"Every fail and n/a cell of a framework is judged by hand in [{JUDGED}]({JUDGED}),",
        "against the framework's own source and docs; an n/a cell links its judgement.",
        "",
        f"Generated by `pling-tutorial frameworks {where.tutorial.short_id}` from its kept runs",
        f"(`{where.shown(runs)}`); do not edit by hand.",
        "",
        "| page | framework | pinned | run |",
        "|---|---|---|---|",
    ]
    for page in pages:
        lines.append(f"| {page.title} | {page.column.about} | {page.versions(where)} | "
                     f"{results[page.key][1]} |")
    lines += ["", "| guarantee | " + " | ".join(p.title for p in pages) + " |",
              "|---|" + "---|" * len(pages)]
    breaks = found_breaks(where.root)
    for guarantee in guarantees:
        cells = [judged(p, cell(results[p.key][0].get(guarantee, []),
                                tuple(slug for slug, found in breaks.items()
                                      if found.page == p.key and guarantee in found.guarantees)))
                 if results[p.key][0] else "not run" for p in pages]
        lines.append(f"| `{guarantee}` | " + " | ".join(cells) + " |")
    lines += ["", "## Released versions that broke a promise", "",
              "Each framework's bugs, on its last buggy and its first fixed release (an open",
              "bug: on the newest release it shows on): the table",
              f"`pling-tutorial releases {where.tutorial.short_id} --bugs --table "
              "docs/release-replay.md` last wrote",
              "(docs/release-replay.md says how each bug is replayed and what each outcome",
              "means: **caught** only when a check of each expected guarantee failed with that",
              "guarantee's violation; **error** when a page, a server or a check could not be",
              "judged; this command's `--replay` runs it again).", "",
              *replay_table(where.root)]
    table = "\n".join(replay_table(where.root))
    missing = [page.title for page in pages
               if page.row.driver and f"| {page.key} |" not in table]
    if missing:
        lines += ["", f"Not in that table: {', '.join(missing)} (its bugs were not replayed "
                  "when the table was last written; `releases --bugs` with no `--page` replays "
                  "both pages)."]
    lines += ["", *found_section(breaks, column_titles(where))]
    return "\n".join(lines) + "\n"


def run_frameworks(args: argparse.Namespace) -> int:
    root = tutorial_root(args)
    where = Where(root, load_tutorial(args.tutorial, root))
    out: Path = (args.out or root / DOC).resolve()
    if args.found_only:
        if not out.is_file():
            raise UsageError(f"{out}: no such page to rewrite the Found block of")
        write_found_only(out, where)
        print(f"frameworks: wrote the Found block of {out}")
        return 0
    runs: Path = (args.runs or root / "out" / "frameworks").resolve()
    runs.mkdir(parents=True, exist_ok=True)
    pages = framework_pages(where)
    chosen = _chosen(args.pages, [page.key for page in pages], "--pages", "page")
    locales = _chosen(args.locales, list(where.tutorial.locales), "--locales", "locale")
    if not args.render_only:
        for page in pages:
            if page.key not in chosen:
                continue
            why = page.missing(where)
            if why is not None:
                print(f"frameworks: {page.key} not run: {why}", flush=True)
                continue
            for locale in locales:
                run_checks(where, page, locale, runs, args.checks)
    replayed = run_replay(where) if args.replay and not args.render_only else 0
    out.write_text(render(where, runs), encoding="utf-8")
    print(f"frameworks: wrote {out}")
    # The page is written either way; a replay that was not as expected is not hidden.
    return replayed


def _chosen(asked: list[str] | None, there: list[str], option: str, what: str) -> list[str]:
    """`asked` (all of `there` when not given); a name not there is a usage error naming
    the ones there are."""
    unknown = [name for name in asked or () if name not in there]
    if unknown:
        raise UsageError(f"{option}: no {what} {unknown[0]!r}; there are: {', '.join(there)}")
    return list(asked) if asked else there


def add_frameworks_command(subparsers: SubParsers) -> None:
    parser = subparsers.add_parser(
        "frameworks", help="write docs/frameworks.md from runs of each framework page",
        description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("tutorial", help="tutorial id or short id")
    parser.add_argument("--runs", type=Path,
                        help="keep each run's JSON report here (default: out/frameworks/)")
    parser.add_argument("--pages", nargs="+", metavar="NAME",
                        help="run these pages only (default: every row of the tutorial's "
                        "pages table with a `column`)")
    parser.add_argument("--locales", nargs="+", metavar="LOCALE",
                        help="run these locales only (default: the tutorial's)")
    parser.add_argument("-k", dest="checks", metavar="EXPR",
                        help="run only these checks (a pytest -k expression): a small "
                        "selection, e.g. to try the command; the page then shows only them")
    parser.add_argument("--render-only", action="store_true",
                        help="write the page from the kept runs, running nothing")
    parser.add_argument("--replay", action="store_true",
                        help="also replay the declared bugs (releases --bugs --table "
                        "docs/release-replay.md; slow: old releases)")
    parser.add_argument("--found-only", action="store_true",
                        help="rewrite only the page's Found block from fixtures/found/")
    parser.add_argument("--out", type=Path, help="the page to write (default: docs/frameworks.md)")
    add_root_option(parser)
    parser.set_defaults(handler=run_frameworks)

"""`pling-tutorial releases`: a framework page checked on the framework's releases.

    pling-tutorial releases r-15 --page ai-sdk --package ai --from 7.0.26 --to 7.0.35 \\
        -k "denial-respected and test_declared"          # bisect, per guarantee
    pling-tutorial releases r-15 --page ai-sdk --package ai --from 7.0.30 --to 7.0.31 --each
    pling-tutorial releases r-15 --bugs                   # the declared bugs, every page
    pling-tutorial releases r-15 --bugs --page ai-sdk vercel-ai-17136-denial-stuck-responded \\
        --table docs/release-replay.md

A range: exit 0 when every guarantee was judged at both ends and none breaks on the newest
release (`--to`); 1 when one breaks on the newest, or could not be judged at an end (an
install, a page or a check that errored: never a break); 3 when every guarantee was answered
and none breaks on the newest, but a release between could not be judged (each finding says
which). The declared bugs: `declared`'s codes (0 as expected, 1 not, 3 some bug not replayed).
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from pathlib import Path

from pling_harness.cli.releases import declared, registry, search, seats
from pling_harness.cli.releases.serving import Place, served_pages
from pling_harness.cli.releases.verdict import CheckRun
from pling_harness.cli.usage import (
    SubParsers,
    UsageError,
    add_root_option,
    offered_locale,
    tutorial_root,
)
from pling_harness.mutation.releases import (
    EXACT_VERSION,
    PageSwap,
    ReleaseBug,
    ReleasePins,
    ReleasesFileError,
    releases_cache,
)
from pling_harness.project.tutorials import load_tutorial

EXIT_BREAKS_OR_ERROR = 1
EXIT_ANSWERED_WITH_GAPS = 3
DEFAULT_LOCALE = "en"


def add_releases_command(subparsers: SubParsers) -> None:
    parser = subparsers.add_parser(
        "releases", help="check a framework page on its framework's releases",
        description="Check a framework page on each release of a package in a range "
        "(--each) or bisect the range (default), reporting per guarantee the first release "
        "that breaks it and the first that keeps it again; or (--bugs) replay the "
        "tutorial's declared framework bugs on their buggy and fixed releases. The page is "
        "its row of the pages table (any row whose folder has a package.json) on a copy of "
        "its folder; each check runs alone, as `check --page NAME` runs it (the page started "
        "over the run's own fixture server, read through the row's driver); releases are "
        "installed once per machine, cached in "
        f"$PLING_RELEASES_CACHE (else {releases_cache()}). An install, a page or a check "
        "that errors is an error, never a break. Exit, a range: 0 every guarantee judged "
        "and kept on --to, 1 one breaks on --to or an end could not be judged, 3 kept but a "
        "release between could not be judged; --bugs: 0 every bug as expected, 1 not, 3 "
        "some bug not replayed; 2 bad input.")
    parser.add_argument("tutorial", help="tutorial id or short id")
    parser.add_argument("bugs", nargs="*", metavar="BUG",
                        help="with --bugs: the declared bugs to replay (default: all)")
    parser.add_argument("--page", action="append", metavar="PAGE",
                        help="the framework page: a row of the pages table whose folder has "
                        "a package.json (check --page PAGE); with --bugs, "
                        "repeatable, default: every page with declared bugs")
    parser.add_argument("--package", help="the npm package whose releases are checked")
    parser.add_argument("--from", dest="low", metavar="VERSION", help="the range's first")
    parser.add_argument("--to", dest="high", metavar="VERSION", help="the range's last")
    parser.add_argument("--with", dest="companions", action="append", default=[],
                        metavar="PACKAGE",
                        help="also set PACKAGE to its release that goes with each release "
                        "(the page's packages that pin --package exactly are set so always)")
    how = parser.add_mutually_exclusive_group()
    how.add_argument("--each", action="store_true", help="check every release of the range")
    how.add_argument("--bisect", action="store_true",
                     help="bisect the range per guarantee (the default)")
    parser.add_argument("--prereleases", action="store_true",
                        help="include prereleases (7.0.0-beta.3) in the range")
    parser.add_argument("-k", dest="checks", metavar="EXPR",
                        help="the checks to run on each release (a pytest -k expression; "
                        "default: every check of the page: one seat each, slow)")
    parser.add_argument("--bug", metavar="NAME",
                        help="with a range: the page as the declared bug NAME replays it (its "
                        "page_swaps), its checks as the default -k and its expected "
                        "guarantees as the default --guarantee")
    parser.add_argument("--guarantee", action="append", default=[],
                        help="report only this guarantee (repeatable; default: every "
                        "guarantee the checks carry)")
    parser.add_argument("--locale", help=f"the locale to check in (default {DEFAULT_LOCALE})")
    parser.add_argument("--bugs", dest="declared", action="store_true",
                        help="replay the declared bugs (tutorials/<id>/mutation/releases*.json)")
    parser.add_argument("--table", type=Path, metavar="FILE",
                        help="with --bugs: write the table between this file's markers")
    parser.add_argument("--runs", type=Path, metavar="DIR",
                        help="keep every run's output here (default: out/releases/ under the "
                        "root; with --table, <table>-runs/ beside it)")
    add_root_option(parser)
    # Bug names may follow other options (`--bugs --page ai-sdk BUG`): argparse leaves those
    # over, and run_releases takes them as names.
    parser.set_defaults(handler=run_releases, accepts_pytest_args=True)


def run_releases(args: argparse.Namespace) -> int:
    root = tutorial_root(args)
    tutorial = load_tutorial(args.tutorial, root)
    locale = offered_locale(tutorial, args.locale) if args.locale else DEFAULT_LOCALE
    options = [extra for extra in args.pytest_args if extra.startswith("-")]
    if options:
        raise UsageError(f"unrecognized arguments: {' '.join(options)}")
    args.bugs = [*args.bugs, *args.pytest_args]
    if args.declared:
        if args.bug is not None:
            raise UsageError("--bug goes with a range (--bugs takes bug names)")
        return run_declared(args, Place(root, tutorial, "", locale))
    if args.bugs or args.table:
        raise UsageError("bug names and --table go with --bugs")
    missing = [flag for flag, value in (("--page", args.page), ("--package", args.package),
                                        ("--from", args.low), ("--to", args.high))
               if not value]
    if missing:
        raise UsageError(f"a range needs {', '.join(missing)} (or --bugs for the declared "
                         "bugs)")
    if len(args.page) != 1:
        raise UsageError("a range checks one --page")
    for bound in (args.low, args.high):
        if not EXACT_VERSION.match(bound):
            raise UsageError(f"{bound!r} is not an exact version such as 7.0.150")
    place = Place(root, tutorial, args.page[0], locale)
    served = served_pages(tutorial, root)
    if place.page not in served:
        raise UsageError(f"no framework page {place.page!r} to serve on releases (a row of "
                         "the pages table with a command, its folder holding a package.json); "
                         f"pages: {', '.join(served)}")
    manifest = json.loads((place.directory / "package.json").read_text(encoding="utf-8"))
    if args.package not in {**manifest.get("devDependencies", {}),
                            **manifest.get("dependencies", {})}:
        raise UsageError(f"--package {args.package} is not a dependency of page {place.page} "
                         f"({place.directory / 'package.json'})")
    return run_range(args, place)


def declared_bugs(place: Place) -> dict[str, tuple[ReleaseBug, ...]]:
    """The tutorial's declared bugs by page; an invalid releases file is a usage line."""
    try:
        return declared.declared_bugs(place)
    except ReleasesFileError as error:
        raise UsageError(str(error)) from None


def run_declared(args: argparse.Namespace, place: Place) -> int:
    by_page = declared_bugs(place)
    pages = args.page or list(by_page)
    unknown_pages = sorted(set(pages) - set(by_page))
    if unknown_pages:
        raise UsageError(f"no declared bugs for page {unknown_pages}; pages with bugs: "
                         f"{', '.join(by_page) or 'none'}")
    names = set(args.bugs)
    known = {bug.name for page in pages for bug in by_page[page]}
    if names - known:
        raise UsageError(f"no bug named {sorted(names - known)} on {pages}")
    if args.table is not None and not args.table.is_file():
        raise UsageError(f"--table {args.table}: no such file")
    runs = declared.runs_folder(args.table, args.runs, place.root).resolve()
    rows = [row for page in pages for row in declared.replay_declared(
        Place(place.root, place.tutorial, page, place.locale),
        [bug for bug in by_page[page] if not names or bug.name in names], runs)]
    print("\n" + declared.table(rows, (args.table or runs / "table.md").parent))
    code = declared.exit_code(rows)
    print(f"{declared.summary(rows)}; output kept in {runs}; exit {code}")
    if args.table is not None:
        declared.write_table(args.table, rows, pages, names, list(by_page))
    return code


def pinning_companions(place: Place, package: str) -> list[str]:
    """The page's own packages that depend on exactly its locked `package` (its lock)."""
    manifest = json.loads((place.directory / "package.json").read_text(encoding="utf-8"))
    lock = json.loads((place.directory / "package-lock.json").read_text(encoding="utf-8"))
    locked = lock.get("packages", {})
    mine = locked.get(f"node_modules/{package}", {}).get("version")
    return [name for name in manifest.get("dependencies", {})
            if name != package
            and locked.get(f"node_modules/{name}", {}).get("dependencies", {}).get(package)
            == mine]


def companion_majors(place: Place, names: Sequence[str]) -> dict[str, int]:
    manifest = json.loads((place.directory / "package.json").read_text(encoding="utf-8"))
    pinned = {**manifest.get("devDependencies", {}), **manifest.get("dependencies", {})}
    unknown = [name for name in names if name not in pinned]
    if unknown:
        raise UsageError(f"--with {', '.join(unknown)}: not a dependency of the page "
                         f"({place.directory / 'package.json'})")
    return {name: registry.major_of(pinned[name]) for name in names}


def run_range(args: argparse.Namespace, place: Place) -> int:
    started = time.monotonic()
    package: str = args.package
    swaps: tuple[PageSwap, ...] = ()
    if args.bug is not None:
        bug = next((bug for bug in declared_bugs(place).get(place.page, ())
                    if bug.name == args.bug), None)
        if bug is None:
            raise UsageError(f"no declared bug {args.bug!r} on page {place.page}")
        swaps = bug.page_swaps
        args.checks = args.checks or bug.checks
        args.guarantee = args.guarantee or list(bug.expected)
    try:
        versions = registry.versions_in_range(registry.registry_versions(package), args.low,
                                              args.high, prereleases=args.prereleases)
        if not versions:
            raise UsageError(f"the registry has no {package} release from {args.low} to "
                             f"{args.high}")
        for bound in (args.low, args.high):
            if bound not in versions:
                raise UsageError(f"the registry has no {package} {bound}")
        names = list(dict.fromkeys([*pinning_companions(place, package), *args.companions]))
        pins = registry.release_pins(package, versions, companion_majors(place, names))
    except registry.RegistryError as error:
        raise UsageError(str(error)) from None
    checks = args.checks or "test_"  # every check: each one's name starts with test_
    runs = (args.runs or place.root / "out" / "releases" /
            f"{place.page}-{package.replace('/', '+')}-{args.low}-{args.high}").resolve()
    together = f"; with {', '.join(names)} released with each" if names else ""
    print(f"releases: {package} {args.low} … {args.high}: {len(versions)} release(s) on page "
          f"{place.page}, {'each' if args.each else 'bisected'}, -k {checks!r}{together}; "
          f"output in {runs}", flush=True)

    def attempt(version: str) -> Sequence[CheckRun]:
        release = pins[version]
        print(f"releases: trying {seats.release_name(release)}", flush=True)
        found = seats.replay_release(place, checks, release, runs / version, swaps)
        states = search.guarantee_states(found, args.guarantee
                                         or search.discovered_guarantees(found) or ["(any)"])
        for guarantee, (state, why) in states.items():
            print(f"  {version} {guarantee}: {state} ({why})", flush=True)
        return found

    tried = search.Tried(attempt)
    guarantees = args.guarantee
    if not guarantees:
        # The checks decide which guarantees there are: the newest release tells.
        guarantees = search.discovered_guarantees(tried(versions[-1])) \
            or search.discovered_guarantees(tried(versions[0]))
    if not guarantees:
        print(f"releases: no check ran on {versions[-1]} or {versions[0]}: nothing to judge "
              f"(see {runs})")
        return EXIT_BREAKS_OR_ERROR
    findings = (search.each if args.each else search.bisect)(versions, tried, guarantees)
    print("\n" + findings_table(findings, pins, package))
    code = range_exit_code(findings, versions)
    print(f"releases: {len(tried.runs)} of {len(versions)} release(s) tried in "
          f"{time.monotonic() - started:.0f} s; output kept in {runs}; exit {code}")
    return code


def findings_table(findings: Sequence[search.Finding], pins: dict[str, ReleasePins],
                   package: str) -> str:
    def named(version: str | None) -> str:
        if version is None:
            return "-"
        others = [spec for spec in pins[version].specs() if not spec.startswith(f"{package}@")]
        return f"{package}@{version}" + (f" ({', '.join(others)})" if others else "")

    lines = ["| guarantee | first release that breaks it | last that breaks it | first that "
             "keeps it again | releases tried | note |", "|---|---|---|---|---|---|"]
    for finding in findings:
        tried = ", ".join(f"{version} {state}" for version, (state, _) in finding.states.items())
        keeps = (named(finding.first_keeps_again) if finding.first_keeps_again
                 else search.NONE_YET if finding.first_breaks else "-")
        first = named(finding.first_breaks)
        if finding.first_breaks is not None and finding.first_breaks == next(
                iter(finding.states)):
            first += " (the range's first: it may break earlier)"
        lines.append(f"| {finding.guarantee} | {first} | {named(finding.last_breaks)} | "
                     f"{keeps} | {tried} | {finding.note or '-'} |")
    return "\n".join(lines) + "\n"


def range_exit_code(findings: Sequence[search.Finding], versions: Sequence[str]) -> int:
    ends = (versions[0], versions[-1])
    for finding in findings:
        if finding.breaks_newest:
            return EXIT_BREAKS_OR_ERROR
        if any(finding.states.get(end, ("error", ""))[0] == "error" for end in ends):
            return EXIT_BREAKS_OR_ERROR
    if any(finding.has_errors for finding in findings):
        return EXIT_ANSWERED_WITH_GAPS
    return 0

"""`pling-tutorial mutate`: run the checks against every mutant of a tutorial's catalogue
(our page, or a page served elsewhere with --external), or StrykerJS's (--generated)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from pling_harness.cli.usage import (
    PROGRAM,
    SubParsers,
    UsageError,
    add_root_option,
    tutorial_root,
)
from pling_harness.evidence.sources import EXTERNAL_SOURCES, why_not_provable
from pling_harness.mutation import children
from pling_harness.mutation.catalogue import (
    Catalogue,
    catalogue_path,
    covering,
    for_page,
    load_catalogue,
)
from pling_harness.mutation.render import render_result_line, render_run
from pling_harness.mutation.runner import SuiteInvocation, collect_guarantees, run_catalogue
from pling_harness.mutation.stryker.command import run_generated
from pling_harness.plugin.guarantee_registry import guarantee_sources
from pling_harness.project.page_rows import PageRowError
from pling_harness.project.pages_table import page_row
from pling_harness.project.tutorials import Tutorial, load_tutorial

# Stryker runs of --generated: one mutant at a time unless --jobs says otherwise.
GENERATED_DEFAULT_JOBS = 1

def run_mutate(args: argparse.Namespace) -> int:
    root = tutorial_root(args)
    tutorial = load_tutorial(args.tutorial, root)
    if args.generated:
        return run_mutate_generated(args, tutorial, root)
    if args.group or args.force:
        raise UsageError("--group and --force go with --generated")
    try:
        page_row(tutorial, root, args.page)
    except PageRowError as error:
        raise UsageError(str(error)) from None
    catalogue = for_page(load_catalogue(catalogue_path(tutorial.id, root)), args.page)
    if args.only:
        unknown = sorted(set(args.only) - {m.name for m in catalogue.mutants})
        if unknown:
            raise UsageError(f"no mutant of the {args.page} page named {', '.join(unknown)}; "
                             f"`{PROGRAM} mutate {tutorial.short_id} --list` names them (a "
                             "React page's mutants: with --page react)")
        catalogue = catalogue.model_copy(
            update={"mutants": tuple(m for m in catalogue.mutants if m.name in args.only)})
    if args.covering:
        catalogue = covering(catalogue)
    if args.list:
        for mutant in catalogue.mutants:
            print(f"{mutant.name}  ({', '.join(mutant.expected)})")
        return 0
    invocation = SuiteInvocation(tutorial_id=tutorial.id, source_root=root,
                                 focused=args.focused, external=args.external, page=args.page)
    # SIGINT/SIGTERM reach every check suite and dev server the run started (children.py).
    try:
        with children.passing_on_stop_signals():
            return run_mutants(args, tutorial, catalogue, invocation)
    except children.Stopped as stopped:
        print(f"\n{PROGRAM}: mutation run {stopped}: no verdict for the mutants it cut off "
              "or never started", file=sys.stderr)
        return stopped.exit_code


def run_mutants(args: argparse.Namespace, tutorial: Tutorial, catalogue: Catalogue,
                invocation: SuiteInvocation) -> int:
    also_run = sorted({path for mutant in catalogue.mutants for path in mutant.also_run})
    declared = collect_guarantees(invocation, also_run=also_run)
    if args.page != "ours":
        # A framework page's mutants prove that its bugs are caught; that every guarantee can
        # fail at all is the main catalogue's job, against our page.
        declared = declared & {g for mutant in catalogue.mutants for g in mutant.expected}
    if args.external and args.page == "ours":
        # A guarantee no page served elsewhere can prove needs no mutant killed that way (a
        # row's page is started by the check over its own fixture server: none is n/a).
        known = guarantee_sources(tutorial)
        declared = frozenset(g for g in declared
                             if why_not_provable([g], EXTERNAL_SOURCES, known) is None)
    jobs = args.jobs if args.jobs is not None else default_jobs()
    where = (f" each copy's page {args.page} started by its check run (its row)"
             if args.page != "ours" else
             " each served by its own dev process (--external)" if args.external else "")
    print(f"Running {len(catalogue.mutants)} mutants of {tutorial.short_id}{where}, "
          f"{jobs} at a time...", flush=True)
    run = run_catalogue(catalogue, invocation, jobs=jobs, declared_guarantees=declared,
                        on_result=lambda result: print(render_result_line(result), flush=True))
    print()
    print(render_run(run, verbose=args.verbose))
    return 0 if run.ok else 1


def run_mutate_generated(args: argparse.Namespace, tutorial: Tutorial, root: Path) -> int:
    """StrykerJS's machine-made mutants of the runtime instead of the hand-written catalogue."""
    clashing = [flag for flag, given in (("--only", args.only), ("--list", args.list),
                                         ("--focused", args.focused),
                                         ("--verbose", args.verbose),
                                         ("--covering", args.covering),
                                         ("--external", args.external),
                                         ("--page", args.page != "ours")) if given]
    if clashing:
        raise UsageError(f"{', '.join(clashing)} cannot be used with --generated "
                         "(they select catalogue mutants)")
    return run_generated(
        tutorial_id=tutorial.id,
        command=f"{PROGRAM} mutate {tutorial.short_id} --generated",
        groups=tuple(args.group or ()),
        # Each mutant already runs a browser; one at a time leaves the machine usable.
        concurrency=args.jobs if args.jobs is not None else GENERATED_DEFAULT_JOBS,
        force=args.force,
        root=root,
    )


def default_jobs() -> int:
    return max(1, os.cpu_count() or 1)


def job_count(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"--jobs must be >= 1. Current input: {text!r}")
    return int(text)


def add_mutate_command(subparsers: SubParsers) -> None:
    parser = subparsers.add_parser(
        "mutate", help="prove every check can fail: run the checks against each mutant",
        description="Apply each mutant of the tutorial's catalogue to a temporary copy of the "
        "served files and run the check suite against it: first the checks of the guarantees "
        "the mutant names, each guarantee's only until one fails (a kill); a mutant they do not "
        "kill then meets the rest of the suite, up to its first failure. Exit 1 if any mutant "
        "survives, is "
        "killed only by unrelated checks, or is stale. With --generated, StrykerJS makes the "
        "mutants instead (the runtime's safety core, see docs/generated-mutants.md); exit 1 "
        "if the score misses the plan's goal or a group could not run.",
    )
    parser.add_argument("tutorial", help="tutorial id or short id (pling-tutorial list shows them)")
    parser.add_argument("--jobs", type=job_count, default=None,
                        help="mutants run in parallel (default: one per core; "
                        f"{GENERATED_DEFAULT_JOBS} with --generated)")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="run only these mutants")
    parser.add_argument("--list", action="store_true",
                        help="print the mutants that would run, each with its expected "
                        "guarantees, and run none")
    parser.add_argument("--verbose", action="store_true",
                        help="list the failing checks of killed mutants too")
    parser.add_argument("--focused", action="store_true",
                        help="run only the checks of each mutant's expected guarantees "
                        "(a mutant they do not kill is not tried on the rest of the suite)")
    parser.add_argument("--covering", action="store_true",
                        help="only CI's covering set: one mutant per guarantee, the first "
                        "that expects that guarantee alone")
    parser.add_argument("--external", action="store_true",
                        help="check each mutant as a page served elsewhere: its copy is "
                        "served by its own `pling-tutorial dev` process and the checks run "
                        "against it with --base-url; a mutant whose guarantees' checks are "
                        "all n/a (external) is reported as such")
    parser.add_argument("--page", metavar="NAME",
                        default="ours",
                        help="the row of the pages table whose mutants run: each mutant's "
                        "copy of that page is started from its row (its cwd in the copy) by "
                        "the check run, over the run's own fixture server, as `check --page "
                        "NAME` does, and checked through the row's driver (the mutants whose "
                        "`page` is that row's name); --external changes nothing for such a "
                        "row; default: ours")
    parser.add_argument("--generated", action="store_true",
                        help="machine-made mutants: run StrykerJS (installs it with npm ci the "
                        "first time; needs Node.js >= 20); incremental, so a re-run tests only "
                        "what changed")
    parser.add_argument("--group", action="append", metavar="NAME",
                        help="with --generated: run only this group of the plan (repeatable; "
                        "the summary still counts every group's latest report)")
    parser.add_argument("--force", action="store_true",
                        help="with --generated: test every mutant again, not only what changed")
    add_root_option(parser)
    parser.set_defaults(handler=run_mutate)

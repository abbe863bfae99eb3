"""`pling-tutorial`: list, serve, check (whole or in shards), merge shard reports, serve a
browser, and mutation-test the tutorials (subcommand dispatch)."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeAlias

import pytest

from harness.browser.chromium import ChromiumNotFound
from harness.browser.preflight import CheckedTarget, check_target
from harness.browser.remote import BrowserServer, BrowserServerError
from harness.cli.check import checks_dir, run_check
from harness.cli.merge import MergeError, run_merge
from harness.cli.react_page import (
    REACT_MODES,
    ReactMode,
    ReactPageError,
    ViteServer,
    react_directory,
)
from harness.evidence.sources import EXTERNAL_SOURCES, why_not_provable
from harness.mutation import children
from harness.mutation.catalogue import (
    Catalogue,
    CatalogueError,
    catalogue_path,
    covering,
    for_page,
    load_catalogue,
)
from harness.mutation.render import render_result_line, render_run
from harness.mutation.runner import SuiteInvocation, collect_guarantees, run_catalogue
from harness.mutation.stryker.command import run_generated
from harness.mutation.stryker.plan import PlanError
from harness.mutation.stryker.report import ReportError
from harness.mutation.stryker.run import ToolchainError
from harness.plugin.shards import DURATIONS_FILE_NAME, SHARD_OPTION, parse_shard
from harness.project.paths import FIXTURES_DIR_NAME, PROJECT_ROOT, TUTORIALS_DIR_NAME
from harness.project.tutorials import Tutorial, TutorialError, list_tutorials, load_tutorial
from harness.scaffold.new import (
    DEFAULT_TITLE_EN,
    DEFAULT_TITLE_ZH,
    NewTutorial,
    ScaffoldError,
    scaffold,
)
from harness.server.external import TargetError
from harness.server.model.config import ProviderConfigError
from harness.server.runner import PortInUse, ServerStartError, TutorialServer
from harness.server.static import NO_STORE

PROGRAM = "pling-tutorial"
# Exit code for a usage problem the user can fix (same as argparse's).
EXIT_USAGE = 2
# Stryker runs of --generated: one mutant at a time unless --jobs says otherwise.
GENERATED_DEFAULT_JOBS = 1

Handler = Callable[[argparse.Namespace], int]
SubParsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


class UsageError(Exception):
    """A problem with what the user asked for; printed as one line, exit 2."""


def fail(message: str) -> int:
    print(f"{PROGRAM}: error: {message}", file=sys.stderr)
    return EXIT_USAGE


def offered_locale(tutorial: Tutorial, locale: str) -> str:
    """`locale` if the tutorial offers it, else a UsageError that names the choices."""
    if locale not in tutorial.locales:
        raise UsageError(
            f"locale {locale!r} is not offered by {tutorial.short_id}; "
            f"use --locale with one of: {', '.join(tutorial.locales)}"
        )
    return locale


def tutorial_root(args: argparse.Namespace) -> Path:
    """`--root DIR` (a folder with fixtures/ and tutorials/), else the project root."""
    if getattr(args, "root", None) is None:
        return PROJECT_ROOT
    root = Path(args.root).resolve()
    missing = [name for name in (FIXTURES_DIR_NAME, TUTORIALS_DIR_NAME)
               if not (root / name).is_dir()]
    if missing:
        raise UsageError(f"--root {root} has no {' or '.join(n + '/' for n in missing)} "
                         f"folder; point it at a folder made by `{PROGRAM} new --root DIR` or "
                         "the project root")
    return root


def add_root_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--root", metavar="DIR",
                        help="the folder whose fixtures/ and tutorials/ hold the tutorial "
                        "(default: the project root), e.g. one made by `new --root DIR`")


# --- list --------------------------------------------------------------------------


def run_list(args: argparse.Namespace) -> int:
    tutorials = list_tutorials(tutorial_root(args))
    width = max((len(t.id) for t in tutorials), default=0)
    short_width = max((len(t.short_id) for t in tutorials), default=0)
    for tutorial in tutorials:
        print(f"{tutorial.id.ljust(width)}  {tutorial.short_id.ljust(short_width)}  "
              f"{tutorial.title.zh} / {tutorial.title.en}")
    return 0


def add_list_command(subparsers: SubParsers) -> None:
    parser = subparsers.add_parser("list", help="list the tutorials (id, short id, titles)")
    add_root_option(parser)
    parser.set_defaults(handler=run_list)


# --- dev ---------------------------------------------------------------------------


def run_dev(args: argparse.Namespace) -> int:
    root = tutorial_root(args)
    tutorial = load_tutorial(args.tutorial, root)
    locale = offered_locale(tutorial, args.locale or tutorial.default_locale)
    port = tutorial.port if args.port is None else args.port
    if args.page != "ours":
        return run_dev_react(tutorial, mode=args.page, locale=locale, port=port)
    # No caching: you edit the files while they are served.
    server = TutorialServer(tutorial=tutorial, port=port, static_cache=NO_STORE, root=root)
    with server:
        # The prints are inside the try: a Ctrl-C that comes as soon as the address is out
        # (a script reads it and stops the server) still ends in a clean stop.
        try:
            print(f"Serving {tutorial.short_id} ({tutorial.title.en}) at "
                  f"{server.page_url(locale)}", flush=True)
            print("Press Ctrl-C to stop.", flush=True)
            wait_for_ctrl_c()
        except KeyboardInterrupt:
            print("Stopped.", flush=True)
    return 0


def run_dev_react(tutorial: Tutorial, *, mode: ReactMode, locale: str, port: int) -> int:
    """The tutorial's React page under Vite, the fixture server (on a free port) behind it."""
    directory = react_directory(tutorial)
    # The API server is Vite's backend only; the browser never talks to it directly.
    server = TutorialServer(tutorial=tutorial, port=0, static_cache=NO_STORE)
    with server:
        vite = ViteServer(directory=directory, mode=mode, api_origin=server.url, port=port)
        try:
            with vite:
                what = "production build" if mode == "react-build" else "dev server"
                print(f"Serving {tutorial.short_id} ({tutorial.title.en}) at "
                      f"{tutorial.page_url(vite.url, locale)} (React page, Vite {what}; "
                      f"API {server.url})", flush=True)
                print("Press Ctrl-C to stop.", flush=True)
                wait_for_ctrl_c(while_running=lambda: vite.running)
                print(f"{PROGRAM}: error: Vite exited on its own", file=sys.stderr)
                return 1
        except KeyboardInterrupt:
            print("Stopped.", flush=True)
    return 0


def wait_for_ctrl_c(while_running: Callable[[], bool] = lambda: True) -> None:
    """Return never; end with KeyboardInterrupt at Ctrl-C (SIGINT).

    SIGINT is handled even if this process started with it ignored, as a shell does for a
    command it runs in the background (`pling-tutorial dev <tutorial> &`, then `kill -INT`).
    Wakes every second: a SIGINT the kernel hands to one of the server's threads does not
    interrupt the main thread's wait, and Python raises the KeyboardInterrupt only once the
    main thread runs again. Returns once `while_running()` is false (a child server died).
    SIGTERM is a Ctrl-C too, so a `kill PID` also stops what the command started.
    """
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    idle = threading.Event()  # nothing sets it
    while while_running() and not idle.wait(timeout=1.0):
        pass


def port_number(text: str) -> int:
    if not text.isdigit() or not 0 <= int(text) <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number (0..65535)")
    return int(text)


def add_dev_command(subparsers: SubParsers) -> None:
    parser = subparsers.add_parser(
        "dev", help="serve a tutorial page on 127.0.0.1 until Ctrl-C",
        description="Serve a tutorial's page, runtime and model gateway on 127.0.0.1.",
    )
    parser.add_argument("tutorial", help="tutorial id or short id (pling-tutorial list shows them)")
    parser.add_argument("--locale", help="page language (default: the tutorial's default)")
    parser.add_argument("--port", type=port_number,
                        help="port to listen on (default: the tutorial's port; 0 = any free)")
    parser.add_argument("--page", choices=("ours", *REACT_MODES), default="ours",
                        help="which page: ours (no-build ES modules, default), react (the "
                        "React page under Vite's dev server) or react-build (Vite's production "
                        "build of it, served by vite preview); the React page's API is this "
                        "fixture server's, behind Vite's proxy")
    add_root_option(parser)
    parser.set_defaults(handler=run_dev)


# --- check -------------------------------------------------------------------------


def run_check_command(args: argparse.Namespace) -> int:
    root = tutorial_root(args)
    tutorial = load_tutorial(args.tutorial, root)
    if args.locale is not None:
        offered_locale(tutorial, args.locale)
    # The checks run from the project root; the report goes where the user's path points.
    html_report = Path(args.report).resolve() if args.report else None
    base_url = args.base_url.rstrip("/") if args.base_url else None
    checked: str | None = None
    if base_url is not None:
        # A page that cannot be checked is one line and exit 2, before any check runs; the
        # run is told what was found, so it checks the page no second time.
        try:
            facts = check_target(base_url, tutorial)
        except ChromiumNotFound as error:
            raise UsageError(str(error)) from None
        checked = CheckedTarget(base_url=base_url, tutorial=tutorial.id, facts=facts).encode()
    return run_check(tutorial.id, locales=tutorial.locales, only_locale=args.locale,
                     pytest_args=[*plugin_args(args, tutorial, root), *args.pytest_args],
                     html_report=html_report, base_url=base_url, checked_target=checked,
                     root=root)


def plugin_args(args: argparse.Namespace, tutorial: Tutorial,
                root: Path = PROJECT_ROOT) -> list[str]:
    """What --shard, --store-durations and --connect ask of the child pytest run."""
    extra: list[str] = []
    if args.shard is not None:
        extra += ["--pling-shard", args.shard]
    if args.store_durations:
        if args.shard is not None:
            raise UsageError("--store-durations records the whole suite's durations; run it "
                             "without --shard")
        extra += ["--store-durations", "--durations-path",
                  str(checks_dir(tutorial.id, root) / DURATIONS_FILE_NAME)]
    if args.connect is not None:
        extra += ["--pling-connect", args.connect]
    return extra


def shard_spec(text: str) -> str:
    """`--shard K/N`, checked here so a bad one is a usage line before anything runs."""
    try:
        index, count = parse_shard(text)
    except pytest.UsageError as error:
        raise argparse.ArgumentTypeError(str(error).replace(SHARD_OPTION, "--shard")) from None
    return f"{index}/{count}"


def add_check_command(subparsers: SubParsers) -> None:
    parser = subparsers.add_parser(
        "check", help="run a tutorial's check suite and summarise its guarantees",
        description="Run the tutorial's check suite through pytest. Any further arguments "
        "(e.g. --junitxml=out.xml, --tracing=retain-on-failure, --screenshot=only-on-failure, "
        "--output=DIR, -x, -k EXPR) are passed to pytest unchanged.",
    )
    parser.add_argument("tutorial", help="tutorial id or short id (pling-tutorial list shows them)")
    parser.add_argument("--locale", help="check one locale only (default: every locale)")
    parser.add_argument(
        "--base-url", metavar="URL",
        help="check the page served at URL (e.g. your own dev server) instead of serving it "
        "here: its model endpoint is answered in the browser by the scripted model, its "
        "state reset before each check with the tutorial's declared reset request, and "
        "checks that need this harness's own server are reported n/a (external); the "
        "checks run one at a time")
    parser.add_argument(
        "--report", metavar="DIR",
        help="also write DIR/index.html: the guarantee table, every check (a failure with "
        "its timeline and Playwright trace, kept in DIR/traces unless --output is given) and "
        "a gallery of what the user sees, zh and en side by side")
    parser.add_argument(
        "--shard", metavar="K/N", type=shard_spec,
        help="run only the K-th of N parts of the suite, balanced by the durations in the "
        "tutorial's checks/.test_durations; merge the parts' --report folders with "
        "merge-reports")
    parser.add_argument(
        "--store-durations", action="store_true",
        help="refresh the tutorial's checks/.test_durations from this run (pytest-split's "
        "format; run the whole suite, serial, on a quiet machine)")
    parser.add_argument(
        "--connect", metavar="WS_URL",
        help="run the checks in a browser served by another process or machine (Playwright's "
        "browser server, e.g. from `pling-tutorial browser-server`); the harness's own "
        "servers on 127.0.0.1 are reached through the connection")
    add_root_option(parser)
    parser.set_defaults(handler=run_check_command, accepts_pytest_args=True)


# --- browser-server ------------------------------------------------------------------


def run_browser_server(args: argparse.Namespace) -> int:
    try:
        server = BrowserServer(host=args.host, port=args.port, headless=not args.headed)
        server.start()
    except (ChromiumNotFound, BrowserServerError) as error:
        return fail(str(error))
    try:
        print(f"Browser server at {server.endpoint}", flush=True)
        print(f"Check through it: {PROGRAM} check <tutorial> --connect {server.endpoint}",
              flush=True)
        print("Press Ctrl-C to stop.", flush=True)
        wait_for_ctrl_c()
    except KeyboardInterrupt:
        print("Stopped.", flush=True)
    finally:
        server.stop()
    return 0


def add_browser_server_command(subparsers: SubParsers) -> None:
    parser = subparsers.add_parser(
        "browser-server", help="serve this machine's Chromium to checks run elsewhere",
        description="Run Playwright's browser server (playwright launch-server) with the "
        "Chromium the harness finds here, print its ws:// address and serve until Ctrl-C. "
        "Checks elsewhere connect with `check --connect WS_URL` (or pytest --pling-connect).",
    )
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1; 0.0.0.0 for other "
                        "machines: anyone who can reach it can drive the browser)")
    parser.add_argument("--port", type=port_number, default=0,
                        help="port to listen on (default 0: any free one)")
    parser.add_argument("--headed", action="store_true", help="show the browser's windows")
    parser.set_defaults(handler=run_browser_server)


# --- merge-reports -------------------------------------------------------------------


def run_merge_command(args: argparse.Namespace) -> int:
    try:
        return run_merge([Path(folder) for folder in args.folders],
                         report_folder=Path(args.report).resolve() if args.report else None,
                         junit=Path(args.junitxml) if args.junitxml else None)
    except MergeError as error:
        print(f"{PROGRAM}: error: {error}", file=sys.stderr)
        return 1


def add_merge_command(subparsers: SubParsers) -> None:
    parser = subparsers.add_parser(
        "merge-reports", help="one verdict from the reports of the shards of a check run",
        description="Merge the --report folders of `check --shard K/N` runs into one report: "
        "the guarantee table, the gallery, every check with its failure, timeline and trace. "
        "A check that ran in no shard or in two, or a missing shard, is an error. Exit 0 "
        "only when every check ran exactly once and none failed.",
    )
    parser.add_argument("folders", nargs="+", metavar="DIR",
                        help="each shard's --report folder (its report.json, index.html, "
                        "gallery/, traces, and junit.xml if written there)")
    parser.add_argument("--report", metavar="DIR", help="write the merged report here")
    parser.add_argument("--junitxml", metavar="FILE",
                        help="write one JUnit file of every shard's junit.xml, plus the "
                        "merge's own problems as errors")
    parser.set_defaults(handler=run_merge_command)


# --- mutate ------------------------------------------------------------------------


def run_mutate(args: argparse.Namespace) -> int:
    root = tutorial_root(args)
    tutorial = load_tutorial(args.tutorial, root)
    if args.generated:
        return run_mutate_generated(args, tutorial)
    if args.group or args.force:
        raise UsageError("--group and --force go with --generated")
    if args.page == "react" and not (args.external or args.list):
        raise UsageError("--page react goes with --external (the React page is served by "
                         "Vite in a dev process of its own)")
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
    if args.page == "react":
        # The React page's mutants prove that its bugs are caught; that every guarantee can
        # fail at all is the main catalogue's job, against our page.
        declared = declared & {g for mutant in catalogue.mutants for g in mutant.expected}
    if args.external:
        # A guarantee no page served elsewhere can prove needs no mutant killed that way.
        declared = frozenset(g for g in declared
                             if why_not_provable([g], EXTERNAL_SOURCES) is None)
    jobs = args.jobs if args.jobs is not None else default_jobs()
    where = " each served by its own dev process (--external)" if args.external else ""
    print(f"Running {len(catalogue.mutants)} mutants of {tutorial.short_id}{where}, "
          f"{jobs} at a time...", flush=True)
    run = run_catalogue(catalogue, invocation, jobs=jobs, declared_guarantees=declared,
                        on_result=lambda result: print(render_result_line(result), flush=True))
    print()
    print(render_run(run, verbose=args.verbose))
    return 0 if run.ok else 1


def run_mutate_generated(args: argparse.Namespace, tutorial: Tutorial) -> int:
    """StrykerJS's machine-made mutants of the runtime instead of the hand-written catalogue."""
    if args.root is not None:
        raise UsageError("--generated mutates the project's own runtime; drop --root")
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
    parser.add_argument("--page", choices=("ours", "react"), default="ours",
                        help="with --external: the page whose mutants run; react: the React "
                        "page's and its bindings' mutants, each copy served by "
                        "`dev --page react` (Vite) (default: ours)")
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


# --- new ---------------------------------------------------------------------------


def run_new(args: argparse.Namespace) -> int:
    root = Path(args.root).resolve() if args.root else PROJECT_ROOT
    spec = NewTutorial(id=args.tutorial, short_id=args.short_id or args.tutorial,
                       title_en=args.title_en, title_zh=args.title_zh, port=args.port)
    written = scaffold(spec, root)
    tutorial = load_tutorial(spec.id, root)
    where = f" --root {root}" if root != PROJECT_ROOT else ""
    print(f"Wrote {tutorial.id} ({len(written)} files and folders) under {root}:")
    for path in written:
        print(f"  {path.relative_to(root)}")
    print(f"Serve it:  {PROGRAM} dev {tutorial.short_id}{where}")
    print(f"Check it:  {PROGRAM} check {tutorial.short_id}{where}")
    print(f"Mutate it: {PROGRAM} mutate {tutorial.short_id}{where}")
    return 0


def add_new_command(subparsers: SubParsers) -> None:
    parser = subparsers.add_parser(
        "new", help="write a new tutorial that passes its own check and mutate",
        description="Write a new tutorial from the harness's templates (docs/adding-a-"
        "tutorial.md): its page on the reference runtime, copy in en and zh, model rules, "
        "tutorial.json and texts, a backend (a support ticket whose refund needs approval and "
        "whose closing is the human's step), checks and a mutant catalogue. It passes "
        "`check` and `mutate` as written; change it from there.",
    )
    parser.add_argument("tutorial", help="the new tutorial's id, e.g. r-16-refunds (its folder "
                        "names under fixtures/ and tutorials/)")
    parser.add_argument("--short-id", help="its short id, e.g. r-16 (default: the id)")
    parser.add_argument("--title-en", default=DEFAULT_TITLE_EN,
                        help=f"its English title (default: {DEFAULT_TITLE_EN!r})")
    parser.add_argument("--title-zh", default=DEFAULT_TITLE_ZH,
                        help=f"its Chinese title (default: {DEFAULT_TITLE_ZH!r})")
    parser.add_argument("--port", type=port_number,
                        help="the port `dev` serves it on (default: one above the highest "
                        "tutorial port under the root)")
    parser.add_argument("--root", metavar="DIR",
                        help="write it under DIR/fixtures and DIR/tutorials (made if missing; "
                        "the reference runtime is copied in if DIR has none) instead of the "
                        "project; then pass --root DIR to dev, check and mutate")
    parser.set_defaults(handler=run_new)


# --- dispatch ----------------------------------------------------------------------

# Each entry adds one subcommand and sets its `handler`.
COMMANDS: tuple[Callable[[SubParsers], None], ...] = (
    add_list_command,
    add_dev_command,
    add_check_command,
    add_merge_command,
    add_browser_server_command,
    add_mutate_command,
    add_new_command,
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROGRAM, description="Serve and check the Pling tutorials."
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add_command in COMMANDS:
        add_command(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        # Only `check` takes arguments it does not know: they are pytest's.
        args, extra = parser.parse_known_args(argv)
        if extra and not getattr(args, "accepts_pytest_args", False):
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
        args.pytest_args = extra
    except SystemExit as exit_:
        # argparse exits on --help and on usage errors; tests call main() and want the code.
        return exit_.code if isinstance(exit_.code, int) else EXIT_USAGE
    handler: Handler = args.handler
    try:
        return handler(args)
    except (UsageError, TutorialError, PortInUse, ProviderConfigError, CatalogueError,
            PlanError, ToolchainError, TargetError, ReactPageError, ScaffoldError) as error:
        return fail(str(error))
    except (ServerStartError, ReportError) as error:
        print(f"{PROGRAM}: error: {error}", file=sys.stderr)
        return 1


def run() -> None:
    """Console-script entry point (`pling-tutorial`)."""
    raise SystemExit(main())


if __name__ == "__main__":
    run()

"""`pling-tutorial`: list, serve, check (whole or in shards), merge shard reports, serve a
browser, and mutation-test the tutorials (subcommand dispatch)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from pling_harness.browser.chromium import ChromiumNotFound
from pling_harness.browser.preflight import CheckedTarget, check_target
from pling_harness.browser.remote import BrowserServer, BrowserServerError
from pling_harness.cli.check import checks_dir, run_check
from pling_harness.cli.choices import check_choices
from pling_harness.cli.dev import add_dev_command
from pling_harness.cli.frameworks_page import add_frameworks_command
from pling_harness.cli.merge import MergeError, run_merge
from pling_harness.cli.model_server import add_model_server_command
from pling_harness.cli.mutate import add_mutate_command
from pling_harness.cli.new import add_new_command
from pling_harness.cli.releases.command import add_releases_command
from pling_harness.cli.usage import (
    EXIT_USAGE,
    PROGRAM,
    Handler,
    SubParsers,
    UsageError,
    add_root_option,
    fail,
    port_number,
    project_root_of,
    tutorial_root,
    wait_for_ctrl_c,
)
from pling_harness.mutation.catalogue import CatalogueError
from pling_harness.mutation.stryker.plan import PlanError
from pling_harness.mutation.stryker.report import ReportError
from pling_harness.mutation.stryker.run import ToolchainError
from pling_harness.plugin.options import GALLERY_OPTION
from pling_harness.plugin.shards import DURATIONS_FILE_NAME, SHARD_OPTION, parse_shard
from pling_harness.project.paths import TUTORIALS_DIR_NAME
from pling_harness.project.root import has_tutorials
from pling_harness.project.tutorials import Tutorial, TutorialError, list_tutorials
from pling_harness.scaffold.new import ScaffoldError
from pling_harness.server.external import TargetError
from pling_harness.server.model.config import ProviderConfigError
from pling_harness.server.runner import PortInUse, ServerStartError

# --- list --------------------------------------------------------------------------


def run_list(args: argparse.Namespace) -> int:
    # A --root without tutorials/ is a mistake; a project without any has none to list.
    root = tutorial_root(args) if args.root is not None else project_root_of(args)
    tutorials = list_tutorials(root) if has_tutorials(root) else []
    if not tutorials:
        # Nothing to list is not an error, but say where we looked.
        print(f"no tutorials under {root / TUTORIALS_DIR_NAME}; `{PROGRAM} new ID` writes one",
              file=sys.stderr)
    width = max((len(t.id) for t in tutorials), default=0)
    short_width = max((len(t.short_id) for t in tutorials), default=0)
    for tutorial in tutorials:
        print(f"{tutorial.id.ljust(width)}  {tutorial.short_id.ljust(short_width)}  "
              + " / ".join(tutorial.title[locale] for locale in tutorial.locales))
    return 0


def add_list_command(subparsers: SubParsers) -> None:
    parser = subparsers.add_parser("list", help="list the tutorials (id, short id, titles)")
    add_root_option(parser)
    parser.set_defaults(handler=run_list)


# --- check -------------------------------------------------------------------------


def run_check_command(args: argparse.Namespace) -> int:
    # Every choice of the run, resolved here once (the driver read once); the child pytest
    # gets them as one file.
    choices, tutorial = check_choices(args)
    # The report goes where the user's path points, from the current folder.
    html_report = Path(args.report).resolve() if args.report else None
    checked: str | None = None
    base_url = choices.page.value
    if base_url is not None:
        # A page that cannot be checked is one line and exit 2, before any check runs; the
        # run is told what was found, so it checks the page no second time.
        try:
            facts = check_target(base_url, tutorial, choices.driver.spec)
        except ChromiumNotFound as error:
            raise UsageError(str(error)) from None
        checked = CheckedTarget(base_url=base_url, tutorial=tutorial.id, facts=facts).encode()
    return run_check(choices, pytest_args=[*plugin_args(args, tutorial, choices.root_path),
                                           *args.pytest_args],
                     html_report=html_report, checked_target=checked)


def plugin_args(args: argparse.Namespace, tutorial: Tutorial, root: Path) -> list[str]:
    """What --shard, --store-durations, --connect and --gallery ask of the child pytest
    run."""
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
    if args.gallery:
        if args.report is None:
            raise UsageError("--gallery pictures states for the HTML report; give "
                             "--report DIR too")
        extra += [GALLERY_OPTION]
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
        "checks that need this harness's own server are reported n/a (external: why); the "
        "checks run one at a time")
    parser.add_argument(
        "--page", metavar="NAME",
        help="check the page of this name in the pages table (the tutorial's `pages`, or "
        "`pages` in [tool.pling]; docs/adding-a-page.md): the run starts its command on a "
        "free port, over its own fixture server, checks it with the row's driver and stops "
        "it; a page that does not start is one line and exit 2 (default: the tutorial's "
        "own page, `ours`)")
    parser.add_argument(
        "--model-port", metavar="PORT", type=port_number,
        help="with --base-url, for a page whose own server calls the model (started with its "
        "model's base URL at http://127.0.0.1:PORT/v1, e.g. dev --page ai-sdk --model-url): "
        "each check's scripted model answers there")
    parser.add_argument(
        "--driver", metavar="NAME|FILE",
        help="read the page's assistant with this dock driver: NAME for the tutorial's "
        "drivers/NAME.json, or a driver file (default: the tutorial's `driver`, else the page "
        "contract's test ids); checks needing a part it declares absent are n/a")
    parser.add_argument(
        "--report", metavar="DIR",
        help="also write DIR/index.html: the guarantee table and every check (a failure "
        "with its timeline and Playwright trace, kept in DIR/traces unless --output is "
        "given: a failing check is run again once, traced, and one that passes then is "
        "FLAKY, a failure)")
    parser.add_argument(
        "--gallery", action="store_true",
        help="with --report: also picture each state the user meets, the first time a check "
        "meets it, zh and en side by side (slower: every action first looks for a state "
        "not pictured yet)")
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


# --- dispatch ----------------------------------------------------------------------


# Each entry adds one subcommand and sets its `handler`.
COMMANDS: tuple[Callable[[SubParsers], None], ...] = (
    add_list_command,
    add_dev_command,
    add_model_server_command,
    add_check_command,
    add_merge_command,
    add_browser_server_command,
    add_mutate_command,
    add_releases_command,
    add_frameworks_command,
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
            PlanError, ToolchainError, TargetError, ScaffoldError) as error:
        return fail(str(error))
    except (ServerStartError, ReportError) as error:
        print(f"{PROGRAM}: error: {error}", file=sys.stderr)
        return 1


def run() -> None:
    """Console-script entry point (`pling-tutorial`)."""
    raise SystemExit(main())


if __name__ == "__main__":
    run()

"""`pling-tutorial`: list tutorials and serve one for development (subcommand dispatch)."""

from __future__ import annotations

import argparse
import sys
import threading
from collections.abc import Callable, Sequence
from typing import TypeAlias

from harness.model.config import ProviderConfigError
from harness.serve import PortInUse, ServerStartError, TutorialServer
from harness.tutorials import TutorialError, list_tutorials, load_tutorial

PROGRAM = "pling-tutorial"
# Exit code for a usage problem the user can fix (same as argparse's).
EXIT_USAGE = 2

Handler = Callable[[argparse.Namespace], int]
SubParsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


class UsageError(Exception):
    """A problem with what the user asked for; printed as one line, exit 2."""


def fail(message: str) -> int:
    print(f"{PROGRAM}: error: {message}", file=sys.stderr)
    return EXIT_USAGE


# --- list --------------------------------------------------------------------------


def run_list(args: argparse.Namespace) -> int:
    tutorials = list_tutorials()
    width = max((len(t.id) for t in tutorials), default=0)
    short_width = max((len(t.short_id) for t in tutorials), default=0)
    for tutorial in tutorials:
        print(f"{tutorial.id.ljust(width)}  {tutorial.short_id.ljust(short_width)}  "
              f"{tutorial.title.zh} / {tutorial.title.en}")
    return 0


def add_list_command(subparsers: SubParsers) -> None:
    parser = subparsers.add_parser("list", help="list the tutorials (id, short id, titles)")
    parser.set_defaults(handler=run_list)


# --- dev ---------------------------------------------------------------------------


def run_dev(args: argparse.Namespace) -> int:
    tutorial = load_tutorial(args.tutorial)
    locale = args.locale or tutorial.default_locale
    if locale not in tutorial.locales:
        raise UsageError(
            f"locale {locale!r} is not offered by {tutorial.short_id}; "
            f"use --locale with one of: {', '.join(tutorial.locales)}"
        )
    port = tutorial.port if args.port is None else args.port
    server = TutorialServer(tutorial=tutorial, port=port)
    with server:
        print(f"Serving {tutorial.short_id} ({tutorial.title.en}) at {server.page_url(locale)}",
              flush=True)
        print("Press Ctrl-C to stop.", flush=True)
        try:
            # Nothing sets this event: the wait ends only with Ctrl-C (KeyboardInterrupt).
            threading.Event().wait()
        except KeyboardInterrupt:
            print("Stopped.", flush=True)
    return 0


def port_number(text: str) -> int:
    if not text.isdigit() or not 0 <= int(text) <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number (0..65535)")
    return int(text)


def add_dev_command(subparsers: SubParsers) -> None:
    parser = subparsers.add_parser(
        "dev", help="serve a tutorial page on 127.0.0.1 until Ctrl-C",
        description="Serve a tutorial's page, runtime and model gateway on 127.0.0.1.",
    )
    parser.add_argument("tutorial", help="tutorial id or short id, e.g. r-15")
    parser.add_argument("--locale", help="page language (default: the tutorial's default)")
    parser.add_argument("--port", type=port_number,
                        help="port to listen on (default: the tutorial's port; 0 = any free)")
    parser.set_defaults(handler=run_dev)


# --- dispatch ----------------------------------------------------------------------

# Each entry adds one subcommand and sets its `handler`. `check` and `mutate` belong
# here too: add their add_*_command functions to this tuple.
COMMANDS: tuple[Callable[[SubParsers], None], ...] = (
    add_list_command,
    add_dev_command,
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
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        # argparse exits on --help and on usage errors; tests call main() and want the code.
        return exit_.code if isinstance(exit_.code, int) else EXIT_USAGE
    handler: Handler = args.handler
    try:
        return handler(args)
    except (UsageError, TutorialError, PortInUse, ProviderConfigError) as error:
        return fail(str(error))
    except ServerStartError as error:
        print(f"{PROGRAM}: error: {error}", file=sys.stderr)
        return 1


def run() -> None:
    """Console-script entry point (`pling-tutorial`)."""
    raise SystemExit(main())


if __name__ == "__main__":
    run()

"""What every `pling-tutorial` command shares: the program name, usage errors (exit 2),
the --root option, the port type and waiting for Ctrl-C."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeAlias

from harness.project.paths import FIXTURES_DIR_NAME, PROJECT_ROOT, TUTORIALS_DIR_NAME
from harness.project.tutorials import Tutorial

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


def port_number(text: str) -> int:
    if not text.isdigit() or not 0 <= int(text) <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number (0..65535)")
    return int(text)


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

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

from pling_harness.project.paths import TUTORIALS_DIR_NAME
from pling_harness.project.root import RootError, has_tutorials, project_root
from pling_harness.project.tutorials import Tutorial

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


def project_root_of(args: argparse.Namespace) -> Path:
    """`--root DIR` (from the current folder), else the project found from the current
    folder as pytest finds its rootdir (`pling_harness/project/root.py`)."""
    given = getattr(args, "root", None)
    if given is not None:
        return (Path.cwd() / str(given)).resolve()
    try:
        return project_root(Path.cwd())
    except RootError as error:
        raise UsageError(str(error)) from None


def tutorial_root(args: argparse.Namespace) -> Path:
    """The project root (`project_root_of`), which must hold tutorials/."""
    return holding_tutorials(project_root_of(args), args)


def holding_tutorials(root: Path, args: argparse.Namespace) -> Path:
    """`root`, or a UsageError naming the fix when it holds no tutorials/."""
    if not has_tutorials(root):
        how = "--root" if getattr(args, "root", None) is not None else "the project root"
        raise UsageError(f"{how} {root} has no {TUTORIALS_DIR_NAME}/ folder; write a tutorial "
                         f"there with `{PROGRAM} new ID`, or name the folder that holds "
                         "tutorials/ with --root DIR (or `root` under [tool.pling] in "
                         "pyproject.toml)")
    return root


def add_root_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--root", metavar="DIR",
                        help="the folder whose tutorials/ (and fixtures/) hold the tutorial "
                        "(default: the project of the current folder, found as pytest finds "
                        "its rootdir; `root` under [tool.pling] in pyproject.toml, or in "
                        "pling.toml, names another)")


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

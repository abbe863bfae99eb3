"""The processes a mutation run starts (check suites, the `dev` servers of `--external`),
kept so that a stop reaches every one of them.

A SIGINT or SIGTERM sent to `pling-tutorial mutate` is passed on to each live child (a check
suite stops after its running check, a `dev` server stops), no child starts after it, and
the run waits for them and ends with `Stopped`: no mutant is judged from a cut-off run, and
none of its processes is left behind.
"""

from __future__ import annotations

import signal
import subprocess
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)

_lock = threading.Lock()
_live: set[subprocess.Popen[str]] = set()
_stopped_by: list[int] = []


class Stopped(Exception):
    """The run was stopped by a signal (not a RuntimeError: no mutant is "broken" by it)."""

    def __init__(self, number: int) -> None:
        super().__init__(f"interrupted by {signal.Signals(number).name}")
        self.number = number

    @property
    def exit_code(self) -> int:
        """The shell's convention for "ended by this signal" (130, 143)."""
        return 128 + self.number


def raise_if_stopped() -> None:
    with _lock:
        if _stopped_by:
            raise Stopped(_stopped_by[0])


def start(command: Sequence[str], **options: Any) -> subprocess.Popen[str]:
    """`subprocess.Popen(command, text=True, **options)`, kept until `forget`; Stopped once
    the run is stopping."""
    with _lock:
        if _stopped_by:
            raise Stopped(_stopped_by[0])
        process: subprocess.Popen[str] = subprocess.Popen(command, text=True, **options)
        _live.add(process)
    return process


def forget(process: subprocess.Popen[str]) -> None:
    with _lock:
        _live.discard(process)


def run(command: Sequence[str], *, cwd: Path, env: dict[str, str] | None = None,
        timeout: float) -> subprocess.CompletedProcess[str]:
    """Like `subprocess.run(capture_output=True, text=True)`; Stopped if the run was stopped
    while it ran (its output is then of a cut-off run)."""
    process = start(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        try:
            stdout, stderr = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            raise
    finally:
        forget(process)
    raise_if_stopped()
    return subprocess.CompletedProcess(list(command), process.returncode, stdout, stderr)


def stop_all(number: int) -> None:
    """Pass signal `number` on to every live child; no child starts after this."""
    with _lock:
        if not _stopped_by:
            _stopped_by.append(number)
        for process in _live:
            if process.poll() is None:
                process.send_signal(number)


@contextmanager
def passing_on_stop_signals() -> Iterator[None]:
    """While inside, SIGINT and SIGTERM are passed on to the children (main thread only)."""

    def pass_on(number: int, frame: FrameType | None) -> None:
        stop_all(number)

    with _lock:
        _stopped_by.clear()  # a stop ends one run, not the next one in this process
    previous = {number: signal.signal(number, pass_on) for number in STOP_SIGNALS}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)

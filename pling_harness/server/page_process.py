"""Start a row of the pages table (`pling_harness.project.page_rows`) and stop it again:
Playwright Test's `webServer`, for our pages.

`PageProcess(row, root=…, values=…).start()` runs the row's `build_command` (if any) to its
end, then its `command`, in the row's folder and in a process group of its own, with the
placeholders filled; it returns once the row's URL answers (polled until `ready_timeout_s`,
never a fixed sleep), or reuses a server already answering there when the row says so.
`stop()` ends the whole group (SIGTERM, then SIGKILL), so no process of the page outlives
it; on Linux the kernel also kills the command if this process dies first.

A page that does not start raises `PageStartError`, whose message is one line: the command,
its exit code or "still running after N s", and the last lines it printed.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from pathlib import Path
from types import TracebackType
from typing import Self

import httpx

from pling_harness.project.page_rows import PageRow, origin_of, placeholder_values

PR_SET_PDEATHSIG = 1
STOP_TIMEOUT_S = 10.0
LINES_KEPT = 200
LINES_SHOWN = 5
# Between two looks at the URL: short, so a fast server is not kept waiting.
POLL_INTERVAL_S = 0.1
PROBE_TIMEOUT_S = 2.0
# Playwright Test's webServer takes these as "ready" (and any 2xx or 3xx).
READY_CLIENT_ERRORS = (400, 401, 402, 403)


class PageStartError(RuntimeError):
    """The page did not start; the message is one line (command, how it ended, its last
    lines)."""


def die_with_parent() -> None:
    """In the child, before exec: the kernel kills it when its parent dies, even by SIGKILL,
    which no handler of ours can see (Linux's PR_SET_PDEATHSIG; elsewhere, nothing)."""
    if sys.platform != "linux":
        return
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def free_port(host: str = "127.0.0.1") -> int:
    """A port free on `host` now (the OS's pick), for a row's `{port}`."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def row_process(row: PageRow, *, root: Path, api_origin: str,
                port: int | None = None) -> PageProcess:
    """The row's server, not started, on `port` (default: a free one), behind the fixture
    server at `api_origin` (its `{model_url}` that server's model): as `check --page` and
    `dev --page` start it."""
    return PageProcess(row, root=root, values=placeholder_values(
        port=port or free_port(), api_origin=api_origin))


def answers(url: str) -> bool:
    """Whether `url` answers as a ready server does (Playwright Test's rule)."""
    try:
        status = httpx.get(url, timeout=PROBE_TIMEOUT_S, follow_redirects=False).status_code
    except httpx.HTTPError:
        return False
    return status < 400 or status in READY_CLIENT_ERRORS


def _shown(command: list[str]) -> str:
    return " ".join(command)


class PageProcess:
    """One row's server (see the module). `.url` is the filled URL, `.origin` its origin
    (where the checks open the tutorial's page); `.output` the latest lines it printed;
    `.echo`, when set, is also given each line from then on (`dev` sets it once it has
    printed the page's address, so that line comes first)."""

    def __init__(self, row: PageRow, *, root: Path, values: Mapping[str, str],
                 echo: Callable[[str], None] | None = None) -> None:
        if row.command is None:
            raise ValueError(f"page {row.name!r} has no command: the fixture server serves it")
        self.row = row
        self.directory = (root / row.cwd).resolve()
        self.command = row.filled_command(values)
        self.build_command = row.filled_build_command(values)
        self.url = row.filled_url(values)
        self.origin = origin_of(self.url)
        self.environ = {**os.environ, **row.filled_env(values)}
        self.output: deque[str] = deque(maxlen=LINES_KEPT)
        self.reused = False
        self.echo = echo
        self._process: subprocess.Popen[str] | None = None
        self._drain: threading.Thread | None = None

    # ---- start -------------------------------------------------------------------------

    def start(self) -> Self:
        if answers(self.url):
            if self.row.reuse_existing_server:
                self.reused = True
                return self
            # As Playwright Test's webServer: another server there would be checked instead.
            raise PageStartError(f"page {self.row.name} did not start: {self.url} already "
                                 "answers before its command ran; stop what serves it, or "
                                 "set reuse_existing_server = true in its row")
        if not self.directory.is_dir():
            raise PageStartError(f"page {self.row.name}: its folder {self.directory} (cwd "
                                 f"{self.row.cwd!r}) does not exist")
        deadline = time.monotonic() + self.row.ready_timeout_s
        if self.build_command is not None:
            self._build(deadline)
        self._process = self._spawn(self.command)
        self._drain = threading.Thread(target=self._read_output, args=(self._process,),
                                       name=f"page-{self.row.name}", daemon=True)
        self._drain.start()
        self._wait_until_ready(deadline)
        return self

    def _spawn(self, command: list[str]) -> subprocess.Popen[str]:
        try:
            # Its own process group: stop() signals the server and everything it started.
            return subprocess.Popen(
                command, cwd=self.directory, env=self.environ, text=True, errors="replace",
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                start_new_session=True, preexec_fn=die_with_parent)
        except OSError as error:
            raise PageStartError(f"page {self.row.name}: `{_shown(command)}` in "
                                 f"{self.directory} could not run: {error.strerror or error}"
                                 ) from None

    def _build(self, deadline: float) -> None:
        assert self.build_command is not None
        process = self._spawn(self.build_command)
        reader = threading.Thread(target=self._read_output, args=(process,), daemon=True)
        reader.start()
        try:
            code: int | None = process.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            code = None
        _stop_group(process)  # anything the build left running in its group
        reader.join(STOP_TIMEOUT_S)
        if process.stdout is not None:
            process.stdout.close()
        if code is None:
            raise PageStartError(self._failed(
                self.build_command, f"still running after {self.row.ready_timeout_s:g} s"))
        if code != 0:
            raise PageStartError(self._failed(self.build_command, f"exited with code {code}"))

    def _wait_until_ready(self, deadline: float) -> None:
        process = self._process
        assert process is not None
        while True:
            if answers(self.url):
                return
            code = process.poll()
            if code is not None:
                self.stop()
                raise PageStartError(self._failed(
                    self.command, f"exited with code {code} before {self.url} answered"))
            if time.monotonic() >= deadline:
                self.stop()
                raise PageStartError(self._failed(
                    self.command, f"still running after {self.row.ready_timeout_s:g} s, "
                                  f"{self.url} not answering"))
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=POLL_INTERVAL_S)  # returns at once if it exits

    def _read_output(self, process: subprocess.Popen[str]) -> None:
        stream = process.stdout
        if stream is None:
            return
        with contextlib.suppress(ValueError, OSError):  # closed under us by stop()
            for line in stream:
                self.output.append(line.rstrip("\n"))
                echo = self.echo
                if echo is not None:
                    echo(line)

    def _failed(self, command: list[str], how: str) -> str:
        last = [line.strip() for line in self.output if line.strip()][-LINES_SHOWN:]
        printed = " | ".join(last) if last else "(it printed nothing)"
        return (f"page {self.row.name} did not start: `{_shown(command)}` in {self.row.cwd} "
                f"{how}; its last lines: {printed}")

    # ---- running and stopping -------------------------------------------------------------

    @property
    def running(self) -> bool:
        """Whether the server still runs (a reused one: whether it still answers)."""
        if self.reused:
            return answers(self.url)
        return self._process is not None and self._process.poll() is None

    @property
    def pid(self) -> int | None:
        return None if self._process is None else self._process.pid

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        _stop_group(process)
        if self._drain is not None:
            self._drain.join(STOP_TIMEOUT_S)
        if process.stdout is not None:
            process.stdout.close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.stop()


def _stop_group(process: subprocess.Popen[str]) -> None:
    """SIGTERM to the process's group, SIGKILL after STOP_TIMEOUT_S, then SIGKILL to
    whatever of the group is left (a child whose leader exited first)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=STOP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    _wait_for_group_to_end(process.pid)


def _wait_for_group_to_end(group: int) -> None:
    """A signal is delivered after `killpg` returns: wait (bounded) until no live process is
    left in the group, so `stop()` returning means the page's processes are gone. A child
    whose leader exited is reaped by init, which may leave it a zombie: dead, not waited for."""
    deadline = time.monotonic() + STOP_TIMEOUT_S
    while _live_members(group) and time.monotonic() < deadline:
        time.sleep(POLL_INTERVAL_S / 10)  # polling the condition, not standing in for it


def _live_members(group: int) -> bool:
    proc = Path("/proc")
    if not proc.is_dir():  # no /proc (macOS): the group's SIGKILL is all we can do
        return False
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text(encoding="ascii").rsplit(") ", 1)[1].split()
        except (OSError, IndexError):
            continue  # gone while we looked
        state, process_group = fields[0], int(fields[2])
        if process_group == group and state not in ("Z", "X"):
            return True
    return False

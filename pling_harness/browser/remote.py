"""A browser served by another process: Playwright's own browser server, run with this
machine's Chromium, and what a client needs to connect to one.

`BrowserServer` runs `playwright launch-server --browser chromium --config FILE` (the
Python package's driver; Node's `chromium.launchServer` behind it) with the Chromium
`pling_harness.browser.chromium` finds, and reads the `ws://` endpoint it prints. `playwright
run-server` works too, but launches what the client asks for: pass `--unsafe` so the
client's `executablePath` (the system Chromium) is allowed, or install Playwright's own.

Clients connect with `expose_network="<loopback>"` (`CONNECT_EXPOSE_NETWORK`): the browser
then reaches 127.0.0.1 on the client's machine through the connection, so the harness's
fixture servers (on ephemeral loopback ports) work with a browser on another machine.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import IO, Self

from playwright._impl._driver import compute_driver_executable, get_driver_env

from pling_harness.browser.chromium import QUIET_NETWORK_ARGS, find_chromium

# Hosts the remote browser reaches through the connection, on the client's side.
CONNECT_EXPOSE_NETWORK = "<loopback>"
ENDPOINT = re.compile(r"ws://\S+")
START_TIMEOUT_S = 60.0


class BrowserServerError(RuntimeError):
    """The browser server did not start; the message says what it printed."""


def launch_server_config(*, host: str, port: int, headless: bool = True,
                         args: Sequence[str] = ()) -> dict[str, object]:
    """Playwright's launchServer options: this machine's Chromium, kept off the network,
    with any further Chromium `args`."""
    choice = find_chromium(headless=headless)
    config: dict[str, object] = {"host": host, "port": port, "headless": headless,
                                 "args": [*QUIET_NETWORK_ARGS, *args]}
    if choice.executable_path is not None:
        config["executablePath"] = str(choice.executable_path)
    return config


class BrowserServer:
    """`with BrowserServer(port=0) as server: server.endpoint` → "ws://127.0.0.1:P/…"."""

    def __init__(self, *, host: str = "127.0.0.1", port: int = 0, headless: bool = True,
                 args: Sequence[str] = ()) -> None:
        self.host = host
        self.port = port
        self.headless = headless
        self.args = tuple(args)
        self.endpoint: str | None = None
        self._process: subprocess.Popen[str] | None = None
        self._scratch: tempfile.TemporaryDirectory[str] | None = None

    def start(self) -> Self:
        self._scratch = tempfile.TemporaryDirectory(prefix="pling-browser-server-")
        config = Path(self._scratch.name, "launch-server.json")
        config.write_text(json.dumps(launch_server_config(
            host=self.host, port=self.port, headless=self.headless, args=self.args)),
            encoding="utf-8")
        # The driver itself, not `python -m playwright`, whose Python would stand between:
        # a SIGTERM must reach the server, which then closes its browser.
        node, cli = compute_driver_executable()
        self._process = subprocess.Popen(
            [node, cli, "launch-server", "--browser", "chromium", "--config", str(config)],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=get_driver_env())
        assert self._process.stdout is not None
        self.endpoint = _read_endpoint(self._process.stdout, START_TIMEOUT_S)
        if self.endpoint is None:
            code = self._process.poll()
            self.stop()
            raise BrowserServerError(
                f"playwright launch-server printed no ws:// endpoint within "
                f"{START_TIMEOUT_S:.0f} s (exit {code}); run it by hand to see why: "
                f"{sys.executable} -m playwright launch-server --browser chromium "
                f"--config {config}")
        return self

    def stop(self) -> None:
        if self._process is not None and self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        if self._process is not None and self._process.stdout is not None:
            self._process.stdout.close()
        self._process = None
        if self._scratch is not None:
            self._scratch.cleanup()
            self._scratch = None

    def wait(self) -> int:
        """Until the server ends (e.g. Ctrl-C); its exit code."""
        assert self._process is not None
        return self._process.wait()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.stop()


def _read_endpoint(stream: IO[str], timeout: float) -> str | None:
    """The first ws:// URL the server prints, read on a thread so a silent server times out;
    the rest of its output is drained there so it never blocks on a full pipe."""
    found: list[str] = []
    ready = threading.Event()

    def read() -> None:
        for line in stream:
            match = ENDPOINT.search(line)
            if match and not found:
                found.append(match[0])
                ready.set()
        ready.set()

    threading.Thread(target=read, daemon=True).start()
    ready.wait(timeout)
    return found[0] if found else None

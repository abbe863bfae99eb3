"""`pling-tutorial dev <tutorial> --page react|react-build|copilotkit|copilotkit-build`: a
page served by Vite.

The fixture server runs in this process on a free port (business API, model gateway,
testbed), and Vite's dev server (`react`) or Vite's preview of the production build
(`react-build`) runs as a child process in its own process group, proxying `/api/`,
`/testbed` and `/pling/` to it (`fixtures/<short id>-react/vite.config.ts`). `copilotkit`
serves `fixtures/<short id>-copilotkit/` under Vite's dev server the same way
(`copilotkit-build`: its development build under `vite preview`); CopilotKit's runtime runs
inside either. Stopping kills that whole group, so no node process outlives the
command.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import re
import signal
import socket
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Literal, Self

from pling_harness.project.paths import FIXTURES_DIR_NAME
from pling_harness.project.tutorials import Tutorial

ReactMode = Literal["react", "react-build", "copilotkit", "copilotkit-build"]
REACT_MODES: tuple[ReactMode, ...] = ("react", "react-build", "copilotkit", "copilotkit-build")
# The folder beside the tutorial's own page that each mode serves: `<short id>-<suffix>`.
# `copilotkit` is the page whose assistant is CopilotKit (its runtime inside Vite's server).
PAGE_FOLDER_SUFFIX: dict[ReactMode, str] = {
    "react": "react", "react-build": "react", "copilotkit": "copilotkit",
    "copilotkit-build": "copilotkit"}
PAGE_NAME: dict[ReactMode, str] = {
    "react": "React", "react-build": "React", "copilotkit": "CopilotKit",
    "copilotkit-build": "CopilotKit"}
# The modes served from `vite build` by `vite preview`, each with the NODE_ENV it is built
# under. The CopilotKit page is bundled as a development build: React's development build
# keeps StrictMode's double mounts, which its registration checks prove the page survives
# (a production build would make "as served, under StrictMode" prove nothing), while one
# bundle loads in about half the time of Vite's dev server's hundreds of modules.
BUILT_MODES: dict[ReactMode, str] = {"react-build": "production",
                                     "copilotkit-build": "development"}
# Vite prints "Local:   http://127.0.0.1:PORT/" once it listens (colours stripped first).
_LISTENING = re.compile(r"Local:\s+(http://127\.0\.0\.1:\d+)/")
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
BUILD_TIMEOUT_S = 300
PR_SET_PDEATHSIG = 1
STOP_TIMEOUT_S = 10
OUTPUT_LINES_KEPT = 1000


class ReactPageError(RuntimeError):
    """The React page cannot be served; the message says why and what to run."""


def react_directory(tutorial: Tutorial, root: Path,
                    mode: ReactMode = "react") -> Path:
    """`fixtures/<short id>-<suffix>/`, the page `mode` serves, with its Vite installed."""
    directory = root / FIXTURES_DIR_NAME / f"{tutorial.short_id}-{PAGE_FOLDER_SUFFIX[mode]}"
    if not (directory / "package.json").is_file():
        raise ReactPageError(f"{tutorial.short_id} has no {PAGE_NAME[mode]} page ({directory} "
                             f"is missing); --page {mode} needs a page there")
    if not vite_binary(directory).is_file():
        raise ReactPageError(
            f"Vite is not installed in {directory}; run ./scripts/bootstrap (it runs npm ci "
            "there; needs Node.js >= 20.19 and npm)")
    return directory


def vite_binary(directory: Path) -> Path:
    return directory / "node_modules" / ".bin" / "vite"


def die_with_parent() -> None:
    """In the child, before exec: the kernel kills it when its parent dies, even by SIGKILL,
    which no handler of ours can see (Linux's PR_SET_PDEATHSIG; elsewhere, nothing)."""
    if sys.platform != "linux":
        return
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def free_port(host: str) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


class ViteServer:
    """Vite serving `directory` on host:port (0: a free one), its API at `api_origin`;
    `environ` adds to the environment Vite (and the page's server code) runs in; `options`
    to Vite's command line.

    `mode="react"` (or "copilotkit"): the dev server. A mode of BUILT_MODES: `vite build`
    (under its NODE_ENV), then `vite preview` of the build. `.url` once started; `stop()`
    (or leaving the `with`) ends the process group.
    """

    def __init__(self, *, directory: Path, mode: ReactMode, api_origin: str,
                 host: str = "127.0.0.1", port: int = 0, node: Path | None = None,
                 environ: Mapping[str, str] | None = None,
                 options: Sequence[str] = ()) -> None:
        self.directory = directory
        self.options = list(options)
        self.mode = mode
        self.host = host
        self.port = port or free_port(host)
        # Vite under `node` (a page that needs another Node.js than the system's), else
        # its own launcher under the system's node.
        self.vite = ([str(node), str(directory / "node_modules" / "vite" / "bin" / "vite.js")]
                     if node is not None else [str(vite_binary(directory))])
        self.environ = {**os.environ, **(environ or {}), "PLING_API_ORIGIN": api_origin,
                        "NO_COLOR": "1", "FORCE_COLOR": "0"}
        self.url = ""
        # Vite's latest lines (its guard's refusals among them), besides our output.
        self.output: deque[str] = deque(maxlen=OUTPUT_LINES_KEPT)
        self._process: subprocess.Popen[str] | None = None
        self._drain: threading.Thread | None = None

    def build(self) -> None:
        result = subprocess.run(
            [*self.vite, "build", "--logLevel", "warn"],
            cwd=self.directory, env={**self.environ, "NODE_ENV": BUILT_MODES[self.mode]},
            capture_output=True, text=True, timeout=BUILD_TIMEOUT_S, check=False)
        if result.returncode != 0:
            raise ReactPageError(f"vite build failed in {self.directory}: "
                                 f"{(result.stdout + result.stderr).strip()[-800:]}")

    def start(self) -> Self:
        built = self.mode in BUILT_MODES
        if built:
            self.build()
        command = [*self.vite,
                   *(["preview"] if built else []),
                   "--host", self.host, "--port", str(self.port), "--strictPort",
                   *self.options]
        # Its own process group: stop() signals Vite and anything it started, at once.
        self._process = subprocess.Popen(
            command, cwd=self.directory, env=self.environ, text=True,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
            preexec_fn=die_with_parent)
        assert self._process.stdout is not None
        seen: list[str] = []
        for line in self._process.stdout:  # ends once it listens, or at its exit
            seen.append(line)
            found = _LISTENING.search(_ANSI.sub("", line))
            if found:
                self.url = found.group(1)
                break
        if not self.url:
            self.stop()
            raise ReactPageError(f"Vite did not start in {self.directory}: "
                                 f"{''.join(seen).strip()[-800:]}")
        # Keep reading, or Vite blocks on a full pipe; its messages go to our output.
        stream = self._process.stdout

        def drain() -> None:
            for line in stream:
                self.output.append(line)
                print(line, end="")

        self._drain = threading.Thread(target=drain, name="vite-output", daemon=True)
        self._drain.start()
        return self

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        # A child Vite left behind in the group (it exited first) gets no second chance.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        # The output ends with the group; read to its end, then closed.
        if self._drain is not None:
            self._drain.join(STOP_TIMEOUT_S)
        if process.stdout is not None:
            process.stdout.close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.stop()

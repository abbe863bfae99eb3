"""A mutant's copy of our page served by its own `pling-tutorial dev` process, for external mode.

`pling-tutorial mutate <tutorial> --external` checks each mutant the way a user checks their own
page: the mutated copy is served by a separate `dev` process (the copy's own `pling_harness`, so
a mutated server is the one that runs), and the suite runs against its URL with
`--base-url`.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from types import TracebackType
from typing import Self

from pling_harness.mutation import children

# `dev` prints "Serving <short id> (...) at http://127.0.0.1:PORT/?lang=zh" once it listens.
_SERVING = re.compile(r"at (http://127\.0\.0\.1:\d+)/")
STOP_TIMEOUT_S = 20
HOST = "127.0.0.1"


class ServeError(RuntimeError):
    """The copy's dev server did not come up."""


class ServedCopy:
    """`dev <tutorial> --port 0` (our page) run from `root`'s own harness; `.url` once
    started. A row of the pages table is not served here: the check run starts it from the
    copy itself (`SuiteInvocation.launches_row`)."""

    def __init__(self, *, root: Path, tutorial_id: str) -> None:
        self.root = root
        self.tutorial_id = tutorial_id
        self.url = ""
        self._process: subprocess.Popen[str] | None = None

    def __enter__(self) -> Self:
        launcher = self.root / "pling_harness" / "mutation" / "launch.py"
        environ = {key: value for key, value in os.environ.items()
                   if not key.startswith("PLING_")}
        # Kept with the run's children, so a stop of `mutate` stops it too.
        self._process = children.start(
            [sys.executable, str(launcher), "--pling-tutorial", "dev", self.tutorial_id,
             "--port", "0", "--root", str(self.root)],
            cwd=self.root, env={**environ, "PYTHONDONTWRITEBYTECODE": "1"},
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        assert self._process.stdout is not None
        first = self._process.stdout.readline()  # returns once it listens, or at its exit
        found = _SERVING.search(first)
        if found is None:
            rest = first + self._stop()
            raise ServeError(f"the mutant's dev server did not start: {rest.strip()[-500:]}")
        self.url = found.group(1)
        return self

    def _stop(self) -> str:
        process, self._process = self._process, None
        if process is None:
            return ""
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
        try:
            output, _ = process.communicate(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            output, _ = process.communicate()
        children.forget(process)
        return output or ""

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self._stop()

"""The AI SDK page's replay: each bug of `tutorials/r-15-…/mutation/releases.json` on its last
buggy release and its first fixed one, judged by r-15's own checks through the page's dock
driver (`check --base-url --model-port --driver ai-sdk -k <the bug's checks>`).

A release is installed once per machine (`pling_harness.mutation.releases`: the page's lock
with the pinned packages at their exact versions, cached) and linked into a copy of the page
beside it (`fixtures/.r-15-ai-sdk-replay/`, so the page's relative imports resolve), served by
Vite under the release's own Node.js with the fixture server's business API.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from pling_harness.cli.ai_sdk_page import ai_sdk_vite, copy_page
from pling_harness.cli.react_page import free_port
from pling_harness.mutation.releases import (
    PageSwap,
    ReleaseBug,
    ReleasePins,
    installed_release,
    load_release_bugs,
)
from pling_harness.plugin.report import SuiteReport
from pling_harness.project.tutorials import load_tutorial
from pling_harness.server.runner import TutorialServer

PROJECT_ROOT = Path(__file__).resolve().parents[2]
TUTORIAL = "r-15"
PAGE = PROJECT_ROOT / "fixtures" / "r-15-ai-sdk"
COPY = PAGE.parent / ".r-15-ai-sdk-replay"
DRIVER = "ai-sdk"
HOST = "127.0.0.1"


@dataclass(frozen=True)
class Outcome:
    """What r-15's checks said about one release: per expected guarantee, "passed" or the
    first failure line of a check proving it."""

    release: str
    failures: dict[str, str]
    ran: int

    @property
    def caught(self) -> bool:
        return bool(self.failures)


def ai_sdk_bugs() -> tuple[ReleaseBug, ...]:
    return load_release_bugs(load_tutorial(TUTORIAL, PROJECT_ROOT), PROJECT_ROOT).bugs


def release_name(pins: ReleasePins) -> str:
    return " ".join(pins.specs())


@contextmanager
def page_on(pins: ReleasePins, swaps: tuple[PageSwap, ...] = ()) -> Iterator[Path]:
    """A copy of the page with `pins` installed under it and `swaps` laid over it; removed
    on leaving."""
    copy_page(PAGE, COPY, installed_release(PAGE, pins))
    try:
        for swap in swaps:
            target = COPY / swap.file
            text = target.read_text(encoding="utf-8")
            if text.count(swap.old) != 1:
                raise RuntimeError(f"{swap.file} no longer holds exactly one {swap.old!r}; "
                                   "update the bug's page_swaps in releases.json")
            target.write_text(text.replace(swap.old, swap.new), encoding="utf-8")
        yield COPY
    finally:
        shutil.rmtree(COPY, ignore_errors=True)


def check_release(bug: ReleaseBug, pins: ReleasePins, locale: str) -> Outcome:
    """Serve the page on `pins` and run the bug's checks through the driver."""
    if bug.checks is None:
        raise ValueError(f"{bug.name} names no checks to replay it with")
    model_port = free_port(HOST)
    with page_on(pins, bug.page_swaps) as directory, \
            TutorialServer(tutorial=TUTORIAL, root=PROJECT_ROOT, port=0) as api, \
            ai_sdk_vite(directory, api_origin=api.url,
                        model_base_url=f"http://{HOST}:{model_port}/v1", port=0) as vite, \
            tempfile.TemporaryDirectory(prefix="pling-replay-") as scratch:
        report = Path(scratch) / "report.json"
        command = [str(Path(sys.executable).with_name("pling-tutorial")), "check", TUTORIAL,
                   "--root", str(PROJECT_ROOT), "--base-url", vite.url,
                   "--model-port", str(model_port), "--driver", DRIVER, "--locale", locale,
                   "-k", bug.checks, "--pling-report", str(report), "-q",
                   "-p", "no:cacheprovider"]
        subprocess.run(command, cwd=PROJECT_ROOT, check=False, capture_output=True,
                       timeout=1800)
        if not report.is_file():
            raise RuntimeError(f"{bug.name} on {release_name(pins)}: the check run wrote no "
                               f"report ({' '.join(command)})")
        tests = SuiteReport.read(report).tests
    failures: dict[str, str] = {}
    for test in tests:
        said = (test.failure or test.outcome).rsplit("GuaranteeViolation: ", 1)[-1]
        if test.outcome in ("failed", "error"):
            for guarantee in test.guarantees:
                if guarantee in bug.expected and guarantee not in failures:
                    failures[guarantee] = said
            if not set(test.guarantees) & set(bug.expected):
                failures.setdefault(f"(other: {test.nodeid.split('::')[-1]})", said)
    ran = sum(test.outcome in ("passed", "failed", "error") for test in tests)
    return Outcome(release=release_name(pins), failures=failures, ran=ran)

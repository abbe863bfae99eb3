"""A framework page's replay: each bug of its releases file (`tutorials/r-15-…/mutation/
releases.json` for the AI SDK page, `releases-copilotkit.json` for CopilotKit's) on its last
buggy release and its first fixed one, judged by r-15's own checks through the page's dock
driver (`check --base-url --model-port --driver <page> -k <the bug's checks>`).

A release is installed once per machine (`pling_harness.mutation.releases`: the page's lock
with the pinned packages at their exact versions, cached) and linked into a copy of the page
beside it (`fixtures/.r-15-<page>-replay/`, so the page's relative imports resolve), served by
Vite as `pling-tutorial dev r-15 --page <page>` serves the page itself (the AI SDK's under
the release's own Node.js; CopilotKit's runtime inside Vite), with the fixture server's
business API and each check's scripted model at `--model-port`.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from playwright.sync_api import sync_playwright

from pling_harness.browser.chromium import find_chromium
from pling_harness.cli.ai_sdk_page import ai_sdk_vite, copy_page
from pling_harness.cli.copilotkit_page import copilotkit_vite
from pling_harness.cli.react_page import ViteServer, free_port
from pling_harness.mutation.releases import (
    PageSwap,
    ReleaseBug,
    ReleasePins,
    installed_release,
    load_pages_release_bugs,
)
from pling_harness.plugin.report import SuiteReport
from pling_harness.project.tutorials import load_tutorial
from pling_harness.server.runner import TutorialServer

PROJECT_ROOT = Path(__file__).resolve().parents[2]
TUTORIAL = "r-15"
HOST = "127.0.0.1"
# Each page's Vite, as `dev r-15 --page <page>` starts it: (directory, API origin, model URL).
SERVE: dict[str, Callable[[Path, str, str], ViteServer]] = {
    "ai-sdk": lambda directory, api, model: ai_sdk_vite(
        directory, api_origin=api, model_base_url=model, port=0),
    "copilotkit": lambda directory, api, model: copilotkit_vite(
        directory, api_origin=api, model_base_url=model, port=0),
}
CHECK_RUN_TIMEOUT_S = 1800
# Vite's folder of bundled packages in a page (its vite.config.ts's cacheDir).
VITE_CACHE = ".vite-cache"
BUNDLE_TIMEOUT_MS = 300_000


def page_directory(page: str) -> Path:
    return PROJECT_ROOT / "fixtures" / f"{TUTORIAL}-{page}"


def page_copy(page: str) -> Path:
    return PROJECT_ROOT / "fixtures" / f".{TUTORIAL}-{page}-replay"


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


def page_bugs(page: str) -> tuple[ReleaseBug, ...]:
    """`page`'s bugs from its releases file (none: the page has no such file)."""
    pages = load_pages_release_bugs(load_tutorial(TUTORIAL, PROJECT_ROOT), PROJECT_ROOT)
    return pages[page].bugs if page in pages else ()


def release_name(pins: ReleasePins) -> str:
    return " ".join(pins.specs())


@contextmanager
def page_on(page: str, pins: ReleasePins, swaps: tuple[PageSwap, ...] = ()) -> Iterator[Path]:
    """A copy of `page` with `pins` installed under it and `swaps` laid over it; removed
    on leaving."""
    copy = page_copy(page)
    node_modules = installed_release(page_directory(page), pins)
    copy_page(page_directory(page), copy, node_modules)
    # Vite's bundle of the release's packages, kept with the install: a minute or more to
    # build for CopilotKit, once per release rather than once per replay.
    bundles = node_modules.parent / f"vite-cache-{page}"
    bundles.mkdir(exist_ok=True)
    (copy / VITE_CACHE).symlink_to(bundles, target_is_directory=True)
    try:
        for swap in swaps:
            target = copy / swap.file
            text = target.read_text(encoding="utf-8")
            if text.count(swap.old) != 1:
                raise RuntimeError(f"{swap.file} no longer holds exactly one {swap.old!r}; "
                                   f"update the bug's page_swaps in {page}'s releases file")
            target.write_text(text.replace(swap.old, swap.new), encoding="utf-8")
        yield copy
    finally:
        shutil.rmtree(copy, ignore_errors=True)


def tutorial_url(base_url: str, locale: str) -> str:
    return load_tutorial(TUTORIAL, PROJECT_ROOT).page_url(base_url, locale)


def wait_until_bundled(url: str) -> None:
    """Load the page once and wait until it is ready: Vite bundles a release's packages on
    the first load, longer than a check waits for a page (nothing is judged here)."""
    chromium = find_chromium()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium.executable_path)
        try:
            page = browser.new_page()
            page.goto(url, timeout=BUNDLE_TIMEOUT_MS)
            page.wait_for_selector("html[data-pling-ready=true]", timeout=BUNDLE_TIMEOUT_MS)
        finally:
            browser.close()


def check_release(page: str, bug: ReleaseBug, pins: ReleasePins, locale: str) -> Outcome:
    """Serve `page` on `pins` and run the bug's checks through the page's driver (named as
    the page is: drivers/<page>.json)."""
    if bug.checks is None:
        raise ValueError(f"{bug.name} names no checks to replay it with")
    model_port = free_port(HOST)
    with page_on(page, pins, bug.page_swaps) as directory, \
            TutorialServer(tutorial=TUTORIAL, root=PROJECT_ROOT, port=0) as api, \
            SERVE[page](directory, api.url, f"http://{HOST}:{model_port}/v1") as vite, \
            tempfile.TemporaryDirectory(prefix="pling-replay-") as scratch:
        wait_until_bundled(tutorial_url(vite.url, locale))
        report = Path(scratch) / "report.json"
        command = [str(Path(sys.executable).with_name("pling-tutorial")), "check", TUTORIAL,
                   "--root", str(PROJECT_ROOT), "--base-url", vite.url,
                   "--model-port", str(model_port), "--driver", page, "--locale", locale,
                   "-k", bug.checks, "--pling-report", str(report), "-q",
                   "-p", "no:cacheprovider"]
        subprocess.run(command, cwd=PROJECT_ROOT, check=False, capture_output=True,
                       timeout=CHECK_RUN_TIMEOUT_S)
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

"""A framework page's replay: each bug of its releases file (`tutorials/r-15-…/mutation/
releases.json` for the AI SDK page, `releases-copilotkit.json` for CopilotKit's) on its last
buggy release and its first fixed one (an open bug: its newest), judged by r-15's own checks
through the page's dock driver (`check --base-url --model-port --driver <page> -k <the bug's
checks>`), each check in a seat of its own.

A release is installed once per machine (`pling_harness.mutation.releases`: the page's lock
with the pinned packages at their exact versions, cached) and linked into a copy of the page
beside it (`fixtures/.r-15-<page>-replay/`, so the page's relative imports resolve). A seat is
that copy served by a Vite of its own, as `pling-tutorial dev r-15 --page <page>` serves the
page itself (the AI SDK's under the release's own Node.js; CopilotKit's runtime inside Vite),
with a fixture server of its own (the business API) and a model port of its own: one check
that crashes its page, its server or its runtime leaves the next check a fresh one. The first
seat also lists the checks the bug's `-k` selects (a `--collect-only` run: the check command
probes the page first).

Everything a run printed is kept in its folder (`runs/<role>/<NN>-<check>/`): the page
server's output, the check run's stdout and stderr, its command and JSON report.
"""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
import subprocess
import sys
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from playwright.sync_api import sync_playwright
from verdict import CheckRun

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
Serve = Callable[[Path, str, str], ViteServer]
SERVE: dict[str, Serve] = {
    "ai-sdk": lambda directory, api, model: ai_sdk_vite(
        directory, api_origin=api, model_base_url=model, port=0),
    "copilotkit": lambda directory, api, model: copilotkit_vite(
        directory, api_origin=api, model_base_url=model, port=0),
}
CHECK_RUN_TIMEOUT_S = 1800
COLLECT_TIMEOUT_S = 600
# Vite's folder of bundled packages in a page (its vite.config.ts's cacheDir).
VITE_CACHE = ".vite-cache"
BUNDLE_TIMEOUT_MS = 300_000


def page_directory(page: str) -> Path:
    return PROJECT_ROOT / "fixtures" / f"{TUTORIAL}-{page}"


def page_copy(page: str) -> Path:
    return PROJECT_ROOT / "fixtures" / f".{TUTORIAL}-{page}-replay"


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
    # build for CopilotKit, once per release rather than once per seat.
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


class SeatError(RuntimeError):
    """A seat's page or server did not start; the message says what it printed."""


@dataclass(frozen=True)
class SeatAddress:
    url: str
    model_port: int
    still_serving: Callable[[], bool] = lambda: True
    """Whether the seat's page server and fixture server still run: a check whose page died
    under it is an error, whatever it failed with."""


@contextmanager
def seat(page: str, directory: Path, locale: str, folder: Path,
         serve: Serve | None = None) -> Iterator[SeatAddress]:
    """A fixture server, a model port and the page's Vite of their own, the page loaded once;
    the page server's output goes to `folder/page-server.log` on leaving, whatever happened."""
    folder.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    model_port = free_port(HOST)
    vite: ViteServer | None = None
    facts: dict[str, object] = {"model_port": model_port}
    try:
        with TutorialServer(tutorial=TUTORIAL, root=PROJECT_ROOT, port=0) as api:
            vite = (serve or SERVE[page])(directory, api.url, f"http://{HOST}:{model_port}/v1")
            try:
                vite.start()
                wait_until_bundled(tutorial_url(vite.url, locale))
            except Exception as error:  # whatever stopped the page, it is the seat's
                facts["did_not_start"] = f"{type(error).__name__}: {error}"
                raise SeatError(f"the page did not start: {type(error).__name__}: "
                                f"{str(error).strip()[-1500:]}") from error
            facts.update(url=vite.url, start_s=round(time.monotonic() - started, 1))
            try:
                serving = vite
                yield SeatAddress(vite.url, model_port,
                                  lambda: serving.running and api.running)
            finally:
                facts["page_server_running_at_the_end"] = vite.running
                vite.stop()
    finally:
        lines = list(vite.output) if vite is not None else []
        (folder / "page-server.log").write_text("".join(lines), encoding="utf-8")
        facts["seat_s"] = round(time.monotonic() - started, 1)
        (folder / "seat.json").write_text(json.dumps(facts, indent=2) + "\n", encoding="utf-8")


def check_command(page: str, address: SeatAddress, locale: str, checks: str,
                  report: Path, extra: list[str]) -> list[str]:
    return [str(Path(sys.executable).with_name("pling-tutorial")), "check", TUTORIAL,
            "--root", str(PROJECT_ROOT), "--base-url", address.url,
            "--model-port", str(address.model_port), "--driver", page, "--locale", locale,
            "-k", checks, "--pling-report", str(report), "-p", "no:cacheprovider", *extra]


def run_and_keep(command: list[str], folder: Path, name: str, timeout_s: float) -> str | None:
    """Run `command`, keeping its command line, stdout, stderr and exit code in `folder`
    (`name.*`); None, or why it did not finish."""
    (folder / f"{name}.command").write_text(" ".join(command) + "\n", encoding="utf-8")
    try:
        result = subprocess.run(command, cwd=PROJECT_ROOT, check=False, capture_output=True,
                                text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired as error:
        for stream, text in (("stdout", error.stdout), ("stderr", error.stderr)):
            said = text.decode(errors="replace") if isinstance(text, bytes) else (text or "")
            (folder / f"{name}.{stream}").write_text(said, encoding="utf-8")
        return f"the check run did not finish in {timeout_s:.0f} s"
    (folder / f"{name}.stdout").write_text(result.stdout, encoding="utf-8")
    (folder / f"{name}.stderr").write_text(result.stderr, encoding="utf-8")
    (folder / f"{name}.exit").write_text(f"{result.returncode}\n", encoding="utf-8")
    return None


def read_report(path: Path) -> SuiteReport | None:
    return SuiteReport.read(path) if path.is_file() else None


def selected_checks(page: str, address: SeatAddress, locale: str, checks: str,
                    folder: Path) -> list[str]:
    """The node ids the bug's `-k` selects on this page (a collect-only run in `folder`)."""
    report = folder / "collect-report.json"
    problem = run_and_keep(check_command(page, address, locale, checks, report,
                                         ["--collect-only", "-q"]),
                           folder, "collect", COLLECT_TIMEOUT_S)
    found = read_report(report)
    if problem is not None or found is None:
        raise SeatError(f"listing the checks of -k {checks!r} failed: "
                        f"{problem or 'no report'} (see {folder / 'collect.stdout'})")
    return [test.nodeid for test in found.tests]


def run_one_check(page: str, address: SeatAddress, locale: str, checks: str, nodeid: str,
                  others: list[str], folder: Path) -> CheckRun:
    """`nodeid` alone (the bug's `-k`, every other check it selects deselected)."""
    report = folder / "report.json"
    deselect = [flag for other in others if other != nodeid
                for flag in ("--deselect", other)]
    problem = run_and_keep(check_command(page, address, locale, checks, report, deselect),
                           folder, "check", CHECK_RUN_TIMEOUT_S)
    found = read_report(report)
    if problem is None and found is None:
        problem = "the check run wrote no report"
    if found is not None and [test.nodeid for test in found.tests] != [nodeid]:
        problem = (f"the run was to hold {nodeid} alone, its report holds "
                   f"{[test.nodeid for test in found.tests]}")
    if not address.still_serving():
        problem = (f"the page server or the fixture server stopped during the check (see "
                   f"{folder / 'page-server.log'})")
    return CheckRun(nodeid, found, problem, str(folder))


def short_name(nodeid: str) -> str:
    """A folder name for a check: its test name and parameters, filesystem-safe."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", nodeid.split("::")[-1]).strip("_")[:80]


def replay_release(page: str, bug: ReleaseBug, pins: ReleasePins, locale: str,
                   folder: Path, serve: Serve | None = None) -> list[CheckRun]:
    """The bug's checks on `pins`, each in its own seat, each run kept in a folder of
    `folder`. Nothing here raises: an install, a page or a run that fails is a CheckRun with
    its problem, which the verdict counts as an error."""
    if bug.checks is None:
        raise ValueError(f"{bug.name} names no checks to replay it with")
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    (folder / "release.txt").write_text(release_name(pins) + "\n", encoding="utf-8")
    runs: list[CheckRun] = []
    try:
        with page_on(page, pins, bug.page_swaps) as directory:
            # The first seat lists the checks, then runs the first of them (it touched no
            # page before): its folder is named after that check once it is known.
            first = folder / "01-first-seat"
            with seat(page, directory, locale, first, serve) as address:
                nodeids = selected_checks(page, address, locale, bug.checks, first)
                if nodeids:
                    runs.append(run_one_check(page, address, locale, bug.checks, nodeids[0],
                                              nodeids, first))
            if not nodeids:
                return [CheckRun("(none)", None, f"-k {bug.checks!r} selects no check "
                                 f"on {page}", str(first))]
            named = folder / f"01-{short_name(nodeids[0])}"
            first.rename(named)
            runs[0] = dataclasses.replace(runs[0], output=str(named))
            for index, nodeid in enumerate(nodeids[1:], start=2):
                runs.append(one_seat_run(page, directory, locale, bug.checks, nodeid,
                                         nodeids, folder / f"{index:02d}-{short_name(nodeid)}",
                                         serve))
    except Exception as error:  # an install or a page that fails: an error row, not a stop
        where = folder / "error.txt"
        where.write_text(traceback.format_exc(), encoding="utf-8")
        runs.append(CheckRun("(release)", None,
                             f"{type(error).__name__}: {str(error).strip()[-1500:]}",
                             str(where)))
    return runs


def one_seat_run(page: str, directory: Path, locale: str, checks: str, nodeid: str,
                 nodeids: list[str], folder: Path, serve: Serve | None) -> CheckRun:
    try:
        with seat(page, directory, locale, folder, serve) as address:
            return run_one_check(page, address, locale, checks, nodeid, nodeids, folder)
    except Exception as error:  # this seat's failure is this check's error, not the next's
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "error.txt").write_text(traceback.format_exc(), encoding="utf-8")
        said = str(error) if isinstance(error, SeatError) else f"{type(error).__name__}: {error}"
        return CheckRun(nodeid, None, said, str(folder))

"""One release of a framework page, checked: each selected check in a run of its own.

A seat is one check run over the page's copy on the release (`serving.page_on`): the run is
the one `pling-tutorial check <tutorial> --page <page> --locale <locale> -k <checks>` makes,
with the page's row pointed at the copy (`serving.serve_page`), so the check run starts the
page over its own fixture server (its own business state and scripted model) and stops it at
its end, and judges it through the row's dock driver. One check that crashes its page, its
server or its runtime leaves the next check a fresh one. Before the first seat the page is
started once and loaded (`warm`): Vite bundles a release's packages on the first load, longer
than a check waits for a page. The first seat also lists the checks the `-k` expression
selects (a `--collect-only` run).

Everything a run printed is kept in its folder (`<folder>/<NN>-<check>/`): the seat's facts,
the check run's command, stdout, stderr, exit code and JSON report (the first load's page
output in `<folder>/page-server.log`). Nothing here raises: an install, a page or a run that
fails is a CheckRun with its problem, which the verdict counts as an error, never as a catch.
"""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
import subprocess
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from playwright.sync_api import sync_playwright

from pling_harness.browser.chromium import find_chromium
from pling_harness.cli.check import pytest_command
from pling_harness.cli.releases import serving
from pling_harness.cli.releases.serving import Place
from pling_harness.cli.releases.verdict import CheckRun
from pling_harness.mutation.releases import PageSwap, ReleasePins
from pling_harness.plugin.report import SuiteReport
from pling_harness.project.page_rows import PageRow, placeholder_values
from pling_harness.project.pages_table import row_driver
from pling_harness.project.run_choices import (
    Chosen,
    RunChoices,
    driver_choice,
    locales_choice,
    no_model_port,
    option,
    served_here,
)
from pling_harness.server.page_process import PageProcess, free_port
from pling_harness.server.runner import TutorialServer

# A page served on a release: (place, the copy's directory) -> the row the check starts.
Serve = Callable[[Place, Path], PageRow]
CHECK_RUN_TIMEOUT_S = 1800
COLLECT_TIMEOUT_S = 600
BUNDLE_TIMEOUT_MS = 300_000
PROBLEM_CHARS = 1500


def release_name(pins: ReleasePins) -> str:
    return " ".join(pins.specs())


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
    """The page did not start or load on the release; the message says what it printed."""


@dataclass(frozen=True)
class SeatAddress:
    """A seat: the row the check run starts (the page's row on the copy)."""

    row: PageRow


def warm(place: Place, row: PageRow, folder: Path) -> None:
    """Start the page once over a fixture server of its own and load it until ready, so
    Vite bundles the release's packages before any check waits on them; its output goes to
    `folder/page-server.log`. A page that does not start or load is a SeatError."""
    folder.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    facts: dict[str, object] = {"cwd": row.cwd}
    process: PageProcess | None = None
    try:
        with TutorialServer(tutorial=place.tutorial.id, root=place.root, port=0) as api:
            process = PageProcess(row, root=place.root, values=placeholder_values(
                port=free_port(), api_origin=api.url))
            try:
                with process:
                    wait_until_bundled(place.tutorial.page_url(process.origin, place.locale))
            except Exception as error:  # whatever stopped the page, it is the seat's
                facts["did_not_start"] = f"{type(error).__name__}: {error}"
                raise SeatError(f"the page did not start: {type(error).__name__}: "
                                f"{str(error).strip()[-PROBLEM_CHARS:]}") from error
    finally:
        lines = list(process.output) if process is not None else []
        (folder / "page-server.log").write_text("\n".join(lines) + "\n", encoding="utf-8")
        facts["warm_s"] = round(time.monotonic() - started, 1)
        (folder / "seat.json").write_text(json.dumps(facts, indent=2) + "\n", encoding="utf-8")


@contextmanager
def seat(place: Place, directory: Path, folder: Path,
         serve: Serve | None = None) -> Iterator[SeatAddress]:
    """The row that serves `directory` (the page's copy), for one check run in `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    yield SeatAddress((serve or serving.serve_page)(place, directory))


def seat_choices(place: Place, row: PageRow) -> RunChoices:
    """`check <tutorial> --page <page> --locale <locale>`'s choices, with `row` (the page's
    row on the copy) the page the run starts."""
    root = place.root
    page = served_here(place.tutorial)
    driver_file = row_driver(row, place.tutorial, root)
    return RunChoices(
        root=Chosen[str](value=str(root), source=option("--root")),
        tutorial=Chosen[str](value=place.tutorial.id, source=option(
            f"the command line: releases {place.tutorial.short_id}")),
        page=page,
        driver=driver_choice(place.tutorial, root,
                             str(driver_file) if driver_file is not None else None,
                             f"`driver` of page {place.page}"),
        locales=locales_choice(place.tutorial, place.locale, "--locale"),
        model_port=no_model_port(page),
        launch=Chosen[PageRow](value=row, source=option(
            f"--page {place.page}, its folder the release's copy {row.cwd}")))


def check_command(place: Place, address: SeatAddress, checks: str, report: Path,
                  extra: list[str], folder: Path) -> list[str]:
    """The run `check <tutorial> --page <page> -k <checks>` makes (its choices in
    `folder`), run by this interpreter (a checkout or a wheel)."""
    return pytest_command(seat_choices(place, address.row),
                          choices_file=folder / "choices.json", report=report,
                          pytest_args=["-k", checks, "-p", "no:cacheprovider", *extra])


def run_and_keep(place: Place, command: list[str], folder: Path, name: str,
                 timeout_s: float) -> str | None:
    """Run `command`, keeping its command line, stdout, stderr and exit code in `folder`
    (`name.*`); None, or why it did not finish."""
    (folder / f"{name}.command").write_text(" ".join(command) + "\n", encoding="utf-8")
    try:
        result = subprocess.run(command, cwd=place.root, check=False, capture_output=True,
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


def selected_checks(place: Place, address: SeatAddress, checks: str,
                    folder: Path) -> list[str]:
    """The node ids `checks` (a `-k`) selects on this page (a collect-only run in `folder`)."""
    report = folder / "collect-report.json"
    problem = run_and_keep(place, check_command(place, address, checks, report,
                                                ["--collect-only", "-q"], folder),
                           folder, "collect", COLLECT_TIMEOUT_S)
    found = read_report(report)
    if problem is not None or found is None:
        raise SeatError(f"listing the checks of -k {checks!r} failed: "
                        f"{problem or 'no report'} (see {folder / 'collect.stdout'})")
    return [test.nodeid for test in found.tests]


def run_one_check(place: Place, address: SeatAddress, checks: str, nodeid: str,
                  others: list[str], folder: Path) -> CheckRun:
    """`nodeid` alone (`checks`, every other check it selects deselected)."""
    report = folder / "report.json"
    deselect = [flag for other in others if other != nodeid
                for flag in ("--deselect", other)]
    problem = run_and_keep(place, check_command(place, address, checks, report, deselect,
                                                folder),
                           folder, "check", CHECK_RUN_TIMEOUT_S)
    found = read_report(report)
    if problem is None and found is None:
        problem = "the check run wrote no report"
    if found is not None and [test.nodeid for test in found.tests] != [nodeid]:
        problem = (f"the run was to hold {nodeid} alone, its report holds "
                   f"{[test.nodeid for test in found.tests]}")
    if found is not None and found.page_stopped is not None:
        problem = f"the page stopped during the check: {found.page_stopped}"
    return CheckRun(nodeid, found, problem, str(folder))


def short_name(nodeid: str) -> str:
    """A folder name for a check: its test name and parameters, filesystem-safe."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", nodeid.split("::")[-1]).strip("_")[:80]


def replay_release(place: Place, checks: str, pins: ReleasePins, folder: Path,
                   swaps: tuple[PageSwap, ...] = (), serve: Serve | None = None
                   ) -> list[CheckRun]:
    """The checks `checks` selects, on `pins`, each in its own seat, each run kept in a
    folder of `folder`. An install, a page or a run that fails is a CheckRun with its
    problem (an error), never an exception."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    (folder / "release.txt").write_text(release_name(pins) + "\n", encoding="utf-8")
    runs: list[CheckRun] = []
    try:
        with serving.page_on(place, pins, swaps) as directory:
            warm(place, (serve or serving.serve_page)(place, directory),
                 folder / "00-first-load")
            # The first seat lists the checks, then runs the first of them (it touched no
            # page before): its folder is named after that check once it is known.
            first = folder / "01-first-seat"
            with seat(place, directory, first, serve) as address:
                nodeids = selected_checks(place, address, checks, first)
                if nodeids:
                    runs.append(run_one_check(place, address, checks, nodeids[0], nodeids,
                                              first))
            if not nodeids:
                return [CheckRun("(none)", None, f"-k {checks!r} selects no check on "
                                 f"{place.page}", str(first))]
            named = folder / f"01-{short_name(nodeids[0])}"
            first.rename(named)
            runs[0] = dataclasses.replace(runs[0], output=str(named))
            for index, nodeid in enumerate(nodeids[1:], start=2):
                runs.append(one_seat_run(place, directory, checks, nodeid, nodeids,
                                         folder / f"{index:02d}-{short_name(nodeid)}", serve))
    except Exception as error:  # an install or a page that fails: an error, not a stop
        where = folder / "error.txt"
        where.write_text(traceback.format_exc(), encoding="utf-8")
        runs.append(CheckRun("(release)", None,
                             f"{type(error).__name__}: {str(error).strip()[-PROBLEM_CHARS:]}",
                             str(where)))
    return runs


def one_seat_run(place: Place, directory: Path, checks: str, nodeid: str,
                 nodeids: list[str], folder: Path, serve: Serve | None) -> CheckRun:
    try:
        with seat(place, directory, folder, serve) as address:
            return run_one_check(place, address, checks, nodeid, nodeids, folder)
    except Exception as error:  # this seat's failure is this check's error, not the next's
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "error.txt").write_text(traceback.format_exc(), encoding="utf-8")
        said = str(error) if isinstance(error, SeatError) else f"{type(error).__name__}: {error}"
        return CheckRun(nodeid, None, said, str(folder))

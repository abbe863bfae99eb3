"""A stopped `pling-tutorial check` keeps what it found: SIGTERM (a CI runner's cancel) or
SIGINT sent to the CLI while checks run ends the run with JUnit, JSON and HTML reports of the
checks that ran, the rest marked not run, and no process of the run left behind."""

from __future__ import annotations

import contextlib
import html.parser
import json
import os
import selectors
import signal
import subprocess
import sys
import time
import urllib.parse
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from pling_harness.cli.check import render_summary, take_json_report
from pling_harness.plugin.interrupt import interrupted_reason
from pling_harness.plugin.report import SuiteReport, TestRecord

# The harness's own checkout: the project these tests check.
PROJECT_ROOT = Path(__file__).resolve().parents[1]

# Six checks of one locale: long enough a run that the signal lands in the middle of it.
SELECTION = "test_approval_card_stays_open_until_a_decision_button_is_clicked"
SELECTED = 6
FINISHED_BEFORE_SIGNAL = 2
START_DEADLINE_S = 240.0
STOP_DEADLINE_S = 120.0
POLL_INTERVAL_S = 0.1


def proc_stat(pid: int) -> tuple[int, str] | None:
    """(parent pid, start time) of a live process, None once it is gone (or a zombie)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    fields = text[text.rindex(")") + 2:].split()
    if fields[0] == "Z":
        return None
    return int(fields[1]), fields[19]


def descendants(root: int) -> dict[int, str]:
    """Every live process below `root` (pid → start time, to tell a reused pid apart)."""
    parents: dict[int, tuple[int, str]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (stat := proc_stat(int(entry.name))) is not None:
            parents[int(entry.name)] = stat
    found: dict[int, str] = {}
    frontier = [root]
    while frontier:
        parent = frontier.pop()
        for pid, (ppid, started) in parents.items():
            if ppid == parent and pid not in found:
                found[pid] = started
                frontier.append(pid)
    return found


def alive(processes: dict[int, str]) -> list[int]:
    """Those of `processes` still running (same pid, same start time)."""
    return [pid for pid, started in processes.items()
            if (stat := proc_stat(pid)) is not None and stat[1] == started]


def command_line(pid: int) -> str:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except (FileNotFoundError, ProcessLookupError):
        return ""
    return raw.replace(b"\0", b" ").decode(errors="replace")


def start_check(tmp_path: Path) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "pling_harness.cli.main", "check", "r-15", "--locale", "en",
               "--report", str(tmp_path / "report"), f"--junitxml={tmp_path / 'junit.xml'}",
               "--pling-report", str(tmp_path / "report.json"), "-k", SELECTION, "-v",
               "-p", "no:cacheprovider"]
    # Its own session, as a CI runner starts a job: nothing of it shares ours.
    return subprocess.Popen(command, cwd=PROJECT_ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})


def wait_for_finished_checks(process: subprocess.Popen[bytes], count: int) -> bytes:
    """Read the run's output until `count` checks have passed (pytest -v prints a line as
    each ends); fails past START_DEADLINE_S or if the run ends first. Reads the pipe's file
    descriptor itself: a buffered reader would keep output `communicate` then never sees."""
    assert process.stdout is not None
    fd = process.stdout.fileno()
    output = b""
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        deadline = time.monotonic() + START_DEADLINE_S
        while output.count(b" PASSED") < count:
            left = deadline - time.monotonic()
            assert left > 0, "no checks finished in time:\n" + output.decode()
            if selector.select(timeout=left):
                chunk = os.read(fd, 65536)
                assert chunk, "the run ended before the signal:\n" + output.decode()
                output += chunk
    return output


class Links(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.targets: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.targets += [value for name, value in attrs if name in ("href", "src") and value]


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT], ids=lambda s: s.name)
def test_stopped_check_run_keeps_its_reports_and_leaves_no_process(
    tmp_path: Path, page: Page, stop: signal.Signals
) -> None:
    process = start_check(tmp_path)
    run: dict[int, str] = {}
    try:
        before = wait_for_finished_checks(process, FINISHED_BEFORE_SIGNAL)
        run = descendants(process.pid)  # pytest, the Playwright driver, Chromium's processes
        names = " ".join(command_line(pid) for pid in run)
        process.send_signal(stop)
        after, _ = process.communicate(timeout=STOP_DEADLINE_S)
        left = [command_line(pid)[:120] for pid in alive(run)]
    finally:
        # A failing run must not leave its processes to the next tests either.
        for pid in ([process.pid] if process.poll() is None else []) + alive(run):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    output = (before + after).decode(errors="replace")

    assert process.returncode == 128 + stop, output
    assert "pytest" in names and "chromium" in names, names[:500]
    assert left == [], output

    passed = output.count(" PASSED")
    assert FINISHED_BEFORE_SIGNAL <= passed < SELECTED, output
    assert f"INTERRUPTED (interrupted by {stop.name}): {passed} of {SELECTED} checks ran, " \
           f"{SELECTED - passed} not run" in output

    junit = ET.parse(tmp_path / "junit.xml").getroot()
    cases = junit.findall(".//testcase")
    assert len(cases) == passed and all(SELECTION in case.get("name", "") for case in cases)
    assert not junit.findall(".//failure") and not junit.findall(".//error")

    report = json.loads((tmp_path / "report.json").read_text())
    assert report["interrupted"] == f"interrupted by {stop.name}"
    outcomes = [test["outcome"] for test in report["tests"]]
    assert outcomes.count("passed") == passed
    assert outcomes.count("not run") == SELECTED - passed

    folder = tmp_path / "report"
    links = Links()
    links.feed((folder / "index.html").read_text(encoding="utf-8"))
    files = [urllib.parse.unquote(t) for t in links.targets if not t.startswith("#")]
    assert all((folder / target).is_file() for target in files), files

    page.goto((folder / "index.html").as_uri())
    expect(page.get_by_test_id("interrupted")).to_contain_text(f"interrupted by {stop.name}")
    expect(page.get_by_test_id("report-summary")).to_contain_text(
        f"{SELECTED - passed} not run")
    expect(page.get_by_test_id("guarantee-table").locator("td")).to_have_text(["not run (6)"])
    expect(page.locator("[data-testid=check][data-outcome='not run']")).to_have_count(
        SELECTED - passed)
    expect(page.locator("[data-testid=check][data-outcome=passed]")).to_have_count(passed)


def wait_for_processes(root: int, *needles: str) -> dict[int, str]:
    """Poll /proc until, below `root`, each of `needles` is in some process's command line;
    fails past START_DEADLINE_S."""
    deadline = time.monotonic() + START_DEADLINE_S
    while True:
        found = descendants(root)
        lines = [command_line(pid) for pid in found]
        if all(any(needle in line for line in lines) for needle in needles):
            return found
        assert time.monotonic() < deadline, f"never saw {needles} below {root}: {lines}"
        time.sleep(POLL_INTERVAL_S)


def test_stopped_external_mutation_run_leaves_no_check_suite_dev_server_or_browser(
    tmp_path: Path,
) -> None:
    command = [sys.executable, "-m", "pling_harness.cli.main", "mutate", "r-15", "--only",
               "denied-call-retried", "--focused", "--external", "--jobs", "1"]
    process = subprocess.Popen(command, cwd=PROJECT_ROOT, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, start_new_session=True)
    run: dict[int, str] = {}
    try:
        # The mutant's copy is served by its dev process and a check is in its browser.
        run = wait_for_processes(process.pid, "--pling-tutorial dev", "chromium")
        process.send_signal(signal.SIGTERM)
        out, _ = process.communicate(timeout=STOP_DEADLINE_S)
        left = [command_line(pid)[:120] for pid in alive(run)]
    finally:
        for pid in ([process.pid] if process.poll() is None else []) + alive(run):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    output = out.decode(errors="replace")

    assert process.returncode == 128 + signal.SIGTERM, output
    assert left == [], output
    assert "mutation run interrupted by SIGTERM" in output
    assert "denied-call-retried" not in output.split("Running 1 mutants")[-1], output


def test_summary_of_an_interrupted_run_says_so_and_counts_what_did_not_run() -> None:
    report = SuiteReport(interrupted="interrupted by SIGTERM", tests=[
        TestRecord(nodeid="a[zh]", locale="zh", guarantees=("denial-respected",),
                   outcome="passed"),
        TestRecord(nodeid="b[zh]", locale="zh", guarantees=("denial-respected",),
                   outcome="not run"),
        TestRecord(nodeid="c[zh]", locale="zh", guarantees=("policy-table",),
                   outcome="passed"),
    ])

    summary = render_summary(report, ["zh"]).splitlines()

    assert summary[1].split() == ["denial-respected", "not", "run"]
    assert summary[2].split() == ["policy-table", "pass"]
    assert summary[-2] == "1/2 guarantees proven in zh"
    assert summary[-1] == "INTERRUPTED (interrupted by SIGTERM): 2 of 3 checks ran, 1 not run"


def test_check_reads_the_json_report_where_the_user_asked_for_it(tmp_path: Path) -> None:
    asked, rest = take_json_report(["-k", "x", "--pling-report", "a.json",
                                    f"--pling-report={tmp_path / 'b.json'}", "-x"])

    assert asked == tmp_path / "b.json"
    assert rest == ["-k", "x", "-x"]
    assert take_json_report(["-q"]) == (None, ["-q"])


def test_only_a_signal_or_ctrl_c_makes_a_run_interrupted_never_a_plugins_early_stop() -> None:
    assert interrupted_reason(pytest.Session.Interrupted("interrupted by SIGTERM")) == (
        "interrupted by SIGTERM")
    assert interrupted_reason(KeyboardInterrupt()) == "interrupted by KeyboardInterrupt"
    # A plugin's pytest.exit (external mode refusing a page it cannot check) is the stop's
    # reason as it said it, not a Ctrl-C nobody pressed.
    assert interrupted_reason(pytest.exit.Exception("pling: … shows no agent dock")) == (
        "interrupted by pytest.exit (pling: … shows no agent dock)")
    # --pling-stop-at-kill ends the session through session.shouldstop too: its report
    # keeps the unreached checks "skipped" and says nothing of an interruption.
    assert interrupted_reason(pytest.Session.Interrupted(
        "--pling-stop-at-kill: a check of each of denial-respected has failed")) is None

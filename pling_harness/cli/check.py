"""`pling-tutorial check`: run a tutorial's check suite through pytest and summarise guarantees."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from types import FrameType

from pling_harness.plugin.choices import CHOICES_OPTION
from pling_harness.plugin.external import CHECKED_TARGET_ENV
from pling_harness.plugin.external import EXIT_BAD_TARGET as EXIT_REFUSED
from pling_harness.plugin.interrupt import INTERRUPTED_BY
from pling_harness.plugin.report import NO_LOCALE, Outcome, SuiteReport
from pling_harness.project.action_table import check_paths
from pling_harness.project.paths import TUTORIALS_DIR_NAME
from pling_harness.project.run_choices import RunChoices

OUTCOME_LABEL: dict[Outcome, str] = {
    "passed": "pass",
    "failed": "FAIL",
    "error": "ERROR",
    "skipped": "skip",
    "n/a": "n/a",
    "not run": "not run",
    "flaky": "FLAKY",
}
# After passing a stop on to pytest, how long its teardown (browser closed, servers stopped,
# reports written) may take before it is killed.
STOP_GRACE_S = 60.0
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
JSON_REPORT_FLAG = "--pling-report"
# The run's choices, written in the run's scratch folder for the child pytest.
CHOICES_FILE_NAME = "choices.json"


def checks_dir(tutorial_dir_name: str, root: Path) -> Path:
    return root / TUTORIALS_DIR_NAME / tutorial_dir_name / "checks"


def pytest_command(
    choices: RunChoices, *, choices_file: Path, report: Path, pytest_args: Sequence[str],
    html_report: Path | None = None,
) -> list[str]:
    """The child pytest run, handed the run's choices as one file (`--pling-choices`, which
    `choices` is written to), so the plugin serves and reads what was chosen here and
    resolves nothing again; artifact and junit flags ride along in `pytest_args` untouched.
    No settings of ours: pytest finds the user's (or none) from the checks folder, as it
    would if they ran it themselves. The root is its rootdir: without one, a root with no
    settings file would get the common ancestor of it and the current folder, and node ids
    (JUnit names, `-k`, stored shard durations) would change with the folder a run starts
    from."""
    root = choices.root_path
    tutorial_directory = root / TUTORIALS_DIR_NAME / choices.tutorial.value
    choices.write(choices_file)
    command = [sys.executable, "-m", "pytest",
               *(str(path) for path in check_paths(tutorial_directory)),
               "--rootdir", str(root), CHOICES_OPTION, str(choices_file),
               "--pling-report", str(report)]
    if html_report is not None:
        command += ["--pling-html", str(html_report)]
    return command + list(pytest_args)


def render_summary(report: SuiteReport, locales: Sequence[str]) -> str:
    """guarantee × locale → pass/FAIL (or n/a), one row per guarantee, in first-seen
    order; then how many guarantees were proven and, when checks were n/a (against a page
    served elsewhere, or with a dock driver that cannot observe what they need), how many
    ran and why the others could not, counted by reason."""
    stopped = [interrupted_line(report)] if report.interrupted is not None else []
    table = report.guarantee_outcomes()
    guarantees = list(dict.fromkeys(g for g, _ in table))
    if not guarantees:
        return "\n".join([*stopped, "no guarantee checks ran"])
    # Checks without a locale get a column of their own, so their outcome is shown too.
    columns = [*locales, *([NO_LOCALE] if any(loc == NO_LOCALE for _, loc in table) else [])]
    width = max(len(g) for g in [*guarantees, "guarantee"]) + 2
    column = max(len(OUTCOME_LABEL[outcome]) for outcome in table.values()) + 2
    lines = ["guarantee".ljust(width) + "".join(loc.ljust(column) for loc in columns)]
    for guarantee in guarantees:
        cells = "".join(
            OUTCOME_LABEL[table[(guarantee, loc)]].ljust(column) if (guarantee, loc) in table
            else "-".ljust(column)
            for loc in columns
        )
        lines.append(guarantee.ljust(width) + cells)
    proven = report.count_guarantees(locales, "passed")
    not_applicable = report.count_guarantees(locales, "n/a")
    tally = f"{proven}/{len(guarantees)} guarantees proven in {', '.join(locales)}"
    lines.append(tally + (f"; {not_applicable} {OUTCOME_LABEL['n/a']}" if not_applicable
                          else ""))
    skipped = [test for test in report.tests if test.outcome == "n/a"]
    if skipped:
        ran = len(report.tests) - len(skipped)
        lines.append(f"{ran} of {len(report.tests)} checks ran against the page "
                     f"({100 * ran // len(report.tests)}%); {len(skipped)} are "
                     f"{OUTCOME_LABEL['n/a']}:")
        reasons = Counter(f"{', '.join(t.guarantees) or '-'}: {t.reason}" for t in skipped)
        lines.extend(f"  {count} × {reason}" for reason, count in reasons.items())
    return "\n".join([*lines, *stopped])


def interrupted_line(report: SuiteReport) -> str:
    not_run = sum(1 for test in report.tests if test.outcome == "not run")
    return (f"INTERRUPTED ({report.interrupted}): {len(report.tests) - not_run} of "
            f"{len(report.tests)} checks ran, {not_run} not run")


def run_pytest(command: Sequence[str], *, environ: dict[str, str]) -> tuple[int, int | None]:
    """Run pytest; a SIGINT or SIGTERM sent to us is passed on to it, and we wait while it
    stops and writes its reports (killed if that takes over STOP_GRACE_S). Returns its exit
    code and the first stop signal we got, if any."""
    received: list[tuple[int, float]] = []
    # From the user's current folder: every relative path they gave lands where they asked.
    process = subprocess.Popen(command, env=environ)

    def pass_on(number: int, frame: FrameType | None) -> None:
        received.append((number, time.monotonic()))
        if process.poll() is None:
            process.send_signal(number)

    previous = {number: signal.signal(number, pass_on) for number in STOP_SIGNALS}
    try:
        while True:
            try:
                exit_code = process.wait(timeout=1.0)
                break
            except subprocess.TimeoutExpired:
                if received and time.monotonic() - received[0][1] > STOP_GRACE_S:
                    print(f"pling-tutorial: pytest did not stop within {STOP_GRACE_S:.0f} s "
                          "of the signal; killed", file=sys.stderr)
                    process.kill()
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
    return exit_code, (received[0][0] if received else None)


def refusal(report: SuiteReport, exit_code: int) -> str | None:
    """The plugin's one line when it refused the run before any check (`pytest.exit` with
    exit code 2: a page that did not start, or that cannot be checked); else None."""
    prefix = f"{INTERRUPTED_BY}pytest.exit (pling: "
    stopped = report.interrupted or ""
    if exit_code != EXIT_REFUSED or not stopped.startswith(prefix) or \
            any(test.outcome not in ("not run", "n/a") for test in report.tests):
        return None
    return stopped.removeprefix(prefix).removesuffix(")")


def take_json_report(pytest_args: Sequence[str]) -> tuple[Path | None, list[str]]:
    """A `--pling-report PATH` among the pytest arguments (the last one wins, as in pytest),
    made absolute from here, and the other arguments."""
    found: str | None = None
    rest: list[str] = []
    args = iter(pytest_args)
    for arg in args:
        if arg == JSON_REPORT_FLAG:
            found = next(args, found)
        elif arg.startswith(JSON_REPORT_FLAG + "="):
            found = arg.split("=", 1)[1]
        else:
            rest.append(arg)
    return (Path(found).resolve() if found else None), rest


def run_check(
    choices: RunChoices,
    *,
    pytest_args: Sequence[str],
    html_report: Path | None = None,
    checked_target: str | None = None,
) -> int:
    """Run the suite with live output, then print the run's choices and the summary;
    pytest's exit code is ours, but 128 + the signal's number (130, 143) for a run stopped
    by SIGINT or SIGTERM. With `html_report` (a folder, made absolute by the caller) the run
    also writes the HTML report there. With a page served elsewhere (`choices.page`) the
    caller has checked it can be, and `checked_target` is what it found
    (`CHECKED_TARGET_ENV`), so the run does not check it again."""
    with tempfile.TemporaryDirectory(prefix="pling-check-") as scratch:
        # The JSON report is read from where the user asked for it, else from scratch.
        asked, pytest_args = take_json_report(pytest_args)
        report_path = asked or Path(scratch) / "report.json"
        command = pytest_command(choices, choices_file=Path(scratch) / CHOICES_FILE_NAME,
                                 report=report_path, pytest_args=pytest_args,
                                 html_report=html_report)
        environ = dict(os.environ)
        if checked_target is not None:
            environ[CHECKED_TARGET_ENV] = checked_target
        exit_code, stopped_by = run_pytest(command, environ=environ)
        if stopped_by is not None:
            # The shell's convention for "ended by this signal"; never 0, never a usage error.
            exit_code = 128 + stopped_by
        if not report_path.exists():
            print(f"pling-tutorial: the check run wrote no report (pytest exit {exit_code})",
                  file=sys.stderr)
            return exit_code or 1
        report = SuiteReport.read(report_path)
    refused = refusal(report, exit_code)
    if refused is not None:
        # A page that could not be started or checked: its one line, no empty table.
        print(f"pling-tutorial: error: {refused}", file=sys.stderr)
        return exit_code
    print()
    base_url = choices.page.value
    if base_url is not None:
        print(f"Checked {base_url} (served elsewhere; its model endpoint answered by the "
              "harness's scripted model in the browser)")
    print(choices.header_line())
    print(render_summary(report, choices.locales.value))
    if html_report is not None:
        print(f"HTML report: {html_report / 'index.html'}")
    return exit_code

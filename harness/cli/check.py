"""`pling-tutorial check`: run a tutorial's check suite through pytest and summarise guarantees."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from harness.plugin.external import CHECKED_IN_BROWSER_ENV
from harness.plugin.report import Outcome, SuiteReport
from harness.project.paths import PROJECT_ROOT, TUTORIALS_DIR_NAME

OUTCOME_LABEL: dict[Outcome, str] = {
    "passed": "pass",
    "failed": "FAIL",
    "error": "ERROR",
    "skipped": "skip",
    "n/a": "n/a (external)",
}


def checks_dir(tutorial_dir_name: str, root: Path = PROJECT_ROOT) -> Path:
    return root / TUTORIALS_DIR_NAME / tutorial_dir_name / "checks"


def pytest_command(
    tutorial_dir_name: str, *, locale: str | None, report: Path, pytest_args: Sequence[str],
    html_report: Path | None = None, base_url: str | None = None,
) -> list[str]:
    """The child pytest run; artifact and junit flags ride along in `pytest_args` untouched."""
    command = [sys.executable, "-m", "pytest", str(checks_dir(tutorial_dir_name)),
               "--rootdir", str(PROJECT_ROOT), "--pling-report", str(report)]
    if locale is not None:
        command += ["--pling-locale", locale]
    if base_url is not None:
        command += ["--base-url", base_url]
    if html_report is not None:
        command += ["--pling-html", str(html_report)]
    return command + list(pytest_args)


def render_summary(report: SuiteReport, locales: Sequence[str]) -> str:
    """guarantee × locale → pass/FAIL (or n/a (external)), one row per guarantee, in
    first-seen order; then how many guarantees were proven and, when checks were n/a
    against a page served elsewhere, how many ran and why the others could not."""
    table = report.guarantee_outcomes()
    guarantees = list(dict.fromkeys(g for g, _ in table))
    if not guarantees:
        return "no guarantee checks ran"
    width = max(len(g) for g in guarantees) + 2
    column = max(len(OUTCOME_LABEL[outcome]) for outcome in table.values()) + 2
    lines = ["guarantee".ljust(width) + "".join(loc.ljust(column) for loc in locales)]
    for guarantee in guarantees:
        cells = "".join(
            OUTCOME_LABEL[table[(guarantee, loc)]].ljust(column) if (guarantee, loc) in table
            else "-".ljust(column)
            for loc in locales
        )
        lines.append(guarantee.ljust(width) + cells)
    proven = sum(1 for g in guarantees if all(
        table.get((g, loc)) in (None, "passed") for loc in locales))
    not_applicable = sum(1 for g in guarantees if all(
        table.get((g, loc)) in (None, "n/a") for loc in locales))
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
    return "\n".join(lines)


def run_check(
    tutorial_dir_name: str,
    *,
    locales: Sequence[str],
    only_locale: str | None,
    pytest_args: Sequence[str],
    html_report: Path | None = None,
    base_url: str | None = None,
) -> int:
    """Run the suite with live output, then print the summary; pytest's exit code is ours.
    With `html_report` (a folder, made absolute by the caller) the run also writes the
    HTML report there. With `base_url` the suite checks the page served there (the caller
    has checked it can be: the run does not open it again for that)."""
    with tempfile.TemporaryDirectory(prefix="pling-check-") as scratch:
        report_path = Path(scratch) / "report.json"
        command = pytest_command(tutorial_dir_name, locale=only_locale, report=report_path,
                                 pytest_args=pytest_args, html_report=html_report,
                                 base_url=base_url)
        environ = dict(os.environ)
        if base_url is not None:
            environ[CHECKED_IN_BROWSER_ENV] = base_url
        exit_code = subprocess.run(command, cwd=PROJECT_ROOT, env=environ,
                                   check=False).returncode
        if not report_path.exists():
            print(f"pling-tutorial: the check run wrote no report (pytest exit {exit_code})",
                  file=sys.stderr)
            return exit_code or 1
        report = SuiteReport.read(report_path)
    shown = [only_locale] if only_locale else list(locales)
    print()
    if base_url is not None:
        print(f"Checked {base_url} (served elsewhere; its model endpoint answered by the "
              "harness's scripted model in the browser)")
    print(render_summary(report, shown))
    if html_report is not None:
        print(f"HTML report: {html_report / 'index.html'}")
    return exit_code

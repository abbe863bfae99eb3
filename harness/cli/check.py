"""`pling-tutorial check`: run a tutorial's check suite through pytest and summarise guarantees."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from harness.plugin.report import Outcome, SuiteReport
from harness.project.paths import PROJECT_ROOT, TUTORIALS_DIR_NAME

OUTCOME_LABEL: dict[Outcome, str] = {
    "passed": "pass",
    "failed": "FAIL",
    "error": "ERROR",
    "skipped": "skip",
}


def checks_dir(tutorial_dir_name: str, root: Path = PROJECT_ROOT) -> Path:
    return root / TUTORIALS_DIR_NAME / tutorial_dir_name / "checks"


def pytest_command(
    tutorial_dir_name: str, *, locale: str | None, report: Path, pytest_args: Sequence[str],
    html_report: Path | None = None,
) -> list[str]:
    """The child pytest run; artifact and junit flags ride along in `pytest_args` untouched."""
    command = [sys.executable, "-m", "pytest", str(checks_dir(tutorial_dir_name)),
               "--rootdir", str(PROJECT_ROOT), "--pling-report", str(report)]
    if locale is not None:
        command += ["--pling-locale", locale]
    if html_report is not None:
        command += ["--pling-html", str(html_report)]
    return command + list(pytest_args)


def render_summary(report: SuiteReport, locales: Sequence[str]) -> str:
    """guarantee × locale → pass/FAIL, one row per guarantee, in first-seen order."""
    table = report.guarantee_outcomes()
    guarantees = list(dict.fromkeys(g for g, _ in table))
    if not guarantees:
        return "no guarantee checks ran"
    width = max(len(g) for g in guarantees) + 2
    lines = ["guarantee".ljust(width) + "".join(loc.ljust(8) for loc in locales)]
    for guarantee in guarantees:
        cells = "".join(
            OUTCOME_LABEL[table[(guarantee, loc)]].ljust(8) if (guarantee, loc) in table
            else "-".ljust(8)
            for loc in locales
        )
        lines.append(guarantee.ljust(width) + cells)
    proven = sum(1 for g in guarantees if all(
        table.get((g, loc)) in (None, "passed") for loc in locales))
    lines.append(f"{proven}/{len(guarantees)} guarantees proven in {', '.join(locales)}")
    return "\n".join(lines)


def run_check(
    tutorial_dir_name: str,
    *,
    locales: Sequence[str],
    only_locale: str | None,
    pytest_args: Sequence[str],
    html_report: Path | None = None,
) -> int:
    """Run the suite with live output, then print the summary; pytest's exit code is ours.
    With `html_report` (a folder, made absolute by the caller) the run also writes the
    HTML report there."""
    with tempfile.TemporaryDirectory(prefix="pling-check-") as scratch:
        report_path = Path(scratch) / "report.json"
        command = pytest_command(tutorial_dir_name, locale=only_locale, report=report_path,
                                 pytest_args=pytest_args, html_report=html_report)
        exit_code = subprocess.run(command, cwd=PROJECT_ROOT, check=False).returncode
        if not report_path.exists():
            print(f"pling-tutorial: the check run wrote no report (pytest exit {exit_code})",
                  file=sys.stderr)
            return exit_code or 1
        report = SuiteReport.read(report_path)
    shown = [only_locale] if only_locale else list(locales)
    print()
    print(render_summary(report, shown))
    if html_report is not None:
        print(f"HTML report: {html_report / 'index.html'}")
    return exit_code

"""The pling pytest plugin's options, through pytester: locales, report, root, launch args."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import Playwright

from pling_harness.browser.chromium import (
    NO_CHROMIUM_HELP,
    QUIET_NETWORK_ARGS,
    ChromiumChoice,
    find_chromium,
    playwright_chromium_path,
)
from pling_harness.plugin.overrides import chromium_launch_args
from pling_harness.plugin.report import SuiteReport

pytest_plugins = ["pytester"]

LOCALE_TEST = """
def test_sees_locale(locale):
    assert locale in ("zh", "en")
"""


def test_locale_without_option_runs_every_locale(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(LOCALE_TEST)
    result = pytester.runpytest_subprocess("-v")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*test_sees_locale?zh?*PASSED*", "*test_sees_locale?en?*PASSED*"])


def test_locale_option_restricts_parametrization_to_one_locale(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(LOCALE_TEST)
    result = pytester.runpytest_subprocess("-v", "--pling-locale", "en")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*test_sees_locale?en?*PASSED*"])
    result.stdout.no_fnmatch_line("*?zh?*")


def test_locale_option_unknown_value_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(LOCALE_TEST)
    result = pytester.runpytest_subprocess("--pling-locale", "fr")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--pling-locale fr: * offers zh, en*Current input: 'fr'*"])


def test_report_option_writes_locale_guarantees_outcome_and_failure(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    pytester.makepyfile("""
        import pytest

        @pytest.mark.guarantee("denial-respected")
        def test_holds(locale):
            pass

        @pytest.mark.guarantee("no-silent-retry")
        @pytest.mark.guarantee("denial-respected")
        def test_breaks(locale):
            assert locale == "zh", "only zh holds"

        @pytest.fixture
        def broken():
            raise RuntimeError("setup went wrong")

        def test_cannot_start(broken):
            pass
    """)
    report_path = tmp_path / "out" / "report.json"
    result = pytester.runpytest_subprocess("--pling-report", str(report_path))
    result.assert_outcomes(passed=3, failed=1, errors=1)

    records = {record.nodeid: record for record in SuiteReport.read(report_path).tests}
    holds = records["test_report_option_writes_locale_guarantees_outcome_and_failure.py"
                    "::test_holds[zh]"]
    assert (holds.locale, holds.guarantees, holds.outcome, holds.failure) == (
        "zh", ("denial-respected",), "passed", None)
    breaks = next(r for r in records.values() if r.nodeid.endswith("test_breaks[en]"))
    assert breaks.outcome == "failed"
    assert breaks.guarantees == ("denial-respected", "no-silent-retry")
    assert breaks.failure is not None and breaks.failure.startswith("AssertionError: only zh holds")
    cannot = next(r for r in records.values() if r.nodeid.endswith("test_cannot_start"))
    assert (cannot.locale, cannot.outcome) == (None, "error")
    assert cannot.failure == "RuntimeError: setup went wrong"


def test_report_option_with_collect_only_lists_guarantees(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    pytester.makepyfile("""
        import pytest

        @pytest.mark.guarantee("policy-table")
        def test_table(locale):
            pass
    """)
    report_path = tmp_path / "report.json"
    pytester.runpytest_subprocess("--collect-only", "--pling-report", str(report_path))
    tests = SuiteReport.read(report_path).tests
    assert [(t.locale, t.guarantees, t.outcome) for t in tests] == [
        ("zh", ("policy-table",), "skipped"), ("en", ("policy-table",), "skipped")]


def test_guarantee_marker_without_a_name_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("""
        import pytest

        @pytest.mark.guarantee
        def test_unnamed():
            pass
    """)
    result = pytester.runpytest_subprocess("--strict-markers")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*guarantee takes exactly one name*"])


def test_root_option_without_tutorials_folder_is_a_usage_error(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    pytester.makepyfile(LOCALE_TEST)
    result = pytester.runpytest_subprocess("--pling-root", str(tmp_path))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--pling-root*has no tutorials/ folder*"])


LAUNCH_ARGS_TEST = """
import json

def test_record(browser_type_launch_args):
    with open({path!r}, "w") as out:
        json.dump(browser_type_launch_args, out)
"""


def _launch_args(pytester: pytest.Pytester, out: Path, *flags: str) -> dict[str, object]:
    pytester.makepyfile(LAUNCH_ARGS_TEST.format(path=str(out)))
    pytester.runpytest_subprocess(*flags).assert_outcomes(passed=1)
    recorded: dict[str, object] = json.loads(out.read_text())
    return recorded


def test_launch_args_keep_pytest_playwright_flags_and_add_quiet_network(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    args = _launch_args(pytester, tmp_path / "args.json",
                        "--browser-channel", "chrome", "--headed", "--slowmo", "50")
    assert args["channel"] == "chrome"
    assert args["headless"] is False
    assert args["slow_mo"] == 50
    assert list(QUIET_NETWORK_ARGS) == args["args"]
    # A channel chooses the browser, so the system Chromium is not forced on it.
    assert "executable_path" not in args


def test_launch_args_override_wins_when_pling_loads_before_pytest_playwright(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    # -p loads our plugin before any entry point; the override must still win.
    args = _launch_args(pytester, tmp_path / "args.json", "-p", "no:pling",
                        "-p", "pling_harness.plugin.plugin", "--browser-channel", "chrome")
    assert args["channel"] == "chrome"
    assert list(QUIET_NETWORK_ARGS) == args["args"]


def test_chromium_launch_args_without_own_chromium_use_the_system_one(tmp_path: Path) -> None:
    system = ChromiumChoice(source="system", executable_path=Path("/usr/bin/chromium"))
    args = chromium_launch_args({"args": ["--lang=en"]}, browser_name="chromium",
                                playwright_path=tmp_path / "missing",
                                find_chromium=lambda **_: system)
    assert args == {"args": ["--lang=en", *QUIET_NETWORK_ARGS],
                    "executable_path": "/usr/bin/chromium"}


def test_chromium_launch_args_ask_for_the_headless_shell_unless_headed(tmp_path: Path) -> None:
    asked: list[bool] = []

    def recording(**options: object) -> ChromiumChoice:
        asked.append(bool(options["headless"]))
        return ChromiumChoice(source="system", executable_path=Path("/usr/bin/chromium"))

    for base in ({}, {"headless": True}, {"headless": False}):
        chromium_launch_args(base, browser_name="chromium", playwright_path=tmp_path / "missing",
                             find_chromium=recording)
    assert asked == [True, True, False]


def _installed(folder: Path, *names: str) -> Path:
    folder.mkdir()
    for name in names:
        program = folder / name
        program.write_text("#!/bin/sh\n")
        program.chmod(0o755)
    return folder


def test_system_chromium_headless_prefers_its_headless_shell(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Debian ships the headless shell as its own package, beside the full browser.
    bin_dir = _installed(tmp_path / "bin", "chromium", "chromium-headless-shell")
    monkeypatch.setenv("PATH", str(bin_dir))
    missing = tmp_path / "no-playwright-chromium"
    headless = find_chromium(playwright_path=missing, headless=True)
    headed = find_chromium(playwright_path=missing, headless=False)
    assert headless.executable_path == bin_dir / "chromium-headless-shell"
    assert headed.executable_path == bin_dir / "chromium"


def test_system_chromium_without_headless_shell_serves_headless_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = _installed(tmp_path / "bin", "chromium")
    monkeypatch.setenv("PATH", str(bin_dir))
    choice = find_chromium(playwright_path=tmp_path / "no-playwright-chromium", headless=True)
    assert choice.executable_path == bin_dir / "chromium"


def test_chromium_launch_args_for_firefox_are_untouched(tmp_path: Path) -> None:
    assert chromium_launch_args({"headless": True}, browser_name="firefox",
                                playwright_path=tmp_path) == {"headless": True}


def test_no_chromium_fails_with_the_install_hint_not_a_traceback(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # Neither Playwright's Chromium (empty browsers folder) nor a system one (empty PATH).
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", str(empty))
    monkeypatch.setenv("PATH", str(empty))
    pytester.makepyfile(LAUNCH_ARGS_TEST.format(path=str(tmp_path / "unused.json")))
    result = pytester.runpytest_subprocess()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([f"*{NO_CHROMIUM_HELP[:40]}*"])
    result.stdout.no_fnmatch_line("*Traceback*")
    result.stdout.no_fnmatch_line("*def browser_type_launch_args*")


def test_playwright_chromium_path_answers_inside_a_running_sync_playwright(
    playwright: Playwright,
) -> None:
    # A browser server started from a pytest session whose `playwright` fixture already
    # runs: Playwright's sync API refuses a second start in that thread.
    assert playwright_chromium_path() == Path(playwright.chromium.executable_path)

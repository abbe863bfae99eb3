"""External mode checks the target once per run: `check --base-url` hands what its preflight
found to the pytest run (PLING_TARGET_CHECKED), which then does not check it again."""

from __future__ import annotations

import pytest

from pling_harness.browser.preflight import CheckedTarget, TargetFacts
from pling_harness.plugin.external import CHECKED_TARGET_ENV

pytest_plugins = ["pytester"]

# Nothing listens here (this helper's port range), so any check of the target fails.
UNREACHABLE = "http://127.0.0.1:5449"
TUTORIAL = "r-15-confirmation-and-human-handoff"
USES_THE_TARGET = "def test_uses_the_target(tutorial_server):\n    pass\n"


def checked(base_url: str = UNREACHABLE, tutorial: str = TUTORIAL) -> str:
    return CheckedTarget(base_url=base_url, tutorial=tutorial,
                         facts=TargetFacts(serves_testbed=False)).encode()


def test_checked_target_decodes_only_for_the_same_target_and_tutorial() -> None:
    text = checked()
    assert CheckedTarget.decode(text, base_url=UNREACHABLE, tutorial=TUTORIAL) == TargetFacts(
        serves_testbed=False)
    assert CheckedTarget.decode(text, base_url="http://127.0.0.1:5448", tutorial=TUTORIAL) is None
    assert CheckedTarget.decode(text, base_url=UNREACHABLE, tutorial="other") is None
    assert CheckedTarget.decode("not json", base_url=UNREACHABLE, tutorial=TUTORIAL) is None
    assert CheckedTarget.decode(None, base_url=UNREACHABLE, tutorial=TUTORIAL) is None


def test_run_without_a_checked_target_checks_it_and_stops_at_exit_2(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(CHECKED_TARGET_ENV, raising=False)
    pytester.makepyfile(USES_THE_TARGET)
    result = pytester.runpytest_subprocess("--base-url", UNREACHABLE, "--pling-locale", "en",
                                           "-p", "no:cacheprovider")
    assert result.ret == 2
    result.stdout.fnmatch_lines([f"*pling: cannot reach {UNREACHABLE}/*"])


def test_run_given_the_checked_target_does_not_check_it_again(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(CHECKED_TARGET_ENV, checked())
    pytester.makepyfile(USES_THE_TARGET)
    result = pytester.runpytest_subprocess("--base-url", UNREACHABLE, "--pling-locale", "en",
                                           "-p", "no:cacheprovider")
    # No preflight (which would end the run at exit 2): the test's setup meets the target,
    # whose reset before the test cannot reach it.
    result.assert_outcomes(errors=1)
    result.stdout.no_fnmatch_line("*cannot reach*/?lang=*")
    result.stdout.fnmatch_lines(["*the target was not reset*"])

"""The browser_mutant pytest plugin, through pytester in a real browser: the page sees the
mutant Stryker activated, and nothing at all without one."""

from __future__ import annotations

import pytest

from pling_harness.mutation.stryker.browser_mutant import ACTIVE_MUTANT_ENV_VARIABLE

pytest_plugins = ["pytester"]

PLUGIN = "pling_harness.mutation.stryker.browser_mutant"
ACTIVE_MUTANT_SEEN_BY_THE_PAGE = """
def test_page_sees(tutorial_page):
    seen = tutorial_page.evaluate("globalThis.__stryker__?.activeMutant ?? null")
    print(f"ACTIVE MUTANT: {seen!r}")
"""


def test_active_mutant_reaches_the_page(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(ACTIVE_MUTANT_ENV_VARIABLE, "17")
    pytester.makepyfile(ACTIVE_MUTANT_SEEN_BY_THE_PAGE)

    result = pytester.runpytest_subprocess("--pling-locale", "en", "-p", PLUGIN, "-s")

    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*ACTIVE MUTANT: '17'*"])


def test_without_an_active_mutant_the_page_gets_nothing(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(ACTIVE_MUTANT_ENV_VARIABLE, raising=False)
    pytester.makepyfile(ACTIVE_MUTANT_SEEN_BY_THE_PAGE)

    result = pytester.runpytest_subprocess("--pling-locale", "en", "-p", PLUGIN, "-s")

    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*ACTIVE MUTANT: None*"])

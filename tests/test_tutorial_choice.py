"""Which tutorial a test checks: --pling-tutorial, else its checks folder's, else the only
one; and the locales it runs in are that tutorial's, in its order (through pytester)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pling_harness.plugin.tutorial_choice import tutorial_named_by_path
from pling_harness.scaffold.new import NewTutorial, scaffold

pytest_plugins = ["pytester"]

# Each checks folder gets this file: it asserts the tutorial, the locale order and that its
# server serves that tutorial's page (a second tutorial must not get the first one's).
WHICH_CHECK = """
import httpx

SEEN = []

def test_which(tutorial, tutorial_server, locale):
    SEEN.append(locale)
    assert tutorial.id == {expected!r}
    assert tutorial_server.tutorial.id == {expected!r}
    page = httpx.get(tutorial_server.url + "/").text
    assert {marker!r} in page

def test_locale_order():
    assert SEEN == {locales!r}
"""


@pytest.mark.parametrize(("path", "expected"), [
    ("/x/tutorials/r-16-refunds/checks/test_a.py", "r-16-refunds"),
    ("/x/tutorials/r-16-refunds/checks", "r-16-refunds"),
    ("/x/tutorials/r-16-refunds/checks/deeper/test_b.py", "r-16-refunds"),
    ("/x/tests/test_a.py", None),
    ("/x/tutorials/r-16-refunds/test_a.py", None),
])
def test_tutorial_named_by_path_reads_the_checks_folder(path: str, expected: str | None) -> None:
    assert tutorial_named_by_path(Path(path)) == expected


@pytest.fixture
def two_tutorials(pytester: pytest.Pytester) -> Path:
    """A root with two scaffolded tutorials, each with the WHICH_CHECK in its checks folder;
    the second one's page marked so the two can be told apart."""
    root = pytester.path / "root"
    for tutorial_id, short_id in (("r-91-first", "r-91"), ("r-92-second", "r-92")):
        scaffold(NewTutorial(id=tutorial_id, short_id=short_id), root)
        checks = root / "tutorials" / tutorial_id / "checks"
        checks.mkdir()  # the scaffold writes no hand-written check (its checks come from its table)
        page = root / "fixtures" / tutorial_id / "index.html"
        page.write_text(page.read_text(encoding="utf-8").replace(
            "<main", f'<main data-which="{tutorial_id}"'), encoding="utf-8")
        (checks / "test_which.py").write_text(WHICH_CHECK.format(
            expected=tutorial_id, marker=f'data-which="{tutorial_id}"', locales=["en", "zh"]),
            encoding="utf-8")
    return root


def test_each_checks_folder_gets_its_own_tutorial_page_and_server(
    pytester: pytest.Pytester, two_tutorials: Path,
) -> None:
    result = pytester.runpytest_subprocess(
        str(two_tutorials / "tutorials"), "--pling-root", str(two_tutorials),
        "--import-mode=importlib",  # as the project's settings: two test_which.py files
        "-k", "test_which",  # not the checks each tutorial's action table generates
        "-p", "no:randomly", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=6)


def test_tutorial_option_chooses_for_a_test_outside_any_checks_folder(
    pytester: pytest.Pytester, two_tutorials: Path,
) -> None:
    pytester.makepyfile(test_outside=WHICH_CHECK.format(
        expected="r-92-second", marker='data-which="r-92-second"', locales=["en", "zh"]))
    result = pytester.runpytest_subprocess(
        "test_outside.py", "--pling-root", str(two_tutorials), "--pling-tutorial", "r-92",
        "-p", "no:randomly", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=3)


def test_two_tutorials_and_no_choice_is_a_usage_error_naming_the_option(
    pytester: pytest.Pytester, two_tutorials: Path,
) -> None:
    pytester.makepyfile(test_outside="def test_x(tutorial):\n    pass\n")
    result = pytester.runpytest_subprocess("test_outside.py", "--pling-root", str(two_tutorials))
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*holds 2 tutorials (r-91, r-92); say which with "
                                 "--pling-tutorial ID*"])


def test_tutorial_option_unknown_is_a_usage_error(
    pytester: pytest.Pytester, two_tutorials: Path,
) -> None:
    pytester.makepyfile(test_outside="def test_x():\n    pass\n")
    result = pytester.runpytest_subprocess("test_outside.py", "--pling-root", str(two_tutorials),
                                           "--pling-tutorial", "r-99")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--pling-tutorial r-99: no tutorial 'r-99'*(known: r-91, r-92)*"])


def test_locale_option_the_tutorial_does_not_offer_is_a_usage_error(
    pytester: pytest.Pytester, two_tutorials: Path,
) -> None:
    pytester.makepyfile(test_outside="def test_x(locale):\n    pass\n")
    result = pytester.runpytest_subprocess("test_outside.py", "--pling-root", str(two_tutorials),
                                           "--pling-tutorial", "r-91", "--pling-locale", "fr")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--pling-locale fr: r-91 offers en, zh*"])

"""The user's project is the root: found as pytest finds its rootdir, or named in
`[tool.pling]` / pling.toml; and where there are no tutorials, the plugin stays out."""

from __future__ import annotations

from pathlib import Path

import pytest

from pling_harness.cli.main import main
from pling_harness.project.root import RootError, project_root

pytest_plugins = ["pytester"]


def test_project_root_is_the_folder_of_the_nearest_pytest_config(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n", encoding="utf-8")
    (tmp_path / "docs" / "deep").mkdir(parents=True)

    assert project_root(tmp_path / "docs" / "deep") == tmp_path


def test_project_root_without_any_config_is_the_starting_folder(tmp_path: Path) -> None:
    assert project_root(tmp_path) == tmp_path


def test_tool_pling_root_names_the_folder_holding_tutorials(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.pling]\nroot = "site/checks"\n',
                                            encoding="utf-8")
    (tmp_path / "src").mkdir()

    assert project_root(tmp_path / "src") == tmp_path / "site" / "checks"


def test_pling_toml_wins_over_a_pyproject_in_the_same_folder(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.pling]\nroot = "a"\n', encoding="utf-8")
    (tmp_path / "pling.toml").write_text('root = "b"\n', encoding="utf-8")

    assert project_root(tmp_path) == tmp_path / "b"


def test_unknown_setting_is_an_error_naming_the_file_and_the_key(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.pling]\ntutorials = "x"\n',
                                            encoding="utf-8")

    with pytest.raises(RootError, match=r"pyproject\.toml \[tool\.pling\]: tutorials: Extra"):
        project_root(tmp_path)


def test_list_from_a_project_without_tutorials_says_where_it_looked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)

    assert main(["list"]) == 0
    assert f"no tutorials under {tmp_path / 'tutorials'}" in capsys.readouterr().err


def test_check_from_a_project_without_tutorials_is_a_usage_error_naming_new(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)

    assert main(["check", "r-16"]) == 2
    error = capsys.readouterr().err
    assert f"{tmp_path} has no tutorials/ folder" in error and "pling-tutorial new ID" in error


UNRELATED_SUITE = """
import pytest

@pytest.fixture
def locale():
    return "fr"  # the project's own fixture of that name

def test_own_locale(locale):
    assert locale == "fr"

@pytest.mark.parametrize("n", [1, 2])
def test_plain(n):
    assert n > 0
"""


def test_plugin_in_a_project_without_tutorials_leaves_its_suite_as_it_was(
    pytester: pytest.Pytester,
) -> None:
    (pytester.path / "pling.toml").unlink()  # this project names no tutorials
    pytester.makepyfile(UNRELATED_SUITE)

    # --base-url is pytest-playwright's: a project's own use of it is not external mode.
    result = pytester.runpytest_subprocess("--base-url", "http://127.0.0.1:9")

    result.assert_outcomes(passed=3)
    assert "pling" not in result.stdout.str().split("collected", 1)[1]  # no report of ours


def test_plugin_fixture_without_tutorials_fails_that_test_naming_the_fix(
    pytester: pytest.Pytester,
) -> None:
    (pytester.path / "pling.toml").unlink()
    pytester.makepyfile("def test_uses_ours(tutorial):\n    pass\n")

    result = pytester.runpytest_subprocess()

    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*has no tutorials/ folder*--pling-root DIR*[tool.pling]*"])


def test_relative_pling_root_is_resolved_from_the_current_folder(
    pytester: pytest.Pytester,
) -> None:
    (pytester.path / "pling.toml").unlink()
    (pytester.path / "elsewhere" / "tutorials").mkdir(parents=True)
    pytester.makepyfile("def test_root(tutorial_root):\n"
                        "    assert tutorial_root.name == 'elsewhere'\n")

    result = pytester.runpytest_subprocess("--pling-root", "elsewhere")

    result.assert_outcomes(passed=1)

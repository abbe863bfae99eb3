"""The tutorial a test checks when it does not say (no --pling-tutorial): the plugin derives
it, naming none (pling_harness/plugin/tutorial_choice.py; through pytest:
test_tutorial_choice.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pling_harness.plugin.tutorial_choice import default_tutorial_name
from pling_harness.project.paths import TUTORIALS_DIR_NAME
from pling_harness.project.tutorials import list_tutorials

# The harness's own checkout: the project these tests check.
PROJECT_ROOT = Path(__file__).resolve().parents[1]

R15_FOLDER = PROJECT_ROOT / TUTORIALS_DIR_NAME / "r-15-confirmation-and-human-handoff"


def test_a_check_belongs_to_the_tutorial_whose_folder_holds_it(tmp_path: Path) -> None:
    (tmp_path / TUTORIALS_DIR_NAME).mkdir()
    check = R15_FOLDER / "checks" / "test_handoff.py"

    # The root is another folder (the mutation runner's copy): the folder name decides.
    assert default_tutorial_name(check, tmp_path) == R15_FOLDER.name


def test_a_test_elsewhere_gets_the_only_tutorial_under_the_root(tmp_path: Path) -> None:
    assert [t.id for t in list_tutorials(PROJECT_ROOT)] == [R15_FOLDER.name]

    assert default_tutorial_name(tmp_path / "test_x.py", PROJECT_ROOT) == R15_FOLDER.name


def test_two_tutorials_and_a_test_in_neither_is_an_error(tmp_path: Path) -> None:
    tutorials = tmp_path / TUTORIALS_DIR_NAME
    for name in ("first", "second"):
        folder = tutorials / name
        folder.mkdir(parents=True)
        text = (R15_FOLDER / "tutorial.json").read_text(encoding="utf-8")
        text = text.replace(f'"{R15_FOLDER.name}"', f'"{name}"').replace('"r-15"', f'"{name}"')
        (folder / "tutorial.json").write_text(text, encoding="utf-8")

    with pytest.raises(pytest.UsageError, match=r"holds 2 tutorials \(first, second\); say "
                                                r"which with --pling-tutorial"):
        default_tutorial_name(tmp_path / "test_x.py", tmp_path)

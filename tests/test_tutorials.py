"""Tutorial definitions: loading by id or short id, and loader errors that name file and field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pling_harness.project.tutorials import Tutorial, TutorialError, list_tutorials, load_tutorial

# The harness's own checkout: the project these tests check.
PROJECT_ROOT = Path(__file__).resolve().parents[1]

R15_ID = "r-15-confirmation-and-human-handoff"
R15_DEFINITION = json.loads(
    (PROJECT_ROOT / "tutorials" / R15_ID / "tutorial.json").read_text(encoding="utf-8")
)


def write_tutorial(root: Path, folder: str, data: Any) -> Path:
    path = root / "tutorials" / folder / "tutorial.json"
    path.parent.mkdir(parents=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


@pytest.mark.parametrize("name", [R15_ID, "r-15"])
def test_load_tutorial_by_id_or_short_id_finds_r15(name: str) -> None:
    tutorial = load_tutorial(name)

    assert tutorial.id == R15_ID
    assert tutorial.short_id == "r-15"
    assert tutorial.fixture == R15_ID
    assert tutorial.port == 5255
    assert tutorial.locales == ("zh", "en")
    assert tutorial.default_locale == "zh"
    assert tutorial.title["en"] and tutorial.title["zh"]


def test_tutorial_paths_point_into_the_project_folders() -> None:
    tutorial = load_tutorial("r-15")

    assert tutorial.directory(PROJECT_ROOT) == PROJECT_ROOT / "tutorials" / R15_ID
    assert tutorial.fixture_directory(PROJECT_ROOT) == PROJECT_ROOT / "fixtures" / R15_ID
    assert tutorial.copy_directory(PROJECT_ROOT) == PROJECT_ROOT / "tutorials" / R15_ID / "copy"
    assert tutorial.model_rules_path(PROJECT_ROOT).name == "model-rules.json"
    assert tutorial.page_url("http://127.0.0.1:5255") == "http://127.0.0.1:5255/?lang=zh"
    assert tutorial.page_url("http://127.0.0.1:5255/", "en") == "http://127.0.0.1:5255/?lang=en"


def test_list_tutorials_in_project_includes_r15() -> None:
    assert "r-15" in [tutorial.short_id for tutorial in list_tutorials()]


def test_load_tutorial_unknown_name_raises_with_the_fix() -> None:
    with pytest.raises(TutorialError, match=r"no tutorial 'r-99'.*pling-tutorial list"):
        load_tutorial("r-99")


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"port": "five"}, "port"),
        ({"port": 70000}, "port"),
        ({"locales": []}, "locales"),
        ({"title": {"zh": "标题"}}, "title has locales ['zh']"),
        ({"title": {"zh": "标题", "en": " "}}, "title.en"),
        ({"fixture": "../../etc"}, "fixture"),
        ({"debug": True}, "debug"),
        ({"default_locale": "fr"}, "default_locale"),
        ({"locales": ["en", "fr"], "default_locale": "en"}, "title has locales ['en', 'zh']"),
        ({"locales": ["en", "french"], "default_locale": "en"}, "locales.1"),
        ({"user_requests": {"archive": {"en": "archive it"}}}, "user_requests.archive"),
        ({"user_requests": {"archive": {"en": "archive it", "zh": " "}}}, "user_requests"),
        ({"user_requests": {"archive": {"en": "a", "zh": "b", "fr": "c"}}}, "user_requests"),
        ({"user_requests": {"Archive it": {"en": "a", "zh": "b"}}}, "user_requests"),
    ],
)
def test_load_tutorial_invalid_field_raises_naming_file_and_field(
    tmp_path: Path, change: dict[str, Any], field: str
) -> None:
    path = write_tutorial(tmp_path, R15_ID, {**R15_DEFINITION, **change})

    with pytest.raises(TutorialError) as caught:
        load_tutorial("r-15", tmp_path)

    assert str(path) in str(caught.value)
    assert field in str(caught.value)


def test_load_tutorial_not_json_raises_with_line(tmp_path: Path) -> None:
    path = write_tutorial(tmp_path, R15_ID, '{"id": ')

    with pytest.raises(TutorialError, match=r"not valid JSON \(line 1") as caught:
        load_tutorial("r-15", tmp_path)

    assert str(path) in str(caught.value)


def test_load_tutorial_folder_not_matching_id_raises(tmp_path: Path) -> None:
    write_tutorial(tmp_path, "r-15-renamed", R15_DEFINITION)

    with pytest.raises(TutorialError, match=r"field id: .* does not match its folder"):
        load_tutorial("r-15", tmp_path)


def test_list_tutorials_duplicate_short_id_raises(tmp_path: Path) -> None:
    write_tutorial(tmp_path, R15_ID, R15_DEFINITION)
    write_tutorial(tmp_path, "r-16-other", {**R15_DEFINITION, "id": "r-16-other"})

    with pytest.raises(TutorialError, match=r"both use the name 'r-15'"):
        list_tutorials(tmp_path)


def test_tutorial_model_extra_field_is_refused() -> None:
    with pytest.raises(ValueError, match="Extra inputs are not permitted"):
        Tutorial.model_validate({**R15_DEFINITION, "extra": 1})


def test_user_request_is_the_tutorials_words_in_the_locale() -> None:
    tutorial = load_tutorial("r-15")

    assert tutorial.user_request("archive", "en") == "archive the workspace"
    assert tutorial.user_request("archive", "zh") == "归档工作区"


def test_user_request_unknown_name_raises_listing_the_known_ones() -> None:
    with pytest.raises(TutorialError, match=r"no user request 'archiv' \(known: archive, go_ahead, "
                                            r"pin_step, publish, purge, rename_to, "
                                            r"rename_to_blank, reset, run_action, save, status, "
                                            r"tune_widget\); add it"):
        load_tutorial("r-15").user_request("archiv", "en")

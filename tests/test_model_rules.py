"""model-rules.json: the real file loads, and every loader error names the file and the field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pling_harness.project.tutorials import load_tutorial
from pling_harness.server.model.rules import RulesError, load_rules

# The harness's own checkout: the project these tests check.
PROJECT_ROOT = Path(__file__).resolve().parents[1]

RULES_PATH = load_tutorial("r-15", PROJECT_ROOT).model_rules_path(PROJECT_ROOT)
RULES: dict[str, Any] = json.loads(RULES_PATH.read_text(encoding="utf-8"))


def write_rules(tmp_path: Path, data: Any) -> Path:
    path = tmp_path / "model-rules.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def with_first_intent(**change: Any) -> dict[str, Any]:
    return {**RULES, "intents": [{**RULES["intents"][0], **change}, *RULES["intents"][1:]]}


def test_load_rules_r15_file_has_an_intent_for_every_r15_action() -> None:
    rules = load_rules(RULES_PATH)

    assert {intent.tool for intent in rules.intents} == {
        "get_workspace", "save_workspace_name", "archive_workspace", "reset_workspace",
        "publish_changes"}
    assert set(rules.replies) == {intent.tool for intent in rules.intents}


@pytest.mark.parametrize(
    ("data", "field", "reason"),
    [
        (with_first_intent(patterns=["(unclosed"]), "intents.0.patterns", "not a valid regex"),
        (with_first_intent(patterns=[]), "intents.0.patterns", "at least 1"),
        (with_first_intent(patterns=["rename to (?P<title>.+)"]), "intents.0",
         "no named group for ['name']"),
        (with_first_intent(retry_on_failure=True), "intents.0.retry_on_failure",
         "Extra inputs are not permitted"),
        ({**RULES, "claim_success_on_failure": True}, "claim_success_on_failure",
         "Extra inputs are not permitted"),
        ({**RULES, "other_failure": {"en": "Sorry.", "zh": "抱歉。"}}, "other_failure",
         "must contain {code}"),
        ({k: v for k, v in RULES.items() if k != "unknown_request"}, "unknown_request",
         "Field required"),
        ({**RULES, "done": {}}, "done", "at least 1"),
        ({**RULES, "done": {"en": ""}}, "done.en", "at least 1 character"),
        ({**RULES, "done": {"english": "Done."}}, "done.english", "should match pattern"),
    ],
)
def test_load_rules_invalid_file_raises_naming_file_and_field(
    tmp_path: Path, data: Any, field: str, reason: str
) -> None:
    path = write_rules(tmp_path, data)

    with pytest.raises(RulesError) as caught:
        load_rules(path)

    message = str(caught.value)
    assert message.startswith(str(path))
    assert f"field {field}" in message
    assert reason in message


def test_load_rules_for_locales_a_text_does_not_speak_names_the_text_and_locale(
    tmp_path: Path,
) -> None:
    path = write_rules(tmp_path, {**RULES, "done": {"en": "Done.", "zh": "已完成。"}})

    with pytest.raises(RulesError) as caught:
        load_rules(path, locales=["en", "zh", "ja"])

    message = str(caught.value)
    assert message.startswith(str(path))
    assert "done: no ja" in message
    assert "every locale of the tutorial" in message


def test_load_rules_not_json_raises_with_position(tmp_path: Path) -> None:
    path = write_rules(tmp_path, '{"intents": [')

    with pytest.raises(RulesError, match=r"model-rules.json: not valid JSON \(line 1"):
        load_rules(path)


def test_load_rules_missing_file_raises_naming_it(tmp_path: Path) -> None:
    with pytest.raises(RulesError, match=r"missing.json: cannot be read"):
        load_rules(tmp_path / "missing.json")

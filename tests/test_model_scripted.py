"""The scripted model: zh/en intents, result replies that never claim a failed action, overrides."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pling_harness.project.tutorials import load_tutorial
from pling_harness.server.model.provider import ProviderBadReply, ProviderTimeout
from pling_harness.server.model.scripted import ScriptedModel, clean_capture
from pling_harness.server.model.wire import AssistantMessage, ModelRequest, ToolCall

# The harness's own checkout: the project these tests check.
PROJECT_ROOT = Path(__file__).resolve().parents[1]

R15_TOOLS = ("get_workspace", "save_workspace_name", "archive_workspace",
             "reset_workspace", "publish_changes")
WORKSPACE = {"name": "Northwind", "archived": False, "published": False}
FAILURE_CODES = ("PERMISSION_DENIED", "HANDOFF_CANCELLED", "HANDOFF_TIMEOUT", "HANDOFF_FAILED",
                 "RUN_FAILED", "UNKNOWN_ACTION", "INVALID_PARAMS", "OUT_OF_SCOPE", "UNAVAILABLE",
                 "HANDOFF_BUSY", "LOOP_LIMIT")
SUCCESS_WORDS = ("Done", "已完成", "is now", "已改为", "已归档", "已发布", "已重置")


@pytest.fixture
def model() -> ScriptedModel:
    rules = load_tutorial("r-15", PROJECT_ROOT).model_rules_path(PROJECT_ROOT)
    return ScriptedModel.from_file(rules)


def tools(names: tuple[str, ...] = R15_TOOLS) -> list[dict[str, Any]]:
    return [{"type": "function", "function": {"name": name, "parameters": {"type": "object"}}}
            for name in names]


def ask(model: ScriptedModel, text: str, *, locale: str | None = None,
        offered: tuple[str, ...] = R15_TOOLS) -> AssistantMessage:
    request = ModelRequest.model_validate({
        "messages": [{"role": "user", "content": text}], "tools": tools(offered),
        "locale": locale})
    return model.respond(request).choices[0].message


def after_results(
    model: ScriptedModel,
    calls: list[tuple[str, str]],
    results: list[dict[str, Any] | str],
    *,
    text: str = "please do it",
    locale: str | None = None,
) -> AssistantMessage:
    """The model's reply once the page answered `calls` (name, arguments) with `results`."""
    tool_calls = [{"id": f"call_{i}", "type": "function",
                   "function": {"name": name, "arguments": arguments}}
                  for i, (name, arguments) in enumerate(calls, start=1)]
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": text},
        {"role": "assistant", "content": None, "tool_calls": tool_calls},
    ]
    messages += [{"role": "tool", "tool_call_id": f"call_{i}",
                  "content": result if isinstance(result, str) else json.dumps(result)}
                 for i, result in enumerate(results, start=1)]
    request = ModelRequest.model_validate(
        {"messages": messages, "tools": tools(), "locale": locale})
    return model.respond(request).choices[0].message


def only_call(message: AssistantMessage) -> ToolCall:
    assert message.content is None
    assert message.tool_calls is not None and len(message.tool_calls) == 1
    return message.tool_calls[0]


def failure(code: str) -> dict[str, Any]:
    return {"ok": False, "code": code, "message": "localised text from the page"}


@pytest.mark.parametrize(
    ("text", "tool", "arguments"),
    [
        ("把工作区名称改为 Acme", "save_workspace_name", {"name": "Acme"}),
        ("将名称改成 Acme", "save_workspace_name", {"name": "Acme"}),
        ("把工作区名称改为「北风科技」。", "save_workspace_name", {"name": "北风科技"}),
        ("rename the workspace to Acme", "save_workspace_name", {"name": "Acme"}),
        ('change the workspace name to "Acme Labs"', "save_workspace_name",
         {"name": "Acme Labs"}),
        ("Please save the name Acme.", "save_workspace_name", {"name": "Acme"}),
        ("Rename the workspace to “Archive”", "save_workspace_name", {"name": "Archive"}),
        ("archive the workspace", "archive_workspace", {}),
        ("归档工作区", "archive_workspace", {}),
        ("reset the workspace", "reset_workspace", {}),
        ("重置工作区", "reset_workspace", {}),
        ("publish the changes", "publish_changes", {}),
        ("publish", "publish_changes", {}),
        ("发布更改", "publish_changes", {}),
        ("发布", "publish_changes", {}),
        ("what is the workspace status?", "get_workspace", {}),
        ("show the workspace", "get_workspace", {}),
        ("工作区现在是什么状态", "get_workspace", {}),
        ("查看工作区", "get_workspace", {}),
    ],
)
def test_scripted_user_intent_calls_the_tool_with_arguments(
    model: ScriptedModel, text: str, tool: str, arguments: dict[str, str]
) -> None:
    call = only_call(ask(model, text))

    assert call.function.name == tool
    assert json.loads(call.function.arguments) == arguments


@pytest.mark.parametrize(("text", "locale", "expected"), [
    ("tell me a joke", None, "rename it"),
    ("讲个笑话", None, "归档"),
    ("tell me a joke", "zh", "归档"),
    ("tell me a joke", "zh-CN", "归档"),
])
def test_scripted_unknown_request_answers_help_in_conversation_language(
    model: ScriptedModel, text: str, locale: str | None, expected: str
) -> None:
    message = ask(model, text, locale=locale)

    assert message.tool_calls is None
    assert message.content is not None and expected in message.content


def test_scripted_intent_for_tool_not_offered_answers_help_instead(model: ScriptedModel) -> None:
    message = ask(model, "archive the workspace", offered=("get_workspace",))

    assert message.tool_calls is None
    assert message.content is not None and "rename it" in message.content


def test_scripted_tool_call_ids_count_up_per_model_and_restart_on_reset(
    model: ScriptedModel,
) -> None:
    ids = [only_call(ask(model, "archive the workspace")).id for _ in range(3)]
    other = ScriptedModel(model.rules)
    model.reset()

    assert ids == ["call_1", "call_2", "call_3"]
    assert only_call(ask(other, "publish")).id == "call_1"
    assert only_call(ask(model, "publish")).id == "call_1"


def test_scripted_model_records_every_request_as_pydantic_objects(model: ScriptedModel) -> None:
    ask(model, "归档工作区", locale="zh")
    ask(model, "hello", offered=("get_workspace",))

    first, second = model.requests
    assert isinstance(first, ModelRequest)
    assert first.messages[0].content == "归档工作区"
    assert first.locale == "zh"
    assert first.tool_names() == list(R15_TOOLS)
    assert second.tool_names() == ["get_workspace"]
    assert second.locale is None


@pytest.mark.parametrize(
    ("tool", "arguments", "data", "locale", "expected"),
    [
        ("save_workspace_name", '{"name": "Acme"}', {**WORKSPACE, "name": "Acme"}, "en",
         "Done — the workspace is now named “Acme”."),
        ("save_workspace_name", '{"name": "Acme"}', {**WORKSPACE, "name": "Acme"}, "zh",
         "已完成：工作区名称已改为“Acme”。"),
        ("archive_workspace", "{}", {**WORKSPACE, "archived": True}, "en",
         "Done — the workspace is archived."),
        ("reset_workspace", "{}", WORKSPACE, "en",
         "Done — the workspace is reset; its name is “Northwind” again."),
        ("publish_changes", "{}", None, "zh", "已完成：更改已发布。"),
        ("get_workspace", "{}", WORKSPACE, "en",
         "The workspace “Northwind” is active and not published yet (draft)."),
        ("get_workspace", "{}", {**WORKSPACE, "archived": True, "published": True}, "zh",
         "工作区“Northwind”目前已归档，已发布。"),
    ],
)
def test_scripted_success_result_answers_done_with_specifics(
    model: ScriptedModel, tool: str, arguments: str, data: Any, locale: str, expected: str
) -> None:
    envelope = {"ok": True, "receipt": {"published": True}} if data is None else \
        {"ok": True, "data": data}

    message = after_results(model, [(tool, arguments)], [envelope], locale=locale)

    assert message.tool_calls is None
    assert message.content == expected


def test_scripted_success_prefers_server_data_over_call_arguments(model: ScriptedModel) -> None:
    message = after_results(model, [("save_workspace_name", '{"name": "  Acme  "}')],
                            [{"ok": True, "data": {"workspace": {**WORKSPACE, "name": "Acme"}}}])

    assert message.content == "Done — the workspace is now named “Acme”."


@pytest.mark.parametrize(
    ("tool", "code", "locale", "expected"),
    [
        ("archive_workspace", "PERMISSION_DENIED", "en", "not permitted, so nothing was archived"),
        ("archive_workspace", "PERMISSION_DENIED", "zh", "未获允许，因此没有归档"),
        ("save_workspace_name", "PERMISSION_DENIED", "en", "nothing was saved"),
        ("save_workspace_name", "PERMISSION_DENIED", "zh", "没有保存"),
        ("reset_workspace", "PERMISSION_DENIED", "en", "nothing was reset"),
        ("reset_workspace", "PERMISSION_DENIED", "zh", "没有重置"),
        ("publish_changes", "PERMISSION_DENIED", "en", "nothing was published"),
        ("publish_changes", "HANDOFF_CANCELLED", "en",
         "The step was not completed, so nothing changed. What would you like to do next?"),
        ("publish_changes", "HANDOFF_CANCELLED", "zh", "该步骤没有完成"),
        ("publish_changes", "HANDOFF_TIMEOUT", "en", "not completed in time"),
        ("publish_changes", "HANDOFF_TIMEOUT", "zh", "没有在时限内完成"),
        ("publish_changes", "HANDOFF_FAILED", "en", "not published yet"),
        ("publish_changes", "HANDOFF_FAILED", "zh", "尚未发布"),
        ("save_workspace_name", "RUN_FAILED", "en", "It failed, and nothing changed."),
        ("archive_workspace", "RUN_FAILED", "zh", "操作失败，没有任何更改。"),
        ("archive_workspace", "UNKNOWN_ACTION", "en", "does not offer that action"),
        ("save_workspace_name", "INVALID_PARAMS", "zh", "请求参数有误"),
        ("archive_workspace", "UNAVAILABLE", "en", "not available right now"),
        ("archive_workspace", "LOOP_LIMIT", "zh", "步骤太多"),
        ("archive_workspace", "NEW_CODE_NOBODY_KNOWS", "en",
         "I could not do that (NEW_CODE_NOBODY_KNOWS)."),
    ],
)
def test_scripted_failure_result_answers_what_happened(
    model: ScriptedModel, tool: str, code: str, locale: str, expected: str
) -> None:
    message = after_results(model, [(tool, "{}")], [failure(code)], locale=locale)

    assert message.tool_calls is None
    assert message.content is not None and expected in message.content


@pytest.mark.parametrize("locale", ["zh", "en"])
@pytest.mark.parametrize("code", FAILURE_CODES)
@pytest.mark.parametrize("tool", [*R15_TOOLS, "testbed_action"])
def test_scripted_failure_result_never_claims_success_nor_retries(
    model: ScriptedModel, tool: str, code: str, locale: str
) -> None:
    message = after_results(model, [(tool, '{"name": "Acme"}')], [failure(code)], locale=locale,
                            text="rename the workspace to Acme")

    assert message.tool_calls is None
    assert message.content
    assert not any(word in message.content for word in SUCCESS_WORDS)


@pytest.mark.parametrize(
    "result",
    ["not json", "[true]", {"ok": "true", "data": WORKSPACE}, {"ok": 1}, {"data": WORKSPACE},
     {"ok": False}],
)
def test_scripted_unreadable_result_is_reported_as_a_failure(
    model: ScriptedModel, result: dict[str, Any] | str
) -> None:
    message = after_results(model, [("archive_workspace", "{}")], [result], locale="en")

    assert message.tool_calls is None
    assert message.content is not None and message.content.startswith("I could not do that (")


def test_scripted_result_locale_detected_from_last_user_message(model: ScriptedModel) -> None:
    message = after_results(model, [("archive_workspace", "{}")], [failure("PERMISSION_DENIED")],
                            text="归档工作区", locale=None)

    assert message.content == "未获允许，因此没有归档任何内容。"


def test_scripted_request_locale_wins_over_detected_language(model: ScriptedModel) -> None:
    message = after_results(model, [("archive_workspace", "{}")], [failure("PERMISSION_DENIED")],
                            text="归档工作区", locale="en")

    assert message.content == "That was not permitted, so nothing was archived."


def test_scripted_several_results_in_one_turn_are_each_reported_in_order(
    model: ScriptedModel,
) -> None:
    message = after_results(
        model,
        [("save_workspace_name", '{"name": "Acme"}'), ("archive_workspace", "{}")],
        [{"ok": True, "data": {**WORKSPACE, "name": "Acme"}}, failure("PERMISSION_DENIED")],
        locale="en",
    )

    assert message.content == ("Done — the workspace is now named “Acme”.\n"
                               "That was not permitted, so nothing was archived.")


def test_scripted_result_for_unknown_tool_success_says_done_only(model: ScriptedModel) -> None:
    message = after_results(model, [("testbed_action", "{}")], [{"ok": True, "data": None}],
                            locale="en")

    assert message.content == "Done."


# --- per-test overrides ---------------------------------------------------------------


def test_script_replies_are_returned_verbatim_in_order_then_rules_resume(
    model: ScriptedModel,
) -> None:
    hostile = {"role": "assistant", "content": None, "tool_calls": [
        {"id": "x", "type": "function",
         "function": {"name": "publish_changes", "arguments": '{"code": "246810"'}}]}
    model.script(hostile, {"role": "assistant", "content": "second"})

    first = ask(model, "hello")
    second = ask(model, "archive the workspace")
    third = ask(model, "archive the workspace")

    assert first.to_wire() == hostile
    assert second.to_wire() == {"role": "assistant", "content": "second"}
    assert only_call(third).function.name == "archive_workspace"
    assert len(model.requests) == 3


def test_script_reply_that_is_not_an_assistant_message_raises_bad_reply(
    model: ScriptedModel,
) -> None:
    model.script({"role": "assistant", "tool_calls": [{"id": "x"}]})

    with pytest.raises(ProviderBadReply, match="not an assistant message"):
        ask(model, "hello")


def test_script_provider_error_is_raised_for_that_request(model: ScriptedModel) -> None:
    model.script(ProviderTimeout("scripted timeout"))

    with pytest.raises(ProviderTimeout):
        ask(model, "hello")
    assert ask(model, "hello").content


def test_when_user_rule_is_tried_before_the_files_rules(model: ScriptedModel) -> None:
    model.when_user(r"archive", "reset_workspace")

    call = only_call(ask(model, "archive the workspace"))

    assert call.function.name == "reset_workspace"
    assert call.function.arguments == "{}"


def test_when_user_rule_fills_named_groups_and_ignores_the_projection(
    model: ScriptedModel,
) -> None:
    model.when_user(r"wipe (?P<target>\S+) now", "wipe_disk", {"target": "{target}", "force": True})

    call = only_call(ask(model, "please wipe '/data' now", offered=()))

    assert call.function.name == "wipe_disk"
    assert json.loads(call.function.arguments) == {"target": "/data", "force": True}


def test_when_user_rule_raw_string_arguments_are_sent_as_given(model: ScriptedModel) -> None:
    model.when_user("publish", "publish_changes", '{"code": "246810"}')

    assert only_call(ask(model, "publish")).function.arguments == '{"code": "246810"}'


def test_reset_overrides_forgets_script_and_when_user_rules(model: ScriptedModel) -> None:
    model.script({"role": "assistant", "content": "scripted"})
    model.when_user("archive", "reset_workspace")

    model.reset_overrides()

    assert only_call(ask(model, "archive the workspace")).function.name == "archive_workspace"


@pytest.mark.parametrize(("raw", "clean"), [
    ("  Acme  ", "Acme"), ('"Acme Labs".', "Acme Labs"), ("“Acme”", "Acme"),
    ("「北风」。", "北风"), ("'Acme'!", "Acme"), ('"Acme', '"Acme'),
])
def test_clean_capture_strips_spaces_punctuation_and_one_pair_of_quotes(
    raw: str, clean: str
) -> None:
    assert clean_capture(raw) == clean


def test_scripted_model_speaks_every_locale_its_rules_give(tmp_path: Path) -> None:
    def said(en: str, ja: str) -> dict[str, str]:
        return {"en": en, "ja": ja}

    rules = tmp_path / "model-rules.json"
    rules.write_text(json.dumps({
        "intents": [{"tool": "get_workspace", "patterns": ["status", "状態"]}],
        "replies": {}, "done": said("Done.", "完了しました。"),
        "other_failure": said("Failed ({code}).", "失敗しました（{code}）。"),
        "unknown_request": said("I can show the status.", "状態を表示できます。")}),
        encoding="utf-8")
    model = ScriptedModel.from_file(rules, locales=["en", "ja"])

    asked_in_ja = ask(model, "tell me a joke", locale="ja")
    written_in_kana = ask(model, "冗談を言ってください", locale=None)
    asked_in_french = ask(model, "une blague", locale="fr")

    assert asked_in_ja.content == "状態を表示できます。"
    assert written_in_kana.content == "状態を表示できます。"
    assert asked_in_french.content == "I can show the status."  # the rules' first locale

"""How the scripted model reads a tool result a framework sent on OpenAI's wire: one row of
`framework_results`' table per case, and what the model then says."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pling_harness.project.business_state import declared_state_model
from pling_harness.server.log import ServerLog
from pling_harness.server.model.framework_results import (
    agui_tool_result,
    as_envelope,
    read_result,
    ui_messages_carry_output,
)

INVALID_INPUT = ('Invalid input for tool save_workspace_name: Type validation failed: '
                 'Value: {"name":""}.\nError message: [{"code": "too_small", "path": ["name"]}]')
NO_SUCH_TOOL = ("Model tried to call unavailable tool 'save_workspace'. Available tools: "
                "get_workspace, save_workspace_name.")


@pytest.mark.parametrize(("text", "envelope"), [
    ('{"ok": true, "data": {"archived": true}}', {"ok": True, "data": {"archived": True}}),
    ('{"ok": false, "code": "PERMISSION_DENIED", "message": "no"}',
     {"ok": False, "code": "PERMISSION_DENIED", "message": "no"}),
    ("Tool call execution denied.",
     {"ok": False, "code": "PERMISSION_DENIED", "message": "Tool call execution denied."}),
    ("Tool execution denied.",
     {"ok": False, "code": "PERMISSION_DENIED", "message": "Tool execution denied."}),
    ("HANDOFF_CANCELLED: You cancelled publishing.",
     {"ok": False, "code": "HANDOFF_CANCELLED", "message": "You cancelled publishing."}),
    ('{"name": "Acme", "archived": false}',
     {"ok": True, "data": {"name": "Acme", "archived": False}}),
    ("[1, 2]", {"ok": True, "data": [1, 2]}),
    # The AI SDK's InvalidToolInputError and NoSuchToolError, as ai 7.0.173 words them.
    (INVALID_INPUT, {"ok": False, "code": "INVALID_PARAMS", "message": INVALID_INPUT}),
    (NO_SUCH_TOOL, {"ok": False, "code": "UNKNOWN_ACTION", "message": NO_SUCH_TOOL}),
    # The same words not at the start are some other failure's.
    (f"Oops. {INVALID_INPUT}", {"ok": False, "code": "RUN_FAILED",
                                "message": f"Oops. {INVALID_INPUT}"}),
    (f"AI_InvalidToolInputError: {INVALID_INPUT}",
     {"ok": False, "code": "INVALID_PARAMS",
      "message": f"AI_InvalidToolInputError: {INVALID_INPUT}"}),
    (f"AI_NoSuchToolError: {NO_SUCH_TOOL}",
     {"ok": False, "code": "UNKNOWN_ACTION", "message": f"AI_NoSuchToolError: {NO_SUCH_TOOL}"}),
    # CopilotKit's own answer to arguments that are not a JSON object (@copilotkit/core
    # 1.74.0): whitespace and cut JSON, text, an array; a handler's own Error is a failure.
    ("Error: Unexpected end of JSON input",
     {"ok": False, "code": "INVALID_PARAMS", "message": "Error: Unexpected end of JSON input"}),
    ("Error: Expected property name or '}' in JSON at position 1",
     {"ok": False, "code": "INVALID_PARAMS",
      "message": "Error: Expected property name or '}' in JSON at position 1"}),
    ('Error: Unexpected token \'o\', "oops" is not valid JSON',
     {"ok": False, "code": "INVALID_PARAMS",
      "message": 'Error: Unexpected token \'o\', "oops" is not valid JSON'}),
    ("Error: Tool arguments for save_workspace_name parsed to non-object (object)",
     {"ok": False, "code": "INVALID_PARAMS",
      "message": "Error: Tool arguments for save_workspace_name parsed to non-object (object)"}),
    ("Error: the business API answered 503",
     {"ok": False, "code": "RUN_FAILED", "message": "Error: the business API answered 503"}),
    # A one-word code (a denial's reason), never a two-letter word.
    ("UNAVAILABLE: Archive is not available now.",
     {"ok": False, "code": "UNAVAILABLE", "message": "Archive is not available now."}),
    ("The workspace name must be 1 to 80 characters.",
     {"ok": False, "code": "RUN_FAILED",
      "message": "The workspace name must be 1 to 80 characters."}),
    ("User denied it.", {"ok": False, "code": "RUN_FAILED", "message": "User denied it."}),
    ("Done", {"ok": False, "code": "RUN_FAILED", "message": "Done"}),
    ("OK: done", {"ok": False, "code": "RUN_FAILED", "message": "OK: done"}),
])
def test_framework_result_reads_as_its_envelope(text: str, envelope: dict[str, Any]) -> None:
    assert read_result(text) == envelope


def test_framework_result_that_is_an_envelope_passes_unchanged() -> None:
    text = '{"ok":true,"data":{"x":1}}'
    assert as_envelope(text) == text
    assert json.loads(as_envelope("Tool call execution denied."))["code"] == "PERMISSION_DENIED"


def ui_chat(*parts: dict[str, Any]) -> str:
    return json.dumps({"id": "chat", "messages": [
        {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "publish"}]},
        {"id": "a1", "role": "assistant", "parts": list(parts)}]})


@pytest.mark.parametrize(("body", "carries"), [
    (ui_chat({"type": "tool-publish_changes", "toolCallId": "call_2",
              "state": "output-available", "output": {"ok": True}}), True),
    (ui_chat({"type": "tool-publish_changes", "toolCallId": "call_2",
              "state": "output-error", "errorText": "HANDOFF_CANCELLED: no"}), False),
    (ui_chat({"type": "tool-publish_changes", "toolCallId": "call_2",
              "state": "input-available"}), False),
    (ui_chat({"type": "tool-publish_changes", "toolCallId": "call_9",
              "state": "output-available", "output": {"ok": True}}), False),
    ("not json", False), ('{"messages": "no"}', False), (None, False),
])
def test_ui_messages_carry_output_only_of_that_call_with_an_output(body: str | None,
                                                                   carries: bool) -> None:
    assert ui_messages_carry_output(body, "call_2") is carries


def agui_run(*messages: dict[str, Any], single: bool = False) -> str:
    """A run request as CopilotKit's client sends it to its AG-UI runtime."""
    run = {"threadId": "t1", "runId": "r2", "state": {}, "tools": [], "context": [],
           "forwardedProps": {}, "messages": [
               {"id": "u1", "role": "user", "content": "archive"},
               {"id": "a1", "role": "assistant", "toolCalls": [
                   {"id": "call_2", "type": "function",
                    "function": {"name": "archive_workspace", "arguments": "{}"}}]},
               *messages]}
    return json.dumps({"method": "agent/run", "params": {"agentId": "default"}, "body": run}
                      if single else run)


@pytest.mark.parametrize(("body", "ok"), [
    (agui_run({"id": "t", "role": "tool", "toolCallId": "call_2",
               "content": '{"ok":true,"data":{"archived":true}}'}), True),
    (agui_run({"id": "t", "role": "tool", "toolCallId": "call_2",
               "content": '{"ok":true}'}, single=True), True),
    (agui_run({"id": "t", "role": "tool", "toolCallId": "call_2",
               "content": '{"ok":false,"code":"PERMISSION_DENIED","message":"no"}'}), False),
    (agui_run({"id": "t", "role": "tool", "toolCallId": "call_2",
               "content": "Error: Unexpected end of JSON input"}), False),
    (agui_run({"id": "t", "role": "tool", "toolCallId": "call_9", "content": '{"ok":true}'}),
     None),
    (agui_run(), None), ("not json", None), ('{"messages": "no"}', None), (None, None),
])
def test_an_agui_run_request_carries_the_result_of_that_call_only(body: str | None,
                                                                   ok: bool | None) -> None:
    result = agui_tool_result(body, "call_2")
    assert (None if result is None else result["ok"]) is ok


@pytest.mark.parametrize(("response", "code"), [
    ({"ok": False, "code": "MODEL_BAD_REPLY", "message": "unusable"}, "MODEL_BAD_REPLY"),
    ({"error": {"message": "unusable", "type": "server_error", "param": None,
                "code": "model_bad_reply"}}, "MODEL_BAD_REPLY"),
    ({"error": {"message": "no code"}}, None),
    (None, None),
])
def test_a_refused_model_request_reads_its_code_on_either_wire(
    response: dict[str, Any] | None, code: str | None,
) -> None:
    # The gateway answers the page `{ok, code}`; the OpenAI wire answers a framework's server
    # OpenAI's error object, naming the code in lower case.
    state = declared_state_model({"name": "x"})(name="x")
    record = ServerLog().append(kind="model.error", method="POST", path="/v1/chat/completions",
                                state=state, status=502, response=response)
    assert record.error_code == code

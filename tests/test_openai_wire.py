"""The scripted model on OpenAI's wire (`POST /v1/chat/completions`): what it accepts, how it
answers streamed and not, how it refuses, and what a check reads of what it received."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from pling_harness.server.model.handle import ModelHandle
from pling_harness.server.model.provider import ProviderUnavailable
from pling_harness.server.model.scripted import ScriptedModel
from pling_harness.server.runner import TutorialServer

PATH = "/v1/chat/completions"
ARCHIVE = {"type": "function", "function": {
    "name": "archive_workspace", "description": "Archive the workspace",
    "parameters": {"type": "object", "properties": {}, "additionalProperties": False},
    "strict": True}}
RENAME = {"type": "function", "function": {
    "name": "save_workspace_name", "description": "Rename the workspace",
    "parameters": {"type": "object", "properties": {"name": {"type": "string"}},
                   "required": ["name"], "additionalProperties": False}}}


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def called(call_id: str, name: str, arguments: str = "{}") -> dict[str, Any]:
    return {"role": "assistant", "content": None, "tool_calls": [
        {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}]}


def answered(call_id: str, content: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": content}


def chat(*messages: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {"model": "pling-scripted", "messages": list(messages), "tools": [ARCHIVE, RENAME],
            **fields}


def events(response: httpx.Response) -> list[Any]:
    """The server-sent events of a streamed answer, `[DONE]` as the string."""
    found = []
    for block in response.text.split("\n\n"):
        if block:
            assert block.startswith("data: "), block
            data = block.removeprefix("data: ")
            found.append(data if data == "[DONE]" else json.loads(data))
    return found


def reassembled(chunks: list[dict[str, Any]]) -> tuple[str, list[dict[str, str]], str | None]:
    """What a client rebuilds from the chunks: the text, the tool calls, the finish reason."""
    text, calls, finish = "", [], None
    for chunk in chunks:
        for choice in chunk["choices"]:
            delta = choice["delta"]
            text += delta.get("content") or ""
            for part in delta.get("tool_calls") or []:
                if "id" in part:
                    calls.append({"id": part["id"], "name": part["function"]["name"],
                                  "arguments": ""})
                calls[part["index"]]["arguments"] += part["function"].get("arguments", "")
            finish = choice["finish_reason"] or finish
    return text, calls, finish


@pytest.fixture
def model(server: TutorialServer) -> ModelHandle:
    assert isinstance(server.provider, ScriptedModel)
    return ModelHandle(server.provider)


# ---- answers ---------------------------------------------------------------------------

def test_wire_user_intent_answers_a_chat_completion_with_the_tool_call(
        client: httpx.Client) -> None:
    response = client.post(PATH, json=chat(user("rename the workspace to Acme")))

    assert response.status_code == 200
    body = response.json()
    assert (body["object"], body["model"]) == ("chat.completion", "pling-scripted")
    assert body["choices"] == [{"index": 0, "logprobs": None, "finish_reason": "tool_calls",
                                "message": {"role": "assistant", "content": None,
                                            "refusal": None, "tool_calls": [
                                    {"id": "call_1", "type": "function", "function": {
                                        "name": "save_workspace_name",
                                        "arguments": '{"name": "Acme"}'}}]}}]
    assert body["usage"] == {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
    assert response.headers["cache-control"] == "no-store"


def test_wire_streamed_answer_reassembles_to_the_same_tool_call(client: httpx.Client) -> None:
    response = client.post(PATH, json=chat(user("rename the workspace to Acme"), stream=True))

    assert response.headers["content-type"].startswith("text/event-stream")
    found = events(response)
    assert found[-1] == "[DONE]"
    chunks = found[:-1]
    assert {chunk["object"] for chunk in chunks} == {"chat.completion.chunk"}
    assert chunks[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    assert reassembled(chunks) == ("", [{"id": "call_1", "name": "save_workspace_name",
                                         "arguments": '{"name": "Acme"}'}], "tool_calls")
    assert len(chunks) > 4  # the arguments came in pieces
    assert all("usage" not in chunk for chunk in chunks)


def test_wire_streamed_text_with_usage_asked_ends_with_the_usage_chunk(
        client: httpx.Client) -> None:
    body = chat(user("archive the workspace"), called("call_1", "archive_workspace"),
                answered("call_1", '{"name": "Northwind", "archived": true, "published": false}'),
                stream=True, stream_options={"include_usage": True})

    chunks = events(client.post(PATH, json=body))[:-1]

    assert reassembled(chunks) == ("Done — the workspace is archived.", [], "stop")
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["total_tokens"] == 0


def test_wire_tool_choice_none_offers_no_tool(client: httpx.Client) -> None:
    response = client.post(PATH, json=chat(user("archive the workspace"), tool_choice="none"))

    message = response.json()["choices"][0]["message"]
    assert "tool_calls" not in message and message["content"]


def test_wire_accepts_every_field_a_real_client_sends(client: httpx.Client) -> None:
    body = chat({"role": "system", "content": "You manage the workspace."},
                {"role": "developer", "content": [{"type": "text", "text": "Be brief."}]},
                {"role": "user", "content": [{"type": "text", "text": "archive the workspace"}],
                 "name": "ada"},
                {**called("call_1", "archive_workspace"), "reasoning_content": "asked to",
                 "refusal": None},
                {"role": "tool", "tool_call_id": "call_1",
                 "content": [{"type": "text", "text": "Tool call execution denied."}]},
                tool_choice={"type": "function", "function": {"name": "archive_workspace"}},
                parallel_tool_calls=False, temperature=0, top_p=1, max_tokens=64,
                max_completion_tokens=64, stop=["\n\n"], presence_penalty=0,
                frequency_penalty=0, seed=7, user="u1", response_format={"type": "text"},
                reasoning_effort="low", verbosity="low", metadata={"page": "r-15"},
                store=False, n=1, logprobs=False, stream=False)

    response = client.post(PATH, json=body)

    assert response.status_code == 200, response.text
    assert response.json()["choices"][0]["message"]["content"] == (
        "That was not permitted, so nothing was archived.")


# ---- refusals ----------------------------------------------------------------------------

@pytest.mark.parametrize(("body", "param", "words"), [
    (chat(user("hi"), temprature=0), "temprature", "not an argument"),
    ({"messages": [user("hi")]}, "model", "Field required"),
    (chat(), "messages", "at least 1 item"),
    (chat(user("hi"), n=2), "n", "must be 1"),
    (chat({"role": "robot", "content": "hi"}), "messages[0]", "'robot'"),
    (chat({"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x"}}]}),
     "messages[0].content[0].type", "text content only"),
    (chat(user("archive"), called("call_1", "archive_workspace"), user("and now?")),
     "messages", "no tool message answers before messages[2]: call_1"),
    (chat(user("archive"), answered("call_9", "{}")), "messages", "answers no tool call"),
    (chat(user("hi"), user=5), "user", "valid string"),
])
def test_wire_malformed_request_is_a_400_naming_the_field(
        client: httpx.Client, model: ModelHandle, body: dict[str, Any], param: str,
        words: str) -> None:
    response = client.post(PATH, json=body)

    assert response.status_code == 400
    error = response.json()["error"]
    assert (error["type"], error["param"], error["code"]) == (
        "invalid_request_error", param, "invalid_request")
    assert words in error["message"] and error["message"].startswith(param)
    assert model.requests == []


@pytest.mark.parametrize(("content", "headers", "status", "code"), [
    (b"{", {"Content-Type": "application/json"}, 400, "invalid_json"),
    (b"[]", {"Content-Type": "application/json"}, 400, "invalid_request"),
    (b"{}", {"Content-Type": "text/plain"}, 415, "unsupported_media_type"),
    (b"{}", {"Content-Type": "application/json", "Origin": "http://evil.example"}, 403,
     "forbidden_origin"),
    (b"{}", {"Content-Type": "application/json", "Host": "rebound.example"}, 403,
     "forbidden_host"),
    (b" " * (4 * 1024 * 1024 + 1), {"Content-Type": "application/json"}, 413,
     "payload_too_large"),
])
def test_wire_refused_request_is_an_openai_error_and_reaches_no_model(
        client: httpx.Client, model: ModelHandle, content: bytes, headers: dict[str, str],
        status: int, code: str) -> None:
    response = client.post(PATH, content=content, headers=headers)

    assert response.status_code == status
    assert response.json()["error"]["code"] == code
    assert response.json()["error"]["type"] == "invalid_request_error"
    assert model.requests == []


def test_wire_other_methods_and_paths_answer_openai_errors(client: httpx.Client) -> None:
    assert client.get(PATH).status_code == 405
    assert client.get(PATH).json()["error"]["code"] == "method_not_allowed"
    missing = client.post("/v1/responses", json={})
    assert missing.status_code == 404 and PATH in missing.json()["error"]["message"]
    assert client.get("/v1/models").json()["data"][0]["id"] == "pling-scripted"


def test_wire_scripted_fault_keeps_its_status_as_a_server_error(
        client: httpx.Client, model: ModelHandle) -> None:
    model.script(ProviderUnavailable("upstream said 503"))

    response = client.post(PATH, json=chat(user("archive the workspace"), stream=True))

    assert response.status_code == 502
    assert response.json()["error"]["type"] == "server_error"
    assert response.json()["error"]["code"] == "model_unavailable"


# ---- what a check reads ------------------------------------------------------------------

def test_wire_exchange_is_read_like_the_gateways(client: httpx.Client, server: TutorialServer,
                                                 model: ModelHandle) -> None:
    denied = chat(user("archive the workspace"), called("call_1", "archive_workspace"),
                  answered("call_1", "Tool call execution denied."))

    client.post(PATH, json=chat(user("archive the workspace")))
    client.post(PATH, json=denied)

    assert [call.action for call in model.tool_calls()] == ["archive_workspace"]
    assert model.result_codes("archive_workspace") == ["PERMISSION_DENIED"]
    logged = server.log.model_exchanges()
    assert [exchange.index for exchange in logged] == [0, 1]
    assert logged[1].request == model.requests[1]
    assert logged[1].reply is not None and logged[1].reply.content == (
        "That was not permitted, so nothing was archived.")
    assert server.log.records(kind="model.request")[1].body == denied
    assert {record.path for record in server.log.records()} == {PATH}


def test_wire_refuses_an_unanswered_call_unless_a_check_asks_for_a_lenient_server(
        client: httpx.Client, model: ModelHandle) -> None:
    # The approved archive went on to the model with no result, the user writing again.
    dropped = chat(user("archive the workspace"), called("call_1", "archive_workspace"),
                   user("what is the workspace status?"))

    strict = client.post(PATH, json=dropped)
    model.accept_unanswered_tool_calls()
    lenient = client.post(PATH, json=dropped)
    model.reset_overrides()
    strict_again = client.post(PATH, json=dropped)

    assert strict.status_code == 400 and "call_1" in strict.json()["error"]["message"]
    assert lenient.status_code == 200
    assert strict_again.status_code == 400
    assert len(model.requests) == 1  # the lenient one: its history as sent, call_1 unanswered

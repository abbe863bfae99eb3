"""The model gateway: who may call it, what it accepts, and how provider faults are answered."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from pling_harness.server.model.provider import (
    ProviderError,
    ProviderTimeout,
    ProviderUnavailable,
)
from pling_harness.server.model.scripted import ScriptedModel
from pling_harness.server.model.wire import AssistantMessage, ChatCompletion, ModelRequest
from pling_harness.server.runner import TutorialServer

TOOL_NAMES = ["get_workspace", "save_workspace_name", "archive_workspace", "reset_workspace",
              "publish_changes"]
TOOLS: list[dict[str, Any]] = [
    {"type": "function",
     "function": {"name": name, "description": f"{name} action",
                  "parameters": {"type": "object", "properties": {},
                                 "additionalProperties": False}}}
    for name in TOOL_NAMES
]


def model_request(text: str = "archive the workspace", locale: str | None = "en") -> dict[str, Any]:
    body: dict[str, Any] = {"messages": [{"role": "user", "content": text}], "tools": TOOLS}
    if locale is not None:
        body["locale"] = locale
    return body


class FixedProvider:
    """A provider fake at the boundary: answers with one message or raises one error."""

    def __init__(self, answer: AssistantMessage | BaseException) -> None:
        self.answer = answer
        self.requests: list[ModelRequest] = []

    async def complete(self, request: ModelRequest) -> ChatCompletion:
        self.requests.append(request)
        if isinstance(self.answer, BaseException):
            raise self.answer
        return ChatCompletion.of(self.answer, id="fixed", model="fixed")


@pytest.fixture
def model(server: TutorialServer) -> ScriptedModel:
    assert server.model is not None
    return server.model


def serve_with(provider: FixedProvider) -> TutorialServer:
    return TutorialServer(tutorial="r-15", provider=provider)


def test_gateway_user_intent_answers_assistant_tool_call(
    client: httpx.Client, model: ScriptedModel
) -> None:
    response = client.post("/api/model", json=model_request("archive the workspace"))

    assert response.status_code == 200
    assert response.json() == {"message": {
        "role": "assistant", "content": None,
        "tool_calls": [{"id": "call_1", "type": "function",
                        "function": {"name": "archive_workspace", "arguments": "{}"}}],
    }}
    assert model.requests[0].locale == "en"


def test_gateway_text_reply_has_no_tool_calls_key(client: httpx.Client) -> None:
    response = client.post("/api/model", json=model_request("hello there"))

    message = response.json()["message"]
    assert set(message) == {"role", "content"}
    assert message["content"]


def test_gateway_exchange_is_logged_as_request_then_reply(
    client: httpx.Client, server: TutorialServer
) -> None:
    body = model_request()

    client.post("/api/model", json=body)

    request, reply = server.log.records()
    assert (request.kind, request.method, request.path, request.body) == (
        "model.request", "POST", "/api/model", body)
    assert (reply.kind, reply.status) == ("model.reply", 200)
    assert reply.response["message"]["tool_calls"][0]["function"]["name"] == "archive_workspace"
    assert reply.seq > request.seq
    assert reply.state.name == "Northwind"


@pytest.mark.parametrize("origin", ["http://evil.example", "null", "http://127.0.0.1:1"])
def test_gateway_foreign_origin_is_refused_403_and_model_not_asked(
    client: httpx.Client, server: TutorialServer, model: ScriptedModel, origin: str
) -> None:
    response = client.post("/api/model", json=model_request(), headers={"Origin": origin})

    assert response.status_code == 403
    assert response.json()["ok"] is False
    assert response.json()["code"] == "FORBIDDEN_ORIGIN"
    assert model.requests == []
    assert [r.kind for r in server.log.records()] == ["model.error"]


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_gateway_own_origin_is_accepted(
    client: httpx.Client, server: TutorialServer, host: str
) -> None:
    origin = f"http://{host}:{server.port}"

    response = client.post("/api/model", json=model_request(), headers={"Origin": origin})

    assert response.status_code == 200


def test_gateway_rebound_host_with_matching_origin_is_refused(
    client: httpx.Client, server: TutorialServer
) -> None:
    """DNS rebinding: Host and Origin agree on a foreign name; the socket says otherwise."""
    headers = {"Host": f"evil.example:{server.port}",
               "Origin": f"http://evil.example:{server.port}"}

    response = client.post("/api/model", json=model_request(), headers=headers)

    assert response.status_code == 403


@pytest.mark.parametrize("content_type", [None, "text/plain", "application/x-www-form-urlencoded",
                                          "multipart/form-data; boundary=x"])
def test_gateway_non_json_content_type_is_refused_415(
    client: httpx.Client, model: ScriptedModel, content_type: str | None
) -> None:
    headers = {} if content_type is None else {"Content-Type": content_type}

    response = client.post("/api/model", content=json.dumps(model_request()), headers=headers)

    assert response.status_code == 415
    assert response.json()["code"] == "UNSUPPORTED_MEDIA_TYPE"
    assert model.requests == []


def test_gateway_json_content_type_with_charset_is_accepted(client: httpx.Client) -> None:
    response = client.post("/api/model", content=json.dumps(model_request()),
                           headers={"Content-Type": "Application/JSON; charset=utf-8"})

    assert response.status_code == 200


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"messages": [], "tools": []}, "messages"),
        ({"messages": [{"role": "user", "content": "hi"}], "tools": [], "temperature": 2},
         "temperature"),
        ({"messages": [{"role": "robot", "content": "hi"}]}, "messages.0"),
        ({"messages": [{"role": "user", "content": "hi", "name": "x"}]}, "messages.0.user.name"),
        ({"messages": [{"role": "user", "content": "hi"}], "locale": "french"}, "locale"),
        ({"messages": [{"role": "user", "content": "hi"}], "locale": "<b>"}, "locale"),
        ({"messages": [{"role": "tool", "content": "{}"}]}, "messages.0.tool.tool_call_id"),
        ({"messages": [{"role": "user", "content": "hi"}], "tools": [{"type": "function"}]},
         "tools.0.function"),
    ],
)
def test_gateway_invalid_body_is_refused_400_naming_the_field(
    client: httpx.Client, model: ScriptedModel, body: dict[str, Any], field: str
) -> None:
    response = client.post("/api/model", json=body)

    assert response.status_code == 400
    assert response.json()["code"] == "BAD_REQUEST"
    assert f"field {field}" in response.json()["message"]
    assert model.requests == []


def test_gateway_body_not_json_is_refused_400(client: httpx.Client) -> None:
    response = client.post("/api/model", content=b"{oops",
                           headers={"Content-Type": "application/json"})

    assert response.status_code == 400
    assert response.json()["code"] == "BAD_REQUEST"


def test_gateway_invalid_body_error_speaks_the_requests_locale(client: httpx.Client) -> None:
    response = client.post("/api/model", json={"messages": [], "locale": "zh"})

    assert response.json()["message"].startswith("请求无效")


def test_gateway_body_over_4_mib_is_refused_413(client: httpx.Client, model: ScriptedModel) -> None:
    response = client.post("/api/model", json=model_request("x" * (4 * 1024 * 1024)))

    assert response.status_code == 413
    assert response.json()["code"] == "PAYLOAD_TOO_LARGE"
    assert model.requests == []


def test_gateway_tool_call_arguments_not_json_are_passed_through_untouched(
    client: httpx.Client, model: ScriptedModel
) -> None:
    arguments = '{"name": "Acme", oops'
    model.script({"role": "assistant", "content": None, "tool_calls": [
        {"id": "hostile_1", "type": "function",
         "function": {"name": "save_workspace_name", "arguments": arguments}}]})

    response = client.post("/api/model", json=model_request())

    call = response.json()["message"]["tool_calls"][0]
    assert call["function"]["arguments"] == arguments
    assert call["id"] == "hostile_1"


def test_gateway_one_mib_arguments_are_passed_through_untouched(
    client: httpx.Client, model: ScriptedModel
) -> None:
    arguments = json.dumps({"name": "é" * (512 * 1024)})
    model.script({"role": "assistant", "tool_calls": [
        {"id": "big", "type": "function",
         "function": {"name": "save_workspace_name", "arguments": arguments}}]})

    response = client.post("/api/model", json=model_request())

    assert response.status_code == 200
    assert response.json()["message"]["tool_calls"][0]["function"]["arguments"] == arguments


@pytest.mark.parametrize(
    "reply",
    [
        {"role": "assistant", "content": None},
        {"role": "assistant", "content": ""},
        {"role": "assistant", "content": None, "tool_calls": []},
        {"role": "assistant", "tool_calls": "archive_workspace"},
        {"role": "user", "content": "I am not the assistant"},
        {"role": "assistant", "content": "hi", "function_call": {"name": "x"}},
    ],
)
def test_gateway_unusable_model_reply_answers_502_bad_reply(
    client: httpx.Client, server: TutorialServer, model: ScriptedModel, reply: dict[str, Any]
) -> None:
    model.script(reply)

    response = client.post("/api/model", json=model_request())

    assert response.status_code == 502
    assert response.json()["code"] == "MODEL_BAD_REPLY"
    assert server.log.records()[-1].kind == "model.error"


@pytest.mark.parametrize(
    ("fault", "status", "code"),
    [
        (ProviderUnavailable("upstream 500"), 502, "MODEL_UNAVAILABLE"),
        (ProviderTimeout("slow"), 504, "MODEL_TIMEOUT"),
        (RuntimeError("provider bug"), 502, "MODEL_UNAVAILABLE"),
    ],
)
def test_gateway_provider_fault_answers_mapped_status(
    fault: BaseException, status: int, code: str
) -> None:
    with (
        serve_with(FixedProvider(fault)) as server,
        httpx.Client(base_url=server.url) as client,
    ):
        response = client.post("/api/model", json=model_request())
        error = server.log.records(kind="model.error")[0]

    assert response.status_code == status
    assert response.json() == {"ok": False, "code": code, "message": response.json()["message"]}
    assert (error.status, error.response) == (status, response.json())
    assert error.detail


@pytest.mark.parametrize(("locale", "expected"), [
    ("zh", "模型"), ("zh-CN", "模型"), ("en", "The model"),
    ("ja", "The model"),  # a locale the gateway has no words of its own for: English
])
def test_gateway_fault_message_speaks_the_requests_locale(locale: str, expected: str) -> None:
    with (
        serve_with(FixedProvider(ProviderTimeout("slow"))) as server,
        httpx.Client(base_url=server.url) as client,
    ):
        response = client.post("/api/model", json=model_request(locale=locale))

    assert expected in response.json()["message"]


def test_gateway_passes_any_locale_a_page_speaks_to_the_model(
    client: httpx.Client, model: ScriptedModel
) -> None:
    response = client.post("/api/model", json=model_request(locale="ja"))

    assert response.status_code == 200
    assert model.requests[0].locale == "ja"


def test_gateway_scripted_provider_error_is_raised_as_fault(
    client: httpx.Client, model: ScriptedModel
) -> None:
    model.script(ProviderError("scripted outage"))

    response = client.post("/api/model", json=model_request())

    assert response.status_code == 502
    assert response.json()["code"] == "MODEL_UNAVAILABLE"


def test_gateway_provider_sees_the_validated_request() -> None:
    provider = FixedProvider(AssistantMessage(content="hello"))
    with (
        serve_with(provider) as server,
        httpx.Client(base_url=server.url) as client,
    ):
        response = client.post("/api/model", json=model_request("hi", locale="zh"))

    assert response.json() == {"message": {"role": "assistant", "content": "hello"}}
    (request,) = provider.requests
    assert request.locale == "zh"
    assert request.tool_names() == TOOL_NAMES
    assert server.model is None

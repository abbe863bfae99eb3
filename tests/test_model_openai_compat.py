"""The OpenAI-compatible provider behind the real gateway, against a tiny upstream on 127.0.0.1."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest

from pling_harness.server.model.openai_compat import OpenAICompatibleProvider
from pling_harness.server.runner import TutorialServer

KEY = "sk-test-4f2b9c-secret"
# The provider's timeout towards the upstream. Generous, so a healthy local answer is never
# cut off on a loaded machine (0.5 s was: the request had not even arrived); only the check
# of a stalled upstream uses the short one, to end quickly.
TIMEOUT_SECONDS = 30.0
STALLED_TIMEOUT_SECONDS = 0.5
TOOLS = [{"type": "function", "function": {
    "name": "archive_workspace", "description": "Archive the workspace",
    "parameters": {"type": "object", "properties": {}, "additionalProperties": False}}}]
MODEL_REQUEST = {"messages": [{"role": "user", "content": "archive the workspace"}],
                 "tools": TOOLS, "locale": "en"}


def completion(message: dict[str, Any]) -> dict[str, Any]:
    """A reply shaped like a real upstream's, extra fields included."""
    return {
        "id": "chatcmpl-123", "object": "chat.completion", "created": 1700000000,
        "model": "gpt-test", "system_fingerprint": "fp_1",
        "choices": [{"index": 0, "message": {"refusal": None, "annotations": [], **message},
                     "logprobs": None, "finish_reason": "tool_calls"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


@dataclass
class Upstream:
    """What the fake upstream does next, and what it has received."""

    url: str
    mode: str = "ok"
    reply: dict[str, Any] = field(default_factory=lambda: completion({
        "role": "assistant", "content": None,
        "tool_calls": [{"index": 0, "id": "call_up_1", "type": "function",
                        "function": {"name": "archive_workspace", "arguments": "{}"}}]}))
    received: list[dict[str, Any]] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)


def make_handler(upstream: Upstream) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            upstream.received.append({"path": self.path, "headers": dict(self.headers),
                                      "body": json.loads(body)})
            if upstream.mode == "close":
                self.close_connection = True
                return
            if upstream.mode == "slow":
                upstream.release.wait()
                return
            status, payload = {
                "ok": (200, json.dumps(upstream.reply).encode()),
                # A careless upstream that echoes the credentials in its error page.
                "error": (500, f"boom {self.headers['Authorization']}".encode()),
                "unauthorized": (401, b'{"error": {"message": "bad key"}}'),
                "malformed": (200, b'{"choices": [ {"message": '),
                "not_completion": (200, b'{"error": "overloaded"}'),
            }[upstream.mode]
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: Any) -> None:
            pass  # keep test output clean

    return Handler


@pytest.fixture
def upstream() -> Iterator[Upstream]:
    state = Upstream(url="")
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(state))
    httpd.daemon_threads = True
    state.url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    # A short poll interval only makes shutdown() return sooner; it waits for nothing else.
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    yield state
    state.release.set()
    httpd.shutdown()
    httpd.server_close()
    thread.join()


@pytest.fixture
def provider_timeout() -> float:
    """Seconds the provider waits for the upstream; a check may parametrize its own."""
    return TIMEOUT_SECONDS


@pytest.fixture
def gateway(upstream: Upstream,
            provider_timeout: float) -> Iterator[tuple[TutorialServer, httpx.Client]]:
    provider = OpenAICompatibleProvider(base_url=upstream.url, api_key=KEY, model="gpt-test",
                                        timeout=provider_timeout)
    with TutorialServer(tutorial="r-15", provider=provider) as server, \
            httpx.Client(base_url=server.url) as client:
        yield server, client


def ask(gateway: tuple[TutorialServer, httpx.Client]) -> httpx.Response:
    server, client = gateway
    response = client.post("/api/model", json=MODEL_REQUEST)
    # Whatever happened, the key never reaches the page or the log.
    assert KEY not in response.text
    assert KEY not in "".join(record.model_dump_json() for record in server.log.records())
    return response


def test_openai_provider_sends_model_messages_tools_and_bearer_key(
    upstream: Upstream, gateway: tuple[TutorialServer, httpx.Client]
) -> None:
    ask(gateway)

    (received,) = upstream.received
    assert received["path"] == "/v1/chat/completions"
    assert received["headers"]["Authorization"] == f"Bearer {KEY}"
    assert received["body"] == {"model": "gpt-test",
                                "messages": MODEL_REQUEST["messages"], "tools": TOOLS}


def test_openai_provider_reply_with_extra_fields_is_forwarded_as_our_message(
    gateway: tuple[TutorialServer, httpx.Client],
) -> None:
    response = ask(gateway)

    assert response.status_code == 200
    assert response.json() == {"message": {
        "role": "assistant", "content": None,
        "tool_calls": [{"id": "call_up_1", "type": "function",
                        "function": {"name": "archive_workspace", "arguments": "{}"}}]}}


def test_openai_provider_arguments_not_json_are_passed_through_untouched(
    upstream: Upstream, gateway: tuple[TutorialServer, httpx.Client]
) -> None:
    arguments = "{'name': Acme"  # not JSON: the page, not the gateway, must refuse it
    upstream.reply = completion({"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function",
         "function": {"name": "save_workspace_name", "arguments": arguments}}]})

    response = ask(gateway)

    assert response.json()["message"]["tool_calls"][0]["function"]["arguments"] == arguments


@pytest.mark.parametrize(
    ("mode", "status", "code", "provider_timeout"),
    [
        ("error", 502, "MODEL_UNAVAILABLE", TIMEOUT_SECONDS),
        ("unauthorized", 502, "MODEL_UNAVAILABLE", TIMEOUT_SECONDS),
        ("malformed", 502, "MODEL_UNAVAILABLE", TIMEOUT_SECONDS),
        ("not_completion", 502, "MODEL_UNAVAILABLE", TIMEOUT_SECONDS),
        ("close", 502, "MODEL_UNAVAILABLE", TIMEOUT_SECONDS),
        ("slow", 504, "MODEL_TIMEOUT", STALLED_TIMEOUT_SECONDS),
    ],
)
def test_openai_provider_fault_answers_gateway_error_without_the_key(
    upstream: Upstream, gateway: tuple[TutorialServer, httpx.Client],
    mode: str, status: int, code: str,
) -> None:
    upstream.mode = mode

    response = ask(gateway)

    assert response.status_code == status
    assert response.json()["ok"] is False
    assert response.json()["code"] == code
    server, _ = gateway
    (error,) = server.log.records(kind="model.error")
    assert error.status == status
    assert error.detail


def test_openai_provider_empty_reply_answers_502_bad_reply(
    upstream: Upstream, gateway: tuple[TutorialServer, httpx.Client]
) -> None:
    upstream.reply = completion({"role": "assistant", "content": ""})

    response = ask(gateway)

    assert response.status_code == 502
    assert response.json()["code"] == "MODEL_BAD_REPLY"


def test_openai_provider_upstream_gone_answers_502() -> None:
    with socket.socket() as probe:  # a port that was free a moment ago, nobody listening
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    provider = OpenAICompatibleProvider(base_url=f"http://127.0.0.1:{port}", api_key=KEY,
                                        model="m", timeout=TIMEOUT_SECONDS)
    with TutorialServer(tutorial="r-15", provider=provider) as server, \
            httpx.Client(base_url=server.url) as client:
        response = ask((server, client))

    assert response.status_code == 502
    assert response.json()["code"] == "MODEL_UNAVAILABLE"


def test_openai_provider_timeout_must_be_positive() -> None:
    with pytest.raises(ValueError, match=r"timeout must be > 0 seconds\. Current input: 0"):
        OpenAICompatibleProvider(base_url="http://127.0.0.1", api_key=KEY, model="m", timeout=0)


"""A long message cannot stop the server or fill its memory (issue 31 §3): the scripted
model tries its intents only on a message of command length, a provider's reply is read up
to a cap, and a server nobody inspects keeps no request bodies. How long a 4 MiB message
holds other requests, and the memory after a thousand, is measured by
`scripts/bench_hostile_input.py` (figures in docs/measurements.md), not asserted here."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from pling_harness.project.tutorials import load_tutorial
from pling_harness.server.model.fake_upstream import FakeUpstream
from pling_harness.server.model.openai_compat import MAX_REPLY_BYTES
from pling_harness.server.model.scripted import MAX_INTENT_MESSAGE_CHARACTERS
from pling_harness.server.runner import TutorialServer

# The harness's own checkout: the project these tests check.
PROJECT_ROOT = Path(__file__).resolve().parents[1]

TUTORIAL = "r-15-confirmation-and-human-handoff"
# Every action of r-15's page is offered, so every intent of its rules is tried.
TOOLS = [{"type": "function", "function": {"name": name, "description": name}}
         for name in ("get_workspace", "save_workspace_name", "archive_workspace",
                      "reset_workspace", "publish_changes")]


def ask(client: httpx.Client, text: str) -> dict[str, Any]:
    response = client.post("/api/model", json={
        "messages": [{"role": "user", "content": text}], "tools": TOOLS,
        "locale": "en"})
    assert response.status_code == 200, response.text
    message: dict[str, Any] = response.json()["message"]
    return message


def padded(command: str, length: int) -> str:
    return command + " " + "x" * (length - len(command) - 1)


def test_command_as_long_as_the_intent_limit_still_calls_its_tool(
    client: httpx.Client,
) -> None:
    message = ask(client, padded("archive", MAX_INTENT_MESSAGE_CHARACTERS))

    assert message["tool_calls"][0]["function"]["name"] == "archive_workspace"


def test_message_past_the_intent_limit_matches_no_intent(client: httpx.Client) -> None:
    # Before the limit the rules' regexes ran over any length, quadratic for some of them.
    message = ask(client, padded("archive", MAX_INTENT_MESSAGE_CHARACTERS + 1))

    assert "tool_calls" not in message
    assert message["content"].startswith("I can help with this workspace")


@pytest.mark.parametrize("text", ["工作区" * 20000, "rename it to " * 15000])
def test_message_that_made_the_intents_quadratic_is_answered_without_a_call(
    client: httpx.Client, text: str,
) -> None:
    message = ask(client, text)

    assert "tool_calls" not in message


@pytest.fixture
def upstream() -> Iterator[FakeUpstream]:
    with FakeUpstream.answering_like(load_tutorial(TUTORIAL, PROJECT_ROOT),
                                     PROJECT_ROOT) as fake:
        yield fake


def test_provider_reply_past_the_cap_is_model_unavailable_and_logged(
    upstream: FakeUpstream,
) -> None:
    upstream.answer({"content": "x" * (MAX_REPLY_BYTES + 1)})
    with TutorialServer(tutorial=TUTORIAL, environ=upstream.environ(api_key="k")) as server:
        response = httpx.post(f"{server.url}/api/model", json={
            "messages": [{"role": "user", "content": "hello"}], "locale": "en"}, timeout=30)

        assert (response.status_code, response.json()["code"]) == (502, "MODEL_UNAVAILABLE")
        error = server.log.records(kind="model.error")[-1]
        assert error.detail is not None and f"larger than {MAX_REPLY_BYTES} bytes" in error.detail


def test_provider_reply_under_the_cap_is_forwarded(upstream: FakeUpstream) -> None:
    text = "y" * (MAX_REPLY_BYTES // 2)
    upstream.answer({"content": text})
    with TutorialServer(tutorial=TUTORIAL, environ=upstream.environ(api_key="k")) as server:
        response = httpx.post(f"{server.url}/api/model", json={
            "messages": [{"role": "user", "content": "hello"}], "locale": "en"}, timeout=30)

    assert response.json()["message"]["content"] == text


def test_server_nobody_inspects_keeps_its_latest_records_without_bodies() -> None:
    with (TutorialServer(tutorial=TUTORIAL, environ={}, retain=3) as server,
          httpx.Client(base_url=server.url) as client):
        for text in ("archive", "hello", "x" * 100_000):
            ask(client, text)
        client.post("/api/workspace/name", json={"name": "Acme"})

        records = server.log.records()
        assert [(r.kind, r.status) for r in records] == [
            ("model.request", None), ("model.reply", 200), ("api", 200)]
        assert {(r.body, r.response, r.model_request, r.model_reply) for r in records} == {
            (None, None, None, None)}
        assert server.model is not None and server.model.requests == []
        assert server.state.snapshot().name == "Acme"


def test_retain_must_not_be_negative() -> None:
    with pytest.raises(ValueError, match=r"retain must be >= 0 or None\. Current input: -1"):
        TutorialServer(tutorial=TUTORIAL, environ={}, retain=-1)

"""The conversation reader: tool calls and results from the wire models, one request index."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from pling_harness.server.model.conversation import (
    Conversation,
    ModelExchange,
    parse_sent_request,
)
from pling_harness.server.model.handle import ModelHandle, calling, tool_call
from pling_harness.server.model.wire import AssistantMessage, ModelRequest
from pling_harness.server.runner import TutorialServer

USER = {"role": "user", "content": "archive the workspace"}
CALL = {"role": "assistant", "content": None, "tool_calls": [
    {"id": "call_1", "type": "function",
     "function": {"name": "archive_workspace", "arguments": "{}"}}]}
DENIED = {"role": "tool", "tool_call_id": "call_1",
          "content": json.dumps({"ok": False, "code": "PERMISSION_DENIED", "message": "no"})}


def request(*messages: dict[str, Any]) -> ModelRequest:
    return ModelRequest.model_validate({"messages": list(messages)})


def test_conversation_result_index_is_the_first_request_that_carried_it() -> None:
    first = request(USER)
    second = request(USER, CALL, DENIED)
    third = request(USER, CALL, DENIED, {"role": "user", "content": "thanks"})

    results = Conversation.of_requests([first, second, third]).tool_results()

    assert [(r.request_index, r.call_id, r.action, r.code) for r in results] == [
        (1, "call_1", "archive_workspace", "PERMISSION_DENIED")]


def test_conversation_after_a_new_conversation_counts_a_repeated_result_again() -> None:
    # "New conversation" starts the history from empty: the same result is new again.
    carried = request(USER, CALL, DENIED)

    results = Conversation.of_requests([carried, request(USER), carried]).tool_results()

    assert [r.request_index for r in results] == [0, 2]


def test_conversation_call_index_is_the_request_whose_reply_made_it() -> None:
    reply = AssistantMessage.model_validate(CALL)
    exchanges = [ModelExchange(index=0, request=request(USER)),
                 ModelExchange(index=1, request=request(USER), reply=reply)]

    calls = Conversation(exchanges).tool_calls()

    assert [(c.request_index, c.call_id, c.action) for c in calls] == [
        (1, "call_1", "archive_workspace")]


def test_conversation_refuses_exchanges_that_do_not_start_at_the_first() -> None:
    with pytest.raises(ValueError, match="from the first one"):
        Conversation([ModelExchange(index=3, request=request(USER))])


def test_parse_sent_request_not_a_request_is_none() -> None:
    assert parse_sent_request('{"messages": "no"}') is None
    assert parse_sent_request(None) is None
    assert parse_sent_request(json.dumps({"messages": [USER]})) == request(USER)


def test_server_log_and_model_handle_read_the_same_conversation(
    client: httpx.Client, server: TutorialServer,
) -> None:
    assert server.model is not None
    model = ModelHandle(server.model)
    model.script(calling(tool_call("call_1", "archive_workspace")))
    client.post("/api/model", json={"messages": [USER]})
    client.post("/api/model", json={"messages": [USER, CALL, DENIED]})

    from_log = Conversation(server.log.model_exchanges())
    from_model = model.conversation()

    assert [e.seq is not None for e in from_log.exchanges] == [True, True]
    assert from_log.tool_results() == from_model.tool_results() == model.tool_results()
    assert from_log.tool_calls() == from_model.tool_calls() == model.tool_calls()
    assert [c.request_index for c in model.tool_calls()] == [0]
    assert [r.request_index for r in model.tool_results()] == [1]

"""Read what a conversation told the model: its tool calls and the tool results, in order.

The page resends the whole conversation with every model request, so the new part of a
request is what follows the previous request's messages (a reload or "new conversation"
starts again from empty). These functions work on plain JSON (`ServerRecord.body` or
`ModelRequest.model_dump()`), so they read the server log and the model handle alike.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, kw_only=True)
class ToolCallSeen:
    """A tool call the model made, as it appeared in a later request's history."""

    request_index: int
    call_id: str
    action: str
    arguments: str


@dataclass(frozen=True, kw_only=True)
class ToolResultSeen:
    """A tool result the model received: the §5 envelope, parsed (or not, if it is not JSON)."""

    request_index: int
    """Index (0-based) of the first model request that carried this result."""
    call_id: str
    action: str | None
    """The called action, from the assistant message that made the call; None if unknown."""
    content: str
    envelope: Mapping[str, Any] | None

    @property
    def ok(self) -> bool:
        return self.envelope is not None and self.envelope.get("ok") is True

    @property
    def code(self) -> str:
        """`"OK"` for a success, the error code for a failure, `"UNREADABLE"` if not an envelope."""
        if self.envelope is None:
            return "UNREADABLE"
        if self.ok:
            return "OK"
        code = self.envelope.get("code")
        return code if isinstance(code, str) else "UNREADABLE"

    def describe(self) -> str:
        return f"{self.action or '?'} ({self.call_id}) → {self.code}"


def new_messages(requests: Sequence[Mapping[str, Any]]) -> list[list[Mapping[str, Any]]]:
    """For each request, the messages it added to the conversation since the previous one."""
    added: list[list[Mapping[str, Any]]] = []
    previous: list[Mapping[str, Any]] = []
    for request in requests:
        messages = _messages(request)
        continues = len(messages) >= len(previous) and messages[: len(previous)] == previous
        added.append(messages[len(previous):] if continues else messages)
        previous = messages
    return added


def tool_calls(requests: Sequence[Mapping[str, Any]]) -> list[ToolCallSeen]:
    """Every tool call that shows up in the histories, once, in order."""
    calls: list[ToolCallSeen] = []
    for index, messages in enumerate(new_messages(requests)):
        for message in messages:
            calls.extend(_calls_of(message, index))
    return calls


def tool_results(requests: Sequence[Mapping[str, Any]]) -> list[ToolResultSeen]:
    """Every tool result the model received, once, in the order it was sent."""
    results: list[ToolResultSeen] = []
    for index, messages in enumerate(new_messages(requests)):
        full_history = _messages(requests[index])
        actions = {call.call_id: call.action for m in full_history for call in _calls_of(m, index)}
        for message in messages:
            if message.get("role") != "tool":
                continue
            call_id = str(message.get("tool_call_id", ""))
            content = message.get("content")
            text = content if isinstance(content, str) else json.dumps(content)
            results.append(ToolResultSeen(
                request_index=index, call_id=call_id, action=actions.get(call_id),
                content=text, envelope=_envelope(text),
            ))
    return results


def last_user_text(request: Mapping[str, Any]) -> str | None:
    for message in reversed(_messages(request)):
        if message.get("role") == "user":
            content = message.get("content")
            return content if isinstance(content, str) else None
    return None


def tool_names(request: Mapping[str, Any]) -> list[str]:
    """The projection sent with a request: the names of its `tools`."""
    tools = request.get("tools")
    names: list[str] = []
    for tool in tools if isinstance(tools, list) else []:
        function = tool.get("function") if isinstance(tool, Mapping) else None
        if isinstance(function, Mapping) and isinstance(function.get("name"), str):
            names.append(function["name"])
    return names


def _messages(request: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    messages = request.get("messages")
    if not isinstance(messages, list):
        return []
    return [message for message in messages if isinstance(message, Mapping)]


def _calls_of(message: Mapping[str, Any], index: int) -> Iterable[ToolCallSeen]:
    if message.get("role") != "assistant":
        return
    for call in message.get("tool_calls") or []:
        function = call.get("function") if isinstance(call, Mapping) else None
        if not isinstance(function, Mapping):
            continue
        yield ToolCallSeen(
            request_index=index,
            call_id=str(call.get("id", "")),
            action=str(function.get("name", "")),
            arguments=str(function.get("arguments", "")),
        )


def _envelope(text: str) -> Mapping[str, Any] | None:
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None

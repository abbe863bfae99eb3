"""What a conversation told the model and what the model answered, read from the wire models.

One API and one meaning of a request index, wherever the exchanges come from (the server
log, `Timeline.conversation()`, or the scripted model, `ModelHandle`): `index` is the 0-based
position of a request among the model requests the gateway forwarded since the server
started, the same count as `model.requests`. A tool call's `request_index` is the request
whose reply made the call; a tool result's is the first request that carried it.

The page resends the whole conversation with every model request, so the new part of a
request is what follows the previous request's messages (a reload or "new conversation"
starts again from empty). Bodies are parsed into `ModelRequest` / `AssistantMessage` once,
where they are logged or received; nothing here reads raw JSON but a tool result's text.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from pydantic import ValidationError

from pling_harness.server.model.wire import (
    AssistantMessage,
    Message,
    ModelRequest,
    ToolMessage,
    UserMessage,
)


@dataclass(frozen=True, kw_only=True)
class ModelExchange:
    """One model request the gateway forwarded, and the reply it got (None: a fault)."""

    index: int
    request: ModelRequest
    reply: AssistantMessage | None = None
    seq: int | None = None
    """The server log's seq of the request; None when read from the model itself."""


@dataclass(frozen=True, kw_only=True)
class ToolCallSeen:
    """A tool call the model made in its reply to request `request_index`."""

    request_index: int
    call_id: str
    action: str
    arguments: str


@dataclass(frozen=True, kw_only=True)
class ToolResultSeen:
    """A tool result the model received: the §5 envelope, parsed (or not, if it is not JSON)."""

    request_index: int
    """Index of the first model request that carried this result (see the module doc)."""
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


class Conversation:
    """The exchanges of one server (or one model), oldest first, and what they carried."""

    def __init__(self, exchanges: Sequence[ModelExchange]) -> None:
        self.exchanges = list(exchanges)
        for position, exchange in enumerate(self.exchanges):
            if exchange.index != position:
                raise ValueError(f"exchange {position} has index {exchange.index}; a "
                                 "Conversation needs every exchange from the first one")

    @classmethod
    def of_requests(cls, requests: Sequence[ModelRequest]) -> Conversation:
        """The conversation of these requests alone (their replies unknown)."""
        return cls([ModelExchange(index=i, request=r) for i, r in enumerate(requests)])

    @property
    def requests(self) -> list[ModelRequest]:
        return [exchange.request for exchange in self.exchanges]

    def tool_calls(self) -> list[ToolCallSeen]:
        """Every tool call the model made in its replies, in order."""
        return [
            ToolCallSeen(request_index=exchange.index, call_id=call.id,
                         action=call.function.name, arguments=call.function.arguments)
            for exchange in self.exchanges if exchange.reply is not None
            for call in exchange.reply.tool_calls or []
        ]

    def tool_results(self, *, request_index: int | None = None) -> list[ToolResultSeen]:
        """Every tool result the model received, once, in the order it was sent; only those
        first carried by request `request_index` if given."""
        results: list[ToolResultSeen] = []
        for index, messages in enumerate(new_messages(self.requests)):
            if request_index is not None and index != request_index:
                continue
            actions = {call.id: call.function.name
                       for message in self.requests[index].messages
                       if isinstance(message, AssistantMessage)
                       for call in message.tool_calls or []}
            results.extend(
                ToolResultSeen(request_index=index, call_id=message.tool_call_id,
                               action=actions.get(message.tool_call_id),
                               content=message.content, envelope=_envelope(message.content))
                for message in messages if isinstance(message, ToolMessage))
        return results

    def tool_description(self, action: str) -> str | None:
        """The `description` of `action` in the newest request whose tools offered it."""
        for request in reversed(self.requests):
            for tool in request.tools:
                if tool.function.name == action:
                    return tool.function.description
        return None


def new_messages(requests: Sequence[ModelRequest]) -> list[list[Message]]:
    """For each request, the messages it added to the conversation since the previous one."""
    added: list[list[Message]] = []
    previous: list[Message] = []
    for request in requests:
        messages = list(request.messages)
        continues = len(messages) >= len(previous) and messages[: len(previous)] == previous
        added.append(messages[len(previous):] if continues else messages)
        previous = messages
    return added


def last_user_text(request: ModelRequest) -> str | None:
    for message in reversed(request.messages):
        if isinstance(message, UserMessage):
            return message.content
    return None


def results_carried(request: ModelRequest) -> Iterable[ToolResultSeen]:
    """The tool results a request carries (all of them, not only its new ones)."""
    return Conversation.of_requests([request]).tool_results()


def parse_sent_request(body: str | None) -> ModelRequest | None:
    """A model request body as a page sent it (text), parsed; None if it is not a valid one.
    Cached: the probe's record of one request is read by several guarantees."""
    return _parse_sent_request(body) if body else None


@lru_cache(maxsize=256)
def _parse_sent_request(body: str) -> ModelRequest | None:
    try:
        return ModelRequest.model_validate_json(body)
    except ValidationError:
        return None


def _envelope(text: str) -> Mapping[str, Any] | None:
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None

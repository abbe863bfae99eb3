"""OpenAI's Chat Completions wire (`POST /v1/chat/completions`), as pydantic models.

What frameworks that call the model from their own server send (the AI SDK's
`@ai-sdk/openai-compatible`, the `openai` SDK, CopilotKit's runtime) and what they expect
back, streamed or not. Every model is `extra="forbid"`, as OpenAI itself refuses an
argument it does not know ("Unrecognized request argument"), but it declares every request
field OpenAI documents, so a real client's request is accepted whole; fields that only
tune a real model (temperature, seed, ...) are read and ignored by the scripted model.
Content the scripted model cannot read (images, audio, files) is refused by name.

`to_model_request` turns a request into the gateway's own `ModelRequest`, which the
scripted model answers and `Conversation` reads (`pling_harness.server.model.conversation`);
the answer goes back as `completion_body` or `completion_chunks`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from pling_harness.server.model.framework_results import as_envelope
from pling_harness.server.model.wire import (
    AssistantMessage,
    FunctionCall,
    FunctionDefinition,
    Message,
    ModelRequest,
    SystemMessage,
    ToolCall,
    ToolDefinition,
    ToolMessage,
    UserMessage,
)

# The base URL a client is given is the server's address and this path.
OPENAI_BASE_PATH = "/v1"
CHAT_COMPLETIONS_PATH = f"{OPENAI_BASE_PATH}/chat/completions"
MODELS_PATH = f"{OPENAI_BASE_PATH}/models"
# The scripted model answers as itself whatever a client names; `/v1/models` lists this id.
SCRIPTED_MODEL_ID = "pling-scripted"
# A streamed reply's text arrives in at most this many pieces, a tool call's arguments in
# at most this many: enough to prove a client reassembles them, bounded for long texts.
TEXT_PIECES = 8
ARGUMENT_PIECES = 3


class OpenAIWire(BaseModel):
    model_config = ConfigDict(extra="forbid")


# ---- the request ------------------------------------------------------------------------

class TextPart(OpenAIWire):
    type: Literal["text"]
    text: str


class RefusalPart(OpenAIWire):
    type: Literal["refusal"]
    refusal: str


# Only text: a part of another `type` (image_url, input_audio, file) fails here, named.
TextContent = str | list[TextPart]


def joined(content: TextContent | None) -> str | None:
    if content is None or isinstance(content, str):
        return content
    return "".join(part.text for part in content)


class SystemMessageIn(OpenAIWire):
    role: Literal["system", "developer"]
    content: TextContent
    name: str | None = None


class UserMessageIn(OpenAIWire):
    role: Literal["user"]
    content: TextContent
    name: str | None = None


class FunctionCallIn(OpenAIWire):
    name: str
    arguments: str


class ToolCallIn(OpenAIWire):
    id: str = Field(min_length=1)
    type: Literal["function"] = "function"
    function: FunctionCallIn
    # Sent back by @ai-sdk/openai-compatible for models that sign their calls (Gemini).
    extra_content: dict[str, Any] | None = None


class AssistantMessageIn(OpenAIWire):
    role: Literal["assistant"]
    content: str | list[TextPart | RefusalPart] | None = None
    tool_calls: list[ToolCallIn] | None = None
    name: str | None = None
    refusal: str | None = None
    # Sent back by @ai-sdk/openai-compatible when a reply carried reasoning.
    reasoning_content: str | None = None

    def text(self) -> str | None:
        if self.content is None or isinstance(self.content, str):
            return self.content
        return "".join(part.text for part in self.content if isinstance(part, TextPart))


class ToolMessageIn(OpenAIWire):
    role: Literal["tool"]
    tool_call_id: str
    content: TextContent


MessageIn = Annotated[
    SystemMessageIn | UserMessageIn | AssistantMessageIn | ToolMessageIn,
    Field(discriminator="role"),
]


class FunctionIn(OpenAIWire):
    name: str = Field(min_length=1)
    description: str | None = None
    parameters: dict[str, Any] | None = None
    strict: bool | None = None


class ToolIn(OpenAIWire):
    type: Literal["function"]
    function: FunctionIn


class NamedFunction(OpenAIWire):
    name: str


class NamedToolChoice(OpenAIWire):
    type: Literal["function"]
    function: NamedFunction


class StreamOptions(OpenAIWire):
    include_usage: bool | None = None
    include_obfuscation: bool | None = None


class ChatCompletionRequest(OpenAIWire):
    """The body of `POST /v1/chat/completions`."""

    model: str = Field(min_length=1)
    messages: list[MessageIn] = Field(min_length=1)
    tools: list[ToolIn] | None = None
    tool_choice: Literal["none", "auto", "required"] | NamedToolChoice | None = None
    parallel_tool_calls: bool | None = None
    stream: bool | None = None
    stream_options: StreamOptions | None = None
    n: int | None = None
    # Read and ignored: they tune a real model's sampling and limits.
    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int | None = None
    max_completion_tokens: int | None = None
    stop: str | list[str] | None = None
    presence_penalty: float | None = None
    frequency_penalty: float | None = None
    logit_bias: dict[str, float] | None = None
    logprobs: bool | None = None
    top_logprobs: int | None = None
    seed: int | None = None
    user: str | None = None
    response_format: dict[str, Any] | None = None
    reasoning_effort: str | None = None
    verbosity: str | None = None
    metadata: dict[str, str] | None = None
    store: bool | None = None
    service_tier: str | None = None
    modalities: list[str] | None = None
    prediction: dict[str, Any] | None = None
    audio: dict[str, Any] | None = None
    web_search_options: dict[str, Any] | None = None
    prompt_cache_key: str | None = None
    safety_identifier: str | None = None

    @field_validator("n")
    @classmethod
    def _one_choice(cls, n: int | None) -> int | None:
        if n is not None and n != 1:
            raise ValueError(f"must be 1: the scripted model gives one answer. Current input: "
                             f"{n}")
        return n

    @field_validator("messages")
    @classmethod
    def _calls_answered(cls, messages: list[MessageIn],
                        info: ValidationInfo) -> list[MessageIn]:
        # A lenient server (validation context `accept_unanswered_calls`) answers on.
        if not (info.context or {}).get(ACCEPT_UNANSWERED_CALLS):
            refuse_unanswered_calls(messages)
        return messages


ACCEPT_UNANSWERED_CALLS = "accept_unanswered_calls"
"""Validation context key: accept a tool call no tool message answers (a lenient server)."""


def refuse_unanswered_calls(messages: list[MessageIn]) -> None:
    """OpenAI's rule for a conversation: every tool call an assistant message makes is
    answered by a tool message before the next message of another role, and every tool
    message answers such a call. A client that drops a result (a denied call sent on with
    no answer) is refused here, as OpenAI refuses it."""
    waiting: dict[str, int] = {}
    for position, message in enumerate(messages):
        if isinstance(message, ToolMessageIn):
            if message.tool_call_id not in waiting:
                raise ValueError(
                    f"messages[{position}] is a tool message for {message.tool_call_id!r}, "
                    "which answers no tool call of the assistant message before it")
            del waiting[message.tool_call_id]
            continue
        if waiting:
            raise ValueError(
                f"the assistant message messages[{min(waiting.values())}] made tool calls "
                f"that no tool message answers before messages[{position}]: "
                f"{', '.join(sorted(waiting))}; send one tool message per tool_call_id")
        if isinstance(message, AssistantMessageIn):
            waiting = {call.id: position for call in message.tool_calls or []}
    # Calls of the last message may wait: the model just made them.


# ---- into the gateway's own request -----------------------------------------------------

def to_model_request(request: ChatCompletionRequest) -> ModelRequest:
    """The gateway's request for the same conversation: text joined, each tool result read
    as the §5 envelope the scripted model understands (`framework_results.as_envelope`), the
    tools offered (none with `tool_choice: "none"`)."""
    messages: list[Message] = [_message(message) for message in request.messages]
    offered = [] if request.tool_choice == "none" else request.tools or []
    tools = [ToolDefinition(function=FunctionDefinition(
                 name=tool.function.name, description=tool.function.description,
                 parameters=tool.function.parameters or {}))
             for tool in offered]
    return ModelRequest(messages=messages, tools=tools)


def _message(message: MessageIn) -> Message:
    if isinstance(message, SystemMessageIn):
        return SystemMessage(role="system", content=joined(message.content) or "")
    if isinstance(message, UserMessageIn):
        return UserMessage(role="user", content=joined(message.content) or "")
    if isinstance(message, ToolMessageIn):
        return ToolMessage(role="tool", tool_call_id=message.tool_call_id,
                           content=as_envelope(joined(message.content) or ""))
    calls = [ToolCall(id=call.id, function=FunctionCall(name=call.function.name,
                                                        arguments=call.function.arguments))
             for call in message.tool_calls or []]
    return AssistantMessage(content=message.text(), tool_calls=calls or None)


# ---- the answer --------------------------------------------------------------------------

ZERO_USAGE = {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
"""The scripted model counts no tokens; clients that read usage get zeros, never a guess."""


def finish_reason(message: AssistantMessage) -> Literal["stop", "tool_calls"]:
    return "tool_calls" if message.tool_calls else "stop"


@dataclass(frozen=True)
class Answer:
    """What every object of one answer repeats: its id, the model named, when it was made."""

    completion_id: str
    model: str
    created: int

    def head(self, kind: str) -> dict[str, Any]:
        return {"id": self.completion_id, "object": kind, "created": self.created,
                "model": self.model}


def completion_body(message: AssistantMessage, answer: Answer) -> dict[str, Any]:
    """A non-streamed answer: OpenAI's `chat.completion` object."""
    wire: dict[str, Any] = {"role": "assistant", "content": message.content, "refusal": None}
    if message.tool_calls:
        wire["tool_calls"] = [call.model_dump() for call in message.tool_calls]
    return {
        **answer.head("chat.completion"),
        "choices": [{"index": 0, "message": wire, "logprobs": None,
                     "finish_reason": finish_reason(message)}],
        "usage": ZERO_USAGE,
    }


def completion_chunks(message: AssistantMessage, answer: Answer, *,
                      include_usage: bool) -> Iterator[dict[str, Any]]:
    """A streamed answer: OpenAI's `chat.completion.chunk` objects, in order (the role, the
    text in pieces, each tool call's id and name then its arguments in pieces, the finish
    reason, and the usage when the client asked for it)."""

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**answer.head("chat.completion.chunk"),
                "choices": [{"index": 0, "delta": delta, "logprobs": None,
                             "finish_reason": finish}]}

    yield chunk({"role": "assistant", "content": ""})
    for piece in pieces(message.content or "", TEXT_PIECES):
        yield chunk({"content": piece})
    for index, call in enumerate(message.tool_calls or []):
        yield chunk({"tool_calls": [{"index": index, "id": call.id, "type": "function",
                                     "function": {"name": call.function.name,
                                                  "arguments": ""}}]})
        for piece in pieces(call.function.arguments, ARGUMENT_PIECES):
            yield chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    yield chunk({}, finish_reason(message))
    if include_usage:
        yield {**answer.head("chat.completion.chunk"), "choices": [], "usage": ZERO_USAGE}


def pieces(text: str, most: int) -> list[str]:
    """`text` cut into at most `most` consecutive pieces of about equal length (none if
    empty); joined they are `text` exactly."""
    if not text:
        return []
    size = -(-len(text) // most)
    return [text[start:start + size] for start in range(0, len(text), size)]


def sse_event(data: dict[str, Any] | str) -> bytes:
    """One server-sent event as OpenAI frames it (`data: [DONE]` ends a stream)."""
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    return f"data: {text}\n\n".encode()


def error_body(message: str, *, code: str, param: str | None = None,
               status: int = 400) -> dict[str, Any]:
    """OpenAI's error object; `type` as OpenAI sets it for the status."""
    kind = "server_error" if status >= 500 else "invalid_request_error"
    return {"error": {"message": message, "type": kind, "param": param, "code": code}}


def models_body() -> dict[str, Any]:
    return {"object": "list", "data": [{"id": SCRIPTED_MODEL_ID, "object": "model",
                                        "created": 0, "owned_by": "pling-harness"}]}

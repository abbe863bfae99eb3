"""The Chat Completions subset spoken between page, gateway and providers, as pydantic models.

Our own wire (what the page sends, what the gateway answers, what the scripted model
produces) is strict: `extra="forbid"`. Upstream replies are parsed by the lenient
`Upstream*` models below instead, see their note.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

# The page's locale as a language tag (zh, en, ja, zh-CN, pt-BR): any well-formed one; what
# the model answers in is its provider's business (the scripted model: its rules' locale).
ModelLocale = Annotated[str, Field(pattern=r"^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8}){0,3}$",
                                   max_length=35)]


class WireModel(BaseModel):
    model_config = ConfigDict(extra="forbid")


class FunctionCall(WireModel):
    name: str
    # The model's raw text: never parsed or re-encoded here; the page validates it.
    arguments: str


class ToolCall(WireModel):
    id: str
    type: Literal["function"] = "function"
    function: FunctionCall


class SystemMessage(WireModel):
    role: Literal["system"]
    content: str


class UserMessage(WireModel):
    role: Literal["user"]
    content: str


class AssistantMessage(WireModel):
    role: Literal["assistant"] = "assistant"
    content: str | None = None
    tool_calls: list[ToolCall] | None = None

    def is_empty(self) -> bool:
        """Neither text to show nor a tool to call: the gateway refuses to forward it."""
        return not self.content and not self.tool_calls

    def to_wire(self) -> dict[str, Any]:
        """The gateway's JSON: `content` always present (may be null), `tool_calls` only if any."""
        wire: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            wire["tool_calls"] = [call.model_dump() for call in self.tool_calls]
        return wire


class ToolMessage(WireModel):
    role: Literal["tool"]
    tool_call_id: str
    content: str


Message = Annotated[
    SystemMessage | UserMessage | AssistantMessage | ToolMessage, Field(discriminator="role")
]


class FunctionDefinition(WireModel):
    name: str = Field(min_length=1)
    description: str | None = None
    parameters: dict[str, Any] = Field(default_factory=dict)


class ToolDefinition(WireModel):
    type: Literal["function"] = "function"
    function: FunctionDefinition


class ModelRequest(WireModel):
    """`POST /api/model` body: the conversation, the page's projection, the page's locale."""

    messages: list[Message] = Field(min_length=1)
    tools: list[ToolDefinition] = Field(default_factory=list)
    locale: ModelLocale | None = None

    def tool_names(self) -> list[str]:
        return [tool.function.name for tool in self.tools]


class Choice(WireModel):
    index: int = 0
    message: AssistantMessage
    finish_reason: Literal["stop", "tool_calls"] = "stop"


class ChatCompletion(WireModel):
    """What a provider returns; the gateway forwards `choices[0].message`."""

    id: str
    object: Literal["chat.completion"] = "chat.completion"
    model: str
    choices: list[Choice] = Field(min_length=1)

    @classmethod
    def of(cls, message: AssistantMessage, *, id: str, model: str) -> ChatCompletion:
        finish: Literal["stop", "tool_calls"] = "tool_calls" if message.tool_calls else "stop"
        return cls(id=id, model=model, choices=[Choice(message=message, finish_reason=finish)])


# Upstream replies are parsed leniently on purpose: real OpenAI-compatible servers add
# fields we do not use (`refusal`, `annotations`, `logprobs`, `usage`, `system_fingerprint`,
# `index` on tool calls, `reasoning_content`, ...) and differ between vendors. We take only
# what we forward (content, tool calls with their raw `arguments`) and ignore the rest,
# so a new harmless field upstream never breaks the gateway. Anything we do forward is
# re-checked by the strict models above before it reaches the page.

class UpstreamModel(BaseModel):
    model_config = ConfigDict(extra="ignore")


class UpstreamFunctionCall(UpstreamModel):
    name: str
    arguments: str


class UpstreamToolCall(UpstreamModel):
    id: str
    type: Literal["function"] = "function"
    function: UpstreamFunctionCall


class UpstreamMessage(UpstreamModel):
    content: str | None = None
    tool_calls: list[UpstreamToolCall] | None = None


class UpstreamChoice(UpstreamModel):
    message: UpstreamMessage


class UpstreamCompletion(UpstreamModel):
    id: str = "upstream"
    model: str = "upstream"
    choices: list[UpstreamChoice] = Field(min_length=1)

    def to_completion(self) -> ChatCompletion:
        upstream = self.choices[0].message
        message = AssistantMessage(
            content=upstream.content,
            tool_calls=[
                ToolCall(
                    id=call.id,
                    function=FunctionCall(
                        name=call.function.name, arguments=call.function.arguments
                    ),
                )
                for call in upstream.tool_calls
            ]
            if upstream.tool_calls
            else None,
        )
        return ChatCompletion.of(message, id=self.id, model=self.model)

"""ModelHandle: a test's view of the scripted model: steer it, and read what it was told."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, cast, get_args

from harness.server.model import conversation
from harness.server.model.provider import ProviderError
from harness.server.model.scripted import ScriptedModel
from harness.server.model.wire import ModelLocale, ModelRequest

MODEL_LOCALES: tuple[str, ...] = get_args(ModelLocale)


def tool_call(call_id: str, name: str, arguments: str = "{}") -> dict[str, Any]:
    """One raw tool call for `ModelHandle.script`; `arguments` is sent as given (any string)."""
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def calling(*calls: Mapping[str, Any]) -> dict[str, Any]:
    """A raw assistant message that makes these tool calls, in this order, and says nothing."""
    return {"role": "assistant", "content": None, "tool_calls": list(calls)}


class ModelHandle:
    """Wraps a ScriptedModel: its overrides, its requests, and readers for tool calls/results.

    Steering (from the model's own API): `script(*raw_replies)` answers the next requests
    with these assistant messages; `when_user(pattern, tool_name, arguments)` makes a user
    message call any tool with any arguments; `reset_overrides()` forgets both.
    """

    def __init__(self, model: ScriptedModel) -> None:
        self.scripted = model

    # ---- steering ------------------------------------------------------------------------

    def script(self, *replies: Mapping[str, Any] | ProviderError) -> None:
        self.scripted.script(*replies)

    def when_user(self, pattern: str | re.Pattern[str], tool_name: str,
                  arguments: Mapping[str, Any] | str | None = None) -> None:
        self.scripted.when_user(pattern, tool_name, arguments)

    def reset_overrides(self) -> None:
        self.scripted.reset_overrides()

    # ---- reading -------------------------------------------------------------------------

    @property
    def requests(self) -> list[ModelRequest]:
        """Every request the model received, oldest first: messages, projected tools, locale."""
        return self.scripted.requests

    def request_bodies(self) -> list[dict[str, Any]]:
        return [request.model_dump(mode="json", exclude_none=True) for request in self.requests]

    def tool_calls(self) -> list[conversation.ToolCallSeen]:
        """Tool calls the model made that later requests carried in their history."""
        return conversation.tool_calls(self.request_bodies())

    def tool_results(self) -> list[conversation.ToolResultSeen]:
        """Tool results the model received, in order, each once (parsed §5 envelopes)."""
        return conversation.tool_results(self.request_bodies())

    def result_codes(self, action: str | None = None) -> list[str]:
        """`"OK"` or the error code of each tool result, optionally for one action."""
        return [r.code for r in self.tool_results() if action is None or r.action == action]

    def projected_tools(self, index: int = -1) -> list[str]:
        """The tool names the page projected with request `index` (default: the latest)."""
        return self.requests[index].tool_names()

    def success_phrases(self, action: str, locale: str) -> list[str]:
        """How the model words a success of `action` (its text up to the first `{field}`).

        Used to check that after a failure the assistant does not claim success. The
        generic "Done." is left out on purpose: "nothing was done." contains it.
        """
        if locale not in MODEL_LOCALES:
            raise ValueError(f"locale must be one of {MODEL_LOCALES}; got {locale!r}")
        replies = self.scripted.rules.replies.get(action)
        if replies is None:
            return []
        phrase = replies.success.text(cast(ModelLocale, locale)).split("{", 1)[0].strip()
        return [phrase] if phrase else []

"""ModelHandle: a test's view of the scripted model: steer it, and read what it was told."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, cast, get_args

from harness.server.model.conversation import Conversation, ToolCallSeen, ToolResultSeen
from harness.server.model.provider import ProviderError
from harness.server.model.scripted import ScriptedModel
from harness.server.model.wire import FunctionDefinition, ModelLocale, ModelRequest

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

    def conversation(self) -> Conversation:
        """Everything the model was asked and answered so far (see
        `harness.server.model.conversation`: one meaning of a request index)."""
        return Conversation(self.scripted.exchanges)

    def tool_calls(self) -> list[ToolCallSeen]:
        """Tool calls the model made in its replies, in order."""
        return self.conversation().tool_calls()

    def tool_results(self, *, request_index: int | None = None) -> list[ToolResultSeen]:
        """Tool results the model received, in order, each once (parsed §5 envelopes); only
        those first carried by request `request_index` (0 = the first request) if given."""
        return self.conversation().tool_results(request_index=request_index)

    def result_codes(self, action: str | None = None) -> list[str]:
        """`"OK"` or the error code of each tool result, optionally for one action."""
        return [r.code for r in self.tool_results() if action is None or r.action == action]

    def projected_tools(self, index: int = -1) -> list[str]:
        """The tool names the page projected with request `index` (default: the latest)."""
        return self.requests[index].tool_names()

    def offered_tools(self, index: int = -1) -> dict[str, FunctionDefinition]:
        """The tools projected with request `index` (default: the latest), by name."""
        return {tool.function.name: tool.function for tool in self.requests[index].tools}

    # ---- what the model says (its rules file) ---------------------------------------------

    def reply_after(self, action: str, code: str, locale: str) -> str:
        """What the model says after a result of `action` with `code` ("OK" for a success), in
        `locale`: its rules file's words, `{code}` filled in. A success reply whose words use
        fields of the result (`{name}`) keeps them as placeholders."""
        language = _model_locale(locale)
        rules = self.scripted.rules
        if code == "OK":
            return rules.success_reply(action).text(language)
        return rules.failure_reply(action, code).text(language).replace("{code}", code)

    def success_phrases(self, action: str, locale: str) -> list[str]:
        """How the model words a success of `action` (its text up to the first `{field}`).

        Used to check that after a failure the assistant does not claim success. The
        generic "Done." is left out on purpose: "nothing was done." contains it.
        """
        replies = self.scripted.rules.replies.get(action)
        if replies is None:
            return []
        phrase = replies.success.text(_model_locale(locale)).split("{", 1)[0].strip()
        return [phrase] if phrase else []


def _model_locale(locale: str) -> ModelLocale:
    if locale not in MODEL_LOCALES:
        raise ValueError(f"locale must be one of {MODEL_LOCALES}; got {locale!r}")
    return cast(ModelLocale, locale)

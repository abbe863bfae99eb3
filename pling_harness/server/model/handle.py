"""ModelHandle: a test's view of the scripted model: steer it, and read what it was told."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pling_harness.server.model.conversation import Conversation, ToolCallSeen, ToolResultSeen
from pling_harness.server.model.provider import ProviderError
from pling_harness.server.model.rules import LocalizedText
from pling_harness.server.model.scripted import ScriptedModel
from pling_harness.server.model.wire import FunctionDefinition, ModelRequest


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

    def accept_unanswered_tool_calls(self) -> None:
        """Be a lenient OpenAI-compatible server (`ScriptedModel.accept_unanswered_tool_calls`)."""
        self.scripted.accept_unanswered_tool_calls()

    def reset_overrides(self) -> None:
        self.scripted.reset_overrides()

    # ---- reading -------------------------------------------------------------------------

    @property
    def requests(self) -> list[ModelRequest]:
        """Every request the model received, oldest first: messages, projected tools, locale."""
        return self.scripted.requests

    def conversation(self) -> Conversation:
        """Everything the model was asked and answered so far (see
        `pling_harness.server.model.conversation`: one meaning of a request index)."""
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
        rules = self.scripted.rules
        if code == "OK":
            return _spoken(rules.success_reply(action), locale)
        return _spoken(rules.failure_reply(action, code), locale).replace("{code}", code)

    def success_phrases(self, action: str, locale: str) -> list[str]:
        """How the model words a success of `action` (its text up to the first `{field}`).

        Used to check that after a failure the assistant does not claim success. The
        generic "Done." is left out on purpose: "nothing was done." contains it.
        """
        replies = self.scripted.rules.replies.get(action)
        if replies is None:
            return []
        phrase = _spoken(replies.success, locale).split("{", 1)[0].strip()
        return [phrase] if phrase else []


def _spoken(text: LocalizedText, locale: str) -> str:
    """`text` in `locale`, which the rules must speak (no fallback: a check compares it)."""
    if not any(key == locale or key.split("-")[0] == locale.split("-")[0]
               for key in text.locales()):
        raise ValueError(f"the model's rules speak {sorted(text.locales())}, not {locale!r}; "
                         "give its texts in every locale of the tutorial")
    return text.text(locale)

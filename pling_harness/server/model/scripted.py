"""ScriptedModel: the default, deterministic provider, driven by a tutorial's rules file.

A user message becomes a tool call by the rules' regex intents; a tool result becomes a
plain reply that reports exactly what the result says, in the conversation's language.
Two promises are code, not data, so no rules file can switch them off: success is only
ever reported for a result with `"ok": true`, and after a tool result the model never
calls another tool (no retries).
"""

from __future__ import annotations

import json
import re
import threading
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from pling_harness.server.model.conversation import ModelExchange
from pling_harness.server.model.provider import ProviderBadReply, ProviderError
from pling_harness.server.model.rules import ModelRules, load_rules
from pling_harness.server.model.wire import (
    AssistantMessage,
    ChatCompletion,
    FunctionCall,
    ModelRequest,
    ToolCall,
    ToolMessage,
    UserMessage,
)

MODEL_NAME = "pling-scripted"
# For a request without `locale`: kana marks a message as Japanese, else a Han character as
# Chinese, Hangul as Korean; anything else is read as English (when the rules speak these).
SCRIPT_LANGUAGES = (
    (re.compile(r"[\u3040-\u30ff]"), "ja"),
    (re.compile(r"[\u3400-\u9fff\uf900-\ufaff]"), "zh"),
    (re.compile(r"[\uac00-\ud7af]"), "ko"),
)
FALLBACK_LANGUAGE = "en"
# Quotes a user may put around a name: "Acme", “Acme”, 「Acme」 ...
QUOTE_PAIRS = {'"': '"', "'": "'", "“": "”", "‘": "’", "「": "」", "『": "』", "《": "》"}  # noqa: RUF001
TRAILING_PUNCTUATION = ".,;!?。，；！？、 \t"
# Result code used when a tool message is not the §5 JSON envelope.
UNREADABLE_RESULT = "UNREADABLE_RESULT"
# The longest user message the intents are tried on. Python's regexes backtrack, and a rules
# file's patterns may take time that grows with the square of the text (`工作区.*状态` over
# "工作区" × 20000 held the server 9 s); a command to the scripted model is a line, so a
# longer message matches no intent and is answered like any request the model cannot place.
MAX_INTENT_MESSAGE_CHARACTERS = 2000


def detect_locale(text: str) -> str:
    """The language a user's message is written in, as far as its script tells."""
    if text.isascii():  # no script to tell; and a search through megabytes would hold the loop
        return FALLBACK_LANGUAGE
    for pattern, language in SCRIPT_LANGUAGES:
        if pattern.search(text):
            return language
    return FALLBACK_LANGUAGE


def clean_capture(text: str) -> str:
    """A captured name without surrounding spaces, trailing punctuation or one pair of quotes."""
    cleaned = text.strip().rstrip(TRAILING_PUNCTUATION).strip()
    if len(cleaned) >= 2 and QUOTE_PAIRS.get(cleaned[0]) == cleaned[-1]:
        cleaned = cleaned[1:-1].strip()
    return cleaned


class _KeepMissing(dict[str, str]):
    """format_map mapping that leaves unknown `{field}`s visible instead of failing."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def fill(template: str, values: Mapping[str, str]) -> str:
    return template.format_map(_KeepMissing(values))


@dataclass(frozen=True)
class UserRule:
    """A per-test intent added with `when_user`, tried before the file's intents."""

    pattern: re.Pattern[str]
    tool_name: str
    arguments: Mapping[str, Any] | str


@dataclass(frozen=True)
class ToolOutcome:
    """One tool result as the model reads it."""

    ok: bool
    code: str
    fields: Mapping[str, Any]


def read_tool_result(content: str) -> ToolOutcome:
    """Only `{"ok": true, ...}` is a success; anything else, garbage included, is a failure."""
    try:
        value = json.loads(content)
    except json.JSONDecodeError:
        return ToolOutcome(ok=False, code=UNREADABLE_RESULT, fields={})
    if not isinstance(value, dict):
        return ToolOutcome(ok=False, code=UNREADABLE_RESULT, fields={})
    if value.get("ok") is True:
        payload = value.get("data", value.get("receipt"))
        return ToolOutcome(ok=True, code="OK", fields=flatten(payload))
    code = value.get("code")
    return ToolOutcome(ok=False, code=code if isinstance(code, str) and code else
                       UNREADABLE_RESULT, fields={})


def flatten(payload: Any) -> dict[str, Any]:
    """Top-level fields of a result, plus those one object deeper (e.g. data.order.status)."""
    if not isinstance(payload, dict):
        return {}
    fields: dict[str, Any] = {}
    for value in payload.values():
        if isinstance(value, dict):
            fields.update(value)
    fields.update(payload)
    return fields


def parse_arguments(arguments: str) -> dict[str, Any]:
    try:
        value = json.loads(arguments)
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


class ScriptedModel:
    """Deterministic Chat Completions provider; tests steer it with `script` and `when_user`."""

    def __init__(self, rules: ModelRules, *, remember: bool = True) -> None:
        self.rules = rules
        # False: answer without keeping requests or replies (`requests` and `exchanges` stay
        # empty), for a server nobody inspects, which is never reset.
        self.remember = remember
        self._intents = [(intent, intent.compiled()) for intent in rules.intents]
        self._lock = threading.Lock()
        self._requests: list[ModelRequest] = []
        self._replies: dict[int, AssistantMessage] = {}
        self._scripted: deque[Mapping[str, Any] | ProviderError] = deque()
        self._user_rules: list[UserRule] = []
        self._calls_made = 0
        self._replies_made = 0
        # On OpenAI's wire: accept a conversation whose tool call has no tool message, as
        # lenient OpenAI-compatible servers do (`accept_unanswered_tool_calls`).
        self.accepts_unanswered_calls = False

    @classmethod
    def from_file(cls, path: Path, *, locales: Sequence[str] = ()) -> ScriptedModel:
        """The model of a rules file, which must speak each of `locales` (the tutorial's)."""
        return cls(load_rules(path, locales=locales))

    # --- the provider interface ------------------------------------------------------

    async def complete(self, request: ModelRequest) -> ChatCompletion:
        return self.respond(request)

    def respond(self, request: ModelRequest) -> ChatCompletion:
        """Synchronous core of `complete`: record the request, then answer it."""
        with self._lock:
            index = len(self._requests)
            if self.remember:
                self._requests.append(request)
            self._replies_made += 1
            completion_id = f"scripted-{self._replies_made}"
            scripted = self._scripted.popleft() if self._scripted else None
        if scripted is None:
            message = self._answer(request)
        elif isinstance(scripted, ProviderError):
            raise scripted
        else:
            message = self._validate_scripted(scripted)
        with self._lock:
            if index < len(self._requests) and self._requests[index] is request:  # no reset since
                self._replies[index] = message
        return ChatCompletion.of(message, id=completion_id, model=MODEL_NAME)

    # --- per-test overrides ----------------------------------------------------------

    @property
    def requests(self) -> list[ModelRequest]:
        """Every request received so far, oldest first (a copy)."""
        with self._lock:
            return list(self._requests)

    @property
    def exchanges(self) -> list[ModelExchange]:
        """Every request received so far with the reply it got (None: it raised), oldest
        first; index as in `pling_harness.server.model.conversation`."""
        with self._lock:
            return [ModelExchange(index=index, request=request, reply=self._replies.get(index))
                    for index, request in enumerate(self._requests)]

    def script(self, *replies: Mapping[str, Any] | ProviderError) -> None:
        """Answer the next requests with these raw assistant messages, in order, ignoring rules.

        A reply is sent as given (so it may be hostile, e.g. `arguments` that are not
        JSON); one that is not an assistant message at all makes the gateway answer
        502 MODEL_BAD_REPLY. A ProviderError is raised instead of answering.
        """
        with self._lock:
            self._scripted.extend(replies)

    def when_user(
        self,
        pattern: str | re.Pattern[str],
        tool_name: str,
        arguments: Mapping[str, Any] | str | None = None,
    ) -> None:
        """When the last user message matches `pattern`, call `tool_name`.

        Tried before the file's intents and regardless of the page's projection, so a
        test can make the model call an action the page does not offer. String values
        in a mapping may use `{group}` from the pattern; a str is sent as raw arguments.
        """
        compiled = pattern if isinstance(pattern, re.Pattern) else re.compile(
            pattern, re.IGNORECASE
        )
        rule = UserRule(compiled, tool_name, {} if arguments is None else arguments)
        with self._lock:
            self._user_rules.append(rule)

    def accept_unanswered_tool_calls(self) -> None:
        """On OpenAI's wire, answer a conversation in which a tool call has no tool message
        instead of refusing it (400) as OpenAI does: lenient OpenAI-compatible servers
        answer on, so a client that drops a call's result (an approved call skipped, a
        denial never sent) goes unnoticed there. Until `reset_overrides`."""
        self.accepts_unanswered_calls = True

    def reset_overrides(self) -> None:
        """Forget queued `script` replies and `when_user` rules; refuse unanswered calls."""
        with self._lock:
            self._scripted.clear()
            self._user_rules.clear()
            self.accepts_unanswered_calls = False

    def reset(self) -> None:
        """Back to a fresh model: no overrides, no recorded requests, call ids from call_1."""
        with self._lock:
            self._scripted.clear()
            self._user_rules.clear()
            self._requests.clear()
            self._replies.clear()
            self._calls_made = 0
            self._replies_made = 0

    # --- answering -------------------------------------------------------------------

    def _validate_scripted(self, raw: Mapping[str, Any]) -> AssistantMessage:
        try:
            return AssistantMessage.model_validate(dict(raw))
        except ValidationError as error:
            raise ProviderBadReply(
                f"scripted reply is not an assistant message: {error}"
            ) from error

    def _answer(self, request: ModelRequest) -> AssistantMessage:
        locale = request.locale or self._conversation_locale(request)
        last = request.messages[-1]
        if isinstance(last, ToolMessage):
            return AssistantMessage(content=self._report_results(request, locale))
        if isinstance(last, UserMessage):
            call = self._intended_call(last.content, request.tool_names())
            if call is not None:
                return AssistantMessage(tool_calls=[call])
        return AssistantMessage(content=self.rules.unknown_request.text(locale))

    def _conversation_locale(self, request: ModelRequest) -> str:
        for message in reversed(request.messages):
            if isinstance(message, UserMessage):
                return detect_locale(message.content)
        return FALLBACK_LANGUAGE

    def _next_call_id(self) -> str:
        with self._lock:
            self._calls_made += 1
            return f"call_{self._calls_made}"

    def _tool_call(self, name: str, arguments: str) -> ToolCall:
        return ToolCall(id=self._next_call_id(),
                        function=FunctionCall(name=name, arguments=arguments))

    def _intended_call(self, text: str, offered: list[str]) -> ToolCall | None:
        if len(text) > MAX_INTENT_MESSAGE_CHARACTERS:
            return None
        with self._lock:
            user_rules = list(self._user_rules)
        for rule in user_rules:
            match = rule.pattern.search(text)
            if match:
                return self._tool_call(rule.tool_name, self._arguments(rule.arguments, match))
        for intent, patterns in self._intents:
            # Like a real model, the file's intents only call what the page offers now.
            if intent.tool not in offered:
                continue
            for pattern in patterns:
                match = pattern.search(text)
                if match:
                    return self._tool_call(intent.tool, self._arguments(intent.arguments, match))
        return None

    def _arguments(self, template: Mapping[str, Any] | str, match: re.Match[str]) -> str:
        if isinstance(template, str):
            return template
        groups = {name: clean_capture(value) for name, value in match.groupdict().items()
                  if value is not None}
        values = {key: fill(value, groups) if isinstance(value, str) else value
                  for key, value in template.items()}
        return json.dumps(values, ensure_ascii=False)

    def _report_results(self, request: ModelRequest, locale: str) -> str:
        """One sentence per tool result of the latest turn, in the order the calls were made."""
        messages = request.messages
        start = len(messages)
        while start > 0 and isinstance(messages[start - 1], ToolMessage):
            start -= 1
        calls: dict[str, ToolCall] = {}
        for message in messages[:start]:
            if isinstance(message, AssistantMessage) and message.tool_calls:
                calls.update((call.id, call) for call in message.tool_calls)
        lines = []
        for message in messages[start:]:
            assert isinstance(message, ToolMessage)
            call = calls.get(message.tool_call_id)
            lines.append(self._report(call, read_tool_result(message.content), locale))
        return "\n".join(lines)

    def _report(self, call: ToolCall | None, outcome: ToolOutcome, locale: str) -> str:
        tool = call.function.name if call is not None else ""
        if outcome.ok:
            success = self.rules.success_reply(tool)
            arguments = parse_arguments(call.function.arguments) if call is not None else {}
            fields = {**arguments, **outcome.fields}
            return fill(success.text(locale), self._say_fields(fields, locale))
        failure = self.rules.failure_reply(tool, outcome.code)
        return fill(failure.text(locale), {"code": outcome.code})

    def _say_fields(self, fields: Mapping[str, Any], locale: str) -> dict[str, str]:
        said: dict[str, str] = {}
        for key, value in fields.items():
            words = self.rules.values.get(key, {})
            if isinstance(value, bool) and str(value).lower() in words:
                said[key] = words[str(value).lower()].text(locale)
            elif isinstance(value, str | int | float) and not isinstance(value, bool):
                said[key] = str(value)
        return said

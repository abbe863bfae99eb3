"""How the scripted model reads a tool result that a framework, not our runtime, sent.

Our runtime answers every tool call with the §5 envelope (`{"ok": true, "data": ...}`,
`{"ok": false, "code": ..., "message": ...}`), and the scripted model reports exactly
what an envelope says. A framework sends what the page's tool returned, or words of its
own: the AI SDK sends a tool's return value as JSON, a thrown error's message as text, and
a denied approval as "Tool call execution denied." (AI SDK 6: "Tool execution denied.").
On OpenAI's wire each tool message is read as the envelope it means, in this order:

| the tool message's text | read as |
|---|---|
| a §5 envelope (a JSON object whose `ok` is true or false) | itself |
| a framework's own denial text, exactly (`DENIAL_TEXTS`) | `PERMISSION_DENIED` |
| a framework's own refusal of a call before it ran (`REFUSAL_TEXTS`) | its code |
| `CODE: words` (four or more capitals, digits or underscores, a colon, a space) | that code |
| any other JSON value (a tool's return value) | success, the value as `data` |
| any other text (an error's message, a denial in the page's own words) | `RUN_FAILED` |

A failure carries the text (or the words after the code) as its `message`.

Text that is not JSON is never read as a success: a page whose tool returns plain text on
success is told it failed, never the other way round (the scripted model's promise that
only `"ok": true` is reported as done holds on this wire too). A check reads the same
envelopes with `ModelHandle.tool_results()`; the raw text stays in the server log's body.
"""

from __future__ import annotations

import json
import re
from typing import Any

# What the AI SDK's OpenAI-compatible provider sends for a denied approval that carries no
# reason of the page's own (`@ai-sdk/openai-compatible`: 7.x, then 6.x).
DENIAL_TEXTS = frozenset({"Tool call execution denied.", "Tool execution denied."})
DENIED = "PERMISSION_DENIED"
# How the AI SDK (`ai` 5 to 7) words a call it refused before anything ran, in the tool
# result the model gets within the same request: the arguments failed the tool's
# `inputSchema` (`InvalidToolInputError`, naming the schema's issues), or no such tool
# (`NoSuchToolError`). The page's own words for them reach the model in later requests.
# `AI_…Error: ` before the words when the SDK sends the error's own text (ai 7).
REFUSAL_TEXTS = (
    (re.compile(r"^(?:AI_InvalidToolInputError: )?Invalid input for tool \S+: "),
     "INVALID_PARAMS"),
    (re.compile(r"^(?:AI_NoSuchToolError: )?Model tried to call unavailable tool '"),
     "UNKNOWN_ACTION"),
    # CopilotKit answers a call whose arguments do not parse as a JSON object itself, before
    # any tool's handler or render sees it: `Error: ` and the parser's message
    # (`executeToolHandler`, `isArgumentError`, and `ensureObjectArgs` in @copilotkit/core
    # 1.74.0, dist/index.mjs; V8's JSON.parse messages).
    (re.compile(r"^Error: (?:Unexpected end of JSON input|Unexpected token |Unexpected "
                r"non-whitespace character after JSON|Unterminated string in JSON|Bad "
                r"(?:control|escaped) character in JSON|Expected .{1,60} in JSON at position "
                r"\d+|\S.{0,60} is not valid JSON|Tool arguments for \S+ parsed to "
                r"non-object)"), "INVALID_PARAMS"),
)
FAILED = "RUN_FAILED"
# "HANDOFF_CANCELLED: You cancelled publishing." — how a page names the outcome of a step
# whose result it writes itself (an AI SDK client-side tool's `output-error`, a denial's
# reason). One word is a code too (`UNAVAILABLE`); under four characters ("OK: done") it
# is text.
CODED_TEXT = re.compile(r"^(?P<code>[A-Z][A-Z0-9_]{3,}): (?P<message>.+)$", re.DOTALL)


def read_result(text: str) -> dict[str, Any]:
    """The §5 envelope that the tool message `text` means (see the module's table)."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return _from_text(text)
    if isinstance(value, dict) and isinstance(value.get("ok"), bool):
        return value
    return {"ok": True, "data": value}


def _from_text(text: str) -> dict[str, Any]:
    if text.strip() in DENIAL_TEXTS:
        return {"ok": False, "code": DENIED, "message": text}
    for refusal, code in REFUSAL_TEXTS:
        if refusal.match(text):
            return {"ok": False, "code": code, "message": text}
    coded = CODED_TEXT.match(text.strip())
    if coded:
        return {"ok": False, "code": coded["code"], "message": coded["message"]}
    return {"ok": False, "code": FAILED, "message": text}


def as_envelope(text: str) -> str:
    """`read_result(text)` as the tool message the scripted model reads: `text` itself when
    it already is an envelope, so our own runtime's results pass through unchanged."""
    envelope = read_result(text)
    try:
        if json.loads(text) == envelope:
            return text
    except json.JSONDecodeError:
        pass
    return json.dumps(envelope, ensure_ascii=False)


def ui_messages_carry_output(body: str | None, call_id: str) -> bool:
    """Whether a chat request the page sent to its own server (the AI SDK's `useChat`: a JSON
    body whose `messages` hold UI message `parts`) carries the output of `call_id`: a tool
    part of that call in state `output-available`. The page's server then tells the model."""
    messages = _sent_messages(body)
    if messages is None:
        return False
    return any(isinstance(part, dict) and part.get("toolCallId") == call_id
               and part.get("state") == "output-available"
               for message in messages if isinstance(message, dict)
               for part in (message.get("parts") or []))


def agui_tool_result(body: str | None, call_id: str) -> dict[str, Any] | None:
    """The §5 envelope of `call_id`'s result in a run request the page sent to an AG-UI
    runtime (CopilotKit: a JSON `RunAgentInput` whose `messages` hold `role: "tool"`
    messages, sent as is or inside `{"method", "params", "body"}`), or None when the request
    carries no result for that call."""
    messages = _sent_messages(body, envelope="body")
    if messages is None:
        return None
    for message in messages:
        if (isinstance(message, dict) and message.get("role") == "tool"
                and message.get("toolCallId") == call_id
                and isinstance(message.get("content"), str)):
            return read_result(message["content"])
    return None


def _sent_messages(body: str | None, envelope: str | None = None) -> list[Any] | None:
    """The `messages` list of a JSON request body (inside its `envelope` key when it has one
    holding an object), or None for a body that is not JSON or holds no such list."""
    try:
        value = json.loads(body or "")
    except json.JSONDecodeError:
        return None
    if envelope is not None and isinstance(value, dict) and isinstance(value.get(envelope), dict):
        value = value[envelope]
    messages = value.get("messages") if isinstance(value, dict) else None
    return messages if isinstance(messages, list) else None

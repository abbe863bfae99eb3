"""One-line descriptions of timeline entries, written for a person reading a failed check."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal

from pling_harness.evidence.probe import BusinessView, PageEvent, ShownPart
from pling_harness.evidence.records import BrowserRequest
from pling_harness.server.log import ServerRecord
from pling_harness.server.model import conversation
from pling_harness.server.model.wire import ModelRequest, ToolMessage

# Long texts (model replies, bodies) are cut so each entry stays on one readable line.
MAX_TEXT = 90


def short(text: object, limit: int = MAX_TEXT) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def describe_state(state: BusinessView) -> str:
    """The business view as `name=value` pairs (the names the tutorial declares)."""
    parts = [f"{name}={value!r}" for name, value in state.items() if value is not None]
    return " ".join(parts) or "(no business view on this page)"


def describe_model_request(request: ModelRequest | None) -> str:
    """What is new in a model request: the user's words or the tool results it carries."""
    if request is None:
        return "model request (not a valid request body)"
    added = conversation.new_messages([request])[0][-4:]
    results = [m for m in added if isinstance(m, ToolMessage)]
    if results:
        said = ", ".join(f"{r.tool_call_id}: {short(r.content, 60)}" for r in results)
        return f"model request carrying tool result(s) {said}"
    user = conversation.last_user_text(request)
    tools = request.tool_names()
    return f"model request, user said {short(user, 50)!r}; tools: {', '.join(tools) or 'none'}"


def describe_reply(response: Any) -> str:
    message = response.get("message") if isinstance(response, Mapping) else None
    if message is None and isinstance(response, Mapping) and response.get("choices"):
        message = response["choices"][0].get("message")
    if not isinstance(message, Mapping):
        return f"model reply {short(json.dumps(response, ensure_ascii=False), 70)}"
    calls = message.get("tool_calls") or []
    said = [
        f"{c.get('function', {}).get('name')}({short(c.get('function', {}).get('arguments'), 40)})"
        f" [{c.get('id')}]"
        for c in calls if isinstance(c, Mapping)
    ]
    if said:
        return "model replied with tool call(s) " + ", ".join(said)
    return f"model replied {short(message.get('content'))!r}"


def describe_server(record: ServerRecord) -> str:
    after = "state after: " + " ".join(
        f"{field}={value!r}" for field, value in record.state.model_dump().items())
    if record.kind == "model.request":
        return f"[{record.seq}] {describe_model_request(record.model_request)}"
    if record.kind == "model.reply":
        return f"[{record.seq}] {describe_reply(record.response)}"
    if record.kind == "model.error":
        reason = short(record.detail or record.response)
        return f"[{record.seq}] model error {record.status}: {reason}"
    body = ""
    if record.body not in (None, {}):
        body = " " + short(json.dumps(record.body, ensure_ascii=False), 50)
    return f"[{record.seq}] {record.method} {record.path}{body} → {record.status}; {after}"


def describe_browser(request: BrowserRequest, kind: Literal["sent", "finished"]) -> str:
    if kind == "sent":
        return f"sent {request.method} {request.path}"
    outcome = request.failure if request.failure else str(request.status)
    return f"got {outcome} for {request.method} {request.path}"


def describe_page_event(event: PageEvent, *, model_path: str) -> str:
    """One probe entry; a request to `model_path` is described as a model request."""
    if event.kind == "request":
        data = event.data
        what = ""
        if data.path.split("?", 1)[0] == model_path and data.body:
            what = " — " + describe_model_request(conversation.parse_sent_request(data.body))
        elif data.body:
            what = f" {short(data.body, 60)}"
        ui = ", ".join(_describe_part(u) for u in data.ui)
        on_screen = f"; on screen: {ui}" if ui else ""
        return (f"page sent #{data.id} {data.method} {data.path}{what} "
                f"(page shows {describe_state(data.state)}{on_screen})")
    if event.kind == "response":
        outcome = event.data.error or str(event.data.status)
        return f"page got {outcome} for #{event.data.id}"
    if event.kind == "appear":
        return f"SHOWN {_describe_part(event.data)}"
    if event.kind == "disappear":
        return f"gone {_describe_part(event.data)}"
    if event.kind == "state":
        return f"page shows {describe_state(event.data)}"
    if event.kind == "write":
        write = event.data
        where = write.target or write.testid or "an input"
        return f"SCRIPT WROTE {write.value!r} into {where} via {write.via}"
    if event.kind == "click":
        click = event.data
        what = click.control or click.target or "element"
        decision = f" (decision {click.decision})" if click.decision else ""
        who = "user click" if click.trusted else "SCRIPTED click"
        return f"{who} on {what}{decision}"
    if event.kind == "input":
        who = "user input" if event.data.trusted else "SCRIPTED input event"
        return f"{who} in {event.data.target or event.data.testid}"
    detail = event.data.detail
    kind = detail.get("kind") if isinstance(detail, Mapping) else None
    rest = detail
    if isinstance(detail, Mapping):
        rest = {k: v for k, v in detail.items() if k != "kind"}
    return f"runtime reports {kind}: {short(json.dumps(rest, ensure_ascii=False), 70)}"


def _describe_part(shown: ShownPart) -> str:
    """`approval action=archive_workspace policy=ask-always always=no`."""
    fields = {"action": shown.action, "policy": shown.policy, "target": shown.target,
              "always": None if shown.always is None else ("yes" if shown.always else "no")}
    said = " ".join(f"{name}={value}" for name, value in fields.items() if value is not None)
    return f"{shown.part} {said}".strip()

"""RepeatedApproval: the page's own request that carries the user's approval, sent on with that
approval answered twice, as page script (or a client that resends it) could send it. The
request is the page's, rewritten at the network (Playwright routing), so the server sees the
page's own conversation, its signed approval included; the body's format is the dock
driver's `decision_wire`. One approval must run its action at most once however often it
is repeated (ai 7.0.149 fixed the AI SDK running it once per repeat)."""

from __future__ import annotations

import copy
import json
from typing import Any

from playwright.sync_api import Page, Route

from pling_harness.project.dock_driver import DecisionWire


class RepeatedApproval:
    """From now on, the first request to the driver's decision endpoint that carries an
    approval of `action` goes out with that approval repeated; `call_ids` names the calls
    whose approval was repeated (empty: the page sent none)."""

    def __init__(self, page: Page, wire: DecisionWire, action: str) -> None:
        self.page = page
        self.action = action
        self.pattern = f"**{wire.endpoint}"
        self.call_ids: list[str] = []
        page.route(self.pattern, self._repeat)

    def _repeat(self, route: Route) -> None:
        body = _json_object(route.request.post_data) if not self.call_ids else None
        call_id = repeat_ai_sdk_approval(body, self.action) if body is not None else None
        if call_id is None:
            route.fallback()
            return
        self.call_ids.append(call_id)
        route.fallback(post_data=json.dumps(body))

    def stop(self) -> None:
        """Let the page's later requests through unchanged."""
        self.page.unroute(self.pattern, self._repeat)


def repeat_ai_sdk_approval(body: dict[str, Any], action: str) -> str | None:
    """In an AI SDK chat body (`{messages: UIMessage[]}`), repeat the tool part of the
    last message that answers an approval of `action` with "approved" (the copy right after
    it, as a resent or replayed answer arrives), and name its call; None when the last
    message answers no such approval. Changes `body` in place."""
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages or not isinstance(messages[-1], dict):
        return None
    parts = messages[-1].get("parts")
    if messages[-1].get("role") != "assistant" or not isinstance(parts, list):
        return None
    for index, part in enumerate(parts):
        if isinstance(part, dict) and _calls(part, action) \
                and part.get("state") == "approval-responded" \
                and isinstance(part.get("approval"), dict) \
                and part["approval"].get("approved") is True:
            parts.insert(index + 1, copy.deepcopy(part))
            return str(part.get("toolCallId"))
    return None


def _calls(part: dict[str, Any], action: str) -> bool:
    """A tool part of `action`: `tool-<name>` for a static tool, `dynamic-tool` naming it."""
    return part.get("type") == f"tool-{action}" \
        or (part.get("type") == "dynamic-tool" and part.get("toolName") == action)


def _json_object(text: str | None) -> dict[str, Any] | None:
    try:
        value = json.loads(text or "")
    except ValueError:
        return None
    return value if isinstance(value, dict) else None

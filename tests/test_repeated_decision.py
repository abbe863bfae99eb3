"""A repeated approval (`Dock.repeat_next_approval`): where a driver says decisions leave the
page (`decision_wire`), and how an AI SDK chat body gets one approval answered twice."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from pling_harness.browser.repeated_decision import repeat_ai_sdk_approval
from pling_harness.project.dock_driver import (
    DecisionWire,
    DriverError,
    NotObservable,
    default_driver,
    load_driver,
)

PROJECT_ROOT = Path(__file__).resolve().parents[1]
AI_SDK_DRIVER = PROJECT_ROOT / "tutorials" / "r-15-confirmation-and-human-handoff" / "drivers" \
    / "ai-sdk.json"


def tool_part(action: str, *, state: str = "approval-responded", approved: bool = True,
              call_id: str = "call_1") -> dict[str, Any]:
    return {"type": f"tool-{action}", "toolCallId": call_id, "state": state, "input": {},
            "approval": {"id": f"aitxt-{call_id}", "approved": approved,
                         "signature": "signed-by-the-server"}}


def chat_body(*parts: dict[str, Any], last_role: str = "assistant") -> dict[str, Any]:
    return {"id": "chat", "locale": "en", "trigger": "submit-message", "messages": [
        {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "archive it"}]},
        {"id": "a1", "role": last_role, "parts": [{"type": "step-start"}, *parts]},
    ]}


def test_an_approved_part_is_repeated_right_after_itself_and_its_call_named() -> None:
    archive = tool_part("archive_workspace", call_id="call_7")
    body = chat_body(tool_part("get_workspace", state="output-available"), archive,
                     {"type": "text", "text": "after"})

    assert repeat_ai_sdk_approval(body, "archive_workspace") == "call_7"

    parts = body["messages"][-1]["parts"]
    assert [part["type"] for part in parts] == [
        "step-start", "tool-get_workspace", "tool-archive_workspace", "tool-archive_workspace",
        "text"]
    assert parts[2] == parts[3] == archive and parts[2] is not parts[3]


def test_a_dynamic_tool_part_naming_the_action_is_repeated_too() -> None:
    part = {**tool_part("x"), "type": "dynamic-tool", "toolName": "archive_workspace"}
    body = chat_body(part)

    assert repeat_ai_sdk_approval(body, "archive_workspace") == "call_1"
    assert len(body["messages"][-1]["parts"]) == 3


@pytest.mark.parametrize("body", [
    pytest.param(chat_body(tool_part("archive_workspace", approved=False)), id="denied"),
    pytest.param(chat_body(tool_part("archive_workspace", state="approval-requested")),
                 id="not-answered-yet"),
    pytest.param(chat_body(tool_part("reset_workspace")), id="another-action"),
    pytest.param(chat_body(tool_part("archive_workspace"), last_role="user"),
                 id="last-message-the-users"),
    pytest.param({"messages": "not a list"}, id="messages-not-a-list"),
    pytest.param({"messages": []}, id="no-messages"),
])
def test_a_body_answering_no_approval_of_the_action_is_left_alone(body: dict[str, Any]) -> None:
    before = copy.deepcopy(body)

    assert repeat_ai_sdk_approval(body, "archive_workspace") is None
    assert body == before


def test_the_ai_sdk_driver_names_its_chat_route_as_where_decisions_leave_the_page() -> None:
    assert load_driver(AI_SDK_DRIVER).decision_wire == DecisionWire(
        endpoint="/api/chat", format="ai-sdk-ui-messages")


def test_a_page_deciding_in_the_browser_has_no_decision_wire_so_the_check_is_na() -> None:
    ours = default_driver()

    with pytest.raises(NotObservable, match=r"pling: decision_wire: the page decides"):
        ours.require(ours.decision_wire, "decision_wire")


def test_a_decision_wire_outside_the_assistant_endpoints_is_refused(tmp_path: Path) -> None:
    data = json.loads(AI_SDK_DRIVER.read_text(encoding="utf-8"))
    data["decision_wire"]["endpoint"] = "/api/other"
    path = tmp_path / "drivers" / "mine.json"
    path.parent.mkdir()
    path.write_text(json.dumps(data), encoding="utf-8")

    with pytest.raises(DriverError, match=r"decision_wire\.endpoint must be one of "
                                          r"assistant_endpoints \['/api/chat'\]. Current "
                                          r"input: '/api/other'"):
        load_driver(path)

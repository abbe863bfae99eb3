"""Gaps that machine-made mutants found (docs/generated-mutants.md) and no other check covers.

An approval is "allowed to try", given for the page as it was when the card appeared. If the
action stopped being available while the card was open (its control disabled or removed, the
action switched off or unregistered, its scope left), Allow must not run it: the model is
told the code step 3 or 4 of SPEC §3 would give now, and no business request is made.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from harness import guarantees
from harness.dock import Dock
from harness.model_handle import ModelHandle
from harness.serve import TutorialServer
from harness.timeline import Timeline

ACTION = "guarded_save"
BUTTON = f"[data-testid='testbed-action-{ACTION}']"
# An `ask` action on the testbed: every run would be a POST the server records.
DECLARATION: dict[str, Any] = {
    "id": ACTION, "desc": "Guarded save", "kind": "write", "confirm": True, "scope": "editor",
    "params": {"type": "object", "properties": {"note": {"type": "string"}},
               "required": ["note"], "additionalProperties": False},
}
ARGUMENTS = {"note": "x"}
DECLARE = ("decl => { window.plingTestbed.declare(decl);"
           " window.plingTestbed.activateScope('editor'); }")
# What the user types; a `when_user` rule turns it into the call.
GO_AHEAD = {"en": "go ahead", "zh": "开始吧"}
GO_AHEAD_PATTERN = "go ahead|开始吧"
# Page script run while the approval card is open, and the code the call must then get.
CHANGES = [
    pytest.param(f"() => {{ document.querySelector(\"{BUTTON}\").disabled = true; }}",
                 "UNAVAILABLE", id="control-disabled"),
    pytest.param(f"() => {{ document.querySelector(\"{BUTTON}\").remove(); }}",
                 "UNAVAILABLE", id="control-removed"),
    pytest.param(f"() => window.plingTestbed.setEnabled('{ACTION}', false)",
                 "UNAVAILABLE", id="switched-off"),
    pytest.param(f"() => window.plingTestbed.undeclare('{ACTION}')",
                 "UNAVAILABLE", id="unregistered"),
    pytest.param("() => window.plingTestbed.deactivateScope('editor')",
                 "OUT_OF_SCOPE", id="scope-left"),
]


@pytest.mark.guarantee("availability-rechecked-after-approval")
@pytest.mark.parametrize(("change", "code"), CHANGES)
def test_action_made_unavailable_while_its_card_is_open_runs_nothing_after_allow(
    testbed_page: Page, dock: Dock, timeline: Timeline, tutorial_server: TutorialServer,
    model: ModelHandle, locale: str, change: str, code: str,
) -> None:
    testbed_page.evaluate(DECLARE, DECLARATION)
    model.when_user(GO_AHEAD_PATTERN, ACTION, ARGUMENTS)
    start = timeline.mark()
    dock.ask(GO_AHEAD[locale])
    expect(dock.approval).to_have_attribute("data-action", ACTION)

    testbed_page.evaluate(change)
    dock.approve()

    guarantees.model_received(timeline, action=ACTION, code=code, since=start,
                              guarantee="availability-rechecked-after-approval")
    guarantees.no_business_request(timeline, since=start,
                                   guarantee="availability-rechecked-after-approval")
    assert tutorial_server.testbed.calls() == []
    expect(dock.messages("notice").last).to_have_attribute("data-code", code)

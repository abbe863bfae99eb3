"""The projection (the `tools` sent with every model request) and how calls are matched to it.

SPEC §1: hiding a button does not remove an action from the projection; only unregistering
or scoping does. So the model is offered every registered action in active scope, whatever
its button looks like, and a disabled one answers UNAVAILABLE when called (no prompt). The
projection is read from what the server received, never from the runtime.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page

from harness.browser.dock import Dock
from harness.browser.pages import open_page
from harness.evidence import guarantees
from harness.evidence.guarantees import GuaranteeViolation
from harness.evidence.timeline import Timeline
from harness.server.model.handle import ModelHandle
from harness.server.runner import TutorialServer
from harness.server.state import INITIAL_WORKSPACE

GUARANTEE = "projection-complete"
# What the user types; a `when_user` rule turns it into the call under test.
GO_AHEAD = {"en": "go ahead", "zh": "开始吧"}
GO_AHEAD_PATTERN = "go ahead|开始吧"
PARAMS = {"type": "object", "properties": {"note": {"type": "string"}},
          "required": ["note"], "additionalProperties": False}
ARGUMENTS = {"note": "x"}
# How a test changes an action's testbed button (page script, not the runtime): each state
# by name, so a failing case says what the button looked like.
BUTTON_STATES = ["visible", "hidden-attribute", "display-none", "visibility-hidden",
                 "row-hidden", "disabled"]
SET_BUTTON_STATE = """([id, state]) => {
  const button = document.querySelector(`[data-testid="testbed-action-${id}"]`);
  if (state === "hidden-attribute") button.hidden = true;
  if (state === "display-none") button.style.display = "none";
  if (state === "visibility-hidden") button.style.visibility = "hidden";
  if (state === "row-hidden") button.parentElement.style.display = "none";  // its row
  if (state === "disabled") button.disabled = true;
}"""
DECLARE = "decl => { window.plingTestbed.declare(decl); }"


def declare(page: Page, action: str, **fields: Any) -> dict[str, Any]:
    """Declare a `write` testbed action without a gate (it runs when called)."""
    decl: dict[str, Any] = {"id": action, "desc": f"Projection case {action}",
                            "kind": "write", "confirm": False, "params": PARAMS, **fields}
    page.evaluate(DECLARE, decl)
    return decl


def set_button(page: Page, action: str, state: str) -> None:
    page.evaluate(SET_BUTTON_STATE, [action, state])


@pytest.mark.guarantee(GUARANTEE)
def test_projection_offers_every_in_scope_action_whatever_its_button_looks_like(
    testbed_page: Page, dock: Dock, timeline: Timeline, model: ModelHandle, locale: str,
) -> None:
    declared = {}
    for state in BUTTON_STATES:
        action = f"button_{state.replace('-', '_')}"
        declared[action] = declare(testbed_page, action)
        set_button(testbed_page, action, state)
    # Switched off by the page: still offered (calls answer UNAVAILABLE), like a disabled one.
    declared["switched_off"] = declare(testbed_page, "switched_off")
    testbed_page.evaluate("() => window.plingTestbed.setEnabled('switched_off', false)")
    # Scoped: offered only while its scope is active.
    declared["in_active_scope"] = declare(testbed_page, "in_active_scope", scope="wizard")
    declare(testbed_page, "in_inactive_scope", scope="later")
    testbed_page.evaluate("() => window.plingTestbed.activateScope('wizard')")

    # A call that runs, so the turn makes two model requests: each must carry the projection.
    model.when_user(GO_AHEAD_PATTERN, "button_visible", ARGUMENTS)
    start = timeline.mark()
    dock.ask(GO_AHEAD[locale])
    guarantees.model_received(timeline, action="button_visible", code="OK", since=start,
                              guarantee=GUARANTEE)

    tools = guarantees.projection_exactly(timeline, tools=list(declared), since=start)
    if len(timeline.server_records(start, kind="model.request")) != 2:
        raise GuaranteeViolation(GUARANTEE, "the turn should make two model requests (the "
                                 "call, then its result)", timeline)
    offered = {tool.function.name: tool.function for tool in tools}
    wrong = [f"{action}: {offered[action]}" for action, decl in declared.items()
             if offered[action].description != decl["desc"]
             or offered[action].parameters != decl["params"]]
    if wrong:
        raise GuaranteeViolation(GUARANTEE, f"tools not offered as declared (desc, params): "
                                 f"{wrong}", timeline)


@pytest.mark.guarantee(GUARANTEE)
@pytest.mark.parametrize("state", ["hidden-attribute", "display-none", "visibility-hidden",
                                   "row-hidden"])
def test_action_with_a_hidden_button_still_runs_when_called(
    testbed_page: Page, dock: Dock, timeline: Timeline, model: ModelHandle,
    tutorial_server: TutorialServer, locale: str, state: str,
) -> None:
    # Hiding is not a switch: only a disabled or detached element makes an action unavailable.
    declare(testbed_page, "hidden_action")
    set_button(testbed_page, "hidden_action", state)
    model.when_user(GO_AHEAD_PATTERN, "hidden_action", ARGUMENTS)
    start = timeline.mark()
    dock.ask(GO_AHEAD[locale])

    guarantees.projection_exactly(timeline, tools=["hidden_action"], since=start)
    guarantees.model_received(timeline, action="hidden_action", code="OK", since=start,
                              guarantee=GUARANTEE)
    assert [c.body for c in tutorial_server.testbed.calls("hidden_action")] == [ARGUMENTS]


@pytest.mark.guarantee(GUARANTEE)
def test_action_with_a_disabled_button_is_offered_and_answers_unavailable(
    testbed_page: Page, dock: Dock, timeline: Timeline, model: ModelHandle,
    tutorial_server: TutorialServer, locale: str,
) -> None:
    # Danger: were availability skipped, a card would be due and would show.
    declare(testbed_page, "disabled_action", kind="danger", confirm=None)
    set_button(testbed_page, "disabled_action", "disabled")
    model.when_user(GO_AHEAD_PATTERN, "disabled_action", ARGUMENTS)
    start = timeline.mark()
    dock.ask(GO_AHEAD[locale])

    guarantees.projection_exactly(timeline, tools=["disabled_action"], since=start)
    guarantees.rejected_without_prompt(timeline, action="disabled_action", code="UNAVAILABLE",
                                       since=start)
    assert tutorial_server.testbed.calls() == []


R15_ACTIONS = ["get_workspace", "save_workspace_name", "archive_workspace", "reset_workspace",
               "publish_changes"]


@pytest.mark.guarantee(GUARANTEE)
def test_r15_projection_keeps_actions_whose_buttons_are_disabled(
    page: Page, dock: Dock, timeline: Timeline, tutorial_server: TutorialServer,
    model: ModelHandle, locale: str,
) -> None:
    # Archived and published: the page disables Archive, Publish and the code field.
    tutorial_server.state.replace(INITIAL_WORKSPACE.model_copy(
        update={"archived": True, "published": True}))
    open_page(page, tutorial_server.page_url(locale))
    for testid in ("workspace-archive", "workspace-publish"):
        if page.get_by_test_id(testid).is_enabled():
            raise GuaranteeViolation(GUARANTEE, f"{testid} should be disabled on an archived, "
                                     "published workspace", timeline)
    model.when_user(GO_AHEAD_PATTERN, "archive_workspace", {})
    start = timeline.mark()
    dock.ask(GO_AHEAD[locale])

    guarantees.projection_exactly(timeline, tools=R15_ACTIONS, since=start)
    guarantees.rejected_without_prompt(timeline, action="archive_workspace",
                                       code="UNAVAILABLE", since=start)

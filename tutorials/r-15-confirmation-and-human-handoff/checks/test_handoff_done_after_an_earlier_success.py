"""Done in the publish handoff succeeds only when the page really is published, also after an
earlier action left a success message on the page. A workspace name saved by the user, or by
the assistant after Allow, shows "saved"; pressing Done without publishing is still
`HANDOFF_FAILED`, nothing is requested, and the workspace stays a draft. (Done was tried only
on an untouched page, so an `expect.check()` reading "the page shows a success message"
passed.)"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest
from playwright.sync_api import Page, expect

from harness import (
    Dock,
    ModelHandle,
    Say,
    Timeline,
    calling,
    guarantees,
    tool_call,
)

if TYPE_CHECKING:  # the checks' conftest.py; pytest imports it, tests only name its types
    from conftest import Workspace

GUARANTEE = "handoff-done-requires-expect"
SAVE, PUBLISH = "save_workspace_name", "publish_changes"
SAVED_NAME = "Acme"


def saved_by_the_user(page: Page, dock: Dock, model: ModelHandle, say: Say) -> None:
    field = page.get_by_test_id("workspace-name-input")
    field.click()
    page.keyboard.press("ControlOrMeta+A")
    page.keyboard.type(SAVED_NAME)
    page.get_by_test_id("workspace-save").click()


def saved_by_the_assistant(page: Page, dock: Dock, model: ModelHandle, say: Say) -> None:
    model.script(calling(tool_call("call_save", SAVE, json.dumps({"name": SAVED_NAME}))))
    dock.ask(say("save"))
    dock.approve()


# What leaves a success message on the page before the handoff starts.
EARLIER_SUCCESS: dict[str, Callable[[Page, Dock, ModelHandle, Say], None]] = {
    "name-saved-by-the-user": saved_by_the_user,
    "name-saved-by-the-assistant": saved_by_the_assistant,
}


@pytest.mark.guarantee(GUARANTEE)
@pytest.mark.parametrize("earlier", list(EARLIER_SUCCESS))
def test_done_without_publishing_after_a_success_message_is_handoff_failed(
    tutorial_page: Page, dock: Dock, timeline: Timeline, model: ModelHandle,
    workspace: Workspace, say: Say, locale: str, earlier: str,
) -> None:
    EARLIER_SUCCESS[earlier](tutorial_page, dock, model, say)
    expect(tutorial_page.get_by_test_id("workspace-name-display")).to_have_text(SAVED_NAME)
    expect(workspace.message).to_be_visible()
    expect(workspace.message).to_contain_text(SAVED_NAME)  # the page's "saved …" message
    assert workspace.server.state.snapshot().name == SAVED_NAME

    dock.ask(say("publish"))
    expect(dock.handoff).to_have_attribute("data-action", PUBLISH)
    before = timeline.mark()
    dock.handoff_done()

    guarantees.model_received(timeline, action=PUBLISH, code="HANDOFF_FAILED", since=before,
                              guarantee=GUARANTEE)
    guarantees.no_business_request(timeline, since=before, guarantee=GUARANTEE)
    workspace.expect_unpublished()
    expect(dock.messages("notice").last).to_have_attribute("data-code", "HANDOFF_FAILED")
    guarantees.no_success_claim(timeline, success_phrases=model.success_phrases(PUBLISH, locale),
                                guarantee=GUARANTEE)

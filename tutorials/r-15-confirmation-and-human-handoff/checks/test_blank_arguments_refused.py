"""`arguments` that are an empty or blank string are not JSON text: the call is answered
`INVALID_PARAMS` before any prompt, for an action with parameters (save) and for actions
without (archive, which would ask; the read, which would run at once), and never becomes an
approval card or a business request. (Read as `{}`, a blank string would pass an action
without parameters and ask.)"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect
from workspace_state import INITIAL_WORKSPACE

from harness import (
    Dock,
    ModelHandle,
    Say,
    Timeline,
    TutorialServer,
    Words,
    calling,
    guarantees,
    tool_call,
)

GUARANTEE = "rejected-before-prompt"
CALL_ID = "call_blank"
# The reply carrying the call answers request 0; request 1 reports its result.
RESULTS_REQUEST = 1
# An action with parameters, a danger one without (it would ask) and a read without (it would
# run without asking).
ACTIONS = ["save_workspace_name", "archive_workspace", "get_workspace"]
BLANK_ARGUMENTS = {"empty": "", "spaces": "   ", "whitespace-and-newlines": "\n\t \r\n"}


@pytest.mark.guarantee(GUARANTEE)
@pytest.mark.parametrize("blank", list(BLANK_ARGUMENTS))
@pytest.mark.parametrize("action", ACTIONS)
def test_blank_arguments_are_invalid_params_before_any_prompt(
    tutorial_page: Page, dock: Dock, timeline: Timeline, model: ModelHandle, words: Words,
    tutorial_server: TutorialServer, say: Say, action: str, blank: str,
) -> None:
    model.script(calling(tool_call(CALL_ID, action, BLANK_ARGUMENTS[blank])))
    before = timeline.mark()

    dock.ask(say("status"))

    received = [r for r in model.tool_results(request_index=RESULTS_REQUEST)
                if r.call_id == CALL_ID]
    assert [r.code for r in received] == ["INVALID_PARAMS"], (
        f"{action} called with arguments {BLANK_ARGUMENTS[blank]!r} should be answered "
        f"INVALID_PARAMS; the model received {[r.content for r in received]}")
    shown = dock.messages("notice").and_(tutorial_page.locator("[data-code='INVALID_PARAMS']"))
    expect(shown).to_have_count(1)
    guarantees.notice_means(timeline, words, code="INVALID_PARAMS", action=action,
                            guarantee=GUARANTEE)
    guarantees.rejected_without_prompt(timeline, action=action, code="INVALID_PARAMS",
                                       since=before)
    guarantees.state_unchanged(timeline, since=before, guarantee=GUARANTEE)
    assert tutorial_server.state.snapshot() == INITIAL_WORKSPACE

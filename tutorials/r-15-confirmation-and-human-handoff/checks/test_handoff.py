"""Handoff checks (SPEC §4, §5): no approval stacked on a handoff and one handoff at a time (a
second agent's is `HANDOFF_BUSY`), and the rows of the outcome table no declaration implies:
Done after an earlier success message or when the page's `expect.check()` throws. (r-15's
publish cancelled, Done too early, success only once published and its receipt: the checks
generated from actions.json.)

Guidance and highlights: test_handoff_guidance.py; `expect.check()` re-run on page changes:
test_handoff_expect_check.py; timeouts and the timer: the testbed table's handoff rows
(testbed-actions.json); the exact code (a wrong one keeps the handoff open) and reset:
test_handoff_publish_state.py; nothing written into a target, and a code the model sends:
test_model_output.py."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest
from playwright.sync_api import Page, expect
from testbed_actions import GO_AHEAD, GO_AHEAD_PATTERN, REQUESTS

from pling_harness import (
    Dock,
    ModelHandle,
    Say,
    Testbed,
    TestbedScripts,
    Timeline,
    calling,
    guarantees,
    tool_call,
)

COUNTED_ACTION = TestbedScripts.COUNTERSIGN_ACTION

if TYPE_CHECKING:  # the checks' conftest.py; pytest imports it, tests only name its types
    from conftest import Workspace

SAVE, PUBLISH = "save_workspace_name", "publish_changes"
RUN_REQUEST = REQUESTS["run_action"]


# ---- no stacking -----------------------------------------------------------------------


# Handoff actions declared with each gate §2 has (r-15's publish: the acceptance walk, step 4).
HANDOFF_ROWS = [
    pytest.param("write", True, id="write-confirm-true"),
    pytest.param("danger", None, id="danger"),
    pytest.param("danger", "always", id="danger-confirm-always"),
    pytest.param("read", "always", id="read-confirm-always"),
]


@pytest.mark.guarantee("handoff-no-stacking")
@pytest.mark.parametrize(("kind", "confirm"), HANDOFF_ROWS)
def test_handoff_is_never_put_through_approval(
    testbed: Testbed, dock: Dock, timeline: Timeline, model: ModelHandle, locale: str,
    kind: str, confirm: bool | str | None,
) -> None:
    action = f"handoff_{kind}"
    model.when_user(rf"(?:run|运行) {action}\b", action, {})
    testbed.declare({"id": action, "desc": f"Handoff {kind}", "kind": kind, "confirm": confirm,
                     "handoff": True})

    start = timeline.mark()
    dock.ask(RUN_REQUEST[locale].format(id=action))
    guarantees.handoff_without_approval(timeline, action=action, since=start)

    # The human does the step; the handoff ends on its own once the page shows it done.
    testbed.finish(action)
    dock.wait_until_handoff_ends()

    guarantees.handoff_without_approval(timeline, action=action, since=start)
    guarantees.model_received(timeline, action=action, code="OK", since=start,
                              guarantee="handoff-no-stacking")
    assert testbed.calls() == []  # a handoff has no run: nothing was called


FIRST_HANDOFF = "sign_first"
SECOND_HANDOFF = "sign_second"


@pytest.mark.guarantee("handoff-no-stacking")
def test_second_handoff_while_one_is_open_is_refused_busy_and_the_first_goes_on(
    testbed: Testbed, dock: Dock, timeline: Timeline, model: ModelHandle, locale: str,
) -> None:
    for action in (FIRST_HANDOFF, SECOND_HANDOFF):
        testbed.declare({"id": action, "desc": f"Sign {action}", "kind": "write",
                         "handoff": True})
    model.when_user(GO_AHEAD_PATTERN, FIRST_HANDOFF, {})
    model.when_user("second", SECOND_HANDOFF, {})
    start = timeline.mark()
    dock.ask(GO_AHEAD[locale])
    expect(dock.handoff_for(FIRST_HANDOFF)).to_be_visible()

    second_dock = testbed.scripts.second_agent_sends("second")
    # The second agent's turn ends once the model has heard how its call went.
    # Its assistant messages: the messages inside the second dock.
    expect(dock.messages("assistant").and_(second_dock.locator("*"))).to_have_count(1)

    guarantees.model_received(timeline, action=SECOND_HANDOFF, code="HANDOFF_BUSY",
                              since=start, guarantee="handoff-no-stacking")
    expect(dock.handoff).to_have_count(1)
    expect(dock.handoff_for(FIRST_HANDOFF)).to_be_visible()

    testbed.finish(FIRST_HANDOFF)
    dock.wait_until_handoff_ends()
    guarantees.model_received(timeline, action=FIRST_HANDOFF, code="OK", since=start,
                              guarantee="handoff-no-stacking")


@pytest.mark.guarantee("handoff-done-requires-expect")
def test_handoff_whose_check_throws_is_not_done(
    testbed: Testbed, dock: Dock, timeline: Timeline, model: ModelHandle, locale: str,
) -> None:
    testbed.scripts.register_throwing_check_handoff()
    model.when_user(GO_AHEAD_PATTERN, COUNTED_ACTION, {})
    start = timeline.mark()
    dock.ask(GO_AHEAD[locale])
    expect(dock.handoff_for(COUNTED_ACTION)).to_be_visible()

    dock.handoff_done()

    guarantees.model_received(timeline, action=COUNTED_ACTION, code="HANDOFF_FAILED",
                              since=start, guarantee="handoff-done-requires-expect")


DONE_REQUIRES_EXPECT = "handoff-done-requires-expect"
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


@pytest.mark.guarantee(DONE_REQUIRES_EXPECT)
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
    expect(dock.handoff_for(PUBLISH)).to_be_visible()
    before = timeline.mark()
    dock.handoff_done()

    guarantees.model_received(timeline, action=PUBLISH, code="HANDOFF_FAILED", since=before,
                              guarantee=DONE_REQUIRES_EXPECT)
    guarantees.no_business_request(timeline, since=before, guarantee=DONE_REQUIRES_EXPECT)
    workspace.expect_unpublished()
    expect(dock.last_message("notice", code="HANDOFF_FAILED")).to_be_attached()
    guarantees.no_success_claim(timeline, success_phrases=model.success_phrases(PUBLISH, locale),
                                guarantee=DONE_REQUIRES_EXPECT)

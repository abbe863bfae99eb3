"""The agent loop seen from the page and the server: the tool calls of one reply are handled one
after another and their results reach the model in the order of the calls, and "new
conversation" ends what is pending and the abandoned turn does nothing more. (One turn at a
time, and only for text: test_one_turn.py. What a run's result tells the model, and when:
test_run_results.py. One call, one run of its handler, whatever the page's lifecycle: the
generated `<action>-registered-once-*` checks.)"""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Page, expect
from workspace_state import INITIAL_WORKSPACE, WorkspaceSnapshot

from pling_harness import (
    Dock,
    HeldRequests,
    ModelHandle,
    OpenTutorialPage,
    Say,
    Testbed,
    Timeline,
    TutorialServer,
    calling,
    guarantees,
    tool_call,
)

SAVE, ARCHIVE, RESET, READ = (
    "save_workspace_name", "archive_workspace", "reset_workspace", "get_workspace")
NAME_PATH, ARCHIVE_PATH = "/api/workspace/name", "/api/workspace/archive"
NEW_NAME = "Acme"
# The first model request carries the user's message; the second the results of its reply.
RESULTS_REQUEST = 1
NEW_CONVERSATION = "new-conversation-ends-pending"


# ---- helpers ----------------------------------------------------------------------------


def send(dock: Dock, text: str) -> None:
    """Send `text` without waiting for the turn to settle (it cannot while a request is held)."""
    dock.input.fill(text)
    dock.send_button.click()


def results_in(model: ModelHandle, request_index: int) -> list[tuple[str, str]]:
    """(call id, code) of the tool results the model received first with that request."""
    return [(r.call_id, r.code) for r in model.tool_results(request_index=request_index)]


@pytest.fixture
def archived_page(open_tutorial_page: OpenTutorialPage) -> Page:
    """The r-15 page on an archived workspace: its Archive button is disabled."""
    return open_tutorial_page(state=INITIAL_WORKSPACE.model_copy(update={"archived": True}))


# ---- several calls in one reply: one after another ---------------------------------------


@pytest.mark.guarantee("calls-one-after-another")
def test_two_calls_needing_approval_are_asked_one_at_a_time_in_call_order(
    tutorial_page: Page, dock: Dock, timeline: Timeline, model: ModelHandle,
    tutorial_server: TutorialServer, say: Say,
) -> None:
    model.script(calling(tool_call("call_save", SAVE, json.dumps({"name": NEW_NAME})),
                         tool_call("call_archive", ARCHIVE)))
    before = timeline.mark()

    dock.ask(say("save"))
    guarantees.one_call_at_a_time(timeline, since=before)
    expect(dock.approval_for(SAVE)).to_be_visible()
    dock.approve()
    expect(dock.approval_for(ARCHIVE)).to_be_visible()
    dock.approve()

    # Each card came only once the call before it had its business answer.
    guarantees.one_call_at_a_time(timeline, since=before)
    cards = timeline.shown("approval", before)
    assert [card.action for card in cards] == [SAVE, ARCHIVE]
    assert [(r.path, r.status) for r in timeline.business_calls(before)] == [
        (NAME_PATH, 200), (ARCHIVE_PATH, 200)]
    assert results_in(model, RESULTS_REQUEST) == [("call_save", "OK"), ("call_archive", "OK")]
    assert tutorial_server.state.snapshot() == WorkspaceSnapshot(
        name=NEW_NAME, archived=True, published=False)


@pytest.mark.guarantee("calls-one-after-another")
def test_second_call_is_checked_only_once_the_first_has_its_result(
    archived_page: Page, dock: Dock, timeline: Timeline, model: ModelHandle,
    tutorial_server: TutorialServer, say: Say,
) -> None:
    # When the reply arrives, archive is unavailable (its button is disabled); the reset
    # called before it makes it available again. Checked in turn, it is asked about.
    dock.spec.require(dock.spec.approval.one_at_a_time, "approval.one_at_a_time")
    expect(archived_page.get_by_test_id("workspace-archive")).to_be_disabled()
    model.script(calling(tool_call("call_reset", RESET), tool_call("call_archive", ARCHIVE)))
    before = timeline.mark()

    dock.ask(say("reset"))
    expect(dock.approval_for(RESET)).to_be_visible()
    dock.approve()
    expect(dock.approval_for(ARCHIVE)).to_be_visible()
    dock.deny()

    assert results_in(model, RESULTS_REQUEST) == [
        ("call_reset", "OK"), ("call_archive", "PERMISSION_DENIED")]
    guarantees.one_call_at_a_time(timeline, since=before)
    assert tutorial_server.state.snapshot() == INITIAL_WORKSPACE


# Two testbed actions that run without asking (write, no confirm), each calling the server.
FIRST, SECOND = "first_step", "second_step"
STEP_DESC = {"en": {FIRST: "First step", SECOND: "Second step"},
             "zh": {FIRST: "第一步", SECOND: "第二步"}}


@pytest.mark.guarantee("calls-one-after-another")
def test_second_call_runs_only_after_the_first_calls_server_answered(
    testbed: Testbed, dock: Dock, timeline: Timeline, model: ModelHandle, locale: str, say: Say,
) -> None:
    for action in (FIRST, SECOND):
        testbed.declare({"id": action, "desc": STEP_DESC[locale][action], "kind": "write"})
    model.script(calling(tool_call("call_first", FIRST), tool_call("call_second", SECOND)))
    held = HeldRequests(testbed.page, f"/api/testbed/run/{FIRST}")
    before = timeline.mark()

    held.start(lambda: send(dock, say("status")))

    # The first call's answer is held: the second call has not started, the model waits.
    assert [r.path for r in timeline.page_business_requests(before)] == [
        f"/api/testbed/run/{FIRST}"]
    assert len(timeline.server_records(before, kind="model.request")) == 1
    held.release()
    dock.wait_until_settled()

    assert [call.action for call in testbed.calls()] == [FIRST, SECOND]
    guarantees.one_call_at_a_time(timeline, since=before)
    assert results_in(model, RESULTS_REQUEST) == [("call_first", "OK"), ("call_second", "OK")]


@pytest.mark.guarantee("calls-one-after-another")
def test_results_of_one_reply_reach_the_model_in_the_order_of_its_calls(
    tutorial_page: Page, dock: Dock, timeline: Timeline, model: ModelHandle, say: Say,
) -> None:
    # A read that runs at once, then a rename that waits for the user: the read's result is
    # ready first, the model must still get both in the order it called them (CopilotKit#5374
    # sent them reversed). Only the dock and the model's log: any page, wherever calls run.
    model.script(calling(tool_call("call_read", READ),
                         tool_call("call_save", SAVE, json.dumps({"name": NEW_NAME}))))
    asked_before = len(model.requests)
    dock.ask(say("save"))
    dock.approve()

    guarantees.results_in_call_order(model.requests[asked_before:], timeline)
    assert {r.call_id: r.code for r in model.tool_results()} == {
        "call_read": "OK", "call_save": "OK"}


# ---- "new conversation" while the model or the server works ---------------------------
# (While a card or a handoff waits: the checks generated from actions.json, for each action.)


@pytest.mark.guarantee(NEW_CONVERSATION)
def test_new_conversation_while_the_model_is_asked_leaves_the_new_conversation_empty(
    tutorial_page: Page, dock: Dock, timeline: Timeline, say: Say,
) -> None:
    held = HeldRequests(tutorial_page, dock.spec.conversation_path("/api/model"))
    held.start(lambda: send(dock, say("status")))

    # The abandoned turn's model request is cancelled; its failure is nobody's error.
    with tutorial_page.expect_event("requestfailed"):
        dock.new_conversation()
    tutorial_page.evaluate("0")  # one task later: whatever the cancelled turn did is on screen

    expect(dock.messages()).to_have_count(0)
    expect(dock.busy).to_have_count(0)
    held.stop_holding()
    fresh = timeline.mark()
    dock.ask(say("status"))
    guarantees.model_received(timeline, action=READ, code="OK", since=fresh,
                              guarantee=NEW_CONVERSATION)
    expect(dock.messages("error")).to_have_count(0)


@pytest.mark.guarantee(NEW_CONVERSATION)
def test_new_conversation_while_a_run_waits_for_the_server_leaves_the_next_turn_whole(
    tutorial_page: Page, save_held: HeldRequests, dock: Dock, timeline: Timeline, say: Say,
) -> None:
    save_held.start(dock.approve_button.click)
    dock.new_conversation()
    # The next turn is under way (its model request held) when the abandoned run's server
    # answer arrives and that turn ends: its ending must not end the turn after it.
    fresh = timeline.mark()
    asked = HeldRequests(tutorial_page, dock.spec.conversation_path("/api/model"))
    asked.start(lambda: send(dock, say("status")))
    save_held.release()
    expect(tutorial_page.get_by_test_id("workspace-name-display")).to_have_text(NEW_NAME)
    tutorial_page.evaluate("0")  # one task later: the abandoned turn has ended
    asked.stop_holding()
    asked.release()
    dock.wait_until_settled()

    guarantees.model_received(timeline, action=READ, code="OK", since=fresh,
                              guarantee=NEW_CONVERSATION)
    expect(dock.messages("assistant")).to_have_count(1)
    # A success is no notice; and the abandoned save's result reached no model request.
    expect(dock.messages("notice")).to_have_count(0)
    assert "call_save" not in [r.call_id for r in timeline.tool_results(fresh)]


# ---- a run's success only after its business answer --------------------------------------


@pytest.fixture
def save_held(tutorial_page: Page, dock: Dock, model: ModelHandle,
              say: Say) -> HeldRequests:
    """The save card on screen for call `call_save`, with the save request's network answer
    to be held once it leaves."""
    dock.spec.require_business_requests_in_browser()
    model.script(calling(tool_call("call_save", SAVE, json.dumps({"name": NEW_NAME}))))
    held = HeldRequests(tutorial_page, NAME_PATH)
    dock.ask(say("save"))
    expect(dock.approval_for(SAVE)).to_be_visible()
    return held

"""Handoff checks (SPEC §4, §5): no approval stacked on a handoff and one handoff at a time (a
second agent's is `HANDOFF_BUSY`), the rows of the outcome table (cancel, Done too early, also
after an earlier success message or when the page's `expect.check()` throws; success only
once published) and the receipt a completed handoff hands the model.

Guidance and highlights: test_handoff_guidance.py; `expect.check()` re-run on page changes:
test_handoff_expect_check.py; timeouts and the timer: test_handoff_timeout.py; the exact code
(a wrong one keeps the handoff open) and reset: test_handoff_publish_state.py; nothing
written into a target, and a code the model sends: test_model_output.py."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest
from playwright.sync_api import APIResponse, Page, Route, expect
from testbed_actions import GO_AHEAD, GO_AHEAD_PATTERN
from workspace_state import PUBLISH_CODE

from harness import (
    Dock,
    Mark,
    ModelHandle,
    Say,
    Testbed,
    TestbedScripts,
    Timeline,
    TutorialServer,
    Words,
    calling,
    guarantees,
    tool_call,
)

COUNTED_ACTION = TestbedScripts.COUNTERSIGN_ACTION

if TYPE_CHECKING:  # the checks' conftest.py; pytest imports it, tests only name its types
    from conftest import Workspace

SAVE, PUBLISH = "save_workspace_name", "publish_changes"
RUN_REQUEST = {"en": "please run {id}", "zh": "请运行 {id}"}


# ---- helpers ----------------------------------------------------------------------------


def start_publish_handoff(dock: Dock, say: Say) -> None:
    dock.ask(say("publish"))
    expect(dock.handoff).to_have_attribute("data-action", PUBLISH)


def assert_publish_not_completed(
    dock: Dock, timeline: Timeline, model: ModelHandle, workspace: Workspace, words: Words,
    *, code: str, since: Mark,
) -> None:
    """How every unsuccessful publish handoff must end: `code` to the model, no retry, still
    draft on page and server, a notice reporting `code` for the action, no claim of success."""
    guarantees.model_received(timeline, action=PUBLISH, code=code, since=since)
    guarantees.no_silent_retry(timeline, since=since)
    workspace.expect_unpublished()
    notice = dock.messages("notice").last
    expect(notice).to_have_attribute("data-code", code)
    expect(notice).to_contain_text(words.desc(PUBLISH))
    guarantees.no_success_claim(
        timeline, success_phrases=model.success_phrases(PUBLISH, words.locale))


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


# ---- never writes into a target --------------------------------------------------------


# ---- the outcome table -----------------------------------------------------------------


@pytest.mark.guarantee("handoff-cancel")
def test_cancel_reports_handoff_cancelled_and_publishes_nothing(
    tutorial_page: Page, dock: Dock, timeline: Timeline, model: ModelHandle,
    workspace: Workspace, words: Words, say: Say, locale: str,
) -> None:
    start_publish_handoff(dock, say)
    before = timeline.mark()

    dock.handoff_cancel()

    assert_publish_not_completed(dock, timeline, model, workspace, words,
                                 code="HANDOFF_CANCELLED", since=before)
    guarantees.state_unchanged(timeline, since=before)
    guarantees.notice_means(timeline, words, code="HANDOFF_CANCELLED", action="publish_changes",
                            guarantee="handoff-cancel")
    expect(dock.messages("assistant").last).to_have_text(
        model.reply_after(PUBLISH, "HANDOFF_CANCELLED", locale))


@pytest.mark.guarantee("handoff-done-requires-expect")
def test_done_without_publishing_reports_handoff_failed(
    tutorial_page: Page, dock: Dock, timeline: Timeline, model: ModelHandle,
    workspace: Workspace, words: Words, say: Say,
) -> None:
    start_publish_handoff(dock, say)
    before = timeline.mark()

    dock.handoff_done()

    assert_publish_not_completed(dock, timeline, model, workspace, words,
                                 code="HANDOFF_FAILED", since=before)


@pytest.mark.guarantee("handoff-done-requires-expect")
def test_done_after_typing_the_code_but_not_publishing_reports_handoff_failed(
    tutorial_page: Page, dock: Dock, timeline: Timeline, model: ModelHandle,
    workspace: Workspace, say: Say, locale: str,
) -> None:
    start_publish_handoff(dock, say)
    before = timeline.mark()
    workspace.type_code(PUBLISH_CODE)
    expect(dock.handoff_current_step).to_have_attribute("data-target", PUBLISH)

    dock.handoff_done()

    guarantees.model_received(timeline, action=PUBLISH, code="HANDOFF_FAILED", since=before)
    guarantees.no_business_request(timeline, since=before)
    workspace.expect_unpublished()
    guarantees.no_success_claim(timeline, success_phrases=model.success_phrases(PUBLISH, locale))


@pytest.mark.guarantee("success-only-after-published")
def test_success_waits_for_the_page_to_show_what_the_server_published(
    tutorial_page: Page, dock: Dock, timeline: Timeline, tutorial_server: TutorialServer,
    workspace: Workspace, model: ModelHandle, say: Say, locale: str,
) -> None:
    """The server has published but the page does not show it yet: no success may leave."""
    start_publish_handoff(dock, say)
    before = timeline.mark()
    status = workspace.status
    seen: dict[str, object] = {}

    def hold_the_answer(route: Route) -> None:
        answer: APIResponse = route.fetch()  # the server publishes now
        seen["server published"] = tutorial_server.state.snapshot().published
        seen["page showed"] = status.get_attribute("data-state")
        seen["handoff open"] = dock.handoff.count() == 1
        seen["model requests"] = len(timeline.page_model_requests(before)) + len(
            timeline.server_records(before, kind="model.request"))
        route.fulfill(response=answer)

    tutorial_page.route("**/api/workspace/publish", hold_the_answer)
    workspace.publish(PUBLISH_CODE)
    dock.wait_until_handoff_ends()

    assert seen == {"server published": True, "page showed": "draft", "handoff open": True,
                    "model requests": 0}, (
        f"while the server's answer was on its way: {seen}\n\n{timeline.render()}")
    guarantees.success_only_after_published(timeline, action=PUBLISH, since=before)
    expect(dock.messages("assistant").last).to_have_text(
        model.success_phrases(PUBLISH, locale)[0])


# ---- what the model receives -----------------------------------------------------------


@pytest.mark.guarantee("handoff-receipt")
def test_completed_handoff_reaches_the_model_as_a_receipt_naming_the_action(
    tutorial_page: Page, dock: Dock, model: ModelHandle, workspace: Workspace, say: Say,
) -> None:
    start_publish_handoff(dock, say)

    workspace.publish(PUBLISH_CODE)
    dock.wait_until_handoff_ends()

    # Read from what the model was sent, not from the page: SPEC §5's handoff envelope.
    results = [r for r in model.tool_results() if r.action == PUBLISH]
    assert len(results) == 1, [r.describe() for r in results]
    envelope = results[0].envelope
    assert envelope is not None, f"the result is not JSON: {results[0].content!r}"
    assert envelope.get("ok") is True, envelope
    assert "data" not in envelope, f"a handoff is reported as a receipt, not as data: {envelope}"
    receipt = envelope.get("receipt")
    assert isinstance(receipt, dict), f"no receipt object: {envelope}"
    assert receipt.get("action") == PUBLISH, f"the receipt does not name the action: {receipt}"


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
    expect(dock.handoff).to_have_attribute("data-action", FIRST_HANDOFF)

    second_dock = testbed.scripts.second_agent_sends("second")
    # The second agent's turn ends once the model has heard how its call went.
    expect(second_dock.locator("[data-testid='pling-message'][data-role='assistant']")
           ).to_have_count(1)

    guarantees.model_received(timeline, action=SECOND_HANDOFF, code="HANDOFF_BUSY",
                              since=start, guarantee="handoff-no-stacking")
    expect(testbed.page.get_by_test_id("pling-handoff")).to_have_count(1)
    expect(dock.handoff).to_have_attribute("data-action", FIRST_HANDOFF)

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
    expect(dock.handoff).to_have_attribute("data-action", COUNTED_ACTION)

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
    expect(dock.handoff).to_have_attribute("data-action", PUBLISH)
    before = timeline.mark()
    dock.handoff_done()

    guarantees.model_received(timeline, action=PUBLISH, code="HANDOFF_FAILED", since=before,
                              guarantee=DONE_REQUIRES_EXPECT)
    guarantees.no_business_request(timeline, since=before, guarantee=DONE_REQUIRES_EXPECT)
    workspace.expect_unpublished()
    expect(dock.messages("notice").last).to_have_attribute("data-code", "HANDOFF_FAILED")
    guarantees.no_success_claim(timeline, success_phrases=model.success_phrases(PUBLISH, locale),
                                guarantee=DONE_REQUIRES_EXPECT)

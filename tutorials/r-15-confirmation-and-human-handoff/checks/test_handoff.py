"""r-15 handoff checks (SPEC §4, §5): no approval stacked on a handoff, the runtime never
writing into a target, the rows of the outcome table (cancel, Done too early, a wrong code,
success only once published) and the receipt a completed handoff hands the model.

Guidance and highlights: test_handoff_guidance.py; timeouts and the timer:
test_handoff_timeout.py; the exact code and reset: test_handoff_publish_state.py."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest
from playwright.sync_api import APIResponse, Page, Route, expect

from harness.browser.dock import Dock
from harness.evidence import guarantees
from harness.evidence.records import Mark
from harness.evidence.timeline import Timeline
from harness.project.texts import Words
from harness.server.model.handle import ModelHandle
from harness.server.runner import TutorialServer
from harness.server.state import PUBLISH_CODE

if TYPE_CHECKING:  # the checks' conftest.py; pytest imports it, tests only name its types
    from conftest import Workspace

Say = Callable[[str], str]
PUBLISH = "publish_changes"
WRONG_CODE = "111111"
# What the user types to start a testbed handoff (matched by `when_user`).
TESTBED_REQUEST = {"en": "do the pin step", "zh": "完成 PIN 步骤"}
TESTBED_PATTERN = r"pin"
TESTBED_DECLARE = "declaration => window.plingTestbed.declare(declaration)"


# ---- helpers ----------------------------------------------------------------------------


def model_failure_reply(model: ModelHandle, code: str, locale: str) -> str:
    """What the scripted model says about a failed publish_changes, per its rules file."""
    rules = model.scripted.rules
    replies = rules.replies.get(PUBLISH)
    said = (replies.failures.get(code) if replies is not None else None) \
        or rules.failures.get(code) or rules.other_failure
    return said.text("zh" if locale == "zh" else "en").replace("{code}", code)


def start_publish_handoff(dock: Dock, say: Say) -> None:
    dock.ask(say("publish"))
    expect(dock.handoff).to_have_attribute("data-action", PUBLISH)


def assert_publish_not_completed(
    dock: Dock, timeline: Timeline, model: ModelHandle, workspace: Workspace,
    *, code: str, since: Mark, locale: str,
) -> None:
    """How every unsuccessful publish handoff must end: `code` to the model, no retry, still
    draft on page and server, a notice reporting `code` for the action, no claim of success."""
    guarantees.model_received(timeline, action=PUBLISH, code=code, since=since)
    guarantees.no_silent_retry(timeline, since=since)
    workspace.expect_unpublished()
    notice = dock.messages("notice").last
    expect(notice).to_have_attribute("data-code", code)
    words = Words(workspace.server.root, workspace.server.tutorial, locale)
    expect(notice).to_contain_text(words.desc(PUBLISH))
    guarantees.no_success_claim(timeline, success_phrases=model.success_phrases(PUBLISH, locale))


# ---- no stacking -----------------------------------------------------------------------


@pytest.mark.guarantee("handoff-no-stacking")
def test_publish_handoff_shows_no_approval_card_from_start_to_success(
    tutorial_page: Page, dock: Dock, timeline: Timeline, workspace: Workspace, say: Say,
) -> None:
    dock.ask(say("publish"))
    guarantees.handoff_without_approval(timeline, action=PUBLISH)

    workspace.publish(PUBLISH_CODE)
    dock.wait_until_handoff_ends()

    guarantees.handoff_without_approval(timeline, action=PUBLISH)
    guarantees.model_received(timeline, action=PUBLISH, code="OK")


@pytest.mark.guarantee("handoff-no-stacking")
def test_handoff_declared_confirm_always_still_asks_nothing(
    testbed_page: Page, dock: Dock, timeline: Timeline, model: ModelHandle, locale: str,
) -> None:
    testbed_page.evaluate(TESTBED_DECLARE, {
        "id": "sign_contract", "desc": "sign_contract", "kind": "danger", "confirm": "always",
        "handoff": True,
    })
    model.when_user(TESTBED_PATTERN, "sign_contract")

    dock.ask(TESTBED_REQUEST[locale])

    guarantees.handoff_without_approval(timeline, action="sign_contract")


# ---- never writes into a target --------------------------------------------------------


@pytest.mark.guarantee("handoff-never-writes-target")
def test_whole_publish_handoff_writes_nothing_into_any_target(
    tutorial_page: Page, dock: Dock, timeline: Timeline, workspace: Workspace, say: Say,
) -> None:
    start_publish_handoff(dock, say)
    expect(workspace.code_field).to_have_value("")
    dock.handoff_next()
    dock.handoff_back()
    guarantees.no_writes_into_targets(timeline)

    workspace.publish(PUBLISH_CODE)
    dock.wait_until_handoff_ends()

    guarantees.model_received(timeline, action=PUBLISH, code="OK")
    guarantees.no_writes_into_targets(timeline)


@pytest.mark.guarantee("handoff-never-writes-target")
def test_code_sent_by_the_model_is_refused_and_never_typed_in(
    tutorial_page: Page, dock: Dock, timeline: Timeline, model: ModelHandle,
    workspace: Workspace, say: Say,
) -> None:
    model.when_user(re.escape(say("publish")), PUBLISH, {"code": PUBLISH_CODE})

    dock.ask(say("publish"))

    guarantees.rejected_without_prompt(timeline, action=PUBLISH, code="INVALID_PARAMS")
    expect(workspace.code_field).to_have_value("")
    guarantees.no_writes_into_targets(timeline)
    workspace.expect_unpublished()


@pytest.mark.guarantee("handoff-never-writes-target")
def test_handoff_arguments_never_prefill_the_target(
    testbed_page: Page, dock: Dock, timeline: Timeline, model: ModelHandle, locale: str,
) -> None:
    testbed_page.evaluate(TESTBED_DECLARE, {
        "id": "enter_pin", "desc": "enter_pin", "kind": "danger", "handoff": True,
        "params": {"type": "object", "properties": {"value": {"type": "string"}},
                   "additionalProperties": False},
    })
    model.when_user(TESTBED_PATTERN, "enter_pin", {"value": "4242"})
    field = testbed_page.get_by_test_id("testbed-input-enter_pin")

    dock.ask(TESTBED_REQUEST[locale])

    expect(dock.handoff).to_have_attribute("data-action", "enter_pin")
    expect(field).to_have_value("")
    field.click()
    testbed_page.keyboard.type("4242")
    testbed_page.get_by_test_id("testbed-finish-enter_pin").click()
    dock.wait_until_handoff_ends()
    guarantees.model_received(timeline, action="enter_pin", code="OK")
    guarantees.no_writes_into_targets(timeline)


# ---- the outcome table -----------------------------------------------------------------


@pytest.mark.guarantee("handoff-cancel")
def test_cancel_reports_handoff_cancelled_and_publishes_nothing(
    tutorial_page: Page, dock: Dock, timeline: Timeline, model: ModelHandle,
    workspace: Workspace, say: Say, locale: str,
) -> None:
    start_publish_handoff(dock, say)
    before = timeline.mark()

    dock.handoff_cancel()

    assert_publish_not_completed(dock, timeline, model, workspace,
                                 code="HANDOFF_CANCELLED", since=before, locale=locale)
    guarantees.state_unchanged(timeline, since=before)
    words = Words(workspace.server.root, workspace.server.tutorial, locale)
    guarantees.notice_means(timeline, words, code="HANDOFF_CANCELLED", action="publish_changes",
                            guarantee="handoff-cancel")
    expect(dock.messages("assistant").last).to_have_text(
        model_failure_reply(model, "HANDOFF_CANCELLED", locale))


@pytest.mark.guarantee("handoff-done-requires-expect")
def test_done_without_publishing_reports_handoff_failed(
    tutorial_page: Page, dock: Dock, timeline: Timeline, model: ModelHandle,
    workspace: Workspace, say: Say, locale: str,
) -> None:
    start_publish_handoff(dock, say)
    before = timeline.mark()

    dock.handoff_done()

    assert_publish_not_completed(dock, timeline, model, workspace,
                                 code="HANDOFF_FAILED", since=before, locale=locale)


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


@pytest.mark.guarantee("handoff-wrong-code")
def test_wrong_code_keeps_the_handoff_open_then_the_right_code_succeeds(
    tutorial_page: Page, dock: Dock, timeline: Timeline, tutorial_server: TutorialServer,
    workspace: Workspace, say: Say, locale: str,
) -> None:
    start_publish_handoff(dock, say)
    before = timeline.mark()

    workspace.publish(WRONG_CODE)

    expect(workspace.message).to_have_text(
        Words(tutorial_server.root, tutorial_server.tutorial, locale).copy["message.wrong_code"])
    wrong = timeline.business_calls(before)
    assert [(r.path, r.status) for r in wrong] == [("/api/workspace/publish", 400)], wrong
    workspace.expect_unpublished()
    expect(dock.handoff).to_be_visible()
    guarantees.no_model_request(timeline, since=before, why="the wrong code was refused")

    workspace.publish(PUBLISH_CODE)
    dock.wait_until_handoff_ends()

    guarantees.success_only_after_published(timeline, action=PUBLISH, since=before)
    expect(workspace.status).to_have_attribute("data-state", "published")


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

"""r-15 handoff checks (SPEC §4): no approval stacked on a handoff, the guidance and its
highlights, the runtime never writing into a target, and every row of the outcome table."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import APIResponse, Page, Route, ViewportSize, expect

from harness import guarantees
from harness.dock import Dock
from harness.model_handle import ModelHandle
from harness.serve import TutorialServer
from harness.server.state import PUBLISH_CODE
from harness.texts import Words
from harness.timeline import Mark, Timeline

Say = Callable[[str], str]
PUBLISH = "publish_changes"
CODE_TARGET = "verification_code"
# The handoff's two steps, in order: the targets they point at.
PUBLISH_STEP_TARGETS = (CODE_TARGET, PUBLISH)
WRONG_CODE = "111111"
# SPEC §4: the default time a user has to finish a handoff.
DEFAULT_TIMEOUT_MS = 5 * 60 * 1000
ONE_SECOND_MS = 1000
# Small enough that the code field (and the Publish button next to it) starts below the fold.
SMALL_VIEWPORT: ViewportSize = {"width": 900, "height": 500}
# Far enough to move the highlighted target visibly, little enough to keep it in view.
SCROLL_BY_PX = 120

# Scrolls the page like a user would and resolves once the page has handled the scroll
# event (the overlay repositions on it); returns how far the page really moved.
SCROLL_AND_SETTLE = """async (dy) => {
  const before = window.scrollY;
  const handled = new Promise((resolve) =>
    window.addEventListener("scroll", resolve, { once: true }));
  window.scrollBy({ top: dy, behavior: "instant" });
  if (window.scrollY === before) return 0;
  await handled;
  return window.scrollY - before;
}"""


# ---- helpers ----------------------------------------------------------------------------


def page_copy(server: TutorialServer, locale: str) -> dict[str, str]:
    """The served page copy (tutorials/<id>/copy/<locale>.json)."""
    return Words(server.root, server.tutorial, locale).copy


def dock_notice(server: TutorialServer, locale: str, code: str) -> str:
    """The dock's localised notice for a failed publish_changes call."""
    return Words(server.root, server.tutorial, locale).notice(code, PUBLISH)


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


def type_code(page: Page, code: str) -> None:
    """Replace the code field's content by typing, as a user does (key events, no setter)."""
    page.get_by_test_id("verification-code").click()
    page.keyboard.press("ControlOrMeta+A")
    page.keyboard.type(code)


def assert_unpublished(page: Page, server: TutorialServer) -> None:
    expect(page.get_by_test_id("workspace-status")).to_have_attribute("data-state", "draft")
    assert not server.state.snapshot().published, "the server says published"


def assert_publish_not_completed(
    page: Page, dock: Dock, timeline: Timeline, model: ModelHandle, server: TutorialServer,
    *, code: str, since: Mark, locale: str,
) -> None:
    """How every unsuccessful publish handoff must end: `code` to the model, no retry, still
    draft on page and server, the localised notice, and no claim of success."""
    guarantees.model_received(timeline, action=PUBLISH, code=code, since=since)
    guarantees.no_silent_retry(timeline, since=since)
    assert_unpublished(page, server)
    expect(dock.messages("notice").last).to_have_text(dock_notice(server, locale, code))
    guarantees.no_success_claim(timeline, success_phrases=model.success_phrases(PUBLISH, locale))


def assert_no_model_request(timeline: Timeline, since: Mark, why: str) -> None:
    sent = timeline.page_model_requests(since)
    received = timeline.server_records(since, kind="model.request")
    assert not sent and not received, (
        f"{why}, yet the page sent {len(sent)} model request(s) and the server received "
        f"{len(received)}\n\n{timeline.render()}")


def declare_testbed_handoff(page: Page, action: str, **handoff: Any) -> None:
    """A testbed handoff action (input + finish button) taking an optional `value` argument."""
    page.evaluate("declaration => window.plingTestbed.declare(declaration)", {
        "id": action, "desc": action, "kind": "danger",
        "params": {"type": "object", "properties": {"value": {"type": "string"}},
                   "additionalProperties": False},
        "handoff": handoff or True,
    })


# What the user types to start a testbed handoff (matched by `when_user`).
TESTBED_REQUEST = {"en": "do the pin step", "zh": "完成 PIN 步骤"}
TESTBED_PATTERN = r"pin"


# ---- no stacking -----------------------------------------------------------------------


@pytest.mark.guarantee("handoff-no-stacking")
def test_publish_handoff_shows_no_approval_card_from_start_to_success(
    tutorial_page: Page, dock: Dock, timeline: Timeline, say: Say,
) -> None:
    dock.ask(say("publish"))
    guarantees.handoff_without_approval(timeline, action=PUBLISH)

    type_code(tutorial_page, PUBLISH_CODE)
    tutorial_page.get_by_test_id("workspace-publish").click()
    dock.wait_until_handoff_ends()

    guarantees.handoff_without_approval(timeline, action=PUBLISH)
    guarantees.model_received(timeline, action=PUBLISH, code="OK")


@pytest.mark.guarantee("handoff-no-stacking")
def test_handoff_declared_confirm_always_still_asks_nothing(
    testbed_page: Page, dock: Dock, timeline: Timeline, model: ModelHandle, locale: str,
) -> None:
    testbed_page.evaluate("declaration => window.plingTestbed.declare(declaration)", {
        "id": "sign_contract", "desc": "sign_contract", "kind": "danger", "confirm": "always",
        "handoff": True,
    })
    model.when_user(TESTBED_PATTERN, "sign_contract")

    dock.ask(TESTBED_REQUEST[locale])

    guarantees.handoff_without_approval(timeline, action="sign_contract")


# ---- guidance and highlights -----------------------------------------------------------


@pytest.mark.guarantee("handoff-guidance")
def test_handoff_shows_localised_reason_and_both_steps_in_order(
    tutorial_page: Page, dock: Dock, timeline: Timeline, tutorial_server: TutorialServer,
    say: Say, locale: str,
) -> None:
    copy = page_copy(tutorial_server, locale)

    start_publish_handoff(dock, say)

    guarantees.handoff_shows_reason_and_steps(timeline, steps=2)
    expect(dock.handoff_reason).to_have_text(copy["handoff.publish_reason"])
    expect(dock.handoff_steps).to_have_text(
        [copy["handoff.publish_step_code"], copy["handoff.publish_step_submit"]])
    for index, target in enumerate(PUBLISH_STEP_TARGETS):
        expect(dock.handoff_steps.nth(index)).to_have_attribute("data-index", str(index))
        expect(dock.handoff_steps.nth(index)).to_have_attribute("data-target", target)
    expect(dock.handoff_current_step).to_have_attribute("data-index", "0")


def assert_only_highlight(page: Page, dock: Dock, timeline: Timeline, target: str) -> None:
    """`target` is the one highlighted element, and its overlay covers it."""
    guarantees.highlight_covers_target(timeline, target=target)
    expect(dock.highlights).to_have_count(1)
    expect(page.locator("[data-pling-highlighted]")).to_have_count(1)
    expect(page.locator("[data-pling-highlighted]")).to_have_attribute("data-pling-target", target)


@pytest.mark.guarantee("handoff-guidance")
def test_next_and_back_move_the_highlight_between_the_step_targets(
    tutorial_page: Page, dock: Dock, timeline: Timeline, say: Say,
) -> None:
    start_publish_handoff(dock, say)
    assert_only_highlight(tutorial_page, dock, timeline, CODE_TARGET)

    dock.handoff_next()
    expect(dock.handoff_current_step).to_have_attribute("data-index", "1")
    assert_only_highlight(tutorial_page, dock, timeline, PUBLISH)

    dock.handoff_back()
    expect(dock.handoff_current_step).to_have_attribute("data-index", "0")
    assert_only_highlight(tutorial_page, dock, timeline, CODE_TARGET)


@pytest.mark.guarantee("handoff-guidance")
def test_highlight_brings_off_screen_targets_into_view(
    tutorial_page: Page, dock: Dock, timeline: Timeline, say: Say,
) -> None:
    tutorial_page.set_viewport_size(SMALL_VIEWPORT)
    code_field = tutorial_page.get_by_test_id("verification-code")
    publish_button = tutorial_page.get_by_test_id("workspace-publish")
    expect(code_field).not_to_be_in_viewport()  # else this check could not fail

    start_publish_handoff(dock, say)
    guarantees.highlight_covers_target(timeline, target=CODE_TARGET)

    tutorial_page.evaluate("() => window.scrollTo({ top: 0, behavior: 'instant' })")
    expect(publish_button).not_to_be_in_viewport()
    dock.handoff_next()
    guarantees.highlight_covers_target(timeline, target=PUBLISH)


@pytest.mark.guarantee("handoff-guidance")
def test_highlight_follows_its_target_when_the_page_scrolls(
    tutorial_page: Page, dock: Dock, timeline: Timeline, say: Say,
) -> None:
    tutorial_page.set_viewport_size(SMALL_VIEWPORT)
    start_publish_handoff(dock, say)
    guarantees.highlight_covers_target(timeline, target=CODE_TARGET)

    for step, target in enumerate(PUBLISH_STEP_TARGETS):
        if step:
            dock.handoff_next()
        for delta in (SCROLL_BY_PX, -SCROLL_BY_PX):
            moved = tutorial_page.evaluate(SCROLL_AND_SETTLE, delta)
            assert abs(moved) >= SCROLL_BY_PX / 2, f"the page scrolled only {moved}px"
            guarantees.highlight_covers_target(timeline, target=target)


def end_by_cancel(page: Page, dock: Dock) -> None:
    dock.handoff_cancel()


def end_by_done_unpublished(page: Page, dock: Dock) -> None:
    dock.handoff_done()


def end_by_timeout(page: Page, dock: Dock) -> None:
    page.clock.fast_forward(DEFAULT_TIMEOUT_MS)
    dock.wait_until_handoff_ends()


def end_by_publishing(page: Page, dock: Dock) -> None:
    type_code(page, PUBLISH_CODE)
    page.get_by_test_id("workspace-publish").click()
    dock.wait_until_handoff_ends()


def end_by_new_conversation(page: Page, dock: Dock) -> None:
    dock.handoff_next()  # end on the second step's highlight
    dock.new_conversation()
    expect(dock.handoff).to_have_count(0)


HANDOFF_ENDINGS = {
    "cancel": end_by_cancel,
    "done-unpublished": end_by_done_unpublished,
    "timeout": end_by_timeout,
    "published": end_by_publishing,
    "new-conversation": end_by_new_conversation,
}


@pytest.mark.guarantee("handoff-guidance")
@pytest.mark.parametrize("ending", list(HANDOFF_ENDINGS))
def test_highlights_are_removed_however_the_handoff_ends(
    tutorial_page: Page, dock: Dock, timeline: Timeline, say: Say, ending: str,
) -> None:
    start_publish_handoff(dock, say)
    expect(dock.highlights).to_have_count(1)

    HANDOFF_ENDINGS[ending](tutorial_page, dock)

    expect(dock.handoff).to_have_count(0)
    guarantees.highlights_removed(timeline)


# ---- never writes into a target --------------------------------------------------------


@pytest.mark.guarantee("handoff-never-writes-target")
def test_whole_publish_handoff_writes_nothing_into_any_target(
    tutorial_page: Page, dock: Dock, timeline: Timeline, say: Say,
) -> None:
    start_publish_handoff(dock, say)
    expect(tutorial_page.get_by_test_id("verification-code")).to_have_value("")
    dock.handoff_next()
    dock.handoff_back()
    guarantees.no_writes_into_targets(timeline)

    type_code(tutorial_page, PUBLISH_CODE)
    tutorial_page.get_by_test_id("workspace-publish").click()
    dock.wait_until_handoff_ends()

    guarantees.model_received(timeline, action=PUBLISH, code="OK")
    guarantees.no_writes_into_targets(timeline)


@pytest.mark.guarantee("handoff-never-writes-target")
def test_code_sent_by_the_model_is_refused_and_never_typed_in(
    tutorial_page: Page, dock: Dock, timeline: Timeline, model: ModelHandle,
    tutorial_server: TutorialServer, say: Say,
) -> None:
    model.when_user(re.escape(say("publish")), PUBLISH, {"code": PUBLISH_CODE})

    dock.ask(say("publish"))

    guarantees.rejected_without_prompt(timeline, action=PUBLISH, code="INVALID_PARAMS")
    expect(tutorial_page.get_by_test_id("verification-code")).to_have_value("")
    guarantees.no_writes_into_targets(timeline)
    assert_unpublished(tutorial_page, tutorial_server)


@pytest.mark.guarantee("handoff-never-writes-target")
def test_handoff_arguments_never_prefill_the_target(
    testbed_page: Page, dock: Dock, timeline: Timeline, model: ModelHandle, locale: str,
) -> None:
    declare_testbed_handoff(testbed_page, "enter_pin")
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
    tutorial_server: TutorialServer, say: Say, locale: str,
) -> None:
    start_publish_handoff(dock, say)
    before = timeline.mark()

    dock.handoff_cancel()

    assert_publish_not_completed(tutorial_page, dock, timeline, model, tutorial_server,
                                 code="HANDOFF_CANCELLED", since=before, locale=locale)
    guarantees.state_unchanged(timeline, since=before)
    expect(dock.messages("assistant").last).to_have_text(
        model_failure_reply(model, "HANDOFF_CANCELLED", locale))


@pytest.mark.guarantee("handoff-timeout")
def test_default_timeout_ends_the_handoff_at_five_minutes_not_before(
    tutorial_page: Page, dock: Dock, timeline: Timeline, model: ModelHandle,
    tutorial_server: TutorialServer, say: Say, locale: str,
) -> None:
    start_publish_handoff(dock, say)
    before = timeline.mark()

    tutorial_page.clock.fast_forward(DEFAULT_TIMEOUT_MS - ONE_SECOND_MS)
    expect(dock.handoff_timer).to_have_text(re.compile(r"\b0:01\b"))
    expect(dock.handoff).to_be_visible()
    assert_no_model_request(timeline, before, "the handoff has a second left")

    tutorial_page.clock.fast_forward(ONE_SECOND_MS)
    dock.wait_until_handoff_ends()

    assert_publish_not_completed(tutorial_page, dock, timeline, model, tutorial_server,
                                 code="HANDOFF_TIMEOUT", since=before, locale=locale)
    guarantees.highlights_removed(timeline)


@pytest.mark.guarantee("handoff-custom-timeout")
def test_short_custom_timeout_ends_the_handoff_after_ten_seconds(
    testbed_page: Page, dock: Dock, timeline: Timeline, model: ModelHandle, locale: str,
) -> None:
    declare_testbed_handoff(testbed_page, "quick_step", timeout=10 * ONE_SECOND_MS)
    model.when_user(TESTBED_PATTERN, "quick_step")
    dock.ask(TESTBED_REQUEST[locale])
    expect(dock.handoff).to_have_attribute("data-action", "quick_step")
    before = timeline.mark()

    testbed_page.clock.fast_forward(9 * ONE_SECOND_MS)
    expect(dock.handoff).to_be_visible()
    assert_no_model_request(timeline, before, "the 10 s handoff has a second left")

    testbed_page.clock.fast_forward(ONE_SECOND_MS)
    dock.wait_until_handoff_ends()

    guarantees.model_received(timeline, action="quick_step", code="HANDOFF_TIMEOUT", since=before)
    guarantees.no_silent_retry(timeline, since=before)


@pytest.mark.guarantee("handoff-custom-timeout")
def test_long_custom_timeout_outlasts_the_default_five_minutes(
    testbed_page: Page, dock: Dock, timeline: Timeline, model: ModelHandle, locale: str,
) -> None:
    long_timeout_ms = 2 * DEFAULT_TIMEOUT_MS
    declare_testbed_handoff(testbed_page, "slow_step", timeout=long_timeout_ms)
    model.when_user(TESTBED_PATTERN, "slow_step")
    dock.ask(TESTBED_REQUEST[locale])
    expect(dock.handoff).to_have_attribute("data-action", "slow_step")
    before = timeline.mark()

    testbed_page.clock.fast_forward(DEFAULT_TIMEOUT_MS)
    expect(dock.handoff).to_be_visible()
    assert_no_model_request(timeline, before, "the 10 min handoff is only half way")

    testbed_page.clock.fast_forward(long_timeout_ms - DEFAULT_TIMEOUT_MS)
    dock.wait_until_handoff_ends()
    guarantees.model_received(timeline, action="slow_step", code="HANDOFF_TIMEOUT", since=before)


@pytest.mark.guarantee("handoff-done-requires-expect")
def test_done_without_publishing_reports_handoff_failed(
    tutorial_page: Page, dock: Dock, timeline: Timeline, model: ModelHandle,
    tutorial_server: TutorialServer, say: Say, locale: str,
) -> None:
    start_publish_handoff(dock, say)
    before = timeline.mark()

    dock.handoff_done()

    assert_publish_not_completed(tutorial_page, dock, timeline, model, tutorial_server,
                                 code="HANDOFF_FAILED", since=before, locale=locale)


@pytest.mark.guarantee("handoff-done-requires-expect")
def test_done_after_typing_the_code_but_not_publishing_reports_handoff_failed(
    tutorial_page: Page, dock: Dock, timeline: Timeline, model: ModelHandle,
    tutorial_server: TutorialServer, say: Say, locale: str,
) -> None:
    start_publish_handoff(dock, say)
    before = timeline.mark()
    type_code(tutorial_page, PUBLISH_CODE)
    expect(dock.handoff_current_step).to_have_attribute("data-target", PUBLISH)

    dock.handoff_done()

    guarantees.model_received(timeline, action=PUBLISH, code="HANDOFF_FAILED", since=before)
    guarantees.no_business_request(timeline, since=before)
    assert_unpublished(tutorial_page, tutorial_server)
    guarantees.no_success_claim(timeline, success_phrases=model.success_phrases(PUBLISH, locale))


@pytest.mark.guarantee("handoff-wrong-code")
def test_wrong_code_keeps_the_handoff_open_then_the_right_code_succeeds(
    tutorial_page: Page, dock: Dock, timeline: Timeline, tutorial_server: TutorialServer,
    say: Say, locale: str,
) -> None:
    start_publish_handoff(dock, say)
    before = timeline.mark()

    type_code(tutorial_page, WRONG_CODE)
    tutorial_page.get_by_test_id("workspace-publish").click()

    expect(tutorial_page.get_by_test_id("workspace-message")).to_have_text(
        page_copy(tutorial_server, locale)["message.wrong_code"])
    wrong = timeline.server_business_records(before)
    assert [(r.path, r.status) for r in wrong] == [("/api/workspace/publish", 400)], wrong
    assert_unpublished(tutorial_page, tutorial_server)
    expect(dock.handoff).to_be_visible()
    assert_no_model_request(timeline, before, "the wrong code was refused")

    type_code(tutorial_page, PUBLISH_CODE)
    tutorial_page.get_by_test_id("workspace-publish").click()
    dock.wait_until_handoff_ends()

    guarantees.success_only_after_published(timeline, action=PUBLISH, since=before)
    expect(tutorial_page.get_by_test_id("workspace-status")).to_have_attribute(
        "data-state", "published")


@pytest.mark.guarantee("success-only-after-published")
def test_success_waits_for_the_page_to_show_what_the_server_published(
    tutorial_page: Page, dock: Dock, timeline: Timeline, tutorial_server: TutorialServer,
    model: ModelHandle, say: Say, locale: str,
) -> None:
    """The server has published but the page does not show it yet: no success may leave."""
    start_publish_handoff(dock, say)
    before = timeline.mark()
    status = tutorial_page.get_by_test_id("workspace-status")
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
    type_code(tutorial_page, PUBLISH_CODE)
    tutorial_page.get_by_test_id("workspace-publish").click()
    dock.wait_until_handoff_ends()

    assert seen == {"server published": True, "page showed": "draft", "handoff open": True,
                    "model requests": 0}, (
        f"while the server's answer was on its way: {seen}\n\n{timeline.render()}")
    guarantees.success_only_after_published(timeline, action=PUBLISH, since=before)
    expect(dock.messages("assistant").last).to_have_text(
        model.success_phrases(PUBLISH, locale)[0])

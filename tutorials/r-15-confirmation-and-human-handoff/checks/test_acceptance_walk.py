"""SPEC §9: the acceptance walk, its six steps in order in one dock session, per locale."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect
from workspace_state import INITIAL_WORKSPACE, PUBLISH_CODE

from pling_harness import (
    Dock,
    ModelHandle,
    Say,
    Timeline,
    TutorialServer,
    Words,
    guarantees,
)

# The name the tutorial's "save" request (its user_requests) asks for.
SAVED_NAME = "Acme"


@pytest.mark.guarantee("acceptance-walk")
def test_acceptance_walk_six_steps_in_order(
    tutorial_page: Page, dock: Dock, timeline: Timeline, model: ModelHandle,
    tutorial_server: TutorialServer, words: Words, say: Say, locale: str,
) -> None:
    page = tutorial_page
    status = page.get_by_test_id("workspace-status")
    code_field = page.get_by_test_id("verification-code")

    # 1. Save the name: an approval appears first; after Allow the name is saved.
    step = timeline.mark()
    dock.ask(say("save"))
    expect(dock.approval_for("save_workspace_name")).to_be_visible()
    guarantees.no_business_request(timeline, since=step, guarantee="acceptance-walk step 1")
    assert tutorial_server.state.snapshot() == INITIAL_WORKSPACE
    dock.approve()
    guarantees.approval_before_side_effects(timeline, action="save_workspace_name", since=step)
    guarantees.model_received(timeline, action="save_workspace_name", code="OK", since=step)
    assert tutorial_server.state.snapshot().name == SAVED_NAME
    expect(page.get_by_test_id("workspace-name-display")).to_have_text(SAVED_NAME)

    # 2. Archive: it asks every time, with no "always allow".
    step = timeline.mark()
    dock.ask(say("archive"))
    expect(dock.approval_for("archive_workspace")).to_be_visible()
    dock.deny()
    dock.ask(say("archive"))
    expect(dock.approval_for("archive_workspace")).to_be_visible()
    guarantees.prompted_for_every_call(timeline, action="archive_workspace", since=step)
    # No card offered "always allow" (an assistant without one offers it on none).
    offering = [card for card in timeline.shown("approval", step) if card.always]
    assert not offering, f"a card for archive_workspace offered 'always allow': {offering}"

    # 3. Deny an archive: the assistant says it was not permitted, and claims nothing.
    denied = timeline.mark()
    dock.deny()
    guarantees.denial_respected(
        timeline, action="archive_workspace", since=denied,
        success_phrases=model.success_phrases("archive_workspace", locale))
    guarantees.no_silent_retry(timeline, since=denied)
    guarantees.notice_means(timeline, words, code="PERMISSION_DENIED", action="archive_workspace",
                            guarantee="acceptance-walk step 3")
    expect(dock.messages("assistant").last).to_have_text(
        model.reply_after("archive_workspace", "PERMISSION_DENIED", locale))
    expect(status).to_have_attribute("data-archived", "false")
    assert not tutorial_server.state.snapshot().archived

    # 4. Publish: handoff, the code field and then Publish highlighted, nothing filled in.
    step = timeline.mark()
    dock.ask(say("publish"))
    guarantees.handoff_without_approval(timeline, action="publish_changes", since=step)
    guarantees.handoff_shows_reason_and_steps(timeline, steps=2)
    guarantees.highlight_covers_target(timeline, target="verification_code")
    # A page whose current step follows the code field has no Next or Back (its driver says
    # so): the highlight's move to Publish is then seen in step 6, once the code is typed.
    steps_by_buttons = dock.has_handoff_part("next") and dock.has_handoff_part("back")
    if steps_by_buttons:
        dock.handoff_next()
        guarantees.highlight_covers_target(timeline, target="publish_changes")
        dock.handoff_back()
    expect(code_field).to_have_value("")
    guarantees.no_writes_into_targets(timeline, since=step)

    # 5. Cancel: the assistant says the step was not completed.
    cancelled = timeline.mark()
    dock.handoff_cancel()
    guarantees.model_received(timeline, action="publish_changes", code="HANDOFF_CANCELLED",
                              since=cancelled)
    guarantees.no_silent_retry(timeline, since=cancelled)
    guarantees.highlights_removed(timeline, since=step)
    guarantees.notice_means(timeline, words, code="HANDOFF_CANCELLED", action="publish_changes",
                            guarantee="acceptance-walk step 5")
    expect(dock.messages("assistant").last).to_have_text(
        model.reply_after("publish_changes", "HANDOFF_CANCELLED", locale))
    expect(status).to_have_attribute("data-state", "draft")

    # 6. Type 246810 and publish: success reaches the assistant only once "published" shows.
    step = timeline.mark()
    dock.ask(say("publish"))
    expect(dock.handoff_for("publish_changes")).to_be_visible()
    expect(code_field).to_have_value("")
    code_field.click()
    page.keyboard.type(PUBLISH_CODE)
    if not steps_by_buttons:
        guarantees.highlight_covers_target(timeline, target="publish_changes")
    page.get_by_test_id("workspace-publish").click()
    dock.wait_until_handoff_ends()
    guarantees.success_only_after_published(timeline, action="publish_changes", since=step)
    expect(status).to_have_attribute("data-state", "published")
    expect(dock.messages("assistant").last).to_have_text(
        model.reply_after("publish_changes", "OK", locale))
    guarantees.no_writes_into_targets(timeline)
    guarantees.highlights_removed(timeline)
    assert tutorial_server.state.snapshot() == INITIAL_WORKSPACE.model_copy(
        update={"name": SAVED_NAME, "published": True})

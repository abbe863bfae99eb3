"""First r-15 checks: save with approval, archive denied, publish handoff.

The §2 policy table is proven row by row through the page in test_policy_rows.py.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from harness.browser.dock import Dock
from harness.evidence import guarantees
from harness.evidence.timeline import Timeline
from harness.project.texts import Words
from harness.server.model.handle import ModelHandle
from harness.server.runner import TutorialServer
from harness.server.state import INITIAL_WORKSPACE, PUBLISH_CODE

Say = Callable[[str], str]
# The name the "save" request (checks/conftest.py) asks for.
SAVED_NAME = "Acme"


@pytest.mark.guarantee("approval-before-side-effects")
def test_save_name_asks_first_then_saves(
    tutorial_page: Page, dock: Dock, timeline: Timeline, tutorial_server: TutorialServer,
    say: Say,
) -> None:
    dock.ask(say("save"))

    guarantees.always_allow_offered(timeline, action="save_workspace_name")
    expect(dock.approval_args).to_contain_text(SAVED_NAME)
    dock.approve()

    guarantees.approval_before_side_effects(timeline, action="save_workspace_name")
    guarantees.model_received(timeline, action="save_workspace_name", code="OK")
    assert tutorial_server.state.snapshot().name == SAVED_NAME
    expect(tutorial_page.get_by_test_id("workspace-name-display")).to_have_text(SAVED_NAME)


@pytest.mark.guarantee("denial-respected")
def test_archive_denied_changes_nothing(
    tutorial_page: Page, dock: Dock, timeline: Timeline, tutorial_server: TutorialServer,
    model: ModelHandle, say: Say, locale: str,
) -> None:
    dock.ask(say("archive"))
    guarantees.always_allow_never_offered(timeline, action="archive_workspace")
    before = timeline.mark()

    dock.deny()

    guarantees.denial_respected(
        timeline, action="archive_workspace", since=before,
        success_phrases=model.success_phrases("archive_workspace", locale))
    guarantees.no_silent_retry(timeline, since=before)
    # The dock says "not allowed, not run" in the page's language (glossary, not the copy).
    guarantees.notice_means(timeline, Words(tutorial_server.root, tutorial_server.tutorial, locale),
                            code="PERMISSION_DENIED", action="archive_workspace",
                            guarantee="denial-respected")
    assert tutorial_server.state.snapshot() == INITIAL_WORKSPACE
    expect(tutorial_page.get_by_test_id("workspace-status")).to_have_attribute(
        "data-archived", "false")


@pytest.mark.guarantee("success-only-after-published")
def test_publish_is_handed_off_and_succeeds_only_once_published(
    tutorial_page: Page, dock: Dock, timeline: Timeline, tutorial_server: TutorialServer,
    say: Say,
) -> None:
    dock.ask(say("publish"))

    guarantees.handoff_without_approval(timeline, action="publish_changes")
    guarantees.handoff_shows_reason_and_steps(timeline, steps=2)
    guarantees.highlight_covers_target(timeline, target="verification_code")
    code_field = tutorial_page.get_by_test_id("verification-code")
    expect(code_field).to_have_value("")  # the runtime filled in nothing

    # Typed like a user: keyboard events, never the value setter.
    code_field.click()
    tutorial_page.keyboard.type(PUBLISH_CODE)
    expect(dock.handoff_current_step).to_have_attribute("data-target", "publish_changes")
    guarantees.highlight_covers_target(timeline, target="publish_changes")
    tutorial_page.get_by_test_id("workspace-publish").click()
    dock.wait_until_handoff_ends()

    guarantees.success_only_after_published(timeline, action="publish_changes")
    guarantees.highlights_removed(timeline)
    guarantees.no_writes_into_targets(timeline)
    assert tutorial_server.state.snapshot().published


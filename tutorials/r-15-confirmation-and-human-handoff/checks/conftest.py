"""Shared pieces of the r-15 check suite: the page's own publish controls (and, in
workspace_state.py, the tutorial's own state and constants). (What a user types
to the assistant is the tutorial's `user_requests`, served by the plugin's `say` fixture.)"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from pling_harness import TutorialServer

# The checks share r-15's own constants through checks/workspace_state.py (from the
# tutorial's backend.py); pytest imports in importlib mode, which puts no folder on sys.path.
CHECKS_FOLDER = str(Path(__file__).parent)
if CHECKS_FOLDER not in sys.path:
    sys.path.insert(0, CHECKS_FOLDER)


class Workspace:
    """The r-15 page's own publish controls, used the way a person uses them."""

    def __init__(self, page: Page, server: TutorialServer) -> None:
        self.page = page
        self.server = server
        self.code_field = page.get_by_test_id("verification-code")
        self.publish_button = page.get_by_test_id("workspace-publish")
        self.status = page.get_by_test_id("workspace-status")
        self.message = page.get_by_test_id("workspace-message")

    def type_code(self, code: str) -> None:
        """Replace the code field's content by typing (key events, no value setter)."""
        self.code_field.click()
        self.page.keyboard.press("ControlOrMeta+A")
        self.page.keyboard.type(code)

    def publish(self, code: str) -> None:
        """Type `code` and click Publish."""
        self.type_code(code)
        self.publish_button.click()

    def expect_unpublished(self) -> None:
        """Still a draft, on the page and at the server."""
        expect(self.status).to_have_attribute("data-state", "draft")
        assert not self.server.state.snapshot().published, "the server says published"


@pytest.fixture
def workspace(page: Page, tutorial_server: TutorialServer) -> Workspace:
    """The r-15 page's code field, Publish button and status, driven like a user (open the
    page with `tutorial_page` or your own fixture first)."""
    return Workspace(page, tutorial_server)

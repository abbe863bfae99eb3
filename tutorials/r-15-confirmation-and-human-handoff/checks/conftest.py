"""Shared pieces of the r-15 check suite: what a user types to the assistant, per locale, and
the page's publish controls."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from harness.server.runner import TutorialServer

# Plain requests a user would type, matched by the scripted model's rules (model-rules.json).
USER_REQUESTS: dict[str, dict[str, str]] = {
    "save": {"en": "rename the workspace to Acme", "zh": "把工作区名称改为 Acme"},
    "archive": {"en": "archive the workspace", "zh": "归档工作区"},
    "reset": {"en": "reset the workspace", "zh": "重置工作区"},
    "publish": {"en": "publish the changes", "zh": "发布更改"},
    "status": {"en": "what is the workspace status?", "zh": "查看工作区状态"},
}


@pytest.fixture
def say(locale: str) -> Callable[[str], str]:
    """say("archive") → what a user types in this locale to ask for it."""
    return lambda request: USER_REQUESTS[request][locale]


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

"""The dock's "Working…" status: shown while the agent works, hidden while a card waits on
the user (the turn is still open then, but it is the user's move)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, Route, expect

from pling_harness.browser.dock import Dock

pytestmark = pytest.mark.parametrize("locale", ["en"])


def hold(route: Route) -> None:
    """Neither answer nor fail: the request stays in flight until the page closes."""


def test_dock_shows_working_while_the_model_has_not_answered(
    tutorial_page: Page, dock: Dock
) -> None:
    tutorial_page.route("**/api/model", hold)

    dock.input.fill("rename the workspace to Acme")
    dock.send_button.click()

    expect(dock.busy).to_be_visible()
    expect(dock.busy).to_have_text("Working…")
    expect(dock.send_button).to_be_disabled()


def test_dock_hides_working_while_an_approval_card_waits(
    tutorial_page: Page, dock: Dock
) -> None:
    dock.ask("rename the workspace to Acme")

    expect(dock.approval).to_be_visible()
    expect(dock.busy).to_be_attached()  # the turn is still open
    expect(dock.busy).to_be_hidden()
    dock.approve()
    expect(dock.busy).to_have_count(0)


def test_dock_hides_working_while_the_handoff_panel_waits(
    tutorial_page: Page, dock: Dock
) -> None:
    dock.ask("publish the changes")

    expect(dock.handoff).to_be_visible()
    expect(dock.busy).to_be_attached()
    expect(dock.busy).to_be_hidden()

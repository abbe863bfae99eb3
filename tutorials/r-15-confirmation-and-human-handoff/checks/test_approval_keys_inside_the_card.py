"""A keyboard user who tabbed into the approval card answers it only with a decision button's
own activation (Enter or Space on that button, which is its click). Escape, letters, arrows,
Backspace or Delete pressed while a card button has the focus answer nothing: the card stays
open, the model hears nothing, nothing is requested or changed. (Before, keys were only tried
outside the card, so a card that took Escape inside it as Deny passed.)"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page
from workspace_state import INITIAL_WORKSPACE

from harness import (
    Dock,
    GuaranteeViolation,
    Say,
    Timeline,
    TutorialServer,
    guarantees,
)

GUARANTEE = "approval-only-by-click"
SAVE = "save_workspace_name"
# Keys that are no button's activation, pressed with a decision button focused.
NOT_AN_ACTIVATION = ["Escape", "x", "ArrowRight", "ArrowDown", "Backspace", "Delete"]
# More Tab presses than the dock has focusable elements: past them focus has left the dock.
TAB_LIMIT = 30

FOCUSED_DECISION = """() => {
  const focused = document.activeElement;
  const card = focused && focused.closest("[data-testid='pling-approval']");
  return card && focused.hasAttribute("data-decision")
    ? focused.getAttribute("data-decision") : null;
}"""


@pytest.mark.guarantee(GUARANTEE)
@pytest.mark.parametrize("key", NOT_AN_ACTIVATION)
def test_a_key_that_is_no_activation_on_a_focused_card_button_answers_nothing(
    tutorial_page: Page, dock: Dock, timeline: Timeline, tutorial_server: TutorialServer,
    say: Say, key: str,
) -> None:
    dock.ask(say("save"))
    guarantees.always_allow_offered(timeline, action=SAVE)
    waiting = timeline.mark()
    buttons = dock.approval.locator("[data-decision]").count()

    # From the dock's input, Tab (the real keyboard) walks onto each decision button in
    # turn; the key is pressed on each, and the card must still be open after every press.
    dock.input.focus()
    pressed: list[str] = []
    for _ in range(TAB_LIMIT):
        tutorial_page.keyboard.press("Tab")
        decision = tutorial_page.evaluate(FOCUSED_DECISION)
        if decision is None and pressed:
            break
        if decision is not None:
            tutorial_page.keyboard.press(key)
            pressed.append(decision)
            guarantees.approval_still_open(timeline, action=SAVE, since=waiting)

    if len(pressed) != buttons:
        raise GuaranteeViolation(GUARANTEE, f"Tab from the dock's input should reach each of "
                                 f"the card's {buttons} decision buttons in turn; {key} was "
                                 f"pressed on {pressed}", timeline)
    guarantees.approval_still_open(timeline, action=SAVE, since=waiting)
    # The card still answers its buttons: Deny is the one decision the model receives.
    dock.deny()
    results = [r.code for r in timeline.tool_results(waiting) if r.action == SAVE]
    if results != ["PERMISSION_DENIED"]:
        raise GuaranteeViolation(GUARANTEE, f"after {key} on every card button and Deny the "
                                 f"model should get one PERMISSION_DENIED, it got {results}",
                                 timeline)
    assert tutorial_server.state.snapshot() == INITIAL_WORKSPACE

"""Confirmation beyond what r-15's action table implies: a session grant covers only its own
action, ask-always for an id registered again as `danger` on the testbed, and what alone
answers the card: a click on a decision button; no key but a focused button's own
activation, no click elsewhere, no decision attribute around the dock. The gestures need only
Allow and Deny; what they do to "always allow" is a check of its own, n/a where the
assistant offers none. (Each r-15 action's
approval first, denial, no retry, session grant or its absence, forged "always", what the
card shows, and one card and one run per call whatever the page's lifecycle: the checks
generated from actions.json; decisions the executor does not
know, and an action that became unavailable while its card was open:
test_approval_decisions.py.)"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect
from testbed_actions import (
    GO_AHEAD,
    GO_AHEAD_PATTERN,
    GUARDED_SAVE,
    GUARDED_SAVE_ARGUMENTS,
    REQUESTS,
    declare_guarded,
)
from workspace_state import INITIAL_WORKSPACE

from pling_harness import (
    Dock,
    GuaranteeViolation,
    Mark,
    ModelHandle,
    Say,
    Testbed,
    TestbedScripts,
    Timeline,
    TutorialServer,
    guarantees,
)

TIDY = TestbedScripts.TIDY


# What a user types to rename the workspace (matched by model-rules.json's save intent).
RENAME_TO = REQUESTS["rename_to"]
# A name other than the initial one, so a save is visible.
FIRST_NAME = "Acme"

SAVE = "save_workspace_name"
# Testbed: what a user types to make the model call an action (`when_user`).
RUN_REQUEST = REQUESTS["run_action"]


def rename(locale: str, name: str) -> str:
    return RENAME_TO[locale].format(name=name)


def nothing_happened_yet(timeline: Timeline, tutorial_server: TutorialServer, *, since: Mark,
                         guarantee: str) -> None:
    """While a card waits for the user: no business request, server and page unchanged."""
    guarantees.no_business_request(timeline, since=since, guarantee=guarantee)
    guarantees.state_unchanged(timeline, since=since, guarantee=guarantee)


# ---- session-grant-for-ask --------------------------------------------------------------


@pytest.mark.guarantee("session-grant-for-ask")
def test_always_allow_covers_only_the_action_it_was_given_for(
    testbed: Testbed, dock: Dock, timeline: Timeline, tutorial_server: TutorialServer,
    model: ModelHandle, locale: str,
) -> None:
    # Two `ask` actions: r-15 has only one, so the testbed declares them.
    for action in ("ask_first", "ask_second"):
        testbed.declare({"id": action, "desc": action, "kind": "write", "confirm": True})
        model.when_user(rf"(?:run|运行) {action}\b", action, {})
    dock.ask(RUN_REQUEST[locale].format(id="ask_first"))
    dock.approve_always()

    granted = timeline.mark()
    dock.ask(RUN_REQUEST[locale].format(id="ask_first"))
    guarantees.ran_without_prompt(timeline, action="ask_first", since=granted)

    other = timeline.mark()
    dock.ask(RUN_REQUEST[locale].format(id="ask_second"))
    guarantees.always_allow_offered(timeline, action="ask_second")
    nothing_happened_yet(timeline, tutorial_server, since=other,
                         guarantee="session-grant-for-ask")
    dock.deny()
    assert [call.action for call in testbed.calls()] == ["ask_first"] * 2


# ---- approval-only-by-click -------------------------------------------------------------


def keys_in_the_dock_input(page: Page, dock: Dock) -> None:
    dock.input.press("Escape")
    dock.input.press("Enter")


def keys_on_the_page(page: Page, dock: Dock) -> None:
    # Focus on nothing in particular (the body), as after the user clicked away.
    page.evaluate("() => document.activeElement instanceof HTMLElement"
                  " && document.activeElement.blur()")
    page.keyboard.press("Escape")
    page.keyboard.press("Enter")


def clicks_on_the_card_outside_its_buttons(page: Page, dock: Dock) -> None:
    dock.approval_description.click()
    dock.approval_args.click()
    dock.approval.click(position={"x": 3, "y": 3})  # the card's own edge


def clicks_elsewhere_in_the_dock(page: Page, dock: Dock) -> None:
    dock.messages("user").last.click()
    dock.root.click(position={"x": 3, "y": 3})  # the dock's own corner
    dock.input.click()


def clicks_on_the_page(page: Page, dock: Dock) -> None:
    page.get_by_test_id("workspace-name-display").click()
    page.get_by_test_id("workspace-status").click()
    page.locator("body").click(position={"x": 3, "y": 3})


def focus_moving_through_and_out_of_the_card(page: Page, dock: Dock) -> None:
    # Keyboard focus walks over the card's buttons (Deny, Allow, and Always allow where it is
    # offered) without pressing any of them.
    dock.deny_button.focus()
    for _ in range(3):
        page.keyboard.press("Tab")
    page.keyboard.press("Shift+Tab")
    dock.input.focus()


def card_waiting(dock: Dock) -> None:
    """The rename's card is on screen with its Allow and Deny: all the gestures need (a
    card's "always allow" is held by the check of its own below)."""
    expect(dock.approval_for(SAVE)).to_be_visible()
    expect(dock.approve_button).to_be_visible()
    expect(dock.deny_button).to_be_visible()


# Everything a user can do near a card other than clicking one of its decision buttons.
NOT_A_DECISION: dict[str, Callable[[Page, Dock], None]] = {
    "keys-in-the-dock-input": keys_in_the_dock_input,
    "keys-on-the-page": keys_on_the_page,
    "clicks-on-the-card-outside-its-buttons": clicks_on_the_card_outside_its_buttons,
    "clicks-elsewhere-in-the-dock": clicks_elsewhere_in_the_dock,
    "clicks-on-the-page": clicks_on_the_page,
    "focus-moving-through-and-out-of-the-card": focus_moving_through_and_out_of_the_card,
}


@pytest.mark.guarantee("approval-only-by-click")
@pytest.mark.parametrize("gesture", list(NOT_A_DECISION))
def test_approval_card_stays_open_until_a_decision_button_is_clicked(
    tutorial_page: Page, dock: Dock, timeline: Timeline, tutorial_server: TutorialServer,
    locale: str, gesture: str,
) -> None:
    dock.ask(rename(locale, FIRST_NAME))
    card_waiting(dock)
    waiting = timeline.mark()

    NOT_A_DECISION[gesture](tutorial_page, dock)

    guarantees.approval_still_open(timeline, action=SAVE, since=waiting)
    # The card still answers its buttons: Deny is the one decision the model receives.
    dock.deny()
    results = [r.code for r in timeline.tool_results(waiting) if r.action == SAVE]
    if results != ["PERMISSION_DENIED"]:
        raise GuaranteeViolation("approval-only-by-click", f"after {gesture} and Deny the "
                                 f"model should get one PERMISSION_DENIED, it got {results}",
                                 timeline)
    assert tutorial_server.state.snapshot() == INITIAL_WORKSPACE


@pytest.mark.guarantee("approval-only-by-click")
def test_decision_attribute_around_the_dock_does_not_decide_a_click_on_the_card(
    testbed: Testbed, dock: Dock, timeline: Timeline, model: ModelHandle, locale: str,
) -> None:
    declare_guarded(testbed)
    dock.wrap_in_decision("allow")
    model.when_user(GO_AHEAD_PATTERN, GUARDED_SAVE, GUARDED_SAVE_ARGUMENTS)
    start = timeline.mark()
    dock.ask(GO_AHEAD[locale])
    expect(dock.approval_for(GUARDED_SAVE)).to_be_visible()
    shown = timeline.mark()

    dock.approval_description.click()

    guarantees.approval_still_open(timeline, action=GUARDED_SAVE, since=shown)
    assert testbed.calls() == []
    dock.deny()
    guarantees.model_received(timeline, action=GUARDED_SAVE, code="PERMISSION_DENIED", since=start,
                              guarantee="approval-only-by-click")


@pytest.mark.guarantee("ask-always-never-granted")
def test_always_allow_given_before_an_action_was_registered_again_as_danger_does_not_carry(
    testbed: Testbed, dock: Dock, timeline: Timeline, model: ModelHandle, locale: str,
) -> None:
    testbed.scripts.register_tidy_as_write()
    model.when_user(GO_AHEAD_PATTERN, TIDY, {})
    dock.ask(GO_AHEAD[locale])
    dock.approve_always()
    testbed.scripts.register_tidy_again_as_danger()
    again = timeline.mark()

    dock.ask(GO_AHEAD[locale])

    # The grant was for an `ask` action; the action now under that id asks on every call.
    guarantees.prompted_for_every_call(timeline, action=TIDY, since=again)
    guarantees.always_allow_never_offered(timeline, action=TIDY, since=again)


# Keys that are no button's activation, pressed with a decision button focused.
NOT_AN_ACTIVATION = ["Escape", "x", "ArrowRight", "ArrowDown", "Backspace", "Delete"]
# More Tab presses than the dock has focusable elements: past them focus has left the dock.
TAB_LIMIT = 30


@pytest.mark.guarantee("approval-only-by-click")
@pytest.mark.parametrize("key", NOT_AN_ACTIVATION)
def test_a_key_that_is_no_activation_on_a_focused_card_button_answers_nothing(
    tutorial_page: Page, dock: Dock, timeline: Timeline, tutorial_server: TutorialServer,
    say: Say, key: str,
) -> None:
    dock.ask(say("save"))
    card_waiting(dock)
    waiting = timeline.mark()
    buttons = dock.decision_controls.count()

    # From the dock's input, Tab (the real keyboard) walks onto each decision button in
    # turn; the key is pressed on each, and the card must still be open after every press.
    dock.input.focus()
    pressed: list[str] = []
    for _ in range(TAB_LIMIT):
        tutorial_page.keyboard.press("Tab")
        decision = dock.focused_decision()
        if decision is None and pressed:
            break
        if decision is not None:
            tutorial_page.keyboard.press(key)
            pressed.append(decision)
            guarantees.approval_still_open(timeline, action=SAVE, since=waiting)

    if len(pressed) != buttons:
        raise GuaranteeViolation("approval-only-by-click", f"Tab from the dock's input should "
                                 f"reach each of the card's {buttons} decision buttons in "
                                 f"turn; {key} was pressed on {pressed}", timeline)
    guarantees.approval_still_open(timeline, action=SAVE, since=waiting)
    # The card still answers its buttons: Deny is the one decision the model receives.
    deny_and_expect_one_denial(dock, timeline, waiting, f"{key} on every card button")
    assert tutorial_server.state.snapshot() == INITIAL_WORKSPACE


@pytest.mark.guarantee("approval-only-by-click")
def test_keys_and_focus_on_always_allow_answer_nothing(
    tutorial_page: Page, dock: Dock, timeline: Timeline, tutorial_server: TutorialServer,
    say: Say,
) -> None:
    # The gestures above run wherever a card has Allow and Deny; "always allow" is held here,
    # so an assistant that offers none (its driver: `approval.always` absent) loses only this.
    dock.ask(say("save"))
    guarantees.always_allow_offered(timeline, action=SAVE)
    waiting = timeline.mark()

    for key in NOT_AN_ACTIVATION:
        dock.approve_always_button.focus()
        if dock.focused_decision() != "always":
            raise GuaranteeViolation("approval-only-by-click", f"'always allow' did not take "
                                     f"the focus before {key} was pressed on it", timeline)
        tutorial_page.keyboard.press(key)
        guarantees.approval_still_open(timeline, action=SAVE, since=waiting)
    dock.input.focus()  # focus leaving it decides nothing either

    guarantees.approval_still_open(timeline, action=SAVE, since=waiting)
    deny_and_expect_one_denial(dock, timeline, waiting, "keys on 'always allow'")
    assert tutorial_server.state.snapshot() == INITIAL_WORKSPACE


def deny_and_expect_one_denial(dock: Dock, timeline: Timeline, waiting: Mark,
                               after: str) -> None:
    """Deny the card still open `after` the gestures: the model gets one PERMISSION_DENIED
    for it, the only decision it hears."""
    dock.deny()
    results = [r.code for r in timeline.tool_results(waiting) if r.action == SAVE]
    if results != ["PERMISSION_DENIED"]:
        raise GuaranteeViolation("approval-only-by-click", f"after {after} and Deny the model "
                                 f"should get one PERMISSION_DENIED, it got {results}",
                                 timeline)

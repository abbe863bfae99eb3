"""Confirmation on the r-15 page: session grants, ask-always (also for an id registered again
as `danger` on the testbed), approval first, denial, no retry, and what alone answers the
card: a click on a decision button; no key but a focused button's own activation, no click
elsewhere, no `data-decision` around the dock. (What the card shows:
test_hidden_characters.py; decisions the executor does not know, and an action that became
unavailable while its card was open: test_approval_decisions.py.)"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect
from testbed_actions import (
    GO_AHEAD,
    GO_AHEAD_PATTERN,
    GUARDED_SAVE,
    GUARDED_SAVE_ARGUMENTS,
    declare_guarded,
)
from workspace_state import INITIAL_WORKSPACE, WorkspaceSnapshot

from harness import (
    FORGE_ROUTES,
    Dock,
    ForgeRoute,
    GuaranteeViolation,
    Mark,
    ModelHandle,
    OpenTutorialPage,
    Say,
    Testbed,
    TestbedScripts,
    Timeline,
    TutorialServer,
    guarantees,
    reload_page,
)

TIDY = TestbedScripts.TIDY


# What a user types to rename the workspace (matched by model-rules.json's save intent).
RENAME_TO = {"en": "rename the workspace to {name}", "zh": "把工作区名称改为 {name}"}
# Names other than the initial one and the conftest's "Acme", so each save is visible.
FIRST_NAME, SECOND_NAME = "Acme", "Globex"
# A workspace far from the initial one, so a reset (or its absence) shows on server and page.
CHANGED_WORKSPACE = WorkspaceSnapshot(name="Globex", archived=True, published=False)

SAVE, ARCHIVE, RESET = "save_workspace_name", "archive_workspace", "reset_workspace"
# The business endpoint each r-15 action calls once it runs.
ENDPOINT = {SAVE: "/api/workspace/name", ARCHIVE: "/api/workspace/archive",
            RESET: "/api/workspace/reset"}
# Testbed: what a user types to make the model call an action (`when_user`).
RUN_REQUEST = {"en": "please run {id}", "zh": "请运行 {id}"}
# The tutorial's user_requests (say()) per action.
REQUEST_KEY = {SAVE: "save", ARCHIVE: "archive", RESET: "reset"}


@pytest.fixture
def changed_page(open_tutorial_page: OpenTutorialPage) -> Page:
    """The r-15 page opened on CHANGED_WORKSPACE (renamed and archived) instead of the initial
    workspace, so that a reset that should not happen would be seen."""
    return open_tutorial_page(state=CHANGED_WORKSPACE)


def rename(locale: str, name: str) -> str:
    return RENAME_TO[locale].format(name=name)


def calls_made_to(timeline: Timeline, path: str, since: Mark) -> list[str]:
    """Business calls to `path` the server answered since `since` ("POST /path → 200")."""
    return [f"{r.method} {r.path} → {r.status}" for r in timeline.business_calls(since)
            if r.path == path]


def expect_shown(page: Page, workspace: WorkspaceSnapshot) -> None:
    """The page shows `workspace`: its name and its archived flag."""
    expect(page.get_by_test_id("workspace-name-display")).to_have_text(workspace.name)
    expect(page.get_by_test_id("workspace-status")).to_have_attribute(
        "data-archived", str(workspace.archived).lower())


def nothing_happened_yet(timeline: Timeline, tutorial_server: TutorialServer, *, since: Mark,
                         guarantee: str) -> None:
    """While a card waits for the user: no business request, server and page unchanged."""
    guarantees.no_business_request(timeline, since=since, guarantee=guarantee)
    guarantees.state_unchanged(timeline, since=since, guarantee=guarantee)


def asked_again(timeline: Timeline, *, action: str, since: Mark, guarantee: str) -> None:
    """Exactly one approval card for `action` appeared since `since`: the call asked again."""
    cards = timeline.shown("pling-approval", since, action=action)
    if len(cards) != 1:
        raise GuaranteeViolation(guarantee, f"the call to {action} should have shown one "
                                 f"approval card, {len(cards)} appeared", timeline)


# ---- session-grant-for-ask --------------------------------------------------------------


@pytest.mark.guarantee("session-grant-for-ask")
def test_always_allow_lets_the_next_save_run_without_asking(
    tutorial_page: Page, dock: Dock, timeline: Timeline, tutorial_server: TutorialServer,
    locale: str, say: Say,
) -> None:
    dock.ask(rename(locale, FIRST_NAME))
    guarantees.always_allow_offered(timeline, action=SAVE)
    dock.approve_always()
    guarantees.model_received(timeline, action=SAVE, code="OK")

    second = timeline.mark()
    dock.ask(rename(locale, SECOND_NAME))

    guarantees.ran_without_prompt(timeline, action=SAVE, since=second)
    saved = calls_made_to(timeline, ENDPOINT[SAVE], second)
    if saved != [f"POST {ENDPOINT[SAVE]} → 200"]:
        raise GuaranteeViolation("session-grant-for-ask", f"the granted save should reach the "
                                 f"server once, it saw: {saved}", timeline)
    assert tutorial_server.state.snapshot().name == SECOND_NAME
    expect(tutorial_page.get_by_test_id("workspace-name-display")).to_have_text(SECOND_NAME)

    # The grant is for save only: a danger action still asks.
    before_reset = timeline.mark()
    dock.ask(say("reset"))
    guarantees.always_allow_never_offered(timeline, action=RESET, since=before_reset)
    nothing_happened_yet(timeline, tutorial_server, since=before_reset,
                         guarantee="session-grant-for-ask")
    dock.deny()


@pytest.mark.guarantee("session-grant-for-ask")
def test_plain_allow_lets_one_save_run_and_the_next_save_asks_again(
    tutorial_page: Page, dock: Dock, timeline: Timeline, tutorial_server: TutorialServer,
    locale: str,
) -> None:
    dock.ask(rename(locale, FIRST_NAME))
    guarantees.always_allow_offered(timeline, action=SAVE)
    dock.approve()  # Allow, not "Always allow": this one call only
    assert tutorial_server.state.snapshot().name == FIRST_NAME

    second = timeline.mark()
    dock.ask(rename(locale, SECOND_NAME))

    asked_again(timeline, action=SAVE, since=second, guarantee="session-grant-for-ask")
    nothing_happened_yet(timeline, tutorial_server, since=second,
                         guarantee="session-grant-for-ask")
    guarantees.always_allow_offered(timeline, action=SAVE)
    dock.deny()
    guarantees.model_received(timeline, action=SAVE, code="PERMISSION_DENIED", since=second)
    assert tutorial_server.state.snapshot().name == FIRST_NAME
    expect(tutorial_page.get_by_test_id("workspace-name-display")).to_have_text(FIRST_NAME)


def reload_the_page(page: Page, dock: Dock) -> None:
    reload_page(page)


def start_a_new_conversation(page: Page, dock: Dock) -> None:
    dock.new_conversation()
    expect(dock.messages()).to_have_count(0)


# What ends the dock session, and with it every "always allow" given in it.
SESSION_ENDINGS: dict[str, Callable[[Page, Dock], None]] = {
    "page-reload": reload_the_page,
    "new-conversation": start_a_new_conversation,
}


@pytest.mark.guarantee("session-grant-for-ask")
@pytest.mark.parametrize("ending", list(SESSION_ENDINGS))
def test_always_allow_ends_with_the_dock_session(
    tutorial_page: Page, dock: Dock, timeline: Timeline, tutorial_server: TutorialServer,
    locale: str, ending: str,
) -> None:
    dock.ask(rename(locale, FIRST_NAME))
    dock.approve_always()
    assert tutorial_server.state.snapshot().name == FIRST_NAME

    SESSION_ENDINGS[ending](tutorial_page, dock)
    after = timeline.mark()
    dock.ask(rename(locale, SECOND_NAME))

    guarantees.always_allow_offered(timeline, action=SAVE)
    nothing_happened_yet(timeline, tutorial_server, since=after,
                         guarantee="session-grant-for-ask")
    dock.approve()
    guarantees.approval_before_side_effects(timeline, action=SAVE, since=after)
    assert tutorial_server.state.snapshot().name == SECOND_NAME


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


# ---- ask-always-never-granted -----------------------------------------------------------


# Every ask-always row asking on each call, even after Allow: test_policy_rows.py (and r-15's
# archive, step 2 of the acceptance walk). Here: a forged "always" grants nothing, whichever
# way page script sends it.


@pytest.mark.guarantee("ask-always-never-granted")
@pytest.mark.parametrize("route", FORGE_ROUTES)
def test_forged_always_allow_for_reset_is_not_honoured(
    tutorial_page: Page, dock: Dock, timeline: Timeline, tutorial_server: TutorialServer,
    say: Say, route: ForgeRoute,
) -> None:
    dock.ask(say("reset"))
    forged = timeline.mark()
    dock.forge_decision("always", route)  # page script, not the user, "chooses" always allow

    # A forged decision counts at most as Allow for this one call ...
    resets = calls_made_to(timeline, ENDPOINT[RESET], forged)
    if len(resets) > 1:
        raise GuaranteeViolation("ask-always-never-granted", f"one forged decision ran reset "
                                 f"{len(resets)} times: {resets}", timeline)
    # ... and grants nothing: the next call asks again, and nothing runs before the answer.
    again = timeline.mark()
    dock.ask(say("reset"))

    asked_again(timeline, action=RESET, since=again, guarantee="ask-always-never-granted")
    nothing_happened_yet(timeline, tutorial_server, since=again,
                         guarantee="ask-always-never-granted")
    guarantees.always_allow_never_offered(timeline, action=RESET, since=again)
    dock.deny()
    guarantees.model_received(timeline, action=RESET, code="PERMISSION_DENIED", since=again)


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
    dock.approval.get_by_test_id("pling-approval-desc").click()
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
    # Keyboard focus walks over Deny, Always allow and Allow without pressing any of them.
    dock.deny_button.focus()
    for _ in range(3):
        page.keyboard.press("Tab")
    page.keyboard.press("Shift+Tab")
    dock.input.focus()


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
    guarantees.always_allow_offered(timeline, action=SAVE)
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


# ---- approval-shows-exact-arguments -----------------------------------------------------


# ---- approval-before-side-effects -------------------------------------------------------


@pytest.mark.guarantee("approval-before-side-effects")
def test_archive_asks_first_then_archives(
    tutorial_page: Page, dock: Dock, timeline: Timeline, tutorial_server: TutorialServer,
    say: Say,
) -> None:
    start = timeline.mark()
    dock.ask(say("archive"))
    nothing_happened_yet(timeline, tutorial_server, since=start,
                         guarantee="approval-before-side-effects")
    dock.approve()

    guarantees.approval_before_side_effects(timeline, action=ARCHIVE)
    guarantees.model_received(timeline, action=ARCHIVE, code="OK")
    assert tutorial_server.state.snapshot().archived
    expect(tutorial_page.get_by_test_id("workspace-status")).to_have_attribute(
        "data-archived", "true")


@pytest.mark.guarantee("approval-before-side-effects")
def test_reset_asks_first_then_resets(
    changed_page: Page, dock: Dock, timeline: Timeline, tutorial_server: TutorialServer,
    say: Say,
) -> None:
    expect_shown(changed_page, CHANGED_WORKSPACE)
    start = timeline.mark()
    dock.ask(say("reset"))
    nothing_happened_yet(timeline, tutorial_server, since=start,
                         guarantee="approval-before-side-effects")
    dock.approve()

    guarantees.approval_before_side_effects(timeline, action=RESET)
    guarantees.model_received(timeline, action=RESET, code="OK")
    assert tutorial_server.state.snapshot() == INITIAL_WORKSPACE
    expect_shown(changed_page, INITIAL_WORKSPACE)


# ---- denial-respected, no-silent-retry --------------------------------------------------


@pytest.mark.guarantee("denial-respected")
@pytest.mark.guarantee("no-silent-retry")
@pytest.mark.parametrize("action", [SAVE, RESET])
def test_denial_changes_nothing_and_is_not_retried(
    changed_page: Page, dock: Dock, timeline: Timeline, tutorial_server: TutorialServer,
    model: ModelHandle, say: Say, locale: str, action: str,
) -> None:
    before = timeline.mark()
    dock.ask(say(REQUEST_KEY[action]))
    decided = timeline.mark()
    dock.deny()

    guarantees.denial_respected(timeline, action=action, since=before,
                                success_phrases=model.success_phrases(action, locale))
    guarantees.no_silent_retry(timeline, since=decided)
    assert tutorial_server.state.snapshot() == CHANGED_WORKSPACE
    expect_shown(changed_page, CHANGED_WORKSPACE)


@pytest.mark.guarantee("approval-only-by-click")
def test_decision_attribute_around_the_dock_does_not_decide_a_click_on_the_card(
    testbed: Testbed, dock: Dock, timeline: Timeline, model: ModelHandle, locale: str,
) -> None:
    declare_guarded(testbed)
    dock.wrap_in_decision("allow")
    model.when_user(GO_AHEAD_PATTERN, GUARDED_SAVE, GUARDED_SAVE_ARGUMENTS)
    start = timeline.mark()
    dock.ask(GO_AHEAD[locale])
    expect(dock.approval).to_have_attribute("data-action", GUARDED_SAVE)
    shown = timeline.mark()

    dock.approval.get_by_test_id("pling-approval-desc").click()

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
FOCUSED_DECISION = """() => {
  const focused = document.activeElement;
  const card = focused && focused.closest("[data-testid='pling-approval']");
  return card && focused.hasAttribute("data-decision")
    ? focused.getAttribute("data-decision") : null;
}"""


@pytest.mark.guarantee("approval-only-by-click")
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
        raise GuaranteeViolation("approval-only-by-click", f"Tab from the dock's input should "
                                 f"reach each of the card's {buttons} decision buttons in "
                                 f"turn; {key} was pressed on {pressed}", timeline)
    guarantees.approval_still_open(timeline, action=SAVE, since=waiting)
    # The card still answers its buttons: Deny is the one decision the model receives.
    dock.deny()
    results = [r.code for r in timeline.tool_results(waiting) if r.action == SAVE]
    if results != ["PERMISSION_DENIED"]:
        raise GuaranteeViolation("approval-only-by-click", f"after {key} on every card button "
                                 f"and Deny the model should get one PERMISSION_DENIED, it "
                                 f"got {results}", timeline)
    assert tutorial_server.state.snapshot() == INITIAL_WORKSPACE

"""Confirmation on the r-15 page: session grants, ask-always, approval first, denial, no retry."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from harness import guarantees
from harness.dock import Dock
from harness.guarantees import GuaranteeViolation
from harness.model_handle import ModelHandle
from harness.pages import open_page, reload_page
from harness.serve import TutorialServer
from harness.server.state import INITIAL_WORKSPACE, WorkspaceSnapshot
from harness.timeline import Mark, Timeline

Say = Callable[[str], str]

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
# Testbed: declare an action; what a user types to make the model call one (`when_user`).
TESTBED_DECLARE = "decl => window.plingTestbed.declare(decl)"
RUN_REQUEST = {"en": "please run {id}", "zh": "请运行 {id}"}
# conftest's say() keys per action.
REQUEST_KEY = {SAVE: "save", ARCHIVE: "archive", RESET: "reset"}


@pytest.fixture
def changed_page(page: Page, timeline: Timeline, tutorial_server: TutorialServer,
                 locale: str) -> Page:
    """The r-15 page opened on CHANGED_WORKSPACE (renamed and archived) instead of the initial
    workspace, so that a reset that should not happen would be seen."""
    tutorial_server.state.replace(CHANGED_WORKSPACE)
    open_page(page, tutorial_server.page_url(locale))
    timeline.mark_ready()
    return page


def rename(locale: str, name: str) -> str:
    return RENAME_TO[locale].format(name=name)


def calls_made_to(timeline: Timeline, path: str, since: Mark) -> list[str]:
    """Business calls to `path` the server answered since `since` ("POST /path → 200")."""
    return [f"{r.method} {r.path} → {r.status}" for r in timeline.server_business_records(since)
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
def test_always_allow_ends_with_a_page_reload(
    tutorial_page: Page, dock: Dock, timeline: Timeline, tutorial_server: TutorialServer,
    locale: str,
) -> None:
    dock.ask(rename(locale, FIRST_NAME))
    dock.approve_always()
    assert tutorial_server.state.snapshot().name == FIRST_NAME

    reload_page(tutorial_page, timeline)
    after_reload = timeline.mark()
    dock.ask(rename(locale, SECOND_NAME))

    guarantees.always_allow_offered(timeline, action=SAVE)
    nothing_happened_yet(timeline, tutorial_server, since=after_reload,
                         guarantee="session-grant-for-ask")
    dock.deny()
    assert tutorial_server.state.snapshot().name == FIRST_NAME


@pytest.mark.guarantee("session-grant-for-ask")
def test_always_allow_ends_with_a_new_conversation(
    tutorial_page: Page, dock: Dock, timeline: Timeline, tutorial_server: TutorialServer,
    locale: str,
) -> None:
    dock.ask(rename(locale, FIRST_NAME))
    dock.approve_always()
    assert tutorial_server.state.snapshot().name == FIRST_NAME

    dock.new_conversation()
    expect(dock.messages()).to_have_count(0)
    after_new = timeline.mark()
    dock.ask(rename(locale, SECOND_NAME))

    guarantees.always_allow_offered(timeline, action=SAVE)
    nothing_happened_yet(timeline, tutorial_server, since=after_new,
                         guarantee="session-grant-for-ask")
    dock.approve()
    guarantees.approval_before_side_effects(timeline, action=SAVE, since=after_new)
    assert tutorial_server.state.snapshot().name == SECOND_NAME


@pytest.mark.guarantee("session-grant-for-ask")
def test_always_allow_covers_only_the_action_it_was_given_for(
    testbed_page: Page, dock: Dock, timeline: Timeline, tutorial_server: TutorialServer,
    model: ModelHandle, locale: str,
) -> None:
    # Two `ask` actions: r-15 has only one, so the testbed declares them.
    for action in ("ask_first", "ask_second"):
        testbed_page.evaluate(TESTBED_DECLARE, {"id": action, "desc": action, "kind": "write",
                                                "confirm": True})
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
    assert [call.action for call in tutorial_server.testbed.calls()] == ["ask_first"] * 2


# ---- ask-always-never-granted -----------------------------------------------------------


@pytest.mark.guarantee("ask-always-never-granted")
def test_archive_asks_on_every_call_without_always_allow(
    tutorial_page: Page, dock: Dock, timeline: Timeline, tutorial_server: TutorialServer,
    say: Say,
) -> None:
    # Denied first (an allowed archive would leave nothing to archive), then allowed.
    dock.ask(say("archive"))
    dock.deny()
    second = timeline.mark()
    dock.ask(say("archive"))
    nothing_happened_yet(timeline, tutorial_server, since=second,
                         guarantee="ask-always-never-granted")
    dock.approve()

    guarantees.always_allow_never_offered(timeline, action=ARCHIVE)
    guarantees.prompted_for_every_call(timeline, action=ARCHIVE)
    guarantees.approval_before_side_effects(timeline, action=ARCHIVE, since=second)
    assert tutorial_server.state.snapshot().archived


@pytest.mark.guarantee("ask-always-never-granted")
def test_reset_asks_again_after_being_allowed(
    changed_page: Page, dock: Dock, timeline: Timeline, tutorial_server: TutorialServer,
    say: Say,
) -> None:
    start = timeline.mark()
    dock.ask(say("reset"))
    dock.approve()
    assert tutorial_server.state.snapshot() == INITIAL_WORKSPACE

    second = timeline.mark()
    dock.ask(say("reset"))
    nothing_happened_yet(timeline, tutorial_server, since=second,
                         guarantee="ask-always-never-granted")
    dock.approve()

    guarantees.always_allow_never_offered(timeline, action=RESET)
    guarantees.prompted_for_every_call(timeline, action=RESET)
    if len(calls_made_to(timeline, ENDPOINT[RESET], start)) != 2:
        raise GuaranteeViolation("ask-always-never-granted", "two allowed resets should make "
                                 "two reset calls", timeline)


@pytest.mark.guarantee("ask-always-never-granted")
@pytest.mark.parametrize("action", [ARCHIVE, RESET])
def test_forged_always_allow_is_not_honoured(
    tutorial_page: Page, dock: Dock, timeline: Timeline, tutorial_server: TutorialServer,
    say: Say, action: str,
) -> None:
    dock.ask(say(REQUEST_KEY[action]))
    dock.forge_decision("always")  # page script, not the user, "chooses" always allow
    # The forged click may have let this one call run (as "allow"); put the workspace back
    # and let the page show it (a read, no prompt), so the next call is possible again.
    tutorial_server.state.replace(INITIAL_WORKSPACE)
    dock.ask(say("status"))
    expect_shown(tutorial_page, INITIAL_WORKSPACE)

    again = timeline.mark()
    dock.ask(say(REQUEST_KEY[action]))

    nothing_happened_yet(timeline, tutorial_server, since=again,
                         guarantee="ask-always-never-granted")
    guarantees.always_allow_never_offered(timeline, action=action)
    guarantees.prompted_for_every_call(timeline, action=action)
    dock.deny()
    guarantees.model_received(timeline, action=action, code="PERMISSION_DENIED", since=again)


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
@pytest.mark.parametrize("action", [SAVE, RESET])
def test_denial_changes_nothing(
    changed_page: Page, dock: Dock, timeline: Timeline, tutorial_server: TutorialServer,
    model: ModelHandle, say: Say, locale: str, action: str,
) -> None:
    before = timeline.mark()
    dock.ask(say(REQUEST_KEY[action]))
    dock.deny()

    guarantees.denial_respected(timeline, action=action, since=before,
                                success_phrases=model.success_phrases(action, locale))
    assert tutorial_server.state.snapshot() == CHANGED_WORKSPACE
    expect_shown(changed_page, CHANGED_WORKSPACE)


@pytest.mark.guarantee("no-silent-retry")
@pytest.mark.parametrize("action", [SAVE, RESET])
def test_no_retry_after_a_denial(
    tutorial_page: Page, dock: Dock, timeline: Timeline, say: Say, action: str,
) -> None:
    dock.ask(say(REQUEST_KEY[action]))
    decided = timeline.mark()
    dock.deny()

    guarantees.no_silent_retry(timeline, since=decided)
    guarantees.model_received(timeline, action=action, code="PERMISSION_DENIED", since=decided)

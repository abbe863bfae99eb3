"""SPEC §3 steps 1 to 4: calls that fail them are answered with their code and never prompt.

The model is made to call anything with `model.when_user`; each check proves from the page
and the server that no approval card or handoff appeared, no business request was made and
nothing changed, and that the model and the user were told the right code.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from harness.browser.dock import Dock
from harness.browser.pages import open_page
from harness.evidence import guarantees
from harness.evidence.records import Mark
from harness.evidence.timeline import Timeline
from harness.server.model.handle import ModelHandle
from harness.server.runner import TutorialServer
from harness.server.state import INITIAL_WORKSPACE, WorkspaceSnapshot

GUARANTEE = "rejected-before-prompt"
# What the user types; a `when_user` rule turns it into the call under test.
GO_AHEAD = {"en": "go ahead", "zh": "开始吧"}
GO_AHEAD_PATTERN = "go ahead|开始吧"
ARCHIVED = INITIAL_WORKSPACE.model_copy(update={"archived": True})
PUBLISHED = INITIAL_WORKSPACE.model_copy(update={"published": True})


def rejected(timeline: Timeline, dock: Dock, *, action: str, code: str, since: Mark) -> None:
    """The call was answered `code` with no prompt, no handoff, no business request, nothing
    changed on server or page, and the user was shown a notice carrying that code."""
    guarantees.rejected_without_prompt(timeline, action=action, code=code, since=since)
    guarantees.state_unchanged(timeline, since=since, guarantee=GUARANTEE)
    notice = dock.messages("notice").last
    expect(notice).to_have_attribute("data-code", code)
    expect(notice).not_to_have_text("")


# ---- r-15: bad arguments, unknown actions, unavailable actions ---------------------------

R15_CASES = [
    pytest.param("save_workspace_name", '{"name": "Acme"', "INVALID_PARAMS", id="not-json"),
    pytest.param("save_workspace_name", {"name": 42}, "INVALID_PARAMS", id="wrong-type"),
    pytest.param("save_workspace_name", {}, "INVALID_PARAMS", id="missing-name"),
    pytest.param("save_workspace_name", {"name": "Acme", "force": True}, "INVALID_PARAMS",
                 id="unexpected-property"),
    pytest.param("save_workspace_name", {"name": ""}, "INVALID_PARAMS", id="name-too-short"),
    pytest.param("archive_workspace", {"confirm": True}, "INVALID_PARAMS",
                 id="ask-always-unexpected-property"),
    pytest.param("archive_workspace", "[]", "INVALID_PARAMS", id="not-an-object"),
    pytest.param("delete_workspace", {}, "UNKNOWN_ACTION", id="unknown-action"),
    # Step 1 comes first: arguments of an unknown action are not even looked at.
    pytest.param("delete_workspace", "{oops", "UNKNOWN_ACTION", id="unknown-before-arguments"),
    # Ids match exactly: a near miss of a real action is unknown, never mapped to it.
    pytest.param("Archive_Workspace", {}, "UNKNOWN_ACTION", id="id-in-other-case"),
    pytest.param("ARCHIVE_WORKSPACE", {}, "UNKNOWN_ACTION", id="id-in-capitals"),
    pytest.param("archive-workspace", {}, "UNKNOWN_ACTION", id="id-with-hyphen"),
    pytest.param("archive workspace", {}, "UNKNOWN_ACTION", id="id-with-space"),
    pytest.param("archiveWorkspace", {}, "UNKNOWN_ACTION", id="id-in-camel-case"),
    pytest.param(" archive_workspace ", {}, "UNKNOWN_ACTION", id="id-padded-with-spaces"),
    pytest.param("archive_workspace\n", {}, "UNKNOWN_ACTION", id="id-with-newline"),
    pytest.param("Get_Workspace", {}, "UNKNOWN_ACTION", id="read-id-in-other-case"),
]


@pytest.mark.guarantee(GUARANTEE)
@pytest.mark.parametrize(("action", "arguments", "code"), R15_CASES)
def test_r15_call_rejected_before_any_prompt(
    tutorial_page: Page, dock: Dock, timeline: Timeline, tutorial_server: TutorialServer,
    model: ModelHandle, locale: str, action: str, arguments: dict[str, Any] | str, code: str,
) -> None:
    model.when_user(GO_AHEAD_PATTERN, action, arguments)
    start = timeline.mark()
    dock.ask(GO_AHEAD[locale])

    rejected(timeline, dock, action=action, code=code, since=start)
    assert tutorial_server.state.snapshot() == INITIAL_WORKSPACE


@pytest.mark.guarantee(GUARANTEE)
def test_publish_with_a_code_argument_is_rejected_without_handoff(
    tutorial_page: Page, dock: Dock, timeline: Timeline, tutorial_server: TutorialServer,
    model: ModelHandle, locale: str,
) -> None:
    # The model must never send (or even see) the verification code.
    model.when_user(GO_AHEAD_PATTERN, "publish_changes", {"code": "246810"})
    start = timeline.mark()
    dock.ask(GO_AHEAD[locale])

    rejected(timeline, dock, action="publish_changes", code="INVALID_PARAMS", since=start)
    guarantees.no_writes_into_targets(timeline, since=start)
    expect(tutorial_page.get_by_test_id("verification-code")).to_have_value("")
    expect(tutorial_page.get_by_test_id("workspace-status")).to_have_attribute(
        "data-state", "draft")
    assert not tutorial_server.state.snapshot().published


UNAVAILABLE_CASES = [
    # The Archive button is disabled once archived; Publish once published.
    pytest.param(ARCHIVED, "archive_workspace", {}, "UNAVAILABLE", id="archive-when-archived"),
    pytest.param(PUBLISHED, "publish_changes", {}, "UNAVAILABLE", id="publish-when-published"),
    # Step 2 before step 4: bad arguments are reported even for an unavailable action.
    pytest.param(ARCHIVED, "archive_workspace", {"force": True}, "INVALID_PARAMS",
                 id="arguments-before-availability"),
]


@pytest.mark.guarantee(GUARANTEE)
@pytest.mark.parametrize(("workspace", "action", "arguments", "code"), UNAVAILABLE_CASES)
def test_r15_unavailable_action_rejected_before_any_prompt(
    page: Page, dock: Dock, timeline: Timeline, tutorial_server: TutorialServer, model: ModelHandle,
    locale: str, workspace: WorkspaceSnapshot, action: str, arguments: dict[str, Any],
    code: str,
) -> None:
    tutorial_server.state.replace(workspace)
    open_page(page, tutorial_server.page_url(locale))
    expect(page.locator(f"[data-pling-target='{action}']")).to_be_disabled()
    model.when_user(GO_AHEAD_PATTERN, action, arguments)
    start = timeline.mark()
    dock.ask(GO_AHEAD[locale])

    rejected(timeline, dock, action=action, code=code, since=start)
    assert tutorial_server.state.snapshot() == workspace


# ---- testbed: scope and availability switches ---------------------------------------------

ACTION = "guarded"
# A danger action: were a check skipped, an approval card would be due, so it would show.
DECLARATION = {
    "id": ACTION, "desc": "Guarded action", "kind": "danger",
    "params": {"type": "object", "properties": {"note": {"type": "string"}},
               "required": ["note"], "additionalProperties": False},
}
GOOD_ARGUMENTS = {"note": "x"}
BUTTON = f"[data-testid='testbed-action-{ACTION}']"
# Page script run after declaring, each making the action fail one of steps 3 and 4.
SETUPS = {
    "scope-never-active": "tb => tb.declare({...DECL, scope: 'wizard'})",
    "scope-deactivated": "tb => { tb.declare({...DECL, scope: 'wizard'});"
                         " tb.activateScope('wizard'); tb.deactivateScope('wizard'); }",
    "switched-off": "tb => { tb.declare(DECL); tb.setEnabled(DECL.id, false); }",
    "button-disabled": f"tb => {{ tb.declare(DECL); document.querySelector(\"{BUTTON}\")"
                       ".disabled = true; }",
    "button-removed": f"tb => {{ tb.declare(DECL); document.querySelector(\"{BUTTON}\")"
                      ".remove(); }",
    # Out of scope *and* switched off: step 3 answers first.
    "scope-and-switched-off": "tb => { tb.declare({...DECL, scope: 'wizard'});"
                              " tb.setEnabled(DECL.id, false); }",
}
TESTBED_CASES = [
    pytest.param("scope-never-active", GOOD_ARGUMENTS, "OUT_OF_SCOPE", id="out-of-scope"),
    pytest.param("scope-deactivated", GOOD_ARGUMENTS, "OUT_OF_SCOPE", id="scope-deactivated"),
    pytest.param("switched-off", GOOD_ARGUMENTS, "UNAVAILABLE", id="switched-off"),
    pytest.param("button-disabled", GOOD_ARGUMENTS, "UNAVAILABLE", id="button-disabled"),
    pytest.param("button-removed", GOOD_ARGUMENTS, "UNAVAILABLE", id="button-removed"),
    pytest.param("scope-and-switched-off", GOOD_ARGUMENTS, "OUT_OF_SCOPE",
                 id="scope-before-availability"),
    pytest.param("scope-and-switched-off", {"note": 7}, "INVALID_PARAMS",
                 id="arguments-before-scope"),
]


@pytest.mark.guarantee(GUARANTEE)
@pytest.mark.parametrize(("setup", "arguments", "code"), TESTBED_CASES)
def test_testbed_call_rejected_before_any_prompt(
    testbed_page: Page, dock: Dock, timeline: Timeline, tutorial_server: TutorialServer,
    model: ModelHandle, locale: str, setup: str, arguments: dict[str, Any], code: str,
) -> None:
    testbed_page.evaluate(
        f"DECL => ({SETUPS[setup]})(window.plingTestbed)", DECLARATION)
    model.when_user(GO_AHEAD_PATTERN, ACTION, arguments)
    start = timeline.mark()
    dock.ask(GO_AHEAD[locale])

    rejected(timeline, dock, action=ACTION, code=code, since=start)
    assert tutorial_server.testbed.calls() == []

"""SPEC §3 steps 1 to 4: a call that fails one of them is answered with its code and never
prompts, however hostile the model's call (bad arguments, unknown or near-miss ids, a
verification code, 1 MiB).

One table per starting page: r-15 as it loads, r-15 on another workspace, and the testbed
after a setup. Each row is a call the model makes (scripted: any name, any raw arguments)
and the code it must get. Every row proves the same, from the page and the server: the
model received the §5 failure envelope with that code in the very next request, the user
read one notice that means that code and names the action (the glossary, never the copy's
sentence), no approval card or handoff came first, no business request was made, nothing
was written into the page's fields, and neither the server nor the page changed.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from harness import (
    INITIAL_WORKSPACE,
    PUBLISH_CODE,
    Dock,
    Mark,
    ModelHandle,
    OpenTutorialPage,
    Say,
    Testbed,
    Timeline,
    TutorialServer,
    Words,
    WorkspaceSnapshot,
    calling,
    guarantees,
    tool_call,
)

GUARANTEE = "rejected-before-prompt"
HOSTILE = "hostile-model-output"
SAVE, ARCHIVE, PUBLISH = "save_workspace_name", "archive_workspace", "publish_changes"
MIB = 1024 * 1024
CALL_ID = "call_bad"
# The reply carrying the call answers request 0; request 1 reports its result.
RESULTS_REQUEST = 1
ARCHIVED = INITIAL_WORKSPACE.model_copy(update={"archived": True})
PUBLISHED = INITIAL_WORKSPACE.model_copy(update={"published": True})


def raw(arguments: Mapping[str, Any] | str) -> str:
    """The call's `arguments` as the model sends them: text, JSON or not."""
    return arguments if isinstance(arguments, str) else json.dumps(arguments)


def assert_rejected(*, timeline: Timeline, model: ModelHandle, dock: Dock, words: Words,
                    since: Mark, action: str, code: str, naming: str | None = None) -> None:
    """The row's promise (see the module doc) for the call `CALL_ID` to `action`, whose
    notice names it as `naming` (default: as the model was offered it, else its id)."""
    received = [r for r in model.tool_results(request_index=RESULTS_REQUEST)
                if r.call_id == CALL_ID]
    envelope = received[0].envelope if received else None
    assert envelope is not None and set(envelope) == {"ok", "code", "message"} \
        and envelope["ok"] is False and envelope["code"] == code \
        and isinstance(envelope["message"], str) and envelope["message"].strip(), (
            f"the model should receive a {code} failure envelope; it received "
            f"{[r.content for r in received]}")
    shown = dock.messages("notice").and_(dock.page.locator(f"[data-code='{code}']"))
    expect(shown).to_have_count(1)
    guarantees.notice_means(timeline, words, code=code, action=action, naming=naming,
                            guarantee=GUARANTEE)
    guarantees.rejected_without_prompt(timeline, action=action, code=code, since=since)
    guarantees.no_writes_into_targets(timeline, since=since)
    guarantees.state_unchanged(timeline, since=since, guarantee=GUARANTEE)


def make_the_call(model: ModelHandle, dock: Dock, timeline: Timeline, say: Say, *,
                  action: str, arguments: Mapping[str, Any] | str) -> Mark:
    """The user asks anything; the model answers with the row's call. Returns the mark
    taken before the user asked."""
    model.script(calling(tool_call(CALL_ID, action, raw(arguments))))
    before = timeline.mark()
    dock.ask(say("status"))
    return before


# ---- r-15 as it loads: arguments, unknown actions ----------------------------------------

R15_CASES = [
    pytest.param(SAVE, '{"name": "Acme"', "INVALID_PARAMS", id="not-json"),
    # Prose for an action without arguments: read as `{}` it would pass, and ask.
    pytest.param(ARCHIVE, "archive it now", "INVALID_PARAMS", id="not-json-for-no-arguments"),
    pytest.param(SAVE, '["Acme"]', "INVALID_PARAMS", id="not-an-object"),
    pytest.param(ARCHIVE, "[]", "INVALID_PARAMS", id="not-an-object-for-no-arguments"),
    pytest.param(SAVE, {"name": 42}, "INVALID_PARAMS", id="wrong-type"),
    pytest.param(SAVE, {}, "INVALID_PARAMS", id="missing"),
    pytest.param(SAVE, {"name": ""}, "INVALID_PARAMS", id="name-too-short"),
    pytest.param(SAVE, {"name": "Acme", "owner": "mallory"}, "INVALID_PARAMS",
                 id="unexpected"),
    pytest.param(ARCHIVE, {"confirm": True}, "INVALID_PARAMS",
                 id="unexpected-for-no-arguments"),
    pytest.param(SAVE, {"name": "x" * MIB}, "INVALID_PARAMS", id="one-mib"),
    # The model must never send (or even see) the verification code: publish_changes takes
    # no arguments, and nothing it sent may reach the code field.
    pytest.param(PUBLISH, {"code": PUBLISH_CODE}, "INVALID_PARAMS", id="code-for-publish",
                 marks=pytest.mark.guarantee("handoff-never-writes-target")),
    pytest.param("delete_workspace", {}, "UNKNOWN_ACTION", id="unknown-action"),
    # Step 1 comes first: arguments of an unknown action are not even looked at.
    pytest.param("delete_workspace", "{oops", "UNKNOWN_ACTION", id="unknown-before-arguments"),
]


@pytest.mark.guarantee(GUARANTEE)
@pytest.mark.guarantee(HOSTILE)
@pytest.mark.parametrize(("action", "arguments", "code"), R15_CASES)
def test_r15_call_failing_a_check_is_rejected_before_any_prompt(
    tutorial_page: Page, dock: Dock, timeline: Timeline, model: ModelHandle, words: Words,
    tutorial_server: TutorialServer, say: Say, action: str,
    arguments: Mapping[str, Any] | str, code: str,
) -> None:
    before = make_the_call(model, dock, timeline, say, action=action, arguments=arguments)

    assert_rejected(timeline=timeline, model=model, dock=dock, words=words, since=before,
                    action=action, code=code)
    # Nothing the model sent was put into the page's fields either.
    expect(tutorial_page.get_by_test_id("verification-code")).to_have_value("")
    expect(tutorial_page.get_by_test_id("workspace-name-input")).to_have_value(
        INITIAL_WORKSPACE.name)
    assert tutorial_server.state.snapshot() == INITIAL_WORKSPACE


# Ids match exactly: no case, separator or whitespace folding maps a near miss to a real action.
NEAR_MISS_IDS = ["Archive_Workspace", "ARCHIVE_WORKSPACE", "archive-workspace",
                 "archive workspace", "archiveWorkspace", " archive_workspace ",
                 "archive_workspace\n", "Get_Workspace"]


@pytest.mark.guarantee(GUARANTEE)
def test_near_miss_of_an_action_id_is_an_unknown_action(
    tutorial_page: Page, dock: Dock, timeline: Timeline, model: ModelHandle,
    tutorial_server: TutorialServer, say: Say,
) -> None:
    # One reply calling every near miss: handled one after another, each must be refused (a
    # near miss taken for archive would stop the turn at its card, one for the read would run).
    model.script(calling(*(tool_call(f"call_{n}", name) for n, name in enumerate(NEAR_MISS_IDS))))
    before = timeline.mark()

    dock.ask(say("status"))

    received = [(r.call_id, r.action, r.code)
                for r in model.tool_results(request_index=RESULTS_REQUEST)]
    assert received == [(f"call_{n}", name, "UNKNOWN_ACTION")
                        for n, name in enumerate(NEAR_MISS_IDS)]
    for name in NEAR_MISS_IDS:
        guarantees.rejected_without_prompt(timeline, action=name, code="UNKNOWN_ACTION",
                                           since=before)
    expect(dock.messages("notice").and_(
        tutorial_page.locator("[data-code='UNKNOWN_ACTION']"))).to_have_count(len(NEAR_MISS_IDS))
    guarantees.state_unchanged(timeline, since=before, guarantee=GUARANTEE)
    assert tutorial_server.state.snapshot() == INITIAL_WORKSPACE


# ---- r-15 on another workspace: unavailable actions ---------------------------------------

UNAVAILABLE_CASES = [
    # The Archive button is disabled once archived; Publish once published.
    pytest.param(ARCHIVED, ARCHIVE, {}, "UNAVAILABLE", id="archive-when-archived"),
    pytest.param(PUBLISHED, PUBLISH, {}, "UNAVAILABLE", id="publish-when-published"),
    # Step 2 before step 4: bad arguments are reported even for an unavailable action.
    pytest.param(ARCHIVED, ARCHIVE, {"force": True}, "INVALID_PARAMS",
                 id="arguments-before-availability"),
]


@pytest.mark.guarantee(GUARANTEE)
@pytest.mark.guarantee(HOSTILE)
@pytest.mark.parametrize(("workspace", "action", "arguments", "code"), UNAVAILABLE_CASES)
def test_r15_unavailable_action_is_rejected_before_any_prompt(
    open_tutorial_page: OpenTutorialPage, dock: Dock, timeline: Timeline, model: ModelHandle,
    words: Words, tutorial_server: TutorialServer, say: Say, workspace: WorkspaceSnapshot,
    action: str, arguments: dict[str, Any], code: str,
) -> None:
    page = open_tutorial_page(workspace=workspace)
    expect(page.locator(f"[data-pling-target='{action}']")).to_be_disabled()

    before = make_the_call(model, dock, timeline, say, action=action, arguments=arguments)

    assert_rejected(timeline=timeline, model=model, dock=dock, words=words, since=before,
                    action=action, code=code)
    assert tutorial_server.state.snapshot() == workspace


# ---- testbed: scope and availability switches ---------------------------------------------

ACTION = "guarded"
# A danger action: were a check skipped, an approval card would be due, so it would show.
DECLARATION = {
    "id": ACTION, "desc": "Guarded action", "kind": "danger",
    "params": {"type": "object", "properties": {"note": {"type": "string"}},
               "required": ["note"], "additionalProperties": False},
}
SCOPED = {**DECLARATION, "scope": "wizard"}
GOOD_ARGUMENTS = {"note": "x"}


def scope_never_active(testbed: Testbed) -> None:
    testbed.declare(SCOPED)


def scope_deactivated(testbed: Testbed) -> None:
    testbed.declare(SCOPED)
    testbed.activate_scope("wizard")
    testbed.deactivate_scope("wizard")


def switched_off(testbed: Testbed) -> None:
    testbed.declare(DECLARATION)
    testbed.set_enabled(ACTION, False)


def button_disabled(testbed: Testbed) -> None:
    testbed.declare(DECLARATION)
    testbed.button(ACTION).evaluate("button => { button.disabled = true; }")


def button_aria_disabled(testbed: Testbed) -> None:
    # The page contract counts `aria-disabled="true"` as disabled.
    testbed.declare(DECLARATION)
    testbed.button(ACTION).evaluate("button => button.setAttribute('aria-disabled', 'true')")


def button_removed(testbed: Testbed) -> None:
    testbed.declare(DECLARATION)
    testbed.button(ACTION).evaluate("button => button.remove()")


def scope_never_active_and_switched_off(testbed: Testbed) -> None:
    testbed.declare(SCOPED)
    testbed.set_enabled(ACTION, False)


TESTBED_CASES = [
    pytest.param(scope_never_active, GOOD_ARGUMENTS, "OUT_OF_SCOPE", id="out-of-scope"),
    pytest.param(scope_deactivated, GOOD_ARGUMENTS, "OUT_OF_SCOPE", id="scope-deactivated"),
    pytest.param(switched_off, GOOD_ARGUMENTS, "UNAVAILABLE", id="switched-off"),
    pytest.param(button_disabled, GOOD_ARGUMENTS, "UNAVAILABLE", id="button-disabled"),
    pytest.param(button_aria_disabled, GOOD_ARGUMENTS, "UNAVAILABLE", id="button-aria-disabled"),
    pytest.param(button_removed, GOOD_ARGUMENTS, "UNAVAILABLE", id="button-removed"),
    # Out of scope *and* switched off: step 3 answers first; bad arguments before both.
    pytest.param(scope_never_active_and_switched_off, GOOD_ARGUMENTS, "OUT_OF_SCOPE",
                 id="scope-before-availability"),
    pytest.param(scope_never_active_and_switched_off, {"note": 7}, "INVALID_PARAMS",
                 id="arguments-before-scope"),
]


@pytest.mark.guarantee(GUARANTEE)
@pytest.mark.parametrize(("setup", "arguments", "code"), TESTBED_CASES)
def test_testbed_call_failing_a_check_is_rejected_before_any_prompt(
    testbed: Testbed, dock: Dock, timeline: Timeline, model: ModelHandle, words: Words,
    say: Say, setup: Callable[[Testbed], None], arguments: dict[str, Any], code: str,
) -> None:
    setup(testbed)

    before = make_the_call(model, dock, timeline, say, action=ACTION, arguments=arguments)

    # Named by its desc, even where the page never offered it (out of scope).
    assert_rejected(timeline=timeline, model=model, dock=dock, words=words, since=before,
                    action=ACTION, code=code, naming=str(DECLARATION["desc"]))
    assert testbed.calls() == []


# ---- testbed: switches undone -------------------------------------------------------------

GUARDED_SAVE = "guarded_save"
# An `ask` action on the testbed: every run would be a POST the server records.
GUARDED_SAVE_DECLARATION: dict[str, Any] = {
    "id": GUARDED_SAVE, "desc": "Guarded save", "kind": "write", "confirm": True,
    "scope": "editor",
    "params": {"type": "object", "properties": {"note": {"type": "string"}},
               "required": ["note"], "additionalProperties": False},
}
GUARDED_SAVE_ARGUMENTS = {"note": "x"}
# What the user types; a `when_user` rule turns it into the call.
GO_AHEAD = {"en": "go ahead", "zh": "开始吧"}
GO_AHEAD_PATTERN = "go ahead|开始吧"
# Something the page does to its testbed actions.
PageChange = Callable[[Testbed], None]


def declare_guarded_save(testbed: Testbed) -> None:
    """Declare GUARDED_SAVE and activate its scope, as a page would."""
    testbed.declare(GUARDED_SAVE_DECLARATION)
    testbed.activate_scope("editor")


def switched_off_and_on(testbed: Testbed) -> None:
    """The page switches GUARDED_SAVE off, then on again."""
    testbed.set_enabled(GUARDED_SAVE, False)
    testbed.set_enabled(GUARDED_SAVE, True)


def scope_activated_twice_deactivated_once(testbed: Testbed) -> None:
    """The page activates the editor scope a second time and deactivates it once."""
    testbed.activate_scope("editor")
    testbed.deactivate_scope("editor")


# What the page does before the call: the action must be available afterwards.
RESTORING = [
    pytest.param(switched_off_and_on, id="switched-off-and-on"),
    pytest.param(scope_activated_twice_deactivated_once,
                 id="scope-activated-twice-deactivated-once"),
]


@pytest.mark.guarantee("rejected-before-prompt")
@pytest.mark.parametrize("change", RESTORING)
def test_action_whose_switches_were_undone_asks_and_runs_again(
    testbed: Testbed, dock: Dock, timeline: Timeline, model: ModelHandle, locale: str,
    change: PageChange,
) -> None:
    declare_guarded_save(testbed)
    change(testbed)
    model.when_user(GO_AHEAD_PATTERN, GUARDED_SAVE, GUARDED_SAVE_ARGUMENTS)
    start = timeline.mark()
    dock.ask(GO_AHEAD[locale])
    expect(dock.approval).to_have_attribute("data-action", GUARDED_SAVE)

    dock.approve()

    guarantees.model_received(timeline, action=GUARDED_SAVE, code="OK", since=start,
                              guarantee="rejected-before-prompt")
    assert [call.body for call in testbed.calls(GUARDED_SAVE)] == [GUARDED_SAVE_ARGUMENTS]

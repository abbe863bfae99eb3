"""What a run's result tells the model. A run's success reaches the model only after its business
request has answered, and a held request that fails is `RUN_FAILED`, never success (every r-15
action with a `run`). A `RUN_FAILED` result names the action and says why: the error's message,
a thrown text, "the result could not be sent back" for a value JSON cannot carry, and "unknown
error" for a throw that carries no reason (a number, an object, an empty text or message);
never "42" or "[object Object]". What `run` returns reaches the model as the JSON it makes
(a Date as its ISO text, undefined fields left out; nothing is `data: null`). The testbed's
actions here are registered with `tool()`, as a page does (`testbed.scripts`).
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from typing import Any

import pytest
from playwright.sync_api import Page, expect
from testbed_actions import GO_AHEAD, GO_AHEAD_PATTERN
from workspace_state import INITIAL_WORKSPACE, WorkspaceSnapshot

from harness import (
    Dock,
    FakeUpstream,
    HeldRequests,
    Mark,
    ModelHandle,
    OpenTutorialPage,
    Say,
    StartTutorialServer,
    Testbed,
    TestbedScripts,
    Timeline,
    TutorialServer,
    Words,
    calling,
    guarantees,
    tool_call,
)

SAVE, ARCHIVE, RESET = "save_workspace_name", "archive_workspace", "reset_workspace"
NAME_PATH, ARCHIVE_PATH = "/api/workspace/name", "/api/workspace/archive"
NEW_NAME = "Acme"


def message_to_model(model: ModelHandle, action: str) -> str:
    """The message of the one result the model received for `action`."""
    [result] = [r for r in model.tool_results() if r.action == action]
    assert result.envelope is not None, f"the model received no result envelope for {action}"
    return str(result.envelope.get("message", ""))


FAILING_ACTION = "flaky_sync"
REASON = "quota exceeded (Harbor)"


@pytest.mark.guarantee("run-failure-reported")
def test_run_failed_result_carries_the_reason_the_run_gave(
    testbed: Testbed, dock: Dock, timeline: Timeline, model: ModelHandle, locale: str,
) -> None:
    testbed.declare({
        "id": FAILING_ACTION, "desc": "Flaky sync", "kind": "write", "failRun": REASON})
    model.when_user(GO_AHEAD_PATTERN, FAILING_ACTION, {})
    start = timeline.mark()

    dock.ask(GO_AHEAD[locale])

    guarantees.model_received(timeline, action=FAILING_ACTION, code="RUN_FAILED", since=start,
                              guarantee="run-failure-reported")
    message = message_to_model(model, FAILING_ACTION)
    assert REASON in message, f"the model was told {message!r}, without the reason {REASON!r}"
    expect(dock.messages("notice").last).to_contain_text(REASON)


RESULT_ACTION = TestbedScripts.RETURNING_ACTION
RESULT_DESC = TestbedScripts.RETURNING_DESC
# What a `run` may return or throw that gives the model no reason of its own, and the reason
# the model is told instead, as the glossary's named meaning (page contract, "What your page
# must do"): a value JSON cannot carry "could not be sent back" (`run.result-not-json`); a
# throw that carries no reason (a number, an object, an empty text or message) an unknown
# error (`run.no-reason`), never "42", "[object Object]" or nothing at all.
REASONLESS_FAILURES = [
    pytest.param("() => ({total: 10n})", "run.result-not-json", id="bigint"),
    pytest.param("() => { const total = {}; total.self = total; return total; }",
                 "run.result-not-json", id="cycle"),
    pytest.param("() => { throw 42; }", "run.no-reason", id="number"),
    pytest.param("() => { throw {code: 7}; }", "run.no-reason", id="object"),
    pytest.param("() => { throw ''; }", "run.no-reason", id="empty-string"),
    pytest.param("() => { throw new Error(''); }", "run.no-reason",
                 id="error-without-message"),
]


@pytest.mark.guarantee("run-failure-reported")
@pytest.mark.parametrize(("run", "reason"), REASONLESS_FAILURES)
def test_run_failing_without_a_reason_of_its_own_is_run_failed_naming_the_action_and_why(
    testbed: Testbed, dock: Dock, timeline: Timeline, model: ModelHandle, words: Words,
    locale: str, run: str, reason: str,
) -> None:
    testbed.scripts.register_returning(run)
    model.when_user(GO_AHEAD_PATTERN, RESULT_ACTION, {})
    start = timeline.mark()

    dock.ask(GO_AHEAD[locale])

    guarantees.model_received(timeline, action=RESULT_ACTION, code="RUN_FAILED", since=start,
                              guarantee="run-failure-reported")
    expect(dock.messages("notice").last).to_have_attribute("data-code", "RUN_FAILED")
    message = message_to_model(model, RESULT_ACTION)
    problems = words.detail_problems(message.replace(RESULT_DESC, " "), reason)
    assert RESULT_DESC in message and not problems, (
        f"the model was told {message!r}, which should name {RESULT_DESC!r} and give the "
        f"reason {reason!r} (glossary): {'; '.join(problems) or 'the action is not named'}")


@pytest.mark.guarantee("run-result-reaches-the-model")
def test_run_result_reaches_the_model_as_the_json_the_run_returned(
    testbed: Testbed, dock: Dock, timeline: Timeline, model: ModelHandle, locale: str,
) -> None:
    # What JSON makes of it: a Date becomes its ISO text, an undefined field is left out.
    testbed.scripts.register_returning("""() => ({
      total: 10, items: ["a", "b"], at: new Date(Date.UTC(2025, 0, 6, 9)), gone: undefined})""")
    model.when_user(GO_AHEAD_PATTERN, RESULT_ACTION, {})
    start = timeline.mark()

    dock.ask(GO_AHEAD[locale])

    guarantees.model_received(timeline, action=RESULT_ACTION, code="OK", since=start,
                              guarantee="run-result-reaches-the-model")
    [result] = [r for r in model.tool_results() if r.action == RESULT_ACTION]
    assert result.envelope == {"ok": True, "data": {
        "total": 10, "items": ["a", "b"], "at": "2025-01-06T09:00:00.000Z"}}
    expect(dock.messages("notice")).to_have_count(0)  # a success is no notice


@pytest.mark.guarantee("run-result-reaches-the-model")
def test_run_that_returns_nothing_reaches_the_model_as_success_with_null_data(
    testbed: Testbed, dock: Dock, timeline: Timeline, model: ModelHandle, locale: str,
) -> None:
    testbed.scripts.register_returning("() => undefined")
    model.when_user(GO_AHEAD_PATTERN, RESULT_ACTION, {})
    start = timeline.mark()

    dock.ask(GO_AHEAD[locale])

    guarantees.model_received(timeline, action=RESULT_ACTION, code="OK", since=start,
                              guarantee="run-result-reaches-the-model")
    [result] = [r for r in model.tool_results() if r.action == RESULT_ACTION]
    assert result.envelope == {"ok": True, "data": None}


@pytest.mark.guarantee("run-failure-reported")
def test_run_failed_result_carries_a_thrown_string_as_the_reason(
    testbed: Testbed, dock: Dock, timeline: Timeline, model: ModelHandle, locale: str,
) -> None:
    testbed.scripts.register_returning(f"() => {{ throw {REASON!r}; }}")
    model.when_user(GO_AHEAD_PATTERN, RESULT_ACTION, {})
    start = timeline.mark()

    dock.ask(GO_AHEAD[locale])

    guarantees.model_received(timeline, action=RESULT_ACTION, code="RUN_FAILED", since=start,
                              guarantee="run-failure-reported")
    message = message_to_model(model, RESULT_ACTION)
    assert REASON in message, f"the model was told {message!r}, without the reason {REASON!r}"


# Every action with a `run` (save, archive, reset) from a workspace it changes, the business
# request it makes, and what it leaves: the save alone was held once, and a page whose archive
# or reset `run` did not wait for its fetch passed every check.
CHANGED = WorkspaceSnapshot(name="Globex", archived=True, published=False)
STARTING = WorkspaceSnapshot(name="Globex", archived=False, published=False)


@dataclass(frozen=True)
class RunAction:
    """An r-15 action with a `run`, the business request it makes and what it leaves."""

    action: str
    arguments: dict[str, Any]
    path: str
    starts_from: WorkspaceSnapshot
    leaves: WorkspaceSnapshot

    @property
    def call_id(self) -> str:
        return f"call_{self.action}"


RUN_ACTIONS = {
    "save": RunAction(SAVE, {"name": NEW_NAME}, NAME_PATH,
                      STARTING, STARTING.model_copy(update={"name": NEW_NAME})),
    "archive": RunAction(ARCHIVE, {}, ARCHIVE_PATH,
                         STARTING, STARTING.model_copy(update={"archived": True})),
    "reset": RunAction(RESET, {}, "/api/workspace/reset",
                       CHANGED, INITIAL_WORKSPACE),
}


def card_for(run: RunAction, open_tutorial_page: OpenTutorialPage, dock: Dock,
             model: ModelHandle, say: Say) -> HeldRequests:
    """The page on the action's starting workspace, its card on screen for `run.call_id`,
    and its business request to be held once it leaves."""
    page = open_tutorial_page(state=run.starts_from)
    model.script(calling(tool_call(run.call_id, run.action, json.dumps(run.arguments))))
    held = HeldRequests(page, run.path)
    dock.ask(say("status"))
    expect(dock.approval).to_have_attribute("data-action", run.action)
    return held


def approved_and_held(run: RunAction, open_tutorial_page: OpenTutorialPage, dock: Dock,
                      timeline: Timeline, model: ModelHandle,
                      say: Say) -> tuple[HeldRequests, Mark]:
    """The user allowed `run` and its business request is held: no model request may have
    gone out since the approval (returned with the held request)."""
    held = card_for(run, open_tutorial_page, dock, model, say)
    approved = timeline.mark()
    held.start(dock.approve_button.click)
    guarantees.no_model_request(timeline, since=approved,
                                why=f"the {run.path} request is still unanswered",
                                guarantee="success-after-business-answer")
    return held, approved


@pytest.mark.guarantee("success-after-business-answer")
@pytest.mark.parametrize("name", list(RUN_ACTIONS))
def test_success_reaches_the_model_only_after_the_actions_own_request_answered(
    open_tutorial_page: OpenTutorialPage, dock: Dock, timeline: Timeline, model: ModelHandle,
    tutorial_server: TutorialServer, say: Say, name: str,
) -> None:
    run = RUN_ACTIONS[name]
    held, approved = approved_and_held(run, open_tutorial_page, dock, timeline, model, say)

    expect(dock.busy).to_have_count(1)  # the turn is still running
    assert tutorial_server.state.snapshot() == run.starts_from
    held.release()
    dock.wait_until_settled()
    guarantees.success_after_business_answer(timeline, call_id=run.call_id, path=run.path,
                                             since=approved)
    assert tutorial_server.state.snapshot() == run.leaves


@pytest.mark.guarantee("success-after-business-answer")
@pytest.mark.guarantee("run-failure-reported")
@pytest.mark.parametrize("name", list(RUN_ACTIONS))
def test_a_held_request_that_fails_is_run_failed_never_success(
    open_tutorial_page: OpenTutorialPage, dock: Dock, timeline: Timeline, model: ModelHandle,
    tutorial_server: TutorialServer, say: Say, name: str,
) -> None:
    run = RUN_ACTIONS[name]
    held, approved = approved_and_held(run, open_tutorial_page, dock, timeline, model, say)

    held.fail(503, {"ok": False, "code": "UNAVAILABLE", "message": "try again later"})
    dock.wait_until_settled()
    assert [r.code for r in timeline.tool_results(approved)
            if r.call_id == run.call_id] == ["RUN_FAILED"]
    failed = dock.messages("notice").and_(dock.page.locator("[data-code='RUN_FAILED']"))
    expect(failed).to_have_count(1)
    assert tutorial_server.state.snapshot() == run.starts_from


# ---- a business failure, with the model behind a real upstream ---------------------------

# The gateway's timeout towards the upstream: generous, so a healthy local answer is never cut
# off, even on a loaded machine (test_gateway_faults.py says why).
GATEWAY_TIMEOUT_SECONDS = 30.0
# A name that passes the page's schema (1..80 characters) but not the server, which trims it.
BLANK_NAME = "   "


class TestThroughAnUpstreamProvider:
    """Checks whose fixture server talks to a real OpenAI-compatible upstream over HTTP (the
    plugin's `fake_upstream`, on 127.0.0.1), as test_gateway_faults.py's do: the model's call
    is the upstream's answer."""

    @pytest.fixture
    def tutorial_server(self, start_tutorial_server: StartTutorialServer,
                        fake_upstream: FakeUpstream) -> TutorialServer:
        """The fixture server with the OpenAI-compatible provider pointed at `fake_upstream`."""
        return start_tutorial_server(environ=fake_upstream.environ(
            api_key=f"test-{secrets.token_hex(16)}", timeout=GATEWAY_TIMEOUT_SECONDS))

    @pytest.mark.guarantee("run-failure-reported")
    def test_business_failure_after_approval_is_reported_run_failed_never_success(
        self, tutorial_page: Page, dock: Dock, timeline: Timeline, fake_upstream: FakeUpstream,
        tutorial_server: TutorialServer, words: Words, locale: str, say: Say,
    ) -> None:
        fake_upstream.answer({"content": None, "tool_calls": [
            {"id": "call_blank", "type": "function",
             "function": {"name": SAVE, "arguments": json.dumps({"name": BLANK_NAME})}}]})
        dock.ask(say("save"))
        expect(dock.approval).to_have_attribute("data-action", SAVE)
        before = timeline.mark()

        dock.approve()

        # Approval means "allowed to try": the server was asked, and refused.
        tried = [(r.method, r.path, r.status) for r in timeline.server_business_records(before)]
        assert tried == [("POST", "/api/workspace/name", 400)]
        assert tutorial_server.state.snapshot() == INITIAL_WORKSPACE
        guarantees.state_unchanged(timeline, since=before, guarantee="run-failure-reported")

        [result] = [r for r in timeline.tool_results(before) if r.call_id == "call_blank"]
        assert result.envelope is not None and set(result.envelope) == {"ok", "code", "message"}
        assert (result.envelope["ok"], result.envelope["code"]) == (False, "RUN_FAILED")
        notice = dock.messages("notice")
        expect(notice).to_have_count(1)
        expect(notice).to_have_attribute("data-code", "RUN_FAILED")
        problems = words.meaning_problems(notice.inner_text(), "RUN_FAILED",
                                          naming=words.desc(SAVE))
        assert not problems, f"the RUN_FAILED notice: {'; '.join(problems)}"
        # The r-15 page's own message for the server's refusal (its copy, word for word).
        page_message = tutorial_page.get_by_test_id("workspace-message")
        expect(page_message).to_have_text(words.copy["message.invalid_name"])
        expect(page_message).to_have_attribute("data-tone", "error")
        expect(tutorial_page.get_by_test_id("workspace-name-display")).to_have_text(
            INITIAL_WORKSPACE.name)
        assert fake_upstream.fallback is not None
        guarantees.no_success_claim(
            timeline, guarantee="run-failure-reported",
            success_phrases=ModelHandle(fake_upstream.fallback).success_phrases(SAVE, locale))

"""What a run's result tells the model. (A run's success reaching the model only after its
business request has answered, and a held request that fails being `RUN_FAILED`, for every
r-15 action with a `run`: the `success-after-business-answer` checks generated from
actions.json.) A `RUN_FAILED` result names the action and says why: the error's message,
a thrown text, "the result could not be sent back" for a value JSON cannot carry, and "unknown
error" for a throw that carries no reason (a number, an object, an empty text or message);
never "42" or "[object Object]". What `run` returns reaches the model as the JSON it makes
(a Date as its ISO text, undefined fields left out; nothing is `data: null`). The testbed's
actions here are registered with `tool()`, as a page does (`testbed.scripts`).
"""

from __future__ import annotations

import json
import secrets

import pytest
from playwright.sync_api import Page, expect
from testbed_actions import GO_AHEAD, GO_AHEAD_PATTERN
from workspace_state import INITIAL_WORKSPACE

from pling_harness import (
    Dock,
    FakeUpstream,
    ModelHandle,
    Say,
    StartTutorialServer,
    Testbed,
    TestbedScripts,
    Timeline,
    TutorialServer,
    Words,
    guarantees,
)

SAVE = "save_workspace_name"


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
    expect(dock.last_message("notice", code="RUN_FAILED")).to_be_attached()
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
        expect(dock.approval_for(SAVE)).to_be_visible()
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
        expect(dock.messages("notice", code="RUN_FAILED")).to_have_count(1)
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

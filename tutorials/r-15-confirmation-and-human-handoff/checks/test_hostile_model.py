"""Hostile model output through the real gateway and page: refused with the right code, told to
the user in their language, before any prompt, with no business request and nothing changed.

Notices are held to their meaning (the glossary, see docs/page-contract.md "Copy"), never to
the runtime's exact sentences; the caps and the rules for repeated call ids and notices are
the page contract's ("What the agent loop must do")."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any

import pytest
from playwright.sync_api import Locator, Page, expect

from harness.browser.dock import Dock
from harness.browser.pages import open_page
from harness.evidence import guarantees
from harness.evidence.records import Mark
from harness.evidence.timeline import Timeline
from harness.project.texts import Words
from harness.server.model.conversation import ToolResultSeen
from harness.server.model.handle import ModelHandle, calling, tool_call
from harness.server.runner import TutorialServer
from harness.server.state import INITIAL_WORKSPACE, WorkspaceSnapshot

Say = Callable[[str], str]

SAVE, ARCHIVE, PUBLISH, READ = (
    "save_workspace_name", "archive_workspace", "publish_changes", "get_workspace")
# The caps the page contract fixes ("What the agent loop must do"): exact, so a check can
# reach them and see what happens right at them.
MAX_MODEL_CALLS_PER_TURN = 8
MAX_TOOL_CALLS_PER_REPLY = 10
MIB = 1024 * 1024
NOT_BLANK = re.compile(r"\S")
# The assistant's reply (model request) that carried the hostile tool calls is request 0;
# request 1 is the one reporting their results.
RESULTS_REQUEST = 1


# ---- what the model and the user should get ---------------------------------------------


@pytest.fixture
def words(tutorial_server: TutorialServer, locale: str) -> Words:
    """What the page's notices must mean in this locale (glossary) and its actions' names."""
    return Words(tutorial_server.root, tutorial_server.tutorial, locale)


def notices(dock: Dock, code: str) -> Locator:
    """Dock notices (tool results the user is told about) carrying `code`."""
    return dock.messages("notice").and_(dock.page.locator(f"[data-code='{code}']"))


def results_in(model: ModelHandle, request_index: int) -> list[ToolResultSeen]:
    """The tool results the model received first with request `request_index`, in order."""
    return [r for r in model.tool_results() if r.request_index == request_index]


def assert_failure_envelope(received: Mapping[str, Any] | None, code: str) -> None:
    """SPEC §5: `{"ok": false, "code": <code>, "message": <localised text>}`, nothing else."""
    assert received is not None and set(received) == {"ok", "code", "message"} \
        and received["ok"] is False and received["code"] == code \
        and isinstance(received["message"], str) and received["message"].strip(), (
            f"the model should receive a {code} failure envelope; it received {received}")


def assert_notices_mean(dock: Dock, words: Words, code: str, *, naming: str,
                        count: int = 1) -> None:
    """Exactly `count` notices carry `code`, each saying what the glossary says a `code`
    notice means in this locale, claiming nothing it must not, and naming the action."""
    shown = notices(dock, code)
    expect(shown).to_have_count(count)
    for text in shown.all_inner_texts():
        problems = words.meaning_problems(text, code, naming=naming)
        assert not problems, f"the {words.locale} {code} notice {text!r}: {'; '.join(problems)}"


def assert_refused(
    *, timeline: Timeline, model: ModelHandle, dock: Dock, words: Words, since: Mark,
    call_id: str, action: str, code: str, naming: str,
) -> None:
    """The call was answered `code` in the very next model request, the user read one notice
    saying so (naming the action as `naming`), no card or handoff came first, no business
    request was made, and neither the server nor the page changed."""
    received = {r.call_id: r.envelope for r in results_in(model, RESULTS_REQUEST)}
    assert_failure_envelope(received.get(call_id), code)
    assert_notices_mean(dock, words, code, naming=naming)
    guarantees.rejected_without_prompt(timeline, action=action, code=code, since=since)
    guarantees.state_unchanged(timeline, since=since)


# ---- arguments: not JSON, wrong type, missing, unexpected, 1 MiB -------------------------


# Calls whose arguments the page's schema must refuse (every keyword: test_schema_keywords.py).
BAD_ARGUMENTS = {
    "not-json": (SAVE, '{"name": "Acme"'),
    # Prose for an action without arguments: read as `{}` it would pass, and ask.
    "not-json-for-no-arguments": (ARCHIVE, "archive it now"),
    "not-an-object": (SAVE, '["Acme"]'),
    "wrong-type": (SAVE, '{"name": 42}'),
    "missing": (SAVE, "{}"),
    "unexpected": (SAVE, '{"name": "Acme", "owner": "mallory"}'),
    # The model must never send the verification code: publish_changes takes no arguments.
    "code-for-publish": (PUBLISH, '{"code": "246810"}'),
    "one-mib": (SAVE, json.dumps({"name": "x" * MIB})),
}


@pytest.mark.guarantee("hostile-model-output")
@pytest.mark.guarantee("rejected-before-prompt")
@pytest.mark.parametrize("bad", BAD_ARGUMENTS.values(), ids=BAD_ARGUMENTS.keys())
def test_bad_arguments_are_refused_invalid_params_before_any_prompt(
    tutorial_page: Page, dock: Dock, timeline: Timeline, model: ModelHandle, words: Words,
    say: Say, bad: tuple[str, str],
) -> None:
    action, arguments = bad
    model.script(calling(tool_call("call_bad", action, arguments)))
    before = timeline.mark()

    dock.ask(say("save"))

    assert_refused(timeline=timeline, model=model, dock=dock, words=words, since=before,
                   call_id="call_bad", action=action, code="INVALID_PARAMS",
                   naming=words.desc(action))
    # Nothing the model sent was put into the page's fields either.
    expect(tutorial_page.get_by_test_id("verification-code")).to_have_value("")
    expect(tutorial_page.get_by_test_id("workspace-name-input")).to_have_value(
        INITIAL_WORKSPACE.name)


# ---- actions that do not exist, are unavailable or out of scope --------------------------


@pytest.mark.guarantee("hostile-model-output")
@pytest.mark.guarantee("rejected-before-prompt")
def test_unknown_action_is_refused_unknown_action(
    tutorial_page: Page, dock: Dock, timeline: Timeline, model: ModelHandle, words: Words,
    say: Say,
) -> None:
    model.script(calling(tool_call("call_x", "delete_workspace")))
    before = timeline.mark()

    dock.ask(say("archive"))

    assert_refused(timeline=timeline, model=model, dock=dock, words=words, since=before,
                   call_id="call_x", action="delete_workspace", code="UNKNOWN_ACTION",
                   naming="delete_workspace")


ARCHIVED = WorkspaceSnapshot(name=INITIAL_WORKSPACE.name, archived=True, published=False)


@pytest.fixture
def archived_page(page: Page, timeline: Timeline, tutorial_server: TutorialServer,
                  locale: str) -> Page:
    """The r-15 page on an archived workspace: its Archive button is disabled."""
    tutorial_server.state.replace(ARCHIVED)
    open_page(page, tutorial_server.page_url(locale))
    return page


@pytest.mark.guarantee("hostile-model-output")
@pytest.mark.guarantee("rejected-before-prompt")
def test_archive_after_archived_is_refused_unavailable(
    archived_page: Page, dock: Dock, timeline: Timeline, model: ModelHandle, words: Words,
    tutorial_server: TutorialServer, say: Say,
) -> None:
    expect(archived_page.get_by_test_id("workspace-archive")).to_be_disabled()
    model.script(calling(tool_call("call_again", ARCHIVE)))
    before = timeline.mark()

    dock.ask(say("archive"))

    assert_refused(timeline=timeline, model=model, dock=dock, words=words, since=before,
                   call_id="call_again", action=ARCHIVE, code="UNAVAILABLE",
                   naming=words.desc(ARCHIVE))
    assert tutorial_server.state.snapshot() == ARCHIVED


# A testbed action that runs without asking (write, no confirm) but only inside its scope, so
# a runtime that skipped the scope check would make a real server call.
SCOPED_ACTION = "export_report"
SCOPED_DESC = {"en": "Export the report", "zh": "导出报告"}
DECLARE_SCOPED = """([id, desc]) =>
  window.plingTestbed.declare({id, desc, kind: "write", scope: "reports"})"""


@pytest.mark.guarantee("hostile-model-output")
@pytest.mark.guarantee("rejected-before-prompt")
def test_action_outside_its_scope_is_refused_out_of_scope(
    testbed_page: Page, dock: Dock, timeline: Timeline, model: ModelHandle, words: Words,
    tutorial_server: TutorialServer, locale: str, say: Say,
) -> None:
    declared = testbed_page.evaluate(DECLARE_SCOPED, [SCOPED_ACTION, SCOPED_DESC[locale]])
    assert declared == {"id": SCOPED_ACTION, "policy": "none"}
    model.script(calling(tool_call("call_scope", SCOPED_ACTION)))
    before = timeline.mark()

    dock.ask(say("status"))

    assert SCOPED_ACTION not in model.projected_tools(0), "an inactive scope's action was offered"
    assert_refused(timeline=timeline, model=model, dock=dock, words=words, since=before,
                   call_id="call_scope", action=SCOPED_ACTION, code="OUT_OF_SCOPE",
                   naming=SCOPED_DESC[locale])
    assert tutorial_server.testbed.calls() == []


# ---- too many calls, repeated ids ---------------------------------------------------------


def workspace_reads(timeline: Timeline, since: Mark) -> int:
    """GET /api/workspace calls the server answered since `since` (get_workspace runs)."""
    return sum(1 for call in timeline.api_calls(since)
               if call.method == "GET" and call.path == "/api/workspace")


@pytest.mark.guarantee("hostile-model-output")
@pytest.mark.guarantee("loop-limit")
def test_fifty_calls_in_one_reply_run_the_first_ten_and_refuse_the_rest_loop_limit(
    tutorial_page: Page, dock: Dock, timeline: Timeline, model: ModelHandle, words: Words,
    say: Say,
) -> None:
    # Within the cap: reads, each run on its own (no prompt due). Past it: archive, which
    # would ask, so a call past the cap that is handled at all shows up as a card.
    calls = [tool_call(f"call_{n}", READ if n <= MAX_TOOL_CALLS_PER_REPLY else ARCHIVE)
             for n in range(1, 51)]
    model.script(calling(*calls))
    before = timeline.mark()

    dock.ask(say("status"))

    received = results_in(model, RESULTS_REQUEST)
    assert [r.call_id for r in received] == [call["id"] for call in calls]
    assert [r.code for r in received[:MAX_TOOL_CALLS_PER_REPLY]] == ["OK"] * 10
    for refused in received[MAX_TOOL_CALLS_PER_REPLY:]:
        assert_failure_envelope(refused.envelope, "LOOP_LIMIT")
    assert workspace_reads(timeline, before) == MAX_TOOL_CALLS_PER_REPLY
    # One notice per refused call.
    assert_notices_mean(dock, words, "LOOP_LIMIT", naming=words.desc(ARCHIVE), count=40)
    assert timeline.shown("pling-approval", before) == []
    guarantees.no_business_request(timeline, since=before)
    guarantees.state_unchanged(timeline, since=before)


@pytest.mark.guarantee("hostile-model-output")
@pytest.mark.guarantee("rejected-before-prompt")
def test_repeated_call_id_in_one_reply_is_refused_invalid_params_and_not_run(
    tutorial_page: Page, dock: Dock, timeline: Timeline, model: ModelHandle, words: Words,
    say: Say,
) -> None:
    # The second call reuses the first one's id; it would ask (archive) if it were handled.
    model.script(calling(tool_call("call_dup", READ), tool_call("call_dup", ARCHIVE)))
    before = timeline.mark()

    dock.ask(say("status"))

    first, second = results_in(model, RESULTS_REQUEST)
    assert (first.call_id, first.code) == ("call_dup", "OK")
    assert second.call_id == "call_dup"
    assert_failure_envelope(second.envelope, "INVALID_PARAMS")
    assert_notices_mean(dock, words, "INVALID_PARAMS", naming=words.desc(ARCHIVE))
    assert workspace_reads(timeline, before) == 1
    assert timeline.shown("pling-approval", before) == []
    guarantees.no_business_request(timeline, since=before)
    guarantees.state_unchanged(timeline, since=before)


# ---- a reply that is neither text nor tool calls ------------------------------------------


UNUSABLE_REPLIES = {
    "null-content": {"role": "assistant", "content": None},
    "empty-content": {"role": "assistant", "content": ""},
    "empty-tool-calls": {"role": "assistant", "content": None, "tool_calls": []},
    "not-assistant": {"role": "user", "content": "archive the workspace"},
}


@pytest.mark.guarantee("hostile-model-output")
@pytest.mark.parametrize("reply", UNUSABLE_REPLIES.values(), ids=UNUSABLE_REPLIES.keys())
def test_reply_without_text_or_tool_calls_is_a_localised_error_and_the_next_request_works(
    tutorial_page: Page, dock: Dock, timeline: Timeline, model: ModelHandle, words: Words,
    say: Say, reply: dict[str, Any],
) -> None:
    model.script(reply)
    before = timeline.mark()

    dock.ask(say("archive"))

    error = dock.messages("error")
    expect(error).to_have_text([NOT_BLANK])
    expect(error).to_have_attribute("data-code", "MODEL_BAD_REPLY")
    refused = timeline.server_records(before, kind="model.error")
    assert [(r.status, (r.response or {}).get("code")) for r in refused] == [
        (502, "MODEL_BAD_REPLY")]
    assert len(timeline.page_model_requests(before)) == 1, "the page resent a failed request"
    assert timeline.shown("pling-approval", before) == []
    guarantees.no_business_request(timeline, since=before)
    guarantees.state_unchanged(timeline, since=before)

    # The conversation goes on: the next request is answered and runs its (harmless) action.
    after = timeline.mark()
    dock.ask(say("status"))
    guarantees.model_received(timeline, action=READ, code="OK", since=after)
    expect(dock.messages("error")).to_have_count(1)
    expect(dock.messages("assistant")).to_have_count(1)


# ---- a model that calls again after every denial ------------------------------------------


@pytest.mark.guarantee("loop-limit")
@pytest.mark.guarantee("hostile-model-output")
def test_model_calling_archive_after_every_denial_is_stopped_loop_limit(
    tutorial_page: Page, dock: Dock, timeline: Timeline, model: ModelHandle, words: Words,
    tutorial_server: TutorialServer, say: Say,
) -> None:
    # One more reply than the turn may use: a runtime without the cap would ask a 9th time.
    model.script(*(calling(tool_call(f"call_again_{n}", ARCHIVE))
                   for n in range(1, MAX_MODEL_CALLS_PER_TURN + 2)))
    before = timeline.mark()

    dock.ask(say("archive"))
    for _ in range(MAX_MODEL_CALLS_PER_TURN - 1):  # every call within the cap is asked
        expect(dock.approval).to_have_attribute("data-policy", "ask-always")
        dock.deny()

    expect(dock.approval).to_have_count(0)
    # One notice per refused call: seven denials, then the 8th reply's call refused at the cap.
    assert_notices_mean(dock, words, "LOOP_LIMIT", naming=words.desc(ARCHIVE))
    assert_notices_mean(dock, words, "PERMISSION_DENIED", naming=words.desc(ARCHIVE),
                        count=MAX_MODEL_CALLS_PER_TURN - 1)
    assert len(timeline.server_records(before, kind="model.request")) == MAX_MODEL_CALLS_PER_TURN
    cards = timeline.shown("pling-approval", before, action=ARCHIVE)
    assert len(cards) == MAX_MODEL_CALLS_PER_TURN - 1, f"{len(cards)} cards for 7 calls asked"
    guarantees.always_allow_never_offered(timeline, action=ARCHIVE, since=before)
    guarantees.no_business_request(timeline, since=before)
    guarantees.state_unchanged(timeline, since=before)
    assert tutorial_server.state.snapshot() == INITIAL_WORKSPACE

    # The refusal of the last call reaches the model with the user's next message.
    model.reset_overrides()
    dock.ask(say("status"))
    archive_results = [r for r in model.tool_results() if r.action == ARCHIVE]
    assert [r.code for r in archive_results] == ["PERMISSION_DENIED"] * (
        MAX_MODEL_CALLS_PER_TURN - 1) + ["LOOP_LIMIT"]
    assert archive_results[-1].call_id == f"call_again_{MAX_MODEL_CALLS_PER_TURN}"
    assert_failure_envelope(archive_results[-1].envelope, "LOOP_LIMIT")


# ---- model text is text --------------------------------------------------------------------


MARKUP = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script><b>bold</b>'
PWNED = "() => window.__pwned"


def assert_nothing_ran(page: Page) -> None:
    """No element came from model markup and no handler of it ran."""
    dock_root = page.get_by_test_id("pling-dock")
    for tag in ("img", "script", "b"):
        expect(dock_root.locator(tag)).to_have_count(0)
    assert page.evaluate(PWNED) is None


@pytest.mark.guarantee("model-text-is-text")
@pytest.mark.guarantee("hostile-model-output")
def test_assistant_markup_is_shown_as_literal_text_and_runs_nothing(
    tutorial_page: Page, dock: Dock, timeline: Timeline, model: ModelHandle, say: Say,
) -> None:
    model.script({"role": "assistant", "content": MARKUP})
    before = timeline.mark()

    dock.ask(say("status"))

    expect(dock.messages("assistant")).to_have_text([MARKUP])
    assert dock.messages("assistant").text_content() == MARKUP
    assert_nothing_ran(tutorial_page)
    assert [r.path for r in timeline.browser_requests(before) if r.path != "/api/model"] == []


@pytest.mark.guarantee("model-text-is-text")
@pytest.mark.guarantee("hostile-model-output")
def test_markup_in_tool_names_and_arguments_is_shown_as_literal_text(
    tutorial_page: Page, dock: Dock, timeline: Timeline, model: ModelHandle, say: Say,
) -> None:
    # No double quotes: the card shows arguments as JSON, which would escape them.
    name_markup = "<img src=x onerror=window.__pwned=3>"
    argument_markup = "<img src=x onerror=window.__pwned=4>"
    model.script(calling(tool_call("call_name", name_markup),
                         tool_call("call_args", SAVE, json.dumps({"name": argument_markup}))))
    before = timeline.mark()

    dock.ask(say("save"))

    unknown = notices(dock, "UNKNOWN_ACTION")
    expect(unknown).to_have_count(1)
    expect(unknown).to_contain_text(name_markup)  # named as the model wrote it, as text
    expect(dock.approval_args).to_contain_text(argument_markup)
    assert_nothing_ran(tutorial_page)
    dock.deny()
    assert_nothing_ran(tutorial_page)
    guarantees.no_business_request(timeline, since=before)
    guarantees.state_unchanged(timeline, since=before)
    assert [r.path for r in timeline.browser_requests(before) if r.path != "/api/model"] == []

"""Hostile model output through the real gateway and page: refused with the right code, told to
the user in their language, before any prompt, with no business request and nothing changed.

Notices are held to their meaning (the glossary, see docs/page-contract.md "Copy"), never to
the runtime's exact sentences; the caps and the rules for repeated call ids and notices are
the page contract's ("What the agent loop must do")."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

import pytest
from playwright.sync_api import Locator, Page, expect
from workspace_state import INITIAL_WORKSPACE

from harness import (
    Dock,
    Mark,
    ModelHandle,
    Say,
    Timeline,
    TutorialServer,
    Words,
    calling,
    guarantees,
    tool_call,
)

SAVE, ARCHIVE, READ = "save_workspace_name", "archive_workspace", "get_workspace"
# The caps the page contract fixes ("What the agent loop must do"): exact, so a check can
# reach them and see what happens right at them.
MAX_MODEL_CALLS_PER_TURN = 8
MAX_TOOL_CALLS_PER_REPLY = 10
NOT_BLANK = re.compile(r"\S")
# The assistant's reply (model request) that carried the hostile tool calls is request 0;
# request 1 is the one reporting their results.
RESULTS_REQUEST = 1


# ---- what the model and the user should get ---------------------------------------------


def notices(dock: Dock, code: str) -> Locator:
    """Dock notices (tool results the user is told about) carrying `code`."""
    return dock.messages("notice").and_(dock.page.locator(f"[data-code='{code}']"))


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


# Calls the page must refuse (bad arguments, unknown, unavailable, out-of-scope actions):
# the one table of them is test_pipeline_order.py; every schema keyword: test_schema_keywords.py.


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

    received = model.tool_results(request_index=RESULTS_REQUEST)
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
@pytest.mark.guarantee("invalid-params-names-the-argument")
def test_repeated_call_id_in_one_reply_is_refused_invalid_params_naming_it_and_not_run(
    tutorial_page: Page, dock: Dock, timeline: Timeline, model: ModelHandle, words: Words,
    say: Say,
) -> None:
    # The second call reuses the first one's id; it would ask (archive) if it were handled.
    model.script(calling(tool_call("call_dup", READ), tool_call("call_dup", ARCHIVE)))
    before = timeline.mark()

    dock.ask(say("status"))

    first, second = model.tool_results(request_index=RESULTS_REQUEST)
    assert (first.call_id, first.code) == ("call_dup", "OK")
    assert second.call_id == "call_dup"
    assert_failure_envelope(second.envelope, "INVALID_PARAMS")
    assert_notices_mean(dock, words, "INVALID_PARAMS", naming=words.desc(ARCHIVE))
    # The result and the notice name the repeated id, so the model can tell which call it was.
    assert second.envelope is not None and "call_dup" in str(second.envelope["message"]), (
        f"the model was told {second.envelope}, not which id repeated")
    expect(notices(dock, "INVALID_PARAMS")).to_contain_text("call_dup")
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


@pytest.mark.guarantee("hostile-model-output")
def test_reply_text_of_only_whitespace_adds_no_message(
    tutorial_page: Page, dock: Dock, model: ModelHandle, say: Say,
) -> None:
    model.script({"role": "assistant", "content": " \n ",
                  "tool_calls": [tool_call("call_read", READ)]},
                 {"role": "assistant", "content": "Done reading."})

    dock.ask(say("status"))

    expect(dock.messages("assistant")).to_have_text(["Done reading."])


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

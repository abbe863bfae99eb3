"""What the testbed's own declarations make of the model's calls (SPEC §3 steps 1 to 4, the
page contract's argument schemas): a call with a value breaking a schema keyword is answered
with its code and never prompts; a value at a keyword's edge passes and runs as sent; the
notice names the argument that broke it; and a handoff's arguments never prefill its target.
Everything through the real gateway and page, told to the user in their language (by meaning:
the glossary), with no business request and nothing changed.

What follows from the action table alone is generated from actions.json
(pling_harness/plugin/declared/): each action's own refusals (every way of breaking its params,
near misses of its id, unavailable on the state that disables it) and, once per locale, what
the model may send that no action declares (the caps of the agent loop, a repeated call id,
replies without text, markup shown as text: model_output_checks.py). A testbed action out of
scope or unavailable (each way a page makes it so, and their order) and one whose switches
were undone asking again are rows of testbed-actions.json (`page`, `refused`). One family, one file:
these guarantees share checks, so each guarantee's hand-written checks sit here and nowhere
else (tests/test_guarantee_files.py).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pytest
from playwright.sync_api import Page, expect
from testbed_actions import (
    GO_AHEAD,
    GO_AHEAD_PATTERN,
    REQUESTS,
)

from pling_harness import (
    Dock,
    Mark,
    ModelHandle,
    Say,
    Testbed,
    Timeline,
    Words,
    calling,
    guarantees,
    tool_call,
)

if TYPE_CHECKING:  # the checks' conftest.py; pytest imports it, tests only name its types
    from conftest import Workspace

GUARANTEE = "rejected-before-prompt"
SAVE, ARCHIVE = "save_workspace_name", "archive_workspace"
CALL_ID = "call_bad"
# The reply carrying the call answers request 0; request 1 reports its result.
RESULTS_REQUEST = 1


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
    shown = dock.messages("notice", code=code)
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


# ==== every schema keyword, enforced before any prompt ============================================

BAD_ID = "bad_decl"

WIDGET = "tune_widget"
DESC = {"en": "Tune the widget", "zh": "调整组件"}
# Every keyword of the subset (docs/page-contract.md, "Argument schemas"), at the top level
# and one object deeper; `choice` is an enum without a type.
PARAMS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "label": {"type": "string", "minLength": 2, "maxLength": 5},
        "count": {"type": "integer"},
        "ratio": {"type": "number"},
        "flag": {"type": "boolean"},
        "color": {"type": "string", "enum": ["red", "green"]},
        "choice": {"enum": [1, "one", True]},
        "options": {"type": "object", "properties": {}},
        "nested": {
            "type": "object",
            "properties": {"inner": {"type": "string"}},
            "required": ["inner"],
            "additionalProperties": False,
        },
    },
    "required": ["label"],
    "additionalProperties": False,
}
# Any text will do: the model's reply is scripted per test.
REQUEST = REQUESTS["tune_widget"]
EMOJI = "\N{GRINNING FACE}"  # one character (code point), two UTF-16 units
# The glossary term a message uses for the arguments as a whole (page contract).
ARGUMENTS_TERM = "argument"


@dataclass(frozen=True)
class Case:
    """Raw `arguments` text the model sends, the keyword it exercises, and (for a bad value)
    the argument path its INVALID_PARAMS must name (None: the arguments as a whole, which
    the message names with the glossary's term for them, `argument` / 参数)."""

    keyword: str
    id: str
    arguments: str
    names: str | None = None


# One row per keyword and bad value: each must be refused.
BAD_VALUES = [
    Case("type:object", "arguments-a-string", '"abc"'),
    Case("type:object", "nested-an-array", '{"label": "abc", "options": []}', "options"),
    Case("type:object", "null-for-an-object", '{"label": "abc", "nested": null}', "nested"),
    Case("type:string", "number-for-string", '{"label": 42}', "label"),
    Case("type:integer", "fraction", '{"label": "abc", "count": 1.5}', "count"),
    Case("type:integer", "numeric-string", '{"label": "abc", "count": "3"}', "count"),
    Case("type:number", "numeric-string", '{"label": "abc", "ratio": "1.5"}', "ratio"),
    Case("type:number", "boolean", '{"label": "abc", "ratio": true}', "ratio"),
    Case("type:number", "overflows-to-infinity", '{"label": "abc", "ratio": 1e400}', "ratio"),
    Case("type:boolean", "string-true", '{"label": "abc", "flag": "true"}', "flag"),
    Case("type:boolean", "one", '{"label": "abc", "flag": 1}', "flag"),
    Case("required", "missing", "{}", "label"),
    Case("required", "missing-nested", '{"label": "abc", "nested": {}}', "nested.inner"),
    Case("additionalProperties", "extra", '{"label": "abc", "extra": 1}', "extra"),
    Case("additionalProperties", "extra-nested",
         '{"label": "abc", "nested": {"inner": "x", "extra": 1}}', "nested.extra"),
    Case("minLength", "one-short", '{"label": "a"}', "label"),
    Case("maxLength", "one-over", '{"label": "abcdef"}', "label"),
    Case("maxLength", "one-character-over", json.dumps({"label": EMOJI * 6}), "label"),
    Case("enum", "not-listed", '{"label": "abc", "color": "blue"}', "color"),
    Case("enum", "other-case", '{"label": "abc", "color": "Green"}', "color"),
    Case("enum", "loosely-equal", '{"label": "abc", "choice": "1"}', "choice"),
    Case("json", "not-json", '{"label": "abc"', None),
]

# Values at the edge of each keyword: each must pass.
GOOD_VALUES = [
    Case("minLength", "at-min", '{"label": "ab"}'),
    Case("maxLength", "at-max", '{"label": "abcde"}'),
    Case("maxLength", "at-max-in-characters", json.dumps({"label": EMOJI * 5})),
    Case("type:integer", "integral-numbers", '{"label": "abc", "count": 1.0, "ratio": 2}'),
    Case("enum", "untyped-members", '{"label": "abc", "choice": true}'),
    Case("properties", "every-property", json.dumps({
        "label": "abc", "count": -3, "ratio": 0.25, "flag": False, "color": "green",
        "choice": "one", "options": {}, "nested": {"inner": "x"}})),
]


def case_id(case: Case) -> str:
    return f"{case.keyword}-{case.id}"


# The cap of calls per model reply (page contract): a table's calls come in replies of this many.
CALLS_PER_REPLY = 10


def script_calls(model: ModelHandle, cases: list[Case]) -> None:
    """The model calls WIDGET once per case (call ids `call_0`, ...), in that order."""
    calls = [tool_call(f"call_{n}", WIDGET, case.arguments) for n, case in enumerate(cases)]
    model.script(*(calling(*calls[start:start + CALLS_PER_REPLY])
                   for start in range(0, len(calls), CALLS_PER_REPLY)))


@pytest.fixture
def schema_testbed(testbed: Testbed, locale: str) -> Testbed:
    """The testbed with WIDGET declared: `ask` policy, params using every supported keyword."""
    declared = testbed.declare({"id": WIDGET, "desc": DESC[locale], "kind": "write",
                                "confirm": True, "params": PARAMS})
    assert declared == {"id": WIDGET, "policy": "ask"}
    return testbed


@pytest.mark.guarantee("schema-enforced")
@pytest.mark.guarantee("rejected-before-prompt")
@pytest.mark.guarantee("invalid-params-names-the-argument")
def test_value_breaking_a_schema_keyword_is_refused_invalid_params_naming_it(
    schema_testbed: Testbed, dock: Dock, timeline: Timeline, model: ModelHandle, words: Words,
    locale: str,
) -> None:
    # Every bad value in one turn, one call each: a value that got through would stop the turn
    # at its approval card.
    script_calls(model, BAD_VALUES)
    before = timeline.mark()

    dock.ask(REQUEST[locale])

    guarantees.rejected_without_prompt(timeline, action=WIDGET, code="INVALID_PARAMS",
                                       since=before)
    assert schema_testbed.calls() == []
    refused = dock.messages("notice", code="INVALID_PARAMS")
    expect(refused).to_have_count(len(BAD_VALUES))
    shown = refused.all_inner_texts()
    told = {r.call_id: r for r in model.tool_results() if r.action == WIDGET}
    problems: dict[str, str] = {}
    for n, case in enumerate(BAD_VALUES):
        def names_it(text: str, case: Case = case) -> bool:
            # A path verbatim; the arguments as a whole by the glossary's term, any wording.
            return case.names in text if case.names else words.says_term(text, ARGUMENTS_TERM)
        wanted = case.names or f"the term {words.term(ARGUMENTS_TERM)}"
        result = told.get(f"call_{n}")
        message = str((result.envelope or {}).get("message", "")) if result else ""
        if result is None or result.code != "INVALID_PARAMS":
            problems[case_id(case)] = f"the model got {result.describe() if result else None}"
        elif not names_it(message):
            problems[case_id(case)] = f"the model was told {message!r}, not naming {wanted}"
        elif DESC[locale] not in shown[n] or not names_it(shown[n].replace(DESC[locale], " ")):
            problems[case_id(case)] = (f"the notice {shown[n]!r} names neither the action "
                                       f"nor {wanted}")
    assert not problems, problems


@pytest.mark.guarantee("schema-enforced")
def test_value_at_the_edge_of_a_schema_keyword_passes_and_runs_as_sent(
    schema_testbed: Testbed, dock: Dock, timeline: Timeline, model: ModelHandle, locale: str,
) -> None:
    # Every edge value in one turn: each call asks (Allow), then runs with exactly its value.
    script_calls(model, GOOD_VALUES)
    before = timeline.mark()

    dock.ask(REQUEST[locale])
    for _ in GOOD_VALUES:
        expect(dock.approval_for(WIDGET)).to_be_visible()
        dock.approve()

    codes = {case_id(case): r.code for case, r in zip(
        GOOD_VALUES, timeline.tool_results(before), strict=False)}
    assert codes == {case_id(case): "OK" for case in GOOD_VALUES}, codes
    assert [call.body for call in schema_testbed.calls(WIDGET)] == [
        json.loads(case.arguments) for case in GOOD_VALUES]


BARE_ACTION = "ping_widget"
# What an action declared without `params` takes: no arguments at all (page contract).
NO_PARAMS = {"type": "object", "properties": {}, "additionalProperties": False}


@pytest.mark.guarantee("schema-enforced")
def test_action_declared_without_params_takes_no_arguments(
    testbed: Testbed, dock: Dock, timeline: Timeline, model: ModelHandle, locale: str,
) -> None:
    declared = testbed.declare({"id": BARE_ACTION, "desc": DESC[locale], "kind": "write",
                                "confirm": True})
    assert declared == {"id": BARE_ACTION, "policy": "ask"}
    model.script(calling(tool_call("call_extra", BARE_ACTION, '{"x": 1}'),
                         tool_call("call_none", BARE_ACTION, "{}")))
    before = timeline.mark()

    dock.ask(REQUEST[locale])
    expect(dock.approval_for(BARE_ACTION)).to_be_visible()
    dock.approve()

    assert model.offered_tools(0)[BARE_ACTION].parameters == NO_PARAMS
    codes = {r.call_id: r.code for r in timeline.tool_results(before)}
    assert codes == {"call_extra": "INVALID_PARAMS", "call_none": "OK"}, codes
    assert [call.body for call in testbed.calls(BARE_ACTION)] == [{}]


# Every keyword the subset accepts, within its rules: `description` and `title` anywhere,
# limits of 0, an `enum` without `type`.
WELL_FORMED_PARAMS: dict[str, Any] = {
    "type": "object", "title": "Note", "description": "What to write down",
    "properties": {
        "note": {"type": "string", "title": "Text", "description": "The note itself",
                 "minLength": 0, "maxLength": 20},
        "mood": {"enum": ["calm", 0, None]},
        "empty": {"type": "string", "maxLength": 0},
    },
    "required": ["note"], "additionalProperties": False,
}


@pytest.mark.guarantee("schema-enforced")
def test_declaration_with_titles_descriptions_and_zero_limits_is_accepted_and_runs(
    testbed: Testbed, dock: Dock, timeline: Timeline, model: ModelHandle, locale: str,
) -> None:
    declaration = {"id": BAD_ID, "desc": "Write a note", "kind": "write",
                   "params": WELL_FORMED_PARAMS}
    refusal = testbed.refusal(declaration)
    arguments = {"note": "", "mood": 0, "empty": ""}
    model.when_user(GO_AHEAD_PATTERN, BAD_ID, arguments)
    start = timeline.mark()

    dock.ask(GO_AHEAD[locale])

    assert refusal is None, f"a well-formed declaration was refused: {refusal}"
    guarantees.model_received(timeline, action=BAD_ID, code="OK", since=start,
                              guarantee="schema-enforced")
    assert [call.body for call in testbed.calls(BAD_ID)] == [arguments]


# ==== nothing writes into a handoff target ========================================================

# What a user types to start a testbed handoff (matched by `when_user`).
TESTBED_REQUEST = REQUESTS["pin_step"]
TESTBED_PATTERN = r"pin"


@pytest.mark.guarantee("handoff-never-writes-target")
def test_handoff_arguments_never_prefill_the_target(
    testbed: Testbed, dock: Dock, timeline: Timeline, model: ModelHandle, locale: str,
) -> None:
    testbed.declare({
        "id": "enter_pin", "desc": "enter_pin", "kind": "danger", "handoff": True,
        "params": {"type": "object", "properties": {"value": {"type": "string"}},
                   "additionalProperties": False},
    })
    model.when_user(TESTBED_PATTERN, "enter_pin", {"value": "4242"})

    dock.ask(TESTBED_REQUEST[locale])

    expect(dock.handoff_for("enter_pin")).to_be_visible()
    expect(testbed.input("enter_pin")).to_have_value("")
    testbed.finish("enter_pin", "4242")
    dock.wait_until_handoff_ends()
    guarantees.model_received(timeline, action="enter_pin", code="OK")
    guarantees.no_writes_into_targets(timeline)


@pytest.mark.guarantee("handoff-never-writes-target")
def test_a_wrong_code_stays_in_the_field_as_typed(
    tutorial_page: Page, dock: Dock, timeline: Timeline, workspace: Workspace, words: Words,
    say: Say,
) -> None:
    """Nothing but the person writes into a handoff target (issue 39): after a wrong code
    the field holds what they typed; a page that empties it "to help" wrote what the person
    cannot tell from the agent's writing. (Done, cancel, the timeout and success: the
    generated handoff checks.)"""
    wrong = "111111"  # another code (the right one: workspace_state.PUBLISH_CODE)
    dock.ask(say("publish"))
    expect(dock.handoff_for("publish_changes")).to_be_visible()

    workspace.publish(wrong)
    expect(workspace.message).to_have_text(words.copy["message.wrong_code"])

    guarantees.no_writes_into_targets(timeline)
    expect(workspace.code_field).to_have_value(wrong)
    expect(dock.handoff).to_be_visible()  # still the person's to finish

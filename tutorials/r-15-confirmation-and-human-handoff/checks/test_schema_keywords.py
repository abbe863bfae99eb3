"""Every JSON-Schema keyword the page contract lists for `params` is enforced: a value breaking
one is refused INVALID_PARAMS before any prompt and without a business request, its result and
notice naming the argument that broke it (its dotted path, so the model can correct its call),
and a value at its edge passes, asks, and reaches the server exactly as sent.

The testbed declares one `ask` action whose schema uses each keyword, so a bad value that got
through would show an approval card, and a good one that was refused would not."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest
from playwright.sync_api import expect

from harness import Dock, ModelHandle, Testbed, Timeline, Words, calling, guarantees, tool_call

# What the user types; a `when_user` rule turns it into the call.
GO_AHEAD = {"en": "go ahead", "zh": "开始吧"}
GO_AHEAD_PATTERN = "go ahead|开始吧"
BAD_ID = "bad_decl"

ACTION = "tune_widget"
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
REQUEST = {"en": "tune the widget", "zh": "调整组件"}
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
    """The model calls ACTION once per case (call ids `call_0`, ...), in that order."""
    calls = [tool_call(f"call_{n}", ACTION, case.arguments) for n, case in enumerate(cases)]
    model.script(*(calling(*calls[start:start + CALLS_PER_REPLY])
                   for start in range(0, len(calls), CALLS_PER_REPLY)))


@pytest.fixture
def schema_testbed(testbed: Testbed, locale: str) -> Testbed:
    """The testbed with ACTION declared: `ask` policy, params using every supported keyword."""
    declared = testbed.declare({"id": ACTION, "desc": DESC[locale], "kind": "write",
                                "confirm": True, "params": PARAMS})
    assert declared == {"id": ACTION, "policy": "ask"}
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

    guarantees.rejected_without_prompt(timeline, action=ACTION, code="INVALID_PARAMS",
                                       since=before)
    assert schema_testbed.calls() == []
    refused = dock.messages("notice").and_(
        schema_testbed.page.locator("[data-code='INVALID_PARAMS']"))
    expect(refused).to_have_count(len(BAD_VALUES))
    shown = refused.all_inner_texts()
    told = {r.call_id: r for r in model.tool_results() if r.action == ACTION}
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
        expect(dock.approval).to_have_attribute("data-action", ACTION)
        dock.approve()

    codes = {case_id(case): r.code for case, r in zip(
        GOOD_VALUES, timeline.tool_results(before), strict=False)}
    assert codes == {case_id(case): "OK" for case in GOOD_VALUES}, codes
    assert [call.body for call in schema_testbed.calls(ACTION)] == [
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
    expect(dock.approval).to_have_attribute("data-action", BARE_ACTION)
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

"""Every JSON-Schema keyword the page contract lists for `params` is enforced: a value breaking
one is refused INVALID_PARAMS before any prompt and without a business request, and a value at
its edge passes, asks, and reaches the server exactly as sent.

The testbed declares one `ask` action whose schema uses each keyword, so a bad value that got
through would show an approval card, and a good one that was refused would not."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from harness.browser.dock import Dock
from harness.evidence import guarantees
from harness.evidence.timeline import Timeline
from harness.server.model.handle import ModelHandle, calling, tool_call
from harness.server.runner import TutorialServer

ACTION = "tune_widget"
DESC = {"en": "Tune the widget", "zh": "调整组件"}
# Every keyword of the subset (docs/page-contract.md, "Argument schemas"), at the top level
# and one object deeper; `choice` is an enum without a type.
PARAMS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "text": {"type": "string", "minLength": 2, "maxLength": 5},
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
    "required": ["text"],
    "additionalProperties": False,
}
DECLARE = """([id, desc, params]) =>
  window.plingTestbed.declare({id, desc, kind: "write", confirm: true, params})"""
# Any text will do: the model's reply is scripted per test.
REQUEST = {"en": "tune the widget", "zh": "调整组件"}
EMOJI = "\N{GRINNING FACE}"  # one character (code point), two UTF-16 units


@dataclass(frozen=True)
class Case:
    """Raw `arguments` text the model sends, and the keyword it exercises."""

    keyword: str
    id: str
    arguments: str


# One row per keyword and bad value: each must be refused.
BAD_VALUES = [
    Case("type:object", "arguments-a-string", '"abc"'),
    Case("type:object", "nested-an-array", '{"text": "abc", "options": []}'),
    Case("type:string", "number-for-string", '{"text": 42}'),
    Case("type:integer", "fraction", '{"text": "abc", "count": 1.5}'),
    Case("type:integer", "numeric-string", '{"text": "abc", "count": "3"}'),
    Case("type:number", "numeric-string", '{"text": "abc", "ratio": "1.5"}'),
    Case("type:number", "boolean", '{"text": "abc", "ratio": true}'),
    Case("type:number", "overflows-to-infinity", '{"text": "abc", "ratio": 1e400}'),
    Case("type:boolean", "string-true", '{"text": "abc", "flag": "true"}'),
    Case("type:boolean", "one", '{"text": "abc", "flag": 1}'),
    Case("required", "missing", "{}"),
    Case("required", "missing-nested", '{"text": "abc", "nested": {}}'),
    Case("additionalProperties", "extra", '{"text": "abc", "extra": 1}'),
    Case("additionalProperties", "extra-nested",
         '{"text": "abc", "nested": {"inner": "x", "extra": 1}}'),
    Case("minLength", "one-short", '{"text": "a"}'),
    Case("maxLength", "one-over", '{"text": "abcdef"}'),
    Case("maxLength", "one-character-over", json.dumps({"text": EMOJI * 6})),
    Case("enum", "not-listed", '{"text": "abc", "color": "blue"}'),
    Case("enum", "other-case", '{"text": "abc", "color": "Green"}'),
    Case("enum", "loosely-equal", '{"text": "abc", "choice": "1"}'),
]

# Values at the edge of each keyword: each must pass.
GOOD_VALUES = [
    Case("minLength", "at-min", '{"text": "ab"}'),
    Case("maxLength", "at-max", '{"text": "abcde"}'),
    Case("maxLength", "at-max-in-characters", json.dumps({"text": EMOJI * 5})),
    Case("type:integer", "integral-numbers", '{"text": "abc", "count": 1.0, "ratio": 2}'),
    Case("enum", "untyped-members", '{"text": "abc", "choice": true}'),
    Case("properties", "every-property", json.dumps({
        "text": "abc", "count": -3, "ratio": 0.25, "flag": False, "color": "green",
        "choice": "one", "options": {}, "nested": {"inner": "x"}})),
]


def case_id(case: Case) -> str:
    return f"{case.keyword}-{case.id}"


@pytest.fixture
def schema_page(testbed_page: Page, locale: str) -> Page:
    """The testbed with ACTION declared: `ask` policy, params using every supported keyword."""
    declared = testbed_page.evaluate(DECLARE, [ACTION, DESC[locale], PARAMS])
    assert declared == {"id": ACTION, "policy": "ask"}
    return testbed_page


@pytest.mark.guarantee("schema-enforced")
@pytest.mark.guarantee("rejected-before-prompt")
@pytest.mark.parametrize("case", BAD_VALUES, ids=case_id)
def test_value_breaking_a_schema_keyword_is_refused_invalid_params_before_any_prompt(
    schema_page: Page, dock: Dock, timeline: Timeline, model: ModelHandle,
    tutorial_server: TutorialServer, locale: str, case: Case,
) -> None:
    model.script(calling(tool_call("call_bad", ACTION, case.arguments)))
    before = timeline.mark()

    dock.ask(REQUEST[locale])

    guarantees.rejected_without_prompt(timeline, action=ACTION, code="INVALID_PARAMS",
                                       since=before)
    refused = dock.messages("notice").and_(schema_page.locator("[data-code='INVALID_PARAMS']"))
    expect(refused).to_have_count(1)
    expect(refused).to_contain_text(DESC[locale])
    assert tutorial_server.testbed.calls() == []


@pytest.mark.guarantee("schema-enforced")
@pytest.mark.parametrize("case", GOOD_VALUES, ids=case_id)
def test_value_at_the_edge_of_a_schema_keyword_passes_and_runs_as_sent(
    schema_page: Page, dock: Dock, timeline: Timeline, model: ModelHandle,
    tutorial_server: TutorialServer, locale: str, case: Case,
) -> None:
    model.script(calling(tool_call("call_good", ACTION, case.arguments)))
    before = timeline.mark()

    dock.ask(REQUEST[locale])
    expect(dock.approval).to_have_attribute("data-action", ACTION)
    dock.approve()

    guarantees.model_received(timeline, action=ACTION, code="OK", since=before,
                              guarantee="schema-enforced")
    assert [call.body for call in tutorial_server.testbed.calls(ACTION)] == [
        json.loads(case.arguments)]

"""A declaration the runtime cannot honour as written (a kind or confirm value it does not know,
an empty description, a schema keyword it does not enforce, a handoff it could not run) is
refused when the page registers it, so it never becomes an action the model can call: a typo
such as `kind: "Danger"` must not turn into an action that runs unasked. So is one of a shape
it cannot run (not an object, a `run` that is not a function, both or neither of `run` and
`handoff`, a handoff without its reason, steps or `expect.check()`, or with a timeout that is
infinite or not a number), a second registration of a taken action id (the first stays), a
binding to something that is not an element or a target without a name (its id stays free);
and what was registered stays as registered when the page changes its declaration object.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect
from testbed_actions import GO_AHEAD

from pling_harness import (
    Dock,
    ModelHandle,
    Testbed,
    TestbedScripts,
    Timeline,
    calling,
    guarantees,
    tool_call,
)

BAD_ID = "bad_decl"
STRING_NOTE = {"type": "object", "properties": {"note": {"type": "string"}},
               "additionalProperties": False}
# Fields replacing a valid `write` declaration's (or its `params` schema), one entry per way
# to be wrong.
BAD_DECLARATIONS: dict[str, dict[str, Any]] = {
    "kind-in-other-case": {"kind": "Danger"},
    "kind-missing": {"kind": None, "confirm": True},
    "confirm-unknown-word": {"confirm": "yes"},
    "confirm-always-in-other-case": {"confirm": "Always"},
    "desc-empty": {"desc": ""},
    "desc-blank": {"desc": "   "},
    "id-with-space": {"id": "bad decl"},
    "id-too-long": {"id": "b" * 65},
    "scope-empty": {"scope": ""},
    "params-unenforced-keyword": {"params": {"type": "object", "properties": {
        "note": {"type": "string", "pattern": "^a"}}}},
    "params-not-an-object-schema": {"params": {"type": "array"}},
    "params-a-text-schema": {"params": {"type": "string"}},
    "params-properties-a-list": {"params": {"type": "object",
                                            "properties": [{"type": "string"}]}},
    "params-required-not-a-list": {"params": {**STRING_NOTE, "required": ""}},
    "params-unknown-type": {"params": {"type": "object", "properties": {
        "note": {"type": "text"}}}},
    "params-property-without-type": {"params": {"type": "object", "properties": {"note": {}}}},
    "params-additional-properties-allowed": {"params": {**STRING_NOTE,
                                                        "additionalProperties": True}},
    "params-negative-limit": {"params": {"type": "object", "properties": {
        "note": {"type": "string", "maxLength": -1}}}},
    "params-fractional-limit": {"params": {"type": "object", "properties": {
        "note": {"type": "string", "minLength": 1.5}}}},
    "params-empty-enum": {"params": {"type": "object", "properties": {
        "note": {"type": "string", "enum": []}}}},
    "params-requires-an-unknown-property": {"params": {**STRING_NOTE, "required": ["other"]}},
    "params-properties-not-an-object": {"params": {"type": "object", "properties": [1]}},
    "handoff-timeout-zero": {"handoff": {"timeout": 0}},
    "handoff-timeout-negative": {"handoff": {"timeout": -5}},
    "handoff-timeout-text": {"handoff": {"timeout": "60s"}},
    "handoff-reason-blank": {"handoff": {"reason": "  "}},
    "handoff-step-text-blank": {"handoff": {"steps": ["Type it.", " "]}},
}
# The cap of calls per model reply (page contract): the model calls the refused ids in groups.
CALLS_PER_REPLY = 10


@pytest.mark.guarantee("bad-declaration-refused")
def test_declaration_the_runtime_cannot_honour_never_becomes_a_callable_action(
    testbed: Testbed, dock: Dock, timeline: Timeline, model: ModelHandle, locale: str,
) -> None:
    # Every way to be wrong on one page, each under its own id (unless the id is the fault).
    declarations = {name: {"id": f"bad_{n}", "desc": "Bad declaration", "kind": "write",
                           "params": STRING_NOTE, **fields}
                    for n, (name, fields) in enumerate(BAD_DECLARATIONS.items())}
    refusals = {name: testbed.refusal(declaration)
                for name, declaration in declarations.items()}
    ids = {name: str(declaration["id"]) for name, declaration in declarations.items()}
    # The model calls each of them anyway: a call to one that was registered would ask or run.
    calls = [tool_call(f"call_{n}", action, '{"note": "x"}')
             for n, action in enumerate(ids.values())]
    model.script(*(calling(*calls[start:start + CALLS_PER_REPLY])
                   for start in range(0, len(calls), CALLS_PER_REPLY)))
    start = timeline.mark()

    dock.ask(GO_AHEAD[locale])

    accepted = [name for name, refusal in refusals.items() if refusal is None]
    assert not accepted, f"tool() registered declarations it cannot honour: {accepted}"
    offered = [name for name, action in ids.items() if action in model.projected_tools(0)]
    assert not offered, f"the model was offered refused actions: {offered}"
    for action in ids.values():
        guarantees.rejected_without_prompt(timeline, action=action, code="UNKNOWN_ACTION",
                                           since=start)
    assert testbed.calls() == []


@pytest.mark.guarantee("bad-declaration-refused")
def test_declaration_of_a_shape_the_runtime_cannot_run_is_refused(
    testbed: Testbed, dock: Dock, model: ModelHandle, locale: str,
) -> None:
    refusals = testbed.scripts.register_raw_shapes()

    dock.ask(GO_AHEAD[locale])

    accepted = [name for name, refusal in refusals.items() if refusal is None]
    assert not accepted, f"tool() registered declarations it cannot run: {accepted}"
    offered = [action for action in model.offered_tools()
               if action.startswith(TestbedScripts.RAW_SHAPE_ID_PREFIX)]
    assert not offered, f"the model was offered refused actions: {offered}"


TIDY = TestbedScripts.TIDY


@pytest.mark.guarantee("bad-declaration-refused")
def test_second_registration_of_an_action_id_is_refused_and_the_first_stays(
    testbed: Testbed, dock: Dock, model: ModelHandle, locale: str,
) -> None:
    refusal = testbed.scripts.register_twice()

    dock.ask(GO_AHEAD[locale])

    assert model.offered_tools()[TIDY].description == "First tidy"
    assert refusal is not None, "a second action under a taken id was registered"


@pytest.mark.guarantee("bad-declaration-refused")
def test_binding_to_a_non_element_or_a_nameless_target_is_refused(
    testbed: Testbed, dock: Dock, model: ModelHandle, locale: str,
) -> None:
    refusals = testbed.scripts.bad_bindings()

    dock.ask(GO_AHEAD[locale])

    assert TIDY not in model.offered_tools()
    assert all(refusal is not None for refusal in refusals), refusals


@pytest.mark.guarantee("bad-declaration-refused")
def test_refused_target_binding_leaves_its_id_free(testbed: Testbed) -> None:
    books = testbed.scripts.bind_after_a_refused_binding()

    assert books["first"] is not None, "a target bound to a non-element was accepted"
    assert (books["second"], books["mark"]) == (None, "gap_spot"), books


@pytest.mark.guarantee("bad-declaration-refused")
def test_registered_declaration_stays_as_registered_when_the_page_changes_it(
    testbed: Testbed, dock: Dock, timeline: Timeline, model: ModelHandle, locale: str,
) -> None:
    testbed.scripts.change_a_registered_declaration()
    model.script(calling(tool_call("call_long", TIDY, '{"note": "abcdef"}'),
                         tool_call("call_short", TIDY, '{"note": "abc"}')))
    start = timeline.mark()

    dock.ask(GO_AHEAD[locale])
    expect(dock.approval_for(TIDY)).to_be_visible()
    dock.approve()

    codes = {r.call_id: r.code for r in timeline.tool_results(start)}
    assert codes == {"call_long": "INVALID_PARAMS", "call_short": "OK"}, codes

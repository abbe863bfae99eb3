"""Gaps that machine-made mutants found (docs/generated-mutants.md) and no other check covers.
(Those that joined a table elsewhere: `aria-disabled` controls, test_pipeline_order.py; the
argument an INVALID_PARAMS names, test_schema_keywords.py; whitespace replies and repeated
call ids, test_hostile_model.py.)

- An approval is "allowed to try", given for the page as it was when the card appeared. If
  the action stopped being available while the card was open (its control disabled or
  removed, the action switched off or unregistered, its scope left), Allow must not run it:
  the model is told the code step 3 or 4 of SPEC §3 would give now, and no business request
  is made.
- Switches undo exactly what they did: an action switched off and on again runs again, and
  a scope activated twice stays active until it is deactivated twice.
- The card is decided only by its own decision buttons: a decision value the executor does
  not know (a forged `data-decision="yes"`) counts as Deny, and a `data-decision` on an
  element *around* the dock never turns a click on the card into a decision.
- A `RUN_FAILED` result carries the reason the page's `run` gave (its error's message), so
  the model can tell the user why (docs/page-contract.md).
- A handoff step whose target is an input the user clicks rather than types into (a
  `button`, `submit` or `reset` input) advances on the click, as a button does (SPEC §4).
- Handoff steps advance on the kinds of targets the spec names, whatever they are: a
  textarea, an editable element or a select advances once it has non-blank input (not on a
  click, not on a space), a button advances on its click even when the page's own handler
  stops the click's propagation, and acting on an earlier step's target never moves back.
- `expect.check()` is re-run when the page changes (an attribute, a text, a child), and not
  for the runtime's own DOM changes (the countdown, the highlight moving, the panel), as
  docs/page-contract.md says of `data-pling-ui`. The check registers its handoff with
  `tool()` and `target()`, as a page does, with an `expect.check()` that counts its calls.
- The agent runs one turn at a time and only for text: a page that calls `agent.send()` (the
  API `mountAgent()` returns) with blank text, or while a turn runs, starts nothing.
- An `expect.check()` that throws means "not done": Done then answers `HANDOFF_FAILED`.
- What `run` returns reaches the model as JSON: nothing (`undefined`) is a success with
  `data: null`, and a value JSON cannot carry (a BigInt, a cycle) is `RUN_FAILED`, never a
  success the model could not read. The check registers its action with `tool()`, as a page
  does.
- An "always allow" is for the action it was given to: an id unregistered and registered
  again as `danger` asks on every call, whatever was allowed under that id before.
- A `RUN_FAILED` result names the action and says why: the error's message, a thrown text,
  "the result could not be sent back" for a value JSON cannot carry, and "unknown error"
  for a throw that carries no reason (a number, an object, an empty text or message);
  never "42" or "[object Object]". A value `run` returns reaches the model as the JSON it
  makes (a Date as its ISO text, undefined fields left out).
- The registry keeps its books through `tool()`, `target()` and `activateScope()` as a page
  calls them: unregistering removes an action's `data-pling-target` mark and its tool and
  frees its id; a second registration of a taken action or target id is refused and the
  first stays; a scope's deactivation ends one activation however often it is called; the
  projection carries each action's `params` as its `parameters`; a binding to something that
  is not an element, or a target without a name, is refused.
- A declaration the runtime cannot honour as written (a kind or confirm value it does not
  know, an empty description, a schema keyword it does not enforce, a handoff it could not
  run) is refused when the page registers it, so it never becomes an action the model can
  call: a typo such as `kind: "Danger"` must not turn into an action that runs unasked. So
  is one of a shape it cannot run: not an object, a `run` that is not a function, both or
  neither of `run` and `handoff`, a handoff without its reason, steps or `expect.check()`,
  or with a timeout that is infinite or not a number.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Locator, expect

from harness import (
    Dock,
    ModelHandle,
    Testbed,
    TestbedScripts,
    Timeline,
    Words,
    calling,
    guarantees,
    time_left,
    tool_call,
)

ACTION = "guarded_save"
BUTTON = f"[data-testid='testbed-action-{ACTION}']"
# An `ask` action on the testbed: every run would be a POST the server records.
DECLARATION: dict[str, Any] = {
    "id": ACTION, "desc": "Guarded save", "kind": "write", "confirm": True, "scope": "editor",
    "params": {"type": "object", "properties": {"note": {"type": "string"}},
               "required": ["note"], "additionalProperties": False},
}
ARGUMENTS = {"note": "x"}
# Something the page does to its testbed actions.
PageChange = Callable[[Testbed], None]


def declare_guarded(testbed: Testbed) -> None:
    """Declare ACTION and activate its scope, as a page would."""
    testbed.declare(DECLARATION)
    testbed.activate_scope("editor")


# What the user types; a `when_user` rule turns it into the call.
GO_AHEAD = {"en": "go ahead", "zh": "开始吧"}
GO_AHEAD_PATTERN = "go ahead|开始吧"
# What the page does while the approval card is open, and the code the call must then get.
CHANGES = [
    pytest.param(lambda testbed: testbed.disable_button(ACTION), "UNAVAILABLE",
                 id="control-disabled"),
    pytest.param(lambda testbed: testbed.remove_button(ACTION), "UNAVAILABLE",
                 id="control-removed"),
    pytest.param(lambda testbed: testbed.set_enabled(ACTION, False), "UNAVAILABLE",
                 id="switched-off"),
    pytest.param(lambda testbed: testbed.undeclare(ACTION), "UNAVAILABLE", id="unregistered"),
    pytest.param(lambda testbed: testbed.deactivate_scope("editor"), "OUT_OF_SCOPE",
                 id="scope-left"),
]


@pytest.mark.guarantee("availability-rechecked-after-approval")
@pytest.mark.parametrize(("change", "code"), CHANGES)
def test_action_made_unavailable_while_its_card_is_open_runs_nothing_after_allow(
    testbed: Testbed, dock: Dock, timeline: Timeline, model: ModelHandle, locale: str,
    change: PageChange, code: str,
) -> None:
    declare_guarded(testbed)
    model.when_user(GO_AHEAD_PATTERN, ACTION, ARGUMENTS)
    start = timeline.mark()
    dock.ask(GO_AHEAD[locale])
    expect(dock.approval).to_have_attribute("data-action", ACTION)

    change(testbed)
    dock.approve()

    guarantees.model_received(timeline, action=ACTION, code=code, since=start,
                              guarantee="availability-rechecked-after-approval")
    guarantees.no_business_request(timeline, since=start,
                                   guarantee="availability-rechecked-after-approval")
    assert testbed.calls() == []
    expect(dock.messages("notice").last).to_have_attribute("data-code", code)


def switched_off_and_on(testbed: Testbed) -> None:
    """The page switches ACTION off, then on again."""
    testbed.set_enabled(ACTION, False)
    testbed.set_enabled(ACTION, True)


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
    declare_guarded(testbed)
    change(testbed)
    model.when_user(GO_AHEAD_PATTERN, ACTION, ARGUMENTS)
    start = timeline.mark()
    dock.ask(GO_AHEAD[locale])
    expect(dock.approval).to_have_attribute("data-action", ACTION)

    dock.approve()

    guarantees.model_received(timeline, action=ACTION, code="OK", since=start,
                              guarantee="rejected-before-prompt")
    assert [call.body for call in testbed.calls(ACTION)] == [ARGUMENTS]

# ---- a declaration the runtime cannot honour never becomes an action -----------------------

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


# ---- decisions: only the card's own buttons, only the values the executor knows -----------

FORGED_VALUES = [pytest.param("yes", id="yes"), pytest.param("", id="empty"),
                 pytest.param("ALLOW", id="allow-in-capitals")]


@pytest.mark.guarantee("forged-decision-refused")
@pytest.mark.parametrize("value", FORGED_VALUES)
def test_forged_decision_value_the_executor_does_not_know_counts_as_deny(
    testbed: Testbed, dock: Dock, timeline: Timeline, model: ModelHandle, locale: str, value: str,
) -> None:
    declare_guarded(testbed)
    model.when_user(GO_AHEAD_PATTERN, ACTION, ARGUMENTS)
    start = timeline.mark()
    dock.ask(GO_AHEAD[locale])
    expect(dock.approval).to_have_attribute("data-action", ACTION)

    dock.forge_decision(value)

    guarantees.model_received(timeline, action=ACTION, code="PERMISSION_DENIED", since=start,
                              guarantee="forged-decision-refused")
    guarantees.no_business_request(timeline, since=start, guarantee="forged-decision-refused")
    assert testbed.calls() == []


@pytest.mark.guarantee("approval-only-by-click")
def test_decision_attribute_around_the_dock_does_not_decide_a_click_on_the_card(
    testbed: Testbed, dock: Dock, timeline: Timeline, model: ModelHandle, locale: str,
) -> None:
    declare_guarded(testbed)
    dock.wrap_in_decision("allow")
    model.when_user(GO_AHEAD_PATTERN, ACTION, ARGUMENTS)
    start = timeline.mark()
    dock.ask(GO_AHEAD[locale])
    expect(dock.approval).to_have_attribute("data-action", ACTION)
    shown = timeline.mark()

    dock.approval.get_by_test_id("pling-approval-desc").click()

    guarantees.approval_still_open(timeline, action=ACTION, since=shown)
    assert testbed.calls() == []
    dock.deny()
    guarantees.model_received(timeline, action=ACTION, code="PERMISSION_DENIED", since=start,
                              guarantee="approval-only-by-click")


# ---- why a run failed ---------------------------------------------------------------------

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


# ---- a handoff step on an input that is clicked, not typed into ----------------------------

HANDOFF_ACTION = "sign_off"
CLICKED_TYPES = [pytest.param(kind, id=kind)
                 for kind in ("button", "submit", "reset", "image", "color", "file", "checkbox",
                              "radio", "range")]
# The value each clicked input gets: a label for the buttons; none for a checkbox or radio
# (so only the click, not an input event with a value, can move the step); a range keeps
# its default, which a click in its middle leaves as it is.
CLICKED_VALUES = {"checkbox": "", "radio": "", "file": None, "range": None}


@pytest.mark.guarantee("handoff-guidance")
@pytest.mark.parametrize("input_type", CLICKED_TYPES)
def test_handoff_step_on_a_clicked_input_advances_when_it_is_clicked(
    testbed: Testbed, dock: Dock, model: ModelHandle, locale: str, input_type: str,
) -> None:
    testbed.declare({
        "id": HANDOFF_ACTION, "desc": "Sign off", "kind": "write", "handoff": True})
    # The step's target becomes an input the user clicks (its value is the button's label).
    testbed.set_input_type(HANDOFF_ACTION, input_type, CLICKED_VALUES.get(input_type, "OK"))
    model.when_user(GO_AHEAD_PATTERN, HANDOFF_ACTION, {})
    dock.ask(GO_AHEAD[locale])
    expect(dock.handoff_current_step).to_have_attribute("data-index", "0")

    testbed.input(HANDOFF_ACTION).click()

    expect(dock.handoff_current_step).to_have_attribute("data-index", "1")
    expect(dock.highlight(f"{HANDOFF_ACTION}__finish")).to_have_count(1)


# ---- what `run` returns, as the model receives it ------------------------------------------

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


# ---- expect.check() follows the page's changes, not the runtime's own ----------------------

COUNTED_ACTION = TestbedScripts.COUNTERSIGN_ACTION
# What the page changes on its note (a JS function of the `gap-note` paragraph).
PAGE_CHANGES = [
    pytest.param("note => note.setAttribute('data-state', 'signed')", id="attribute"),
    pytest.param("note => { note.firstChild.data = 'signed'; }", id="text"),
    pytest.param("note => note.append(document.createElement('span'))", id="child"),
    # The text node leaves the document: a change whose only node has no parent any more.
    pytest.param("note => note.firstChild.remove()", id="text-removed"),
    # In the same moment the runtime redraws its own panel (the step moves on).
    pytest.param("note => { note.setAttribute('data-state', 'signed');"
                 " document.querySelector(\"[data-testid='pling-handoff-next']\").click(); }",
                 id="beside-the-runtimes-own"),
]


def start_page_handoff(dock: Dock, model: ModelHandle, locale: str, *, action: str) -> Locator:
    """Let the model start the handoff `action` the page registered, and wait until its panel
    shows the first step; the current step's locator."""
    model.when_user(GO_AHEAD_PATTERN, action, {})
    dock.ask(GO_AHEAD[locale])
    expect(dock.handoff).to_have_attribute("data-action", action)
    expect(dock.handoff_current_step).to_have_attribute("data-index", "0")
    return dock.handoff_current_step


def start_counted_handoff(testbed: Testbed, dock: Dock, model: ModelHandle, locale: str) -> int:
    """Register the counting handoff, let the model start it; the check's calls so far."""
    testbed.scripts.register_counting_handoff()
    start_page_handoff(dock, model, locale, action=COUNTED_ACTION)
    return testbed.scripts.check_calls()


@pytest.mark.guarantee("expect-check-follows-page-changes")
def test_handoff_check_is_not_rerun_for_the_runtimes_own_dom_changes(
    testbed: Testbed, dock: Dock, model: ModelHandle, locale: str,
) -> None:
    before = start_counted_handoff(testbed, dock, model, locale)

    testbed.page.clock.fast_forward(3000)  # the countdown ticks three times
    expect(dock.handoff_timer).to_have_text(time_left(5 * 60 - 3))
    dock.handoff_next()  # the highlight moves from the field to the button
    expect(dock.handoff_current_step).to_have_attribute("data-index", "1")
    dock.handoff_back()
    expect(dock.handoff_current_step).to_have_attribute("data-index", "0")

    assert testbed.scripts.check_calls() == before, (
        "expect.check() was re-run for changes the runtime made itself")


@pytest.mark.guarantee("expect-check-follows-page-changes")
@pytest.mark.parametrize("change", PAGE_CHANGES)
def test_handoff_check_is_rerun_when_the_page_changes(
    testbed: Testbed, dock: Dock, model: ModelHandle, locale: str, change: str,
) -> None:
    before = start_counted_handoff(testbed, dock, model, locale)

    testbed.scripts.change_note(change)

    assert testbed.scripts.check_calls() > before, (
        "expect.check() was not re-run after the page changed")


# ---- handoff steps on every kind of target ---------------------------------------------------

GUIDED_ACTION = TestbedScripts.FIVE_STEP_ACTION


@pytest.mark.guarantee("handoff-guidance")
def test_handoff_steps_advance_on_each_kind_of_target_and_never_move_back(
    testbed: Testbed, dock: Dock, model: ModelHandle, locale: str,
) -> None:
    testbed.scripts.register_five_step_handoff()
    step = start_page_handoff(dock, model, locale, action=GUIDED_ACTION)
    by_id = testbed.page.get_by_test_id

    by_id("gap-notes").click()  # it has text already, but the user typed nothing yet
    expect(step).to_have_attribute("data-index", "0")
    by_id("gap-notes").press("End")
    by_id("gap-notes").press_sequentially(" more")
    expect(step).to_have_attribute("data-index", "1")

    by_id("gap-summary").click()  # a click elsewhere
    expect(step).to_have_attribute("data-index", "1")
    by_id("gap-confirm").click()  # its own handler stops the click's propagation
    expect(step).to_have_attribute("data-index", "2")

    by_id("gap-channel").click()
    expect(step).to_have_attribute("data-index", "2")
    by_id("gap-channel").select_option("mail")
    expect(step).to_have_attribute("data-index", "3")

    by_id("gap-summary").click()
    by_id("gap-summary").press_sequentially(" ")  # blank input is not input
    expect(step).to_have_attribute("data-index", "3")
    by_id("gap-summary").press_sequentially("ok")
    expect(step).to_have_attribute("data-index", "4")

    by_id("gap-notes").press_sequentially("!")  # an earlier step's target: the step stays
    expect(step).to_have_attribute("data-index", "4")
    expect(dock.highlight(GUIDED_ACTION)).to_have_count(1)

    by_id("gap-submit").click()  # the last step's own target; the check still says "not done"
    expect(step).to_have_attribute("data-index", "4")
    expect(dock.highlight(GUIDED_ACTION)).to_have_count(1)


ELEMENT_ACTION = TestbedScripts.ELEMENT_ACTION
# Targets that are neither fields nor buttons: a link and a plain element advance on a click;
# an editable list item (whose `value` is a number, not text) once it has text.
OTHER_TARGETS = [pytest.param("a", False, id="link"), pytest.param("div", False, id="div"),
                 pytest.param("li", True, id="editable-list-item")]


@pytest.mark.guarantee("handoff-guidance")
@pytest.mark.parametrize(("tag", "editable"), OTHER_TARGETS)
def test_handoff_step_on_another_kind_of_element_advances_on_its_users_action(
    testbed: Testbed, dock: Dock, model: ModelHandle, locale: str, tag: str, editable: bool,
) -> None:
    testbed.scripts.register_handoff_on_element(tag, editable)
    step = start_page_handoff(dock, model, locale, action=ELEMENT_ACTION)
    element = testbed.page.get_by_test_id("gap-element")

    element.click()
    if editable:
        expect(step).to_have_attribute("data-index", "0")
        element.press_sequentially("done")

    expect(step).to_have_attribute("data-index", "1")
    expect(dock.highlight(ELEMENT_ACTION)).to_have_count(1)


@pytest.mark.guarantee("handoff-guidance")
def test_handoff_step_advances_while_a_later_steps_target_is_not_on_the_page_yet(
    testbed: Testbed, dock: Dock, model: ModelHandle, locale: str,
) -> None:
    testbed.scripts.register_handoff_with_a_late_target()
    step = start_page_handoff(dock, model, locale, action=TestbedScripts.LATE_TARGET_ACTION)

    testbed.page.get_by_test_id("gap-early-field").press_sequentially("Ada")

    expect(step).to_have_attribute("data-index", "1")


FIRST_HANDOFF = "sign_first"
SECOND_HANDOFF = "sign_second"


@pytest.mark.guarantee("handoff-no-stacking")
def test_second_handoff_while_one_is_open_is_refused_busy_and_the_first_goes_on(
    testbed: Testbed, dock: Dock, timeline: Timeline, model: ModelHandle, locale: str,
) -> None:
    for action in (FIRST_HANDOFF, SECOND_HANDOFF):
        testbed.declare({"id": action, "desc": f"Sign {action}", "kind": "write",
                         "handoff": True})
    model.when_user(GO_AHEAD_PATTERN, FIRST_HANDOFF, {})
    model.when_user("second", SECOND_HANDOFF, {})
    start = timeline.mark()
    dock.ask(GO_AHEAD[locale])
    expect(dock.handoff).to_have_attribute("data-action", FIRST_HANDOFF)

    second_dock = testbed.scripts.second_agent_sends("second")
    # The second agent's turn ends once the model has heard how its call went.
    expect(second_dock.locator("[data-testid='pling-message'][data-role='assistant']")
           ).to_have_count(1)

    guarantees.model_received(timeline, action=SECOND_HANDOFF, code="HANDOFF_BUSY",
                              since=start, guarantee="handoff-no-stacking")
    expect(testbed.page.get_by_test_id("pling-handoff")).to_have_count(1)
    expect(dock.handoff).to_have_attribute("data-action", FIRST_HANDOFF)

    testbed.finish(FIRST_HANDOFF)
    dock.wait_until_handoff_ends()
    guarantees.model_received(timeline, action=FIRST_HANDOFF, code="OK", since=start,
                              guarantee="handoff-no-stacking")


@pytest.mark.guarantee("handoff-done-requires-expect")
def test_handoff_whose_check_throws_is_not_done(
    testbed: Testbed, dock: Dock, timeline: Timeline, model: ModelHandle, locale: str,
) -> None:
    testbed.scripts.register_throwing_check_handoff()
    model.when_user(GO_AHEAD_PATTERN, COUNTED_ACTION, {})
    start = timeline.mark()
    dock.ask(GO_AHEAD[locale])
    expect(dock.handoff).to_have_attribute("data-action", COUNTED_ACTION)

    dock.handoff_done()

    guarantees.model_received(timeline, action=COUNTED_ACTION, code="HANDOFF_FAILED",
                              since=start, guarantee="handoff-done-requires-expect")


# ---- the registry's books, through the API a page calls --------------------------------------

TIDY = TestbedScripts.TIDY

@pytest.mark.guarantee("projection-complete")
def test_unregistered_action_leaves_no_mark_and_its_id_can_be_registered_again(
    testbed: Testbed, dock: Dock, model: ModelHandle, locale: str,
) -> None:
    books = testbed.scripts.unregister_and_register_again()

    dock.ask(GO_AHEAD[locale])

    assert (books["marked"], books["unmarked"]) == (TIDY, None), books
    assert (books["again"], books["remarked"]) == (None, TIDY), books
    assert model.offered_tools()[TIDY].description == "Tidy up again"


@pytest.mark.guarantee("ask-always-never-granted")
def test_always_allow_given_before_an_action_was_registered_again_as_danger_does_not_carry(
    testbed: Testbed, dock: Dock, timeline: Timeline, model: ModelHandle, locale: str,
) -> None:
    testbed.scripts.register_tidy_as_write()
    model.when_user(GO_AHEAD_PATTERN, TIDY, {})
    dock.ask(GO_AHEAD[locale])
    dock.approve_always()
    testbed.scripts.register_tidy_again_as_danger()
    again = timeline.mark()

    dock.ask(GO_AHEAD[locale])

    # The grant was for an `ask` action; the action now under that id asks on every call.
    guarantees.prompted_for_every_call(timeline, action=TIDY, since=again)
    guarantees.always_allow_never_offered(timeline, action=TIDY, since=again)


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


@pytest.mark.guarantee("projection-complete")
def test_unregistering_an_action_leaves_the_mark_of_a_target_on_the_same_element(
    testbed: Testbed,
) -> None:
    mark = testbed.scripts.unregister_the_action_of_a_shared_button()

    assert mark == "gap_tidy_step", f"the target's mark is {mark!r} after the action went"


@pytest.mark.guarantee("bad-declaration-refused")
def test_registered_declaration_stays_as_registered_when_the_page_changes_it(
    testbed: Testbed, dock: Dock, timeline: Timeline, model: ModelHandle, locale: str,
) -> None:
    testbed.scripts.change_a_registered_declaration()
    model.script(calling(tool_call("call_long", TIDY, '{"note": "abcdef"}'),
                         tool_call("call_short", TIDY, '{"note": "abc"}')))
    start = timeline.mark()

    dock.ask(GO_AHEAD[locale])
    expect(dock.approval).to_have_attribute("data-action", TIDY)
    dock.approve()

    codes = {r.call_id: r.code for r in timeline.tool_results(start)}
    assert codes == {"call_long": "INVALID_PARAMS", "call_short": "OK"}, codes


@pytest.mark.guarantee("projection-complete")
def test_action_registered_without_a_control_is_offered_and_runs(
    testbed: Testbed, dock: Dock, timeline: Timeline, model: ModelHandle, locale: str,
) -> None:
    refusal = testbed.scripts.register_without_a_control()
    model.when_user(GO_AHEAD_PATTERN, TIDY, {})
    start = timeline.mark()

    dock.ask(GO_AHEAD[locale])

    assert refusal is None, f"an action without a control was refused: {refusal}"
    assert TIDY in model.offered_tools(0)
    guarantees.model_received(timeline, action=TIDY, code="OK", since=start,
                              guarantee="projection-complete")


@pytest.mark.guarantee("projection-complete")
def test_scope_deactivation_called_twice_ends_only_its_own_activation(
    testbed: Testbed, dock: Dock, model: ModelHandle, locale: str,
) -> None:
    testbed.scripts.activate_scope_twice_and_end_one_activation_twice("editor")
    testbed.declare(DECLARATION)

    dock.ask(GO_AHEAD[locale])

    assert ACTION in model.offered_tools(), "the scope ended though one activation remains"


@pytest.mark.guarantee("projection-complete")
def test_projection_carries_each_actions_params_as_its_parameters(
    testbed: Testbed, dock: Dock, model: ModelHandle, locale: str,
) -> None:
    declare_guarded(testbed)

    dock.ask(GO_AHEAD[locale])

    assert model.offered_tools()[ACTION].parameters == DECLARATION["params"]


@pytest.mark.guarantee("handoff-guidance")
def test_taken_target_id_is_refused_and_the_step_highlights_the_first_element(
    testbed: Testbed, dock: Dock, model: ModelHandle, locale: str,
) -> None:
    refusal = testbed.scripts.register_handoff_on_a_taken_target_id()
    model.when_user(GO_AHEAD_PATTERN, COUNTED_ACTION, {})

    dock.ask(GO_AHEAD[locale])

    expect(dock.highlight("place")).to_have_count(1)
    expect(testbed.page.get_by_test_id("gap-first-place")).to_have_attribute(
        "data-pling-highlighted", re.compile(".*"))
    assert refusal is not None, "a second element took a target id already in use"


# ---- the agent: one turn at a time, text only ------------------------------------------------

@pytest.mark.guarantee("one-turn-at-a-time")
@pytest.mark.parametrize("text", [pytest.param("   ", id="spaces"),
                                  pytest.param("\n\t", id="newline-and-tab"),
                                  pytest.param(None, id="nothing")])
def test_page_sending_blank_text_starts_no_turn(
    testbed: Testbed, dock: Dock, timeline: Timeline, locale: str, text: str | None,
) -> None:
    start = timeline.mark()

    testbed.scripts.send_from_the_page(text)
    dock.ask(GO_AHEAD[locale])  # a real turn after it, to have something to wait for

    assert len(timeline.page_model_requests(start)) == 1
    expect(dock.messages("user")).to_have_count(1)


@pytest.mark.guarantee("one-turn-at-a-time")
def test_page_sending_while_a_turn_runs_starts_no_second_turn(
    testbed: Testbed, dock: Dock, timeline: Timeline, model: ModelHandle, locale: str,
) -> None:
    declare_guarded(testbed)
    model.when_user(GO_AHEAD_PATTERN, ACTION, ARGUMENTS)
    start = timeline.mark()
    dock.ask(GO_AHEAD[locale])
    expect(dock.approval).to_have_attribute("data-action", ACTION)

    testbed.scripts.send_from_the_page(GO_AHEAD[locale])
    dock.deny()

    # The turn's own two requests (the call, then its denial), and nothing from the second send.
    assert len(timeline.page_model_requests(start)) == 2
    expect(dock.messages("user")).to_have_count(1)
    assert testbed.calls() == []

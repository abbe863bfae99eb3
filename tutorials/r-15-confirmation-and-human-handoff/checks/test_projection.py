"""The projection (the `tools` sent with every model request) and how calls are matched to it.

SPEC §1: hiding a button does not remove an action from the projection; only unregistering
or scoping does. So the model is offered every registered action in active scope, whatever
its button looks like, and a disabled one answers UNAVAILABLE when called (no prompt). The
projection is read from what the server received, never from the runtime.

The registry keeps its books through `tool()`, `target()` and `activateScope()` as a page
calls them (`testbed.scripts`): unregistering removes an action's target mark
(not a target's on the same element) and frees its id; an action without a control is
offered and runs; a scope's deactivation ends one activation however often it is called; the
projection carries each action's `params` as its `parameters`. (Each r-15 action offered
exactly once as served, after a re-render and after a remount: the generated
`<action>-registered-once-*` checks.)
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from testbed_actions import (
    GO_AHEAD,
    GO_AHEAD_PATTERN,
    GUARDED_SAVE,
    GUARDED_SAVE_ARGUMENTS,
    GUARDED_SAVE_DECLARATION,
    declare_guarded,
)

from pling_harness import (
    Dock,
    GuaranteeViolation,
    ModelHandle,
    Testbed,
    TestbedScripts,
    Timeline,
    calling,
    guarantees,
    tool_call,
)

TIDY = TestbedScripts.TIDY

GUARANTEE = "projection-complete"
PARAMS = {"type": "object", "properties": {"note": {"type": "string"}},
          "required": ["note"], "additionalProperties": False}
# How a test changes an action's testbed button (page script, not the runtime): each state
# by name, so a failing case says what the button looked like.
HIDDEN_STATES = ["hidden-attribute", "display-none", "visibility-hidden", "row-hidden"]
BUTTON_STATES = ["visible", *HIDDEN_STATES, "disabled"]
SET_BUTTON_STATE = """([id, state]) => {
  const button = document.querySelector(`[data-testid="testbed-action-${id}"]`);
  if (state === "hidden-attribute") button.hidden = true;
  if (state === "display-none") button.style.display = "none";
  if (state === "visibility-hidden") button.style.visibility = "hidden";
  if (state === "row-hidden") button.parentElement.style.display = "none";  // its row
  if (state === "disabled") button.disabled = true;
}"""


def declare(testbed: Testbed, action: str, **fields: Any) -> dict[str, Any]:
    """Declare a `write` testbed action without a gate (it runs when called)."""
    decl: dict[str, Any] = {"id": action, "desc": f"Projection case {action}",
                            "kind": "write", "confirm": False, "params": PARAMS, **fields}
    testbed.declare(decl)
    return decl


def set_button(testbed: Testbed, action: str, state: str) -> None:
    testbed.page.evaluate(SET_BUTTON_STATE, [action, state])


@pytest.mark.guarantee(GUARANTEE)
def test_projection_offers_every_in_scope_action_whatever_its_button_looks_like(
    testbed: Testbed, dock: Dock, timeline: Timeline, model: ModelHandle, locale: str,
) -> None:
    declared = {}
    for state in BUTTON_STATES:
        action = f"button_{state.replace('-', '_')}"
        declared[action] = declare(testbed, action)
        set_button(testbed, action, state)
    # Switched off by the page: still offered (calls answer UNAVAILABLE), like a disabled one.
    declared["switched_off"] = declare(testbed, "switched_off")
    testbed.set_enabled("switched_off", False)
    # Scoped: offered only while its scope is active.
    declared["in_active_scope"] = declare(testbed, "in_active_scope", scope="wizard")
    declare(testbed, "in_inactive_scope", scope="later")
    testbed.activate_scope("wizard")

    # A call that runs, so the turn makes two model requests: each must carry the projection.
    model.when_user(GO_AHEAD_PATTERN, "button_visible", GUARDED_SAVE_ARGUMENTS)
    start = timeline.mark()
    dock.ask(GO_AHEAD[locale])
    guarantees.model_received(timeline, action="button_visible", code="OK", since=start,
                              guarantee=GUARANTEE)

    tools = guarantees.projection_exactly(timeline, tools=list(declared), since=start)
    if len(timeline.server_records(start, kind="model.request")) != 2:
        raise GuaranteeViolation(GUARANTEE, "the turn should make two model requests (the "
                                 "call, then its result)", timeline)
    offered = {tool.function.name: tool.function for tool in tools}
    wrong = [f"{action}: {offered[action]}" for action, decl in declared.items()
             if offered[action].description != decl["desc"]
             or offered[action].parameters != decl["params"]]
    if wrong:
        raise GuaranteeViolation(GUARANTEE, f"tools not offered as declared (desc, params): "
                                 f"{wrong}", timeline)


@pytest.mark.guarantee(GUARANTEE)
def test_actions_with_hidden_buttons_still_run_when_called(
    testbed: Testbed, dock: Dock, timeline: Timeline, model: ModelHandle, locale: str,
) -> None:
    # Hiding is not a switch: only a disabled or detached element makes an action unavailable.
    # One action per way of hiding its button, all called in one reply, each must run.
    hidden = {state: f"hidden_{state.replace('-', '_')}" for state in HIDDEN_STATES}
    for state, action in hidden.items():
        declare(testbed, action)
        set_button(testbed, action, state)
    model.script(calling(*(tool_call(f"call_{action}", action, json.dumps(GUARDED_SAVE_ARGUMENTS))
                           for action in hidden.values())))
    start = timeline.mark()

    dock.ask(GO_AHEAD[locale])

    guarantees.projection_exactly(timeline, tools=list(hidden.values()), since=start)
    for action in hidden.values():
        guarantees.model_received(timeline, action=action, code="OK", since=start,
                                  guarantee=GUARANTEE)
    ran = {state: [c.body for c in testbed.calls(action)] for state, action in hidden.items()}
    assert ran == {state: [GUARDED_SAVE_ARGUMENTS] for state in hidden}, ran


@pytest.mark.guarantee(GUARANTEE)
def test_action_with_a_disabled_button_is_offered_and_answers_unavailable(
    testbed: Testbed, dock: Dock, timeline: Timeline, model: ModelHandle, locale: str,
) -> None:
    # Danger: were availability skipped, a card would be due and would show.
    declare(testbed, "disabled_action", kind="danger", confirm=None)
    set_button(testbed, "disabled_action", "disabled")
    model.when_user(GO_AHEAD_PATTERN, "disabled_action", GUARDED_SAVE_ARGUMENTS)
    start = timeline.mark()
    dock.ask(GO_AHEAD[locale])

    guarantees.projection_exactly(timeline, tools=["disabled_action"], since=start)
    guarantees.rejected_without_prompt(timeline, action="disabled_action", code="UNAVAILABLE",
                                       since=start)
    assert testbed.calls() == []


@pytest.mark.guarantee("projection-complete")
def test_unregistered_action_leaves_no_mark_and_its_id_can_be_registered_again(
    testbed: Testbed, dock: Dock, model: ModelHandle, locale: str,
) -> None:
    books = testbed.scripts.unregister_and_register_again()

    dock.ask(GO_AHEAD[locale])

    assert (books["marked"], books["unmarked"]) == (TIDY, None), books
    assert (books["again"], books["remarked"]) == (None, TIDY), books
    assert model.offered_tools()[TIDY].description == "Tidy up again"


@pytest.mark.guarantee("projection-complete")
def test_unregistering_an_action_leaves_the_mark_of_a_target_on_the_same_element(
    testbed: Testbed,
) -> None:
    mark = testbed.scripts.unregister_the_action_of_a_shared_button()

    assert mark == "gap_tidy_step", f"the target's mark is {mark!r} after the action went"


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
    testbed.declare(GUARDED_SAVE_DECLARATION)

    dock.ask(GO_AHEAD[locale])

    assert GUARDED_SAVE in model.offered_tools(), "the scope ended though one activation remains"


@pytest.mark.guarantee("projection-complete")
def test_projection_carries_each_actions_params_as_its_parameters(
    testbed: Testbed, dock: Dock, model: ModelHandle, locale: str,
) -> None:
    declare_guarded(testbed)

    dock.ask(GO_AHEAD[locale])

    assert model.offered_tools()[GUARDED_SAVE].parameters == GUARDED_SAVE_DECLARATION["params"]

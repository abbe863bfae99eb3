"""Handoff guidance (SPEC §4) on r-15: the reason and the ordered steps in the page's own words.
When a step advances (Next, Back, typing, a click), each highlight covering its target however
the page moves (brought into view, scroll, resize, content added above it), and the highlights
going with Cancel, Done and a new conversation, are the checks generated from actions.json.

On the testbed, with handoffs registered as a page does (`testbed.scripts`), steps advance on
the kinds of targets the spec names, whatever they are: an input the user clicks (`button`,
`submit`, `reset`, ...) on the click; a textarea, an editable element or a select once it
has non-blank input (not on a click, not on a space); a button on its click even when the
page's own handler stops the click's propagation; a later step's target may not be rendered
yet; acting on an earlier step's target never moves back; and a target id already taken is
refused, the step highlighting the first element.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Locator, Page, expect
from testbed_actions import GO_AHEAD, GO_AHEAD_PATTERN

from pling_harness import (
    Dock,
    ModelHandle,
    Say,
    Testbed,
    TestbedScripts,
    Timeline,
    Words,
    guarantees,
)

COUNTED_ACTION = TestbedScripts.COUNTERSIGN_ACTION


def start_page_handoff(dock: Dock, model: ModelHandle, locale: str, *, action: str) -> Locator:
    """Let the model start the handoff `action` the page registered, and wait until its panel
    shows the first step; the current step's locator."""
    model.when_user(GO_AHEAD_PATTERN, action, {})
    dock.ask(GO_AHEAD[locale])
    expect(dock.handoff_for(action)).to_be_visible()
    expect(dock.handoff_step(0, current=True)).to_be_visible()
    return dock.handoff_current_step


PUBLISH = "publish_changes"
CODE_TARGET = "verification_code"
# The handoff's two steps, in order: the targets they point at.
PUBLISH_STEP_TARGETS = (CODE_TARGET, PUBLISH)


def start_publish_handoff(dock: Dock, say: Say) -> None:
    dock.ask(say("publish"))
    expect(dock.handoff_for(PUBLISH)).to_be_visible()


# ---- reason and steps ------------------------------------------------------------------


@pytest.mark.guarantee("handoff-guidance")
def test_handoff_shows_localised_reason_and_both_steps_in_order(
    tutorial_page: Page, dock: Dock, timeline: Timeline, words: Words, say: Say,
) -> None:
    copy = words.copy

    start_publish_handoff(dock, say)

    guarantees.handoff_shows_reason_and_steps(timeline, steps=2)
    # The page's own words, in the panel; the dock may number or label them.
    expect(dock.handoff_reason).to_contain_text(copy["handoff.publish_reason"])
    expect(dock.handoff_steps).to_contain_text(
        [copy["handoff.publish_step_code"], copy["handoff.publish_step_submit"]])
    for index, target in enumerate(PUBLISH_STEP_TARGETS):
        expect(dock.handoff_step(index, target=target)).to_be_visible()
    expect(dock.handoff_step(0, current=True)).to_be_visible()


# ---- on the testbed: when a step advances -----------------------------------------------


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
    expect(dock.handoff_step(0, current=True)).to_be_visible()

    testbed.input(HANDOFF_ACTION).click()

    expect(dock.handoff_step(1, current=True)).to_be_visible()
    expect(dock.highlight(f"{HANDOFF_ACTION}__finish")).to_have_count(1)


GUIDED_ACTION = TestbedScripts.FIVE_STEP_ACTION


@pytest.mark.guarantee("handoff-guidance")
def test_handoff_steps_advance_on_each_kind_of_target_and_never_move_back(
    testbed: Testbed, dock: Dock, model: ModelHandle, locale: str,
) -> None:
    testbed.scripts.register_five_step_handoff()
    start_page_handoff(dock, model, locale, action=GUIDED_ACTION)
    by_id = testbed.page.get_by_test_id

    by_id("gap-notes").click()  # it has text already, but the user typed nothing yet
    expect(dock.handoff_step(0, current=True)).to_be_visible()
    by_id("gap-notes").press("End")
    by_id("gap-notes").press_sequentially(" more")
    expect(dock.handoff_step(1, current=True)).to_be_visible()

    by_id("gap-summary").click()  # a click elsewhere
    expect(dock.handoff_step(1, current=True)).to_be_visible()
    by_id("gap-confirm").click()  # its own handler stops the click's propagation
    expect(dock.handoff_step(2, current=True)).to_be_visible()

    by_id("gap-channel").click()
    expect(dock.handoff_step(2, current=True)).to_be_visible()
    by_id("gap-channel").select_option("mail")
    expect(dock.handoff_step(3, current=True)).to_be_visible()

    by_id("gap-summary").click()
    by_id("gap-summary").press_sequentially(" ")  # blank input is not input
    expect(dock.handoff_step(3, current=True)).to_be_visible()
    by_id("gap-summary").press_sequentially("ok")
    expect(dock.handoff_step(4, current=True)).to_be_visible()

    by_id("gap-notes").press_sequentially("!")  # an earlier step's target: the step stays
    expect(dock.handoff_step(4, current=True)).to_be_visible()
    expect(dock.highlight(GUIDED_ACTION)).to_have_count(1)

    by_id("gap-submit").click()  # the last step's own target; the check still says "not done"
    expect(dock.handoff_step(4, current=True)).to_be_visible()
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
    start_page_handoff(dock, model, locale, action=ELEMENT_ACTION)
    element = testbed.page.get_by_test_id("gap-element")

    element.click()
    if editable:
        expect(dock.handoff_step(0, current=True)).to_be_visible()
        element.press_sequentially("done")

    expect(dock.handoff_step(1, current=True)).to_be_visible()
    expect(dock.highlight(ELEMENT_ACTION)).to_have_count(1)


@pytest.mark.guarantee("handoff-guidance")
def test_handoff_step_advances_while_a_later_steps_target_is_not_on_the_page_yet(
    testbed: Testbed, dock: Dock, model: ModelHandle, locale: str,
) -> None:
    testbed.scripts.register_handoff_with_a_late_target()
    start_page_handoff(dock, model, locale, action=TestbedScripts.LATE_TARGET_ACTION)

    testbed.page.get_by_test_id("gap-early-field").press_sequentially("Ada")

    expect(dock.handoff_step(1, current=True)).to_be_visible()


@pytest.mark.guarantee("handoff-guidance")
def test_taken_target_id_is_refused_and_the_step_highlights_the_first_element(
    testbed: Testbed, dock: Dock, model: ModelHandle, locale: str,
) -> None:
    refusal = testbed.scripts.register_handoff_on_a_taken_target_id()
    model.when_user(GO_AHEAD_PATTERN, COUNTED_ACTION, {})

    dock.ask(GO_AHEAD[locale])

    expect(dock.highlight("place")).to_have_count(1)
    expect(dock.highlighted.and_(testbed.page.get_by_test_id("gap-first-place"))).to_have_count(1)
    assert refusal is not None, "a second element took a target id already in use"

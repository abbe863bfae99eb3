"""Handoff guidance (SPEC §4) on r-15: the reason and the ordered steps in the page's own words,
and each highlight covering its target however the page moves (scroll, resize, layout). When a
step advances (Next, Back, typing, a click), and the highlights going with Cancel, Done and a
new conversation, are the checks generated from actions.json.

On the testbed, with handoffs registered as a page does (`testbed.scripts`), steps advance on
the kinds of targets the spec names, whatever they are: an input the user clicks (`button`,
`submit`, `reset`, ...) on the click; a textarea, an editable element or a select once it
has non-blank input (not on a click, not on a space); a button on its click even when the
page's own handler stops the click's propagation; a later step's target may not be rendered
yet; acting on an earlier step's target never moves back; and a target id already taken is
refused, the step highlighting the first element.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from playwright.sync_api import FloatRect, Locator, Page, ViewportSize, expect
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

if TYPE_CHECKING:  # the checks' conftest.py; pytest imports it, tests only name its types
    from conftest import Workspace

PUBLISH = "publish_changes"
CODE_TARGET = "verification_code"
# The handoff's two steps, in order: the targets they point at.
PUBLISH_STEP_TARGETS = (CODE_TARGET, PUBLISH)
# Small enough that the code field (and the Publish button next to it) starts below the fold.
SMALL_VIEWPORT: ViewportSize = {"width": 900, "height": 500}
# Far enough to move the highlighted target visibly, little enough to keep it in view.
SCROLL_BY_PX = 120
# Two window widths at which the page keeps its two-column layout (it stacks at 1100 px and
# stops growing at 1380 px): the flexible code field changes size, and the Publish button
# beside it moves without changing size, so only the window's resize can tell its overlay.
WIDE_VIEWPORT: ViewportSize = {"width": 1280, "height": 720}
NARROWER_VIEWPORT: ViewportSize = {"width": 1180, "height": 720}
# Height of the content the layout checks add above the targets, and how much it then grows.
INSERTED_PX = 48
GROWN_PX = 96

# Scrolls the page like a user would and resolves once the page has handled the scroll
# event (the overlay repositions on it); returns how far the page really moved.
SCROLL_AND_SETTLE = """async (dy) => {
  const before = window.scrollY;
  const handled = new Promise((resolve) =>
    window.addEventListener("scroll", resolve, { once: true }));
  window.scrollBy({ top: dy, behavior: "instant" });
  if (window.scrollY === before) return 0;
  await handled;
  return window.scrollY - before;
}"""
# The window's next resize event, listened for after the page's own listeners, so once the
# promise resolves the page has handled the resize. Wrapped in an object: evaluate_handle
# would otherwise wait for the promise itself.
NEXT_RESIZE = """() => ({ handled: new Promise((resolve) =>
  window.addEventListener("resize", resolve, { once: true })) })"""
# Content above the targets, as a late banner would add it: inserted at the top of the page's
# main column (or grown, if already there); resolves after the page's mutation observers ran.
# Returns how far the page scrolled meanwhile, which must be 0 (else scrolling did the work).
# Scroll anchoring is turned off for the document: a page that scrolled its target into view
# (not at the top) would otherwise be scrolled by the browser to keep the target still, and
# the check would see no layout change at all.
GROW_CONTENT_ABOVE = """async (height) => {
  document.scrollingElement.style.overflowAnchor = "none";
  const scrolledFrom = window.scrollY;
  let block = document.querySelector("[data-harness-inserted]");
  if (!block) {
    block = document.createElement("div");
    block.setAttribute("data-harness-inserted", "");
    block.textContent = "banner";
    document.querySelector("main").prepend(block);
  }
  block.style.height = `${height}px`;
  await new Promise((resolve) => queueMicrotask(resolve));
  return window.scrollY - scrolledFrom;
}"""


def start_publish_handoff(dock: Dock, say: Say) -> None:
    dock.ask(say("publish"))
    expect(dock.handoff_for(PUBLISH)).to_be_visible()


def box_of(dock: Dock, target: str) -> FloatRect:
    box = dock.target(target).bounding_box()
    assert box is not None, f"{target} has no box"
    return box


def moved(before: FloatRect, after: FloatRect) -> float:
    return max(abs(before["x"] - after["x"]), abs(before["y"] - after["y"]))


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


# ---- highlights follow their targets ---------------------------------------------------


@pytest.mark.guarantee("handoff-guidance")
def test_highlight_brings_off_screen_targets_into_view(
    tutorial_page: Page, dock: Dock, timeline: Timeline, workspace: Workspace, say: Say,
) -> None:
    tutorial_page.set_viewport_size(SMALL_VIEWPORT)
    expect(workspace.code_field).not_to_be_in_viewport()  # else this check could not fail

    start_publish_handoff(dock, say)
    guarantees.highlight_covers_target(timeline, target=CODE_TARGET)

    tutorial_page.evaluate("() => window.scrollTo({ top: 0, behavior: 'instant' })")
    expect(workspace.publish_button).not_to_be_in_viewport()
    dock.handoff_next()
    guarantees.highlight_covers_target(timeline, target=PUBLISH)


@pytest.mark.guarantee("handoff-guidance")
def test_highlight_follows_its_target_when_the_page_scrolls(
    tutorial_page: Page, dock: Dock, timeline: Timeline, say: Say,
) -> None:
    tutorial_page.set_viewport_size(SMALL_VIEWPORT)
    start_publish_handoff(dock, say)
    guarantees.highlight_covers_target(timeline, target=CODE_TARGET)

    for step, target in enumerate(PUBLISH_STEP_TARGETS):
        if step:
            dock.handoff_next()
        for delta in (SCROLL_BY_PX, -SCROLL_BY_PX):
            scrolled = tutorial_page.evaluate(SCROLL_AND_SETTLE, delta)
            assert abs(scrolled) >= SCROLL_BY_PX / 2, f"the page scrolled only {scrolled}px"
            guarantees.highlight_covers_target(timeline, target=target)


@pytest.mark.guarantee("handoff-guidance")
def test_highlight_follows_its_target_when_the_window_is_resized(
    tutorial_page: Page, dock: Dock, timeline: Timeline, say: Say,
) -> None:
    tutorial_page.set_viewport_size(WIDE_VIEWPORT)
    start_publish_handoff(dock, say)

    for step, target in enumerate(PUBLISH_STEP_TARGETS):
        if step:
            dock.handoff_next()
        guarantees.highlight_covers_target(timeline, target=target)
        for size in (NARROWER_VIEWPORT, WIDE_VIEWPORT):
            before = box_of(dock, target)
            resized = tutorial_page.evaluate_handle(NEXT_RESIZE)
            tutorial_page.set_viewport_size(size)
            tutorial_page.evaluate("resize => resize.handled", resized)
            assert moved(before, box_of(dock, target)) >= 10, (
                f"resizing to {size} did not move {target}; this check needs it to")
            guarantees.highlight_covers_target(timeline, target=target)


@pytest.mark.guarantee("handoff-guidance")
def test_highlight_follows_its_target_when_content_above_it_grows(
    tutorial_page: Page, dock: Dock, timeline: Timeline, say: Say,
) -> None:
    start_publish_handoff(dock, say)

    for step, (target, height) in enumerate(zip(PUBLISH_STEP_TARGETS, (INSERTED_PX, GROWN_PX),
                                                strict=True)):
        if step:
            dock.handoff_next()
        guarantees.highlight_covers_target(timeline, target=target)
        before = box_of(dock, target)
        scrolled = tutorial_page.evaluate(GROW_CONTENT_ABOVE, height)
        after = box_of(dock, target)
        # The target moved down with the content, and not because the page scrolled.
        assert after["y"] - before["y"] >= INSERTED_PX / 2, (before, after)
        assert scrolled == 0, f"the page scrolled {scrolled}px; this check needs it still"
        guarantees.highlight_covers_target(timeline, target=target)


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

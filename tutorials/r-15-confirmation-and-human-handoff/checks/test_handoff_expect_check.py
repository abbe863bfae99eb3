"""`expect.check()` is re-run when the page changes (an attribute, a text, a child), and not for
the runtime's own DOM changes (the countdown, the highlight moving, the panel), as
docs/page-contract.md says of `data-pling-ui`. The check registers its handoff with `tool()`
and `target()`, as a page does (`testbed.scripts`), with an `expect.check()` that counts its
calls.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Locator, expect
from testbed_actions import GO_AHEAD, GO_AHEAD_PATTERN

from pling_harness import (
    Dock,
    ModelHandle,
    Testbed,
    TestbedScripts,
    time_left,
)

COUNTED_ACTION = TestbedScripts.COUNTERSIGN_ACTION
# What the page changes on its note (a JS function of the `gap-note` paragraph).
PAGE_CHANGES = [
    pytest.param("note => note.setAttribute('data-state', 'signed')", id="attribute"),
    pytest.param("note => { note.firstChild.data = 'signed'; }", id="text"),
    pytest.param("note => note.append(document.createElement('span'))", id="child"),
    # The text node leaves the document: a change whose only node has no parent any more.
    pytest.param("note => note.firstChild.remove()", id="text-removed"),
    # In the same moment the runtime redraws its own panel (the step moves on): `next` is
    # the panel's Next button.
    pytest.param("(note, next) => { note.setAttribute('data-state', 'signed'); next.click(); }",
                 id="beside-the-runtimes-own"),
]


def start_page_handoff(dock: Dock, model: ModelHandle, locale: str, *, action: str) -> Locator:
    """Let the model start the handoff `action` the page registered, and wait until its panel
    shows the first step; the current step's locator."""
    model.when_user(GO_AHEAD_PATTERN, action, {})
    dock.ask(GO_AHEAD[locale])
    expect(dock.handoff_for(action)).to_be_visible()
    expect(dock.handoff_step(0, current=True)).to_be_visible()
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
    expect(dock.handoff_step(1, current=True)).to_be_visible()
    dock.handoff_back()
    expect(dock.handoff_step(0, current=True)).to_be_visible()

    assert testbed.scripts.check_calls() == before, (
        "expect.check() was re-run for changes the runtime made itself")


@pytest.mark.guarantee("expect-check-follows-page-changes")
@pytest.mark.parametrize("change", PAGE_CHANGES)
def test_handoff_check_is_rerun_when_the_page_changes(
    testbed: Testbed, dock: Dock, model: ModelHandle, locale: str, change: str,
) -> None:
    before = start_counted_handoff(testbed, dock, model, locale)

    testbed.scripts.change_note(change, dock.handoff_next_button.element_handle())

    assert testbed.scripts.check_calls() > before, (
        "expect.check() was not re-run after the page changed")

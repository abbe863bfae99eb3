"""Generated checks that each step's highlight covers its target however the page moves, over
every target of the row's `handoff.steps`: brought into view from off-screen, and followed
when the document scrolls, the window is resized and content above the target is added and
grows. Each move is derived from the page's own layout, not from sizes of one page, and each
is measured to have happened (the target was off-screen, it moved) before the highlight is
held to it. Where the page cannot be moved that way (a target at the very top, a document
too short to scroll, a target no width moves) the check is n/a naming the step and why,
never a pass."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import Locator, Page, ViewportSize, expect

from pling_harness.evidence import guarantees
from pling_harness.plugin.declared import page_moves as moves
from pling_harness.plugin.declared.context import SHOWN_TIMEOUT_MS, DeclaredRun
from pling_harness.plugin.report import not_applicable

# The smallest window the checks make: the dock must still take a request and show its
# panel in it.
MIN_HEIGHT_PX = 320
MIN_WIDTH_PX = 480
# How far a scroll moves the page, at most: visibly, and a centred target stays in view.
SCROLL_BY_PX = 120
# Less than this is no move: the highlight's own tolerance is 1 px.
MIN_MOVE_PX = 8.0
# Widths tried from the window's own, narrower first, until one moves the target.
WIDTH_STEP_PX = 100
WIDER_TRIES = 3
# The content added above a target, at most; it then grows to twice that.
INSERTED_PX = 48


class Unmovable(Exception):
    """The page cannot be moved the way a check needs at this step; the message says why."""


def _targets(run: DeclaredRun) -> list[str]:
    assert run.row.handoff is not None
    return [step.target for step in run.row.handoff.steps]


def _through_steps(run: DeclaredRun, page: Page, *,
                   before_shown: Callable[[Page, Locator], None] | None = None,
                   once_shown: Callable[[DeclaredRun, str, Locator], None] | None = None,
                   ) -> None:
    """Start the handoff and go through its steps with Next: before each step is shown,
    `before_shown` moves the page; once its highlight covers its target, `once_shown` does.
    Steps the page cannot be moved at make the check n/a once every step is held."""
    unmovable: list[str] = []
    for index, target in enumerate(_targets(run)):
        element = run.dock.target(target)
        where = f"step {index + 1} ({target})"
        if before_shown is not None:
            try:
                before_shown(page, element)
            except Unmovable as why:
                unmovable.append(f"{where}: {why}")
        if index == 0:
            run.ask()
            expect(run.dock.handoff_for(run.action)).to_be_visible()
        else:
            run.dock.handoff_next()
        guarantees.highlight_covers_target(run.timeline, target=target)
        if once_shown is not None:
            try:
                once_shown(run, target, element)
            except Unmovable as why:
                unmovable.append(f"{where}: {why}")
    if unmovable:
        pytest.skip(not_applicable("page", "; ".join(unmovable)))


def highlight_brings_target_into_view(run: DeclaredRun) -> None:
    """Each step's target off-screen before its step is shown (the window's height chosen
    from the target's place if scrolling alone cannot hide it): its highlight brings it into
    view and covers it."""
    _through_steps(run, run.open(), before_shown=_off_screen)


def _off_screen(page: Page, element: Locator) -> None:
    if element.count() == 0:  # a later step's target may come only with its step
        raise Unmovable("it is not on the page before its step is shown")
    layout = moves.layout_of(element)
    below_the_fold = layout.top >= layout.window
    above = layout.document - layout.window >= layout.bottom
    if not below_the_fold and not above:
        # The tallest window with the target below the fold, or above once scrolled down.
        height = int(max(layout.top, layout.content - layout.bottom)) - 1
        if height < MIN_HEIGHT_PX:
            raise Unmovable(f"its top is {layout.top:.0f} px down a document of "
                            f"{layout.content:.0f} px: no window {MIN_HEIGHT_PX} px or taller "
                            f"leaves it off-screen")
        size = page.viewport_size
        assert size is not None
        moves.resize_to(page, {"width": size["width"], "height": height})
        below_the_fold = layout.top >= height
    moves.scroll_to(page, "top" if below_the_fold else "bottom")
    try:  # measured, else the check could not fail
        expect(element).not_to_be_in_viewport(timeout=SHOWN_TIMEOUT_MS)
    except AssertionError:
        raise Unmovable(f"scrolled to the document's {'top' if below_the_fold else 'bottom'} "
                        f"in a window of {page.viewport_size}, it is still in view") from None


def highlight_follows_scroll(run: DeclaredRun) -> None:
    """At each step the document scrolls down and back up (the window made short enough to
    scroll, if need be); the target moves with it and its highlight covers it each time."""
    page = run.open()
    first = run.dock.target(_targets(run)[0])
    layout = moves.layout_of(first)
    if layout.document - layout.window < 2 * SCROLL_BY_PX:
        size = page.viewport_size
        assert size is not None
        height = max(MIN_HEIGHT_PX, int(layout.content) - 2 * SCROLL_BY_PX)
        moves.resize_to(page, {"width": size["width"], "height": min(height, size["height"])})
    _through_steps(run, page, once_shown=_scroll_both_ways)


def _scroll_both_ways(run: DeclaredRun, target: str, element: Locator) -> None:
    page = element.page
    scrolled_any = False
    for down in (True, False):
        before = moves.box_of(element)
        # At most half the way out of view, so the target stays in it.
        room = before["y"] + before["height"] if down else \
            moves.layout_of(element).window - before["y"]
        distance = min(SCROLL_BY_PX, room / 2)
        scrolled = moves.scroll_by(page, distance if down else -distance)
        if abs(scrolled) < MIN_MOVE_PX:
            continue  # the document's end: the other way must scroll
        after = moves.box_of(element)
        if abs(abs(before["y"] - after["y"]) - abs(scrolled)) > 1:
            continue  # a fixed or sticky target does not move with the document
        scrolled_any = True
        guarantees.highlight_covers_target(run.timeline, target=target)
    if not scrolled_any:
        layout = moves.layout_of(element)
        raise Unmovable(f"the document ({layout.document:.0f} px in a window of "
                        f"{layout.window:.0f} px) scrolls less than {MIN_MOVE_PX:.0f} px "
                        "either way, or the target does not move with it")


def highlight_follows_resize(run: DeclaredRun) -> None:
    """At each step the window narrows (or widens) until the target's box changes, the
    target still in view, then goes back: the highlight covers it at every width."""
    _through_steps(run, run.open(), once_shown=_resize_until_it_moves)


def _resize_until_it_moves(run: DeclaredRun, target: str, element: Locator) -> None:
    page = element.page
    home = page.viewport_size
    assert home is not None
    start = moves.box_of(element)
    narrower = range(home["width"] - WIDTH_STEP_PX, MIN_WIDTH_PX - 1, -WIDTH_STEP_PX)
    wider = [home["width"] + WIDTH_STEP_PX * n for n in range(1, WIDER_TRIES + 1)]
    moved_at: ViewportSize | None = None
    for width in [*narrower, *wider]:
        size: ViewportSize = {"width": width, "height": home["height"]}
        moves.resize_to(page, size)
        if not moves.in_view(element):
            continue  # the layout pushed it out of view; the highlight need not show it
        guarantees.highlight_covers_target(run.timeline, target=target)
        if moves.box_change(start, moves.box_of(element)) >= MIN_MOVE_PX:
            moved_at = size
            break
    moves.resize_to(page, home)
    if moved_at is None:
        raise Unmovable(f"no window width from {MIN_WIDTH_PX} to {wider[-1]} px changes its "
                        "box while it stays in view")
    guarantees.highlight_covers_target(run.timeline, target=target)


def highlight_follows_layout(run: DeclaredRun) -> None:
    """At each step content is added above the target, before its own layout ancestor, and
    then grows; the target moves down with it (the document not scrolled) and its highlight
    covers it each time."""
    _through_steps(run, run.open(), once_shown=_content_above_grows)


def _content_above_grows(run: DeclaredRun, target: str, element: Locator) -> None:
    page = element.page
    box = moves.box_of(element)
    height = min(INSERTED_PX, (moves.layout_of(element).window - box["y"]) / 4)
    if height < MIN_MOVE_PX:
        raise Unmovable(f"it sits {box['y']:.0f} px down a window of "
                        f"{page.viewport_size}: no room to push it down in view")
    inserted = moves.insert_above(element, height)
    if inserted is None:
        raise Unmovable("no block added before it or its ancestors moves it down")
    for shift in (inserted, moves.grow_inserted(element, 2 * height)):
        if shift.moved < height / 2 or shift.scrolled != 0:
            raise Unmovable(f"content added above it moved it {shift.moved:.0f} px and the "
                            f"document scrolled {shift.scrolled:.0f} px")
        guarantees.highlight_covers_target(run.timeline, target=target)

"""Moving a page the way a user or the page itself does (scroll, window resize, content added
above an element), each returning once the page has handled it, and measuring what moved:
the highlight checks (highlight_checks.py) derive every move from the page's own layout and
count a move only once it is measured to have happened."""

from __future__ import annotations

from dataclasses import dataclass

from playwright.sync_api import FloatRect, Locator, Page, ViewportSize

# Scrolls the document like a user would and resolves once the page has handled the scroll
# event (a highlight repositions on it); returns how far the document really moved.
SCROLL_AND_SETTLE = """async (dy) => {
  const before = window.scrollY;
  const handled = new Promise((resolve) =>
    window.addEventListener("scroll", resolve, { once: true }));
  window.scrollBy({ top: dy, behavior: "instant" });
  if (window.scrollY === before) return 0;
  await handled;
  return window.scrollY - before;
}"""
# The document scrolled to its top ("top") or its bottom ("bottom"); resolves once handled.
SCROLL_TO_END = """async (end) => {
  const before = window.scrollY;
  const handled = new Promise((resolve) =>
    window.addEventListener("scroll", resolve, { once: true }));
  const top = end === "top" ? 0 : document.scrollingElement.scrollHeight;
  window.scrollTo({ top, behavior: "instant" });
  if (window.scrollY !== before) await handled;
}"""
# The window's next resize event, listened for after the page's own listeners, so once the
# promise resolves the page has handled the resize. Wrapped in an object: evaluate_handle
# would otherwise wait for the promise itself.
NEXT_RESIZE = """() => ({ handled: new Promise((resolve) =>
  window.addEventListener("resize", resolve, { once: true })) })"""
# Where the element is in the document, how tall the document (at least the window) and its
# content (whatever the window) are, and the window's height.
LAYOUT = """(element) => {
  const box = element.getBoundingClientRect();
  const content = Math.max(document.documentElement.getBoundingClientRect().height,
                           document.body.getBoundingClientRect().bottom + window.scrollY);
  return { top: box.top + window.scrollY, bottom: box.bottom + window.scrollY,
           document: document.scrollingElement.scrollHeight, content,
           window: window.innerHeight };
}"""
# Whether any of the element's box is inside the window (as Playwright's in-viewport, without
# waiting for it).
IN_VIEW = """(element) => {
  const box = element.getBoundingClientRect();
  return box.bottom > 0 && box.right > 0 && box.top < window.innerHeight
    && box.left < window.innerWidth;
}"""
# A block of `height` px, as a late banner would be, before the nearest of the element's
# layout ancestors (the element itself first) where it pushes the element down by at least
# half its height; with scroll anchoring off, so the browser does not scroll to keep the
# element still. Resolves after the page's mutation observers ran; returns how far the
# element moved down and the document scrolled meanwhile, or null where no ancestor's
# block moves it (a fixed or absolutely placed element).
INSERT_ABOVE = """async (element, height) => {
  document.scrollingElement.style.overflowAnchor = "none";
  const scrolledFrom = window.scrollY;
  const top = () => element.getBoundingClientRect().top;
  const before = top();
  const block = document.createElement("div");
  block.setAttribute("data-harness-inserted", "");
  block.textContent = "banner";
  block.style.height = `${height}px`;
  for (let at = element; at && at !== document.body; at = at.parentElement) {
    at.before(block);
    if (top() - before >= height / 2) break;
    block.remove();
  }
  if (!block.isConnected) return null;
  await new Promise((resolve) => queueMicrotask(resolve));
  return { moved: top() - before, scrolled: window.scrollY - scrolledFrom };
}"""
# The last inserted block grown to `height` px; as INSERT_ABOVE, the element's move and the scroll.
GROW_INSERTED = """async (element, height) => {
  const scrolledFrom = window.scrollY;
  const before = element.getBoundingClientRect().top;
  const blocks = document.querySelectorAll("[data-harness-inserted]");
  blocks[blocks.length - 1].style.height = `${height}px`;
  const moved = element.getBoundingClientRect().top - before;
  await new Promise((resolve) => queueMicrotask(resolve));
  return { moved, scrolled: window.scrollY - scrolledFrom };
}"""


@dataclass(frozen=True)
class Layout:
    """An element's top and bottom in the document, the document's height (at least the
    window's), its content's and the window's (px)."""

    top: float
    bottom: float
    document: float
    content: float
    window: float


@dataclass(frozen=True)
class Shift:
    """What a change of the page's content did: how far the element moved down, and how far
    the document scrolled meanwhile."""

    moved: float
    scrolled: float


def box_of(element: Locator) -> FloatRect:
    box = element.bounding_box()
    assert box is not None, f"{element} has no box"
    return box


def box_change(before: FloatRect, after: FloatRect) -> float:
    """How far the box moved or changed size, along its most changed side (px)."""
    return max(abs(before["x"] - after["x"]), abs(before["y"] - after["y"]),
               abs(before["width"] - after["width"]), abs(before["height"] - after["height"]))


def layout_of(element: Locator) -> Layout:
    measured = element.evaluate(LAYOUT)
    return Layout(top=float(measured["top"]), bottom=float(measured["bottom"]),
                  document=float(measured["document"]), content=float(measured["content"]),
                  window=float(measured["window"]))


def in_view(element: Locator) -> bool:
    return bool(element.evaluate(IN_VIEW))


def scroll_by(page: Page, dy: float) -> float:
    """Scroll the document by `dy` px; how far it really scrolled."""
    return float(page.evaluate(SCROLL_AND_SETTLE, dy))


def scroll_to(page: Page, end: str) -> None:
    """Scroll the document to its "top" or its "bottom"."""
    page.evaluate(SCROLL_TO_END, end)


def resize_to(page: Page, size: ViewportSize) -> None:
    """Resize the window to `size`, returning once the page has handled the resize."""
    if page.viewport_size == size:
        return
    resized = page.evaluate_handle(NEXT_RESIZE)
    page.set_viewport_size(size)
    page.evaluate("resize => resize.handled", resized)


def insert_above(element: Locator, height: float) -> Shift | None:
    """A block of `height` px before the element's nearest layout ancestor that it pushes
    down (INSERT_ABOVE); None where none does."""
    shift = element.evaluate(INSERT_ABOVE, height)
    return None if shift is None else Shift(float(shift["moved"]), float(shift["scrolled"]))


def grow_inserted(element: Locator, height: float) -> Shift:
    shift = element.evaluate(GROW_INSERTED, height)
    return Shift(float(shift["moved"]), float(shift["scrolled"]))

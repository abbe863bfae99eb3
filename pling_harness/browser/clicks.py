"""user_click: the user's real click on a control the page shows, without Playwright's
two-frame wait when the control is ready now.

Playwright's `click` waits until the element is visible, enabled, *stable* (the same box on
two animation frames in a row: about 33 ms at 60 frames a second, paid on every click even
when nothing moves) and the target of the pointer at its centre; then it sends the mouse
events. The harness clicks the dock's and the testbed's controls right after a wait that saw
them on screen, two or three times a check, so that stability wait was about a tenth of a
check (issue 12).

`user_click` looks once, in the page: the locator matches one element, it is visible,
enabled, inside the viewport, neither it nor an ancestor is animating, no ancestor that
scrolls is short of its end (a chat that scrolls itself to its newest message by script, as
CopilotKit's does, moves the control between the look and the click; no Web Animation shows
it), and the topmost element at its centre is the element or inside it. Then it sends the
same real mouse events at once (`force=True` skips only Playwright's waits; the browser
still hit-tests the events). A page with locator handlers (`has_locator_handlers`), or any
other control, takes Playwright's whole click, which waits and explains. If the page changes
between the look and the click, the events reach whatever is there then, as a user's would:
the check's next wait fails; nothing can pass that a full click would have failed.
"""

from __future__ import annotations

from playwright.sync_api import Locator, Page

from pling_harness.browser.visibility import VISIBLE_FUNCTION

READY_NOW_SCRIPT = "elements => {" + VISIBLE_FUNCTION + """
  if (elements.length !== 1 || !visible(elements[0])) return false;
  const element = elements[0];
  if (element.matches(":disabled") || element.closest("[aria-disabled='true']")) return false;
  const box = element.getBoundingClientRect();
  const x = box.left + box.width / 2;
  const y = box.top + box.height / 2;
  if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) return false;
  const moving = document.getAnimations().some(animation =>
    animation.playState === "running" && animation.effect?.target instanceof Node &&
    animation.effect.target.contains(element));
  if (moving) return false;
  for (let box = element.parentElement; box !== null; box = box.parentElement) {
    const scrolls = box.scrollHeight > box.clientHeight + 1
      && /(auto|scroll)/.test(getComputedStyle(box).overflowY);
    if (scrolls && box.scrollTop + box.clientHeight < box.scrollHeight - 1) return false;
  }
  const root = element.getRootNode();
  const top = (root.elementFromPoint ? root : document).elementFromPoint(x, y);
  return top !== null && (top === element || element.contains(top));
}"""


def user_click(control: Locator, *, timeout: float | None = None) -> None:
    """Click `control` as the user: at once when it is ready now (module docstring), else
    with Playwright's full click (waits up to `timeout` ms, Playwright's default if None)."""
    # evaluate_all: one look, no waiting (none or several matches take the full click).
    if not has_locator_handlers(control.page) and control.evaluate_all(READY_NOW_SCRIPT):
        control.click(force=True, timeout=timeout)
    else:
        control.click(timeout=timeout)


def has_locator_handlers(page: Page) -> bool:
    """Whether `page` has handlers from `Page.add_locator_handler` (the report's gallery, or
    a check's own). Playwright runs them only inside its actionability checks, which a forced
    click skips, so a page with any gets full clicks. Playwright offers no public way to ask;
    this reads its page object's table, and should that ever move, every click is a full one."""
    handlers = getattr(getattr(page, "_impl_obj", None), "_locator_handlers", None)
    return not isinstance(handlers, dict) or bool(handlers)

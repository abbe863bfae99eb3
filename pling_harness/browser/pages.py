"""Open a tutorial page (or the testbed) with a controlled clock and wait until it is ready.

The clock is installed before navigation at a fixed instant, so every run sees the same
dates; once the page is ready it is paused one hour later, after which the page's time
moves only when a test calls `page.clock.fast_forward(...)` (handoff timeouts).

"Ready" means the page says so: its markup declares `<html data-pling-ready="false">` and
it sets the attribute to "true" once rendered. A page without that attribute is ready once
it has loaded, the assistant is visible (its dock driver's `dock.root`, registered with
`expect_dock`; the page contract's by default) and, on the tutorial page, the tutorial's own ready
condition holds (`page.ready` in its tutorial.json, e.g. an `order-status` region has
rendered the server's state, its `data-state` is set; registered for a page with
`expect_ready`), or on the testbed, its `testbed` element says `data-ready="true"`.
"""

from __future__ import annotations

import datetime as dt
import weakref
from collections.abc import Callable

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from pling_harness.browser.visibility import VISIBLE_FUNCTION
from pling_harness.project.contract import ReadyCondition
from pling_harness.project.dock_driver import default_driver

# A fixed, unremarkable instant: Monday 6 January 2025, 09:00 UTC.
CLOCK_START = dt.datetime(2025, 1, 6, 9, 0, tzinfo=dt.UTC)
# Where the paused clock stands once the page is ready.
CLOCK_PAUSED_AT = CLOCK_START + dt.timedelta(hours=1)
# Loading the page and the runtime from a local server; generous for a busy 2-core machine.
READY_TIMEOUT_MS = 15_000
TESTBED_TESTID = "testbed"
# The page contract's ready signal: a page whose `<html>` carries this attribute in its markup
# sets it to READY_VALUE once ready; a page without it is waited on the older way.
READY_ATTRIBUTE = "data-pling-ready"
READY_VALUE = "true"
# Whether the page is ready: its signal when its markup declares one; else, once loaded, the
# dock visible, the tutorial's ready condition (if its element is there) and the testbed's
# data-ready (if it is the testbed). `visible` as Playwright means it
# (pling_harness.browser.visibility).
_READY_CHECKS = VISIBLE_FUNCTION + """
  const byTestId = (id) => document.querySelector(`[data-testid="${CSS.escape(id)}"]`);
  const declared = document.documentElement?.getAttribute(signal) ?? null;
  // The assistant may live in an open shadow root: look in each tree, the document first.
  const deep = (selector) => {
    const trees = [document];
    for (const tree of trees) {
      const found = tree.querySelector(selector);
      if (found) return found;
      for (const element of tree.querySelectorAll("*")) {
        if (element.shadowRoot) trees.push(element.shadowRoot);
      }
    }
    return null;
  };
  const dock = declared === null ? deep(dockRoot) : null;
  const marked = condition ? byTestId(condition.testid) : null;
  const bed = byTestId(testbed);
  const checks = declared !== null ? {signal: declared === ready} : {
    loaded: document.readyState === "complete",
    dock: dock !== null && visible(dock),
    condition: marked === null || Boolean(marked.getAttribute(condition.attribute)),
    testbed: bed === null || bed.getAttribute("data-ready") === "true",
  };
"""
READY_SCRIPT = ("({signal, ready, testbed, condition, dockRoot}) => {" + _READY_CHECKS
                + "  return Object.values(checks).every(Boolean);\n}")
# For a page that never got ready: which of the checks above failed.
READY_STATE_SCRIPT = ("({signal, ready, testbed, condition, dockRoot}) => {" + _READY_CHECKS
                      + "  const failed = Object.keys(checks).filter((name) => !checks[name]);\n"
                      + "  return (declared !== null ? `<html ${signal}=\"${declared}\">` : "
                      + "`no ${signal} in its markup`) + `; not yet: ${failed.join(', ')}`;\n}")
_READY_LISTENERS: weakref.WeakKeyDictionary[Page, list[Callable[[], object]]] = (
    weakref.WeakKeyDictionary())
_READY_CONDITIONS: weakref.WeakKeyDictionary[Page, ReadyCondition] = weakref.WeakKeyDictionary()
_DOCK_ROOTS: weakref.WeakKeyDictionary[Page, str] = weakref.WeakKeyDictionary()


def expect_ready(page: Page, condition: ReadyCondition | None) -> None:
    """From now on `page` is ready only once `condition` holds too, wherever its element is
    in the markup (the tutorial page; the testbed has no such element)."""
    if condition is None:
        _READY_CONDITIONS.pop(page, None)
    else:
        _READY_CONDITIONS[page] = condition


def expect_dock(page: Page, root: str) -> None:
    """From now on `page`'s assistant is the element `root` (a CSS selector, its dock
    driver's `dock.root`) for a page without the ready signal."""
    _DOCK_ROOTS[page] = root


def forget_page(page: Page) -> None:
    """Drop the ready listeners, condition and dock registered for `page`: a warm page
    (`pling_harness.browser.warm`) starts each test with none."""
    _READY_LISTENERS.pop(page, None)
    _READY_CONDITIONS.pop(page, None)
    _DOCK_ROOTS.pop(page, None)


def when_ready(page: Page, listener: Callable[[], object]) -> None:
    """Call `listener` each time `wait_until_ready` finds `page` ready: after the first load
    and after every reload, whoever reloads (the timeline moves its ready mark this way)."""
    _READY_LISTENERS.setdefault(page, []).append(listener)


def open_page(page: Page, url: str, *, pause_clock: bool = True) -> Page:
    """Install the clock, go to `url`, wait until ready, then pause the clock (unless the
    page's framework needs it running: its driver's `clock`)."""
    page.clock.install(time=CLOCK_START)
    # On a warm page (pling_harness.browser.warm) the context's clock log still ends with the last
    # test's pause; the new document must start with the clock running, as a fresh one does.
    page.clock.resume()
    # No need to wait for the load event: being ready includes it (see `wait_until_ready`).
    page.goto(url, wait_until="commit")
    wait_until_ready(page)
    if pause_clock:
        page.clock.pause_at(CLOCK_PAUSED_AT)
    return page


def reload_page(page: Page) -> Page:
    """Reload (a new dock session, so session grants are gone) and wait until ready.

    A timeline attached to the page moves its ready mark here, so guarantees called without
    `since` do not count the reload's own loading as a side effect.
    """
    page.reload(wait_until="commit")
    wait_until_ready(page)
    return page


def wait_until_ready(page: Page) -> None:
    """Wait until the page is ready (module docstring), then tell the listeners.

    One wait in the page, re-checked on each animation frame (Playwright's own frames: the
    paused clock cannot hold them back): the test starts within a frame of the page being
    ready, where `expect`'s polling from outside backs off to 100 ms and more between looks.
    """
    condition = _READY_CONDITIONS.get(page)
    arg: dict[str, object] = {
        "signal": READY_ATTRIBUTE, "ready": READY_VALUE, "testbed": TESTBED_TESTID,
        "condition": condition.model_dump() if condition is not None else None,
        "dockRoot": _DOCK_ROOTS.get(page, default_driver().dock.root)}
    try:
        page.wait_for_function(READY_SCRIPT, arg=arg, polling="raf", timeout=READY_TIMEOUT_MS)
    except PlaywrightTimeoutError:
        raise AssertionError(
            f"{page.url} was not ready within {READY_TIMEOUT_MS / 1000:g} s: "
            f"{_ready_state(page, arg)}") from None
    for listener in _READY_LISTENERS.get(page, []):
        listener()


def _ready_state(page: Page, arg: dict[str, object]) -> str:
    try:
        return str(page.evaluate(READY_STATE_SCRIPT, arg))
    except PlaywrightError as error:
        return f"(its state could not be read: {error.message.splitlines()[0]})"


def testbed_url(server_url: str, locale: str) -> str:
    return f"{server_url.rstrip('/')}/testbed/?lang={locale}"

"""Open a tutorial page (or the testbed) with a controlled clock and wait until it is ready.

The clock is installed before navigation at a fixed instant, so every run sees the same
dates; once the page is ready it is paused one hour later, after which the page's time
moves only when a test calls `page.clock.fast_forward(...)` (handoff timeouts).

"Ready" means the page says so: its markup declares `<html data-pling-ready="false">` and
it sets the attribute to "true" once rendered. A page without that attribute is ready once
the dock is visible and, on the tutorial page, the tutorial's own ready
condition holds (`page.ready` in its tutorial.json, r-15: the `workspace-status` region has
rendered the server's state, `data-state` is set; registered for a page with
`expect_ready`), or on the testbed, its `testbed` element says `data-ready="true"`.
"""

from __future__ import annotations

import datetime as dt
import re
import weakref
from collections.abc import Callable

from playwright.sync_api import Page, expect

from harness.project.contract import ReadyCondition

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
_ANY_VALUE = re.compile(r".+")
_READY_LISTENERS: weakref.WeakKeyDictionary[Page, list[Callable[[], object]]] = (
    weakref.WeakKeyDictionary())
_READY_CONDITIONS: weakref.WeakKeyDictionary[Page, ReadyCondition] = weakref.WeakKeyDictionary()


def expect_ready(page: Page, condition: ReadyCondition | None) -> None:
    """From now on `page` is ready only once `condition` holds too, wherever its element is
    in the markup (the tutorial page; the testbed has no such element)."""
    if condition is None:
        _READY_CONDITIONS.pop(page, None)
    else:
        _READY_CONDITIONS[page] = condition


def forget_page(page: Page) -> None:
    """Drop the ready listeners and condition registered for `page`: a warm page
    (`harness.browser.warm`) starts each test with none."""
    _READY_LISTENERS.pop(page, None)
    _READY_CONDITIONS.pop(page, None)


def when_ready(page: Page, listener: Callable[[], object]) -> None:
    """Call `listener` each time `wait_until_ready` finds `page` ready: after the first load
    and after every reload, whoever reloads (the timeline moves its ready mark this way)."""
    _READY_LISTENERS.setdefault(page, []).append(listener)


def open_page(page: Page, url: str) -> Page:
    """Install the clock, go to `url`, wait until ready, then pause the clock."""
    page.clock.install(time=CLOCK_START)
    # On a warm page (harness.browser.warm) the context's clock log still ends with the last
    # test's pause; the new document must start with the clock running, as a fresh one does.
    page.clock.resume()
    page.goto(url)
    wait_until_ready(page)
    page.clock.pause_at(CLOCK_PAUSED_AT)
    return page


def reload_page(page: Page) -> Page:
    """Reload (a new dock session, so session grants are gone) and wait until ready.

    A timeline attached to the page moves its ready mark here, so guarantees called without
    `since` do not count the reload's own loading as a side effect.
    """
    page.reload()
    wait_until_ready(page)
    return page


def wait_until_ready(page: Page) -> None:
    """Wait for the page's ready signal (`<html data-pling-ready="true">`) if its markup
    declares one, else for the dock and the ready conditions below; then tell the listeners."""
    root = page.locator(":root")
    # The markup is parsed once `goto` or `reload` returns, so whether it declares the signal
    # is settled: one expect, which passes as soon as the page says so, instead of one poll
    # per condition.
    if root.get_attribute(READY_ATTRIBUTE) is not None:
        expect(root).to_have_attribute(READY_ATTRIBUTE, READY_VALUE, timeout=READY_TIMEOUT_MS)
    else:
        _wait_until_ready_without_signal(page)
    for listener in _READY_LISTENERS.get(page, []):
        listener()


def _wait_until_ready_without_signal(page: Page) -> None:
    expect(page.get_by_test_id("pling-dock")).to_be_visible(timeout=READY_TIMEOUT_MS)
    # The markup is parsed by now, so whether the page has the condition's element is settled.
    condition = _READY_CONDITIONS.get(page)
    if condition is not None:
        marked = page.get_by_test_id(condition.testid)
        if marked.count():
            expect(marked).to_have_attribute(condition.attribute, _ANY_VALUE,
                                             timeout=READY_TIMEOUT_MS)
    testbed = page.get_by_test_id(TESTBED_TESTID)
    if testbed.count():
        expect(testbed).to_have_attribute("data-ready", "true", timeout=READY_TIMEOUT_MS)


def testbed_url(server_url: str, locale: str) -> str:
    return f"{server_url.rstrip('/')}/testbed/?lang={locale}"

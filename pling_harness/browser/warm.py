"""WarmPage: one browser context and page that serve test after test, each test starting as
if in a fresh context (issue 12).

A new context and page cost more than a whole check does (a renderer process, an empty
cache). A page kept warm loads the next test's page from the browser's cache instead, and
`end()` draws the line between two tests:

- **a new document**: the page goes to about:blank, so nothing of the test's page survives
  (the runtime's grants, conversation and handoff, its timers, its pending fetches);
- **empty origins**: cookies, and the local and session storage, IndexedDB, Cache Storage
  and service workers of every origin the test's page visited, are cleared, and so is
  `window.name`. The HTTP cache is kept on purpose: the fixture server lets the browser keep
  only static files (`pling_harness.server.static.CACHE_FOR_A_RUN`; everything else `no-store`);
- **what the test added through Playwright is taken back**: every call that adds to the page
  or its context goes through a ledger, so the boundary disposes init scripts and bindings,
  removes routes, listeners and locator handlers, closes extra pages and restores the
  viewport. A call that cannot be taken back (permissions, geolocation, offline, extra
  headers, media emulation, default timeouts, storage state) retires the page: the next
  test gets a new context and page;
- **a bounded life**: after `MAX_TESTS_PER_PAGE` tests the page retires anyway. Playwright's
  clock keeps each `install` of each test as an init script of the context, so a page that
  served forever would replay an ever longer log at every load.

Requests the test's page left in flight are the server's side of the line: with a seated
fixture server (`pling_harness.server.host`), each carries its test's seat in `SEAT_HEADER`, set
here on the context for the test, and one that arrives after its test reaches nothing.

Chromium only (clearing an origin's storage uses its Storage domain).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import suppress
from typing import Any, Protocol, cast
from urllib.parse import urlsplit

from playwright.sync_api import Browser, BrowserContext, CDPSession, Frame, Locator, Page
from playwright.sync_api import Error as PlaywrightError

from pling_harness.browser.pages import forget_page

# The tests one page serves before it retires: each leaves a few clock init scripts behind,
# which every later document replays (measured: no clear slowdown over 200 tests), and a new
# context starts with an empty cache (about a second's reload under load).
MAX_TESTS_PER_PAGE = 100
BLANK = "about:blank"
# Chromium's Storage.clearDataForOrigin: every kind of storage of an origin (not its cache).
ALL_STORAGE = "all"
CLEAR_WINDOW_NAME = "() => { window.name = ''; }"
# Calls that add to a page or a context, by how the boundary takes them back.
_DISPOSED = ("add_init_script", "expose_binding", "expose_function")
_ROUTES = ("route", "route_from_har", "route_web_socket")
_LISTENERS = ("on", "once")
_PAGE_RETIRES = ("set_extra_http_headers", "emulate_media", "set_default_timeout",
                 "set_default_navigation_timeout")
_CONTEXT_RETIRES = ("grant_permissions", "set_geolocation", "set_offline",
                    "set_extra_http_headers", "set_default_timeout",
                    "set_default_navigation_timeout", "set_storage_state")


def _ignore(_event: object) -> None:
    pass


class _Closable(Protocol):
    def close(self) -> None: ...


class _Ledger:
    """What the current test added to one page and its context through Playwright, and how
    to take it back. Installed once per page, by shadowing public methods on the page and
    context objects; `clear()` starts the next test's record."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.context = page.context
        self.clear()
        self._watch(page, "page", _PAGE_RETIRES)
        self._watch(self.context, "context", _CONTEXT_RETIRES)
        self._wrap(page, "add_locator_handler",
                   lambda args, _result: self.locator_handlers.append(args[0]))
        self._wrap(page, "set_viewport_size", lambda _args, _result: self._viewport())

    def clear(self) -> None:
        self.disposables: list[_Closable] = []
        self.routed: set[str] = set()  # "page" and/or "context"
        self.listeners: list[tuple[Page | BrowserContext, str, Callable[..., Any]]] = []
        self.locator_handlers: list[Locator] = []
        self.viewport_changed = False
        self.retire_because: str | None = None

    def _watch(self, target: Page | BrowserContext, label: str,
               retiring: tuple[str, ...]) -> None:
        def keep(_args: tuple[Any, ...], result: object) -> None:
            if callable(getattr(result, "close", None)):
                self.disposables.append(cast(_Closable, result))

        def routed(_args: tuple[Any, ...], _result: object) -> None:
            self.routed.add(label)

        def listening(args: tuple[Any, ...], _result: object) -> None:
            self.listeners.append((target, args[0], args[1]))

        for name in _DISPOSED:
            self._wrap(target, name, keep)
        for name in _ROUTES:
            self._wrap(target, name, routed)
        for name in _LISTENERS:
            self._wrap(target, name, listening)
        for name in retiring:
            self._wrap(target, name, self._retiring(f"{label}.{name}"))

    def _retiring(self, why: str) -> Callable[[tuple[Any, ...], object], None]:
        def retire(_args: tuple[Any, ...], _result: object) -> None:
            self.retire_because = self.retire_because or why
        return retire

    @staticmethod
    def _wrap(target: object, name: str,
              note: Callable[[tuple[Any, ...], Any], object]) -> None:
        original = getattr(target, name, None)
        if original is None:
            return  # not in this Playwright release, so no test can call it

        def recorded(*args: Any, **kwargs: Any) -> Any:
            result = original(*args, **kwargs)
            note(args, result)
            return result

        setattr(target, name, recorded)

    def _viewport(self) -> None:
        self.viewport_changed = True


class WarmPage:
    """A context and page of `browser`, created with `context_args`, reused test after test.

    ``page = warm.begin(headers=server.browser_headers)`` before a test, ``warm.end()``
    after it (always, also when it failed), ``warm.close()`` at the end of the run.
    """

    def __init__(self, browser: Browser, context_args: Mapping[str, Any]) -> None:
        self.browser = browser
        self.context_args = dict(context_args)
        self.tests_served = 0
        self.pages_made = 0
        self.retired_because: list[str] = []
        self._context: BrowserContext | None = None
        self._page: Page | None = None
        self._cdp: CDPSession | None = None
        self._ledger: _Ledger | None = None
        self._origins: set[str] = set()
        self._headers: dict[str, str] = {}
        self._viewport: Any = None
        self._in_test = False

    @property
    def page(self) -> Page | None:
        """The page serving the current test (None between tests and before the first)."""
        return self._page if self._in_test else None

    def begin(self, *, headers: Mapping[str, str] | None = None) -> Page:
        """The page for the next test, with `headers` sent on each of its requests."""
        if self._in_test:
            raise RuntimeError("the warm page is already serving a test; call end() first")
        page = self._page if self._page is not None else self._make_page()
        wanted = dict(headers or {})
        if wanted != self._headers:
            assert self._context is not None
            # The context's own method: the ledger would count this as the test's doing.
            type(self._context).set_extra_http_headers(self._context, wanted)
            self._headers = wanted
        self._in_test = True
        return page

    def end(self) -> None:
        """The boundary after a test: see the module docstring. Does nothing between tests."""
        if not self._in_test:
            return
        self._in_test = False
        page, ledger = self._page, self._ledger
        if page is None or ledger is None:
            return
        self.tests_served += 1
        why = ledger.retire_because
        if why is None and page.is_closed():
            why = "the test closed its page"
        if why is None and self.tests_served % MAX_TESTS_PER_PAGE == 0:
            why = f"{MAX_TESTS_PER_PAGE} tests served"
        if why is None:
            try:
                self._cross_the_line(page, ledger)
            except PlaywrightError as error:
                why = f"the boundary failed: {error.message.splitlines()[0]}"
        forget_page(page)
        if why is not None:
            self.retired_because.append(why)
            self._retire()

    def close(self) -> None:
        self._retire()

    # ---- the boundary ---------------------------------------------------------------------

    def _cross_the_line(self, page: Page, ledger: _Ledger) -> None:
        context = page.context
        page.goto(BLANK)
        for disposable in reversed(ledger.disposables):
            disposable.close()
        if "page" in ledger.routed:
            page.unroute_all(behavior="ignoreErrors")
        if "context" in ledger.routed:
            context.unroute_all(behavior="ignoreErrors")
        for target, event, handler in ledger.listeners:
            with suppress(KeyError):  # a `once` listener that was called is gone already
                target.remove_listener(event, handler)
        for locator in ledger.locator_handlers:
            page.remove_locator_handler(locator)
        for other in context.pages:
            if other is not page:
                other.close()
        if ledger.viewport_changed and self._viewport is not None:
            type(page).set_viewport_size(page, self._viewport)
        ledger.clear()
        context.clear_cookies()
        for origin in sorted(self._origins):
            self._storage().send("Storage.clearDataForOrigin",
                                 {"origin": origin, "storageTypes": ALL_STORAGE})
        self._origins.clear()
        page.evaluate(CLEAR_WINDOW_NAME)

    def _storage(self) -> CDPSession:
        if self._cdp is None:
            assert self._context is not None and self._page is not None
            self._cdp = self._context.new_cdp_session(self._page)
        return self._cdp

    def _make_page(self) -> Page:
        context = self.browser.new_context(**self.context_args)
        page = context.new_page()
        page.on("framenavigated", self._visited)
        # Listened to for good, so a test's own listeners (the timeline's) come and go without
        # Playwright subscribing to and unsubscribing from these events every test.
        page.on("request", _ignore)
        page.on("response", _ignore)
        page.on("requestfailed", _ignore)
        self._context, self._page, self._cdp = context, page, None
        self._viewport = page.viewport_size
        self._headers = {}
        self._ledger = _Ledger(page)
        self.pages_made += 1
        return page

    def _visited(self, frame: Frame) -> None:
        parts = urlsplit(frame.url)
        if parts.scheme in ("http", "https"):
            self._origins.add(f"{parts.scheme}://{parts.netloc}")

    def _retire(self) -> None:
        context = self._context
        self._context = self._page = self._cdp = None
        self._ledger = None
        self._origins.clear()
        if context is not None:
            with suppress(PlaywrightError):  # the browser is gone already
                context.close()


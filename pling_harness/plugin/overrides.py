"""Overrides of pytest-playwright fixtures; the pling plugin registers this module last.

pytest picks among same-named fixtures of (non-conftest) plugins by registration order,
and the order of entry points is not reliable, so the plugin registers this module from
`pytest_configure` (pling_harness/plugin/configure.py), after every entry point is loaded. That
makes the fixtures below override pytest-playwright's, and lets each one request the
original (same name) to keep what pytest-playwright derived from its flags.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, BrowserType, Page

from pling_harness.browser.chromium import (
    NO_CHROMIUM_HELP,
    QUIET_NETWORK_ARGS,
    ChromiumChoice,
    ChromiumNotFound,
)
from pling_harness.browser.chromium import find_chromium as default_find_chromium
from pling_harness.browser.warm import WarmPage
from pling_harness.plugin.stash_keys import RETRYING_KEY

# A test that opens the tutorial or the testbed through one of these gets the warm page.
WARM_PAGE_USERS = frozenset({"tutorial_page", "open_tutorial_page", "testbed_page", "testbed"})
# The option that turns the warm page off (declared by the plugin).
FRESH_PAGES_OPTION = "--pling-fresh-pages"


def chromium_launch_args(
    base: Mapping[str, Any],
    *,
    browser_name: str,
    playwright_path: Path,
    find_chromium: Callable[..., ChromiumChoice] = default_find_chromium,
) -> dict[str, Any]:
    """pytest-playwright's launch args plus what this machine's Chromium needs.

    Adds the quiet-network flags; launches the system Chromium via `executable_path` when
    Playwright's own is missing (its headless shell unless `--headed`), unless
    `--browser-channel` (or an explicit executable) chose the browser already. Raises
    ChromiumNotFound when there is none at all.
    """
    args = dict(base)
    if browser_name != "chromium":
        return args
    flags = list(args.get("args") or [])
    args["args"] = flags + [flag for flag in QUIET_NETWORK_ARGS if flag not in flags]
    if args.get("channel") or args.get("executable_path"):
        return args
    choice = find_chromium(playwright_path=playwright_path,
                           headless=args.get("headless", True) is not False)
    if choice.executable_path is not None:
        args["executable_path"] = str(choice.executable_path)
    return args


@pytest.fixture(scope="session")
def browser_type_launch_args(
    browser_type_launch_args: dict[str, Any], browser_type: BrowserType
) -> dict[str, Any]:
    """pytest-playwright's launch args (--headed, --browser-channel, --slowmo) plus a usable
    Chromium: the system one when Playwright's own is not installed, and flags that keep
    Chromium off the network."""
    try:
        return chromium_launch_args(
            browser_type_launch_args,
            browser_name=browser_type.name,
            playwright_path=Path(browser_type.executable_path),
        )
    except ChromiumNotFound:
        pytest.fail(NO_CHROMIUM_HELP, pytrace=False)


def why_no_warm_page(config: pytest.Config, browser_name: str) -> str | None:
    """Why this run gives every test a fresh context (None: the warm page serves the
    tutorial's checks). pytest-playwright records traces, videos and screenshots per
    context it creates, so with any of them on every test gets its own."""
    if config.getoption(FRESH_PAGES_OPTION):
        return FRESH_PAGES_OPTION
    if browser_name != "chromium":
        return f"--browser {browser_name} (the warm page clears storage the Chromium way)"
    # The traced retry of a failed check (plugin/retry.py) takes a fresh context of its own.
    retrying = config.stash.get(RETRYING_KEY, False)
    for flag in ("--tracing", "--video", "--screenshot"):
        if config.getoption(flag) != "off" and not (flag == "--tracing" and retrying):
            return f"{flag} (pytest-playwright records it per context)"
    if config.getoption("--playwright-debug", default=None):
        return "--playwright-debug"
    return None


@pytest.fixture(scope="session")
def pling_warm_page(pytestconfig: pytest.Config, browser: Browser, browser_name: str,
                    browser_context_args: dict[str, Any]) -> Iterator[WarmPage | None]:
    """The worker's warm page (`pling_harness.browser.warm.WarmPage`): one context and page that
    serve every test opening the tutorial or the testbed, each test from a new document on
    emptied storage. None when the run asks for fresh contexts (see `why_no_warm_page`)."""
    if why_no_warm_page(pytestconfig, browser_name) is not None:
        yield None
        return
    warm = WarmPage(browser, browser_context_args)
    yield warm
    warm.close()


@pytest.fixture
def context(request: pytest.FixtureRequest,
            pling_warm_page: WarmPage | None) -> Iterator[BrowserContext]:
    """pytest-playwright's `context` (a new one per test); for a test that opens the
    tutorial or the testbed through the plugin (and is not a failed check's traced retry,
    plugin/retry.py), the warm page's context, handed over clean and cleaned again after
    the test (`pling_harness.browser.warm`). Either way the browser sends
    the seat of the test's fixture server with every request (`browser_headers`)."""
    headers = _seat_headers(request)
    warm = pling_warm_page
    if warm is None or not WARM_PAGE_USERS & set(request.fixturenames) or \
            request.config.stash.get(RETRYING_KEY, False) or \
            request.node.get_closest_marker("browser_context_args") is not None:
        fresh: BrowserContext = request.getfixturevalue("new_context")()
        if headers:
            fresh.set_extra_http_headers(headers)
        yield fresh
        return
    page = warm.begin(headers=headers)
    try:
        yield page.context
    finally:
        warm.end()


@pytest.fixture
def page(context: BrowserContext, pling_warm_page: WarmPage | None) -> Page:
    """pytest-playwright's `page`: a new page of `context`, or the warm page when `context`
    is the warm page's."""
    warm = pling_warm_page
    if warm is not None and warm.page is not None and warm.page.context is context:
        return warm.page
    return context.new_page()


def _seat_headers(request: pytest.FixtureRequest) -> dict[str, str]:
    if "tutorial_server" not in request.fixturenames:
        return {}
    server = request.getfixturevalue("tutorial_server")
    headers = getattr(server, "browser_headers", None)
    return dict(headers) if isinstance(headers, Mapping) else {}

"""Overrides of pytest-playwright fixtures; the pling plugin registers this module last.

pytest picks among same-named fixtures of (non-conftest) plugins by registration order,
and the order of entry points is not reliable, so `harness.plugin.plugin` registers this
module from `pytest_configure`, after every entry point is loaded. That makes the
fixtures below override pytest-playwright's, and lets each one request the original
(same name) to keep what pytest-playwright derived from its flags.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import BrowserType

from harness.browser.chromium import (
    NO_CHROMIUM_HELP,
    QUIET_NETWORK_ARGS,
    ChromiumChoice,
    ChromiumNotFound,
)
from harness.browser.chromium import find_chromium as default_find_chromium


def chromium_launch_args(
    base: Mapping[str, Any],
    *,
    browser_name: str,
    playwright_path: Path,
    find_chromium: Callable[..., ChromiumChoice] = default_find_chromium,
) -> dict[str, Any]:
    """pytest-playwright's launch args plus what this machine's Chromium needs.

    Adds the quiet-network flags; launches the system Chromium via `executable_path` when
    Playwright's own is missing, unless `--browser-channel` (or an explicit executable)
    chose the browser already. Raises ChromiumNotFound when there is none at all.
    """
    args = dict(base)
    if browser_name != "chromium":
        return args
    flags = list(args.get("args") or [])
    args["args"] = flags + [flag for flag in QUIET_NETWORK_ARGS if flag not in flags]
    if args.get("channel") or args.get("executable_path"):
        return args
    choice = find_chromium(playwright_path=playwright_path)
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

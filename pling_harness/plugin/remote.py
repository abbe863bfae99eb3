"""--pling-connect WS_URL: run the checks in a browser another process or machine serves.

pytest-playwright's own way is its `connect_options` fixture (None: launch a browser here);
this module overrides it, registered after pytest-playwright like `overrides`, so the flag
and a conftest's own `connect_options` both work. The connection exposes the client's
loopback to the browser (`expose_network="<loopback>"`), so the fixture servers the checks
start on 127.0.0.1 are reached from a browser on another machine too. Everything else the
checks use travels over Playwright's protocol like any other call: the model route
(`page.route`), the paused clock, init scripts, the probe's binding, screenshots, traces.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from pling_harness.browser.remote import CONNECT_EXPOSE_NETWORK

PLUGIN_NAME = "pling-remote"
LAUNCH_OPTIONS_HEADER = "x-playwright-launch-options"
CONNECT_OPTION = "--pling-connect"


def addoption(group: pytest.OptionGroup) -> None:
    group.addoption(
        CONNECT_OPTION, metavar="WS_URL", default=None,
        help="connect to the Playwright browser server at WS_URL (e.g. from "
             "`pling-tutorial browser-server`) instead of launching a browser; the "
             "checks' servers on 127.0.0.1 are reached through the connection")


def endpoint_of(config: pytest.Config) -> str | None:
    value = config.getoption(CONNECT_OPTION)
    if value is not None and not str(value).startswith(("ws://", "wss://")):
        raise pytest.UsageError(
            f"{CONNECT_OPTION} {value!r} is not a browser server's address; give its "
            "ws:// URL as `pling-tutorial browser-server` or `playwright launch-server` "
            "prints it")
    return str(value) if value is not None else None


def launch_options_header(launch_args: dict[str, Any]) -> str:
    """The launch options a `playwright run-server` reads from its client, in the names
    its Node side knows (pytest-playwright sends Python's, which it ignores): so a server
    run with `--unsafe` launches the Chromium this side found (`executablePath`)."""
    return json.dumps({_camel(key): value for key, value in launch_args.items()})


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


@pytest.fixture(scope="session")
def connect_options(connect_options: dict[str, Any] | None, pytestconfig: pytest.Config,
                    browser_type_launch_args: dict[str, Any]) -> dict[str, Any] | None:
    """pytest-playwright's connect options; with --pling-connect, that server's. A
    `launch-server` has its browser already; a `run-server` launches one per client with
    the options of the launch options header."""
    endpoint = endpoint_of(pytestconfig)
    if endpoint is None:
        return connect_options
    given = connect_options or {}
    headers = {LAUNCH_OPTIONS_HEADER: launch_options_header(browser_type_launch_args),
               **(given.get("headers") or {})}
    return {**given, "endpoint": endpoint, "expose_network": CONNECT_EXPOSE_NETWORK,
            "headers": headers}

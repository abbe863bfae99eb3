"""`--pling-model-port PORT` with `--base-url`: each check's scripted model answers on OpenAI's
wire at 127.0.0.1:PORT/v1, where a page's own server calls it; the check scripts it and reads
what it received as usual, and between checks nothing answers."""

from __future__ import annotations

import socket
from collections import Counter
from collections.abc import Iterator

import httpx
import pytest
from starlette.applications import Starlette
from starlette.routing import Mount
from starlette.types import ASGIApp, Receive, Scope, Send

from pling_harness.server.runner import TutorialServer

pytest_plugins = ["pytester"]

# Stands in for the page's server: it calls the model at the port, as `streamText` would.
CHECKS = """
import httpx
import pytest
from pling_harness import calling, tool_call

PORT = {port}
ASK = {{"model": "m", "messages": [{{"role": "user", "content": "archive the workspace"}}],
        "tools": [{{"type": "function", "function": {{"name": "archive_workspace"}}}}]}}

@pytest.mark.guarantee("denial-respected")
def test_first_check_scripts_the_model_the_page_server_calls(tutorial_server, model):
    model.script(calling(tool_call("call_scripted", "reset_workspace")))
    answer = httpx.post(f"http://127.0.0.1:{{PORT}}/v1/chat/completions", json=ASK)
    [call] = answer.json()["choices"][0]["message"]["tool_calls"]
    assert call["id"] == "call_scripted" and call["function"]["name"] == "reset_workspace"
    assert [r.kind for r in tutorial_server.log.records()] == ["model.request", "model.reply"]
    assert model.requests[0].messages[0].content == "archive the workspace"

@pytest.mark.guarantee("denial-respected")
def test_second_check_has_a_model_of_its_own(tutorial_server, model):
    httpx.post(f"http://127.0.0.1:{{PORT}}/v1/chat/completions", json=ASK)
    assert [call.action for call in model.tool_calls()] == ["archive_workspace"]
    assert len(model.requests) == 1
"""


# A check that opens the page `openings` times. No model route is set when the page's server
# calls the model, and a route (any, even one matching nothing) turns Chromium's HTTP cache
# off for the whole context: each script would then be fetched again at every opening.
OPENING_CHECK = """
import pytest
from pling_harness.browser.pages import wait_until_ready

@pytest.mark.guarantee("denial-respected")
def test_the_page_opened_again(tutorial_page):
    for _ in range({openings} - 1):
        tutorial_page.goto(tutorial_page.url, wait_until="commit")
        wait_until_ready(tutorial_page)
"""


class CountedGets:
    """An ASGI app in front of `app` that counts the GET requests it passes on, by path."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.gets: Counter[str] = Counter()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "GET":
            self.gets[scope["path"]] += 1
        await self.app(scope, receive, send)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def target() -> Iterator[TutorialServer]:
    with TutorialServer(tutorial="r-15", environ={}) as server:
        yield server


def test_model_port_seats_each_checks_model_and_nothing_between(
        pytester: pytest.Pytester, target: TutorialServer) -> None:
    port = free_port()
    pytester.makepyfile(CHECKS.format(port=port))

    result = pytester.runpytest_subprocess("--pling-locale", "en", "-p", "no:cacheprovider",
                                           "--base-url", target.url,
                                           "--pling-model-port", str(port))

    result.assert_outcomes(passed=2)
    assert target.log.records(kind="model.request") == []  # the page's gateway: never
    with pytest.raises(httpx.ConnectError):  # the run's model server ended with the run
        httpx.post(f"http://127.0.0.1:{port}/v1/chat/completions", json={})


def test_model_port_without_base_url_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_nothing(): pass")
    result = pytester.runpytest_subprocess("--pling-model-port", "5441")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--pling-model-port 5441: the model port is for a page "
                                 "served elsewhere*"])


def scripts_fetched(pytester: pytest.Pytester, openings: int) -> dict[str, int]:
    """How often a run whose one check opens the page `openings` times fetched each script
    from the target (the run's own look at the target included)."""
    server = TutorialServer(tutorial="r-15", environ={})
    counted = CountedGets(server.app)
    server.app = Starlette(routes=[Mount("/", app=counted)])
    pytester.makepyfile(OPENING_CHECK.format(openings=openings))
    with server:
        result = pytester.runpytest_subprocess("--pling-locale", "en", "-p", "no:cacheprovider",
                                               "--base-url", server.url,
                                               "--pling-model-port", str(free_port()))
    result.assert_outcomes(passed=1)
    return {path: count for path, count in counted.gets.items() if path.endswith(".js")}


def test_model_port_routes_nothing_so_the_page_opened_again_fetches_no_script(
        pytester: pytest.Pytester) -> None:
    once = scripts_fetched(pytester, openings=1)
    thrice = scripts_fetched(pytester, openings=3)

    assert once, "the page loaded no script"
    assert thrice == once  # the second and third openings took each from the browser's cache

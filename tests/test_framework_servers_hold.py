"""Every server the suite starts holds up like the fixture server (issue 39 §1): the AI SDK
page's chat route (and the assistant-ui page's, the same route under assistant-ui's client),
CopilotKit's runtime inside Vite's server, and Vite's dev and preview
servers with their proxies in front of the business API. Over plain HTTP against the real
servers `pling-tutorial dev` starts (a raw socket for a request line in absolute form):

- malformed input gets a 4xx with a short JSON error: no stack, no path, no 5xx;
- a body is capped by the bytes read, whatever its framing (chunked too);
- a proxied request gets the fixture server's own answer, 413 included;
- the dev-endpoint guard reads what the request addresses, not the form of its line;
- `Sec-Fetch-Site` saying another site sent it is refused, with or without an `Origin`;
- a state change needs the body its contract names (`{}`: an empty body changes nothing).

Nothing refused reaches the model or changes the workspace."""

from __future__ import annotations

import http.client
import json
import socket
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import httpx
import pytest

from pling_harness.project.pages_table import page_row
from pling_harness.project.tutorials import load_tutorial
from pling_harness.server.page_process import PageProcess, row_process
from pling_harness.server.runner import TutorialServer

# The harness's own checkout: the project these tests check.
PROJECT_ROOT = Path(__file__).resolve().parents[1]
TUTORIAL = load_tutorial("r-15", PROJECT_ROOT)
BACKEND = PROJECT_ROOT / "tutorials" / "r-15-confirmation-and-human-handoff" / "backend.py"

# The React page under Vite's dev server and under `vite preview` of its build, and the
# framework pages under Vite's dev server (each with its own server code inside Vite).
PAGES = ("react", "react-build", "ai-sdk", "copilotkit", "assistant-ui", "assistant-ui-v6")
DEV_PAGES = ("react", "ai-sdk", "copilotkit", "assistant-ui", "assistant-ui-v6")
# Each framework page's own endpoint that starts an agent run (a state change: it runs tools).
RUN_ENDPOINTS = {"ai-sdk": "/api/chat", "copilotkit": "/api/copilotkit/agent/default/run",
                 "assistant-ui": "/api/chat", "assistant-ui-v6": "/api/chat"}
JSON_BODY = {"Content-Type": "application/json"}
MIB = 1024 * 1024
# Vite's first start on a loaded machine, a 6 MB upload, a `vite build`.
TIMEOUT_S = 120.0


@dataclass(frozen=True)
class Served:
    page: str
    vite: PageProcess
    api: TutorialServer
    editor_log: Path

    @property
    def url(self) -> str:
        return self.vite.origin

    def workspace(self) -> dict[str, Any]:
        return self.api.state.snapshot().fields()

    def model_requests_after(self, seq: int) -> list[str]:
        return [record.path for record in self.api.log.records(kind="model.request", after=seq)]


@pytest.fixture(scope="module")
def api() -> Iterator[TutorialServer]:
    """The fixture server every page's proxy and model calls go to."""
    with TutorialServer(tutorial=TUTORIAL, environ={}) as running:
        yield running


@pytest.fixture(scope="module")
def editor(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """An "editor" that only writes down the files it was asked to open (LAUNCH_EDITOR)."""
    folder = tmp_path_factory.mktemp("editor")
    opened = folder / "opened.txt"
    script = folder / "editor.sh"
    script.write_text(f'#!/bin/sh\necho "$@" >> "{opened}"\n', encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script, opened


def vite_for(page: str, api: TutorialServer) -> PageProcess:
    """The page's row (tutorial.json `pages`), as `check --page` starts it."""
    return row_process(page_row(TUTORIAL, PROJECT_ROOT, page), root=PROJECT_ROOT,
                       api_origin=api.url)


@pytest.fixture(scope="module", params=PAGES)
def served(request: pytest.FixtureRequest, api: TutorialServer,
           editor: tuple[Path, Path]) -> Iterator[Served]:
    """One page's Vite server at a time, in front of the module's fixture server."""
    vite = vite_for(str(request.param), api)
    vite.environ["LAUNCH_EDITOR"] = str(editor[0])
    with vite:
        yield Served(str(request.param), vite, api, editor[1])


@pytest.fixture
def fresh(served: Served) -> Served:
    """The page's server on a workspace a change would show (renamed, so a reset shows)."""
    renamed(served.api)
    return served


def renamed(api: TutorialServer) -> None:
    """The initial workspace, renamed "Before"."""
    api.state.replace(api.state.reset().model_copy(update={"name": "Before"}))


def post(url: str, content: bytes | Iterator[bytes], headers: dict[str, str]
         ) -> httpx.Response:
    return httpx.post(url, content=content, headers=headers, timeout=TIMEOUT_S)


def chunked(body: bytes, size: int = 64 * 1024) -> Iterator[bytes]:
    """`body` sent in chunks: no Content-Length, `Transfer-Encoding: chunked`."""
    yield from (body[start:start + size] for start in range(0, len(body), size))


def assert_short_json_refusal(response: httpx.Response, status: int | None = None) -> None:
    """A 4xx (exactly `status` when given) whose body is a short JSON error: no stack trace,
    nothing of the checkout's paths."""
    assert 400 <= response.status_code < 500, (response.status_code, response.text[:400])
    if status is not None:
        assert response.status_code == status, response.text[:400]
    assert response.headers["content-type"].startswith("application/json"), response.text[:400]
    assert isinstance(response.json(), dict)
    assert len(response.content) < 4096, response.text[:400]
    assert str(PROJECT_ROOT) not in response.text and "node_modules" not in response.text
    assert "    at " not in response.text, response.text[:400]


def refused_and_nothing_changed(served: Served, send: Callable[[], httpx.Response],
                                status: int | None = None) -> httpx.Response:
    """`send()` is refused with a short JSON 4xx; the workspace is as it was and the model
    heard nothing."""
    before, seq = served.workspace(), served.api.log.last_seq
    response = send()
    assert_short_json_refusal(response, status)
    assert served.workspace() == before
    assert served.model_requests_after(seq) == []
    return response


def run_endpoint(served: Served) -> str:
    return served.url + RUN_ENDPOINTS[served.page]


# The tests of an agent endpoint run on the pages that have one.
on_framework_pages = pytest.mark.parametrize("served", list(RUN_ENDPOINTS), indirect=True)


def a_conversation(page: str, text: str) -> dict[str, Any]:
    """A well-formed request to the page's agent endpoint, whose one message is `text`."""
    if page in ("ai-sdk", "assistant-ui", "assistant-ui-v6"):  # the AI SDK's UI messages
        return {"locale": "en", "messages": [
            {"id": "m1", "role": "user", "parts": [{"type": "text", "text": text}]}]}
    return {"threadId": "t1", "runId": "r1", "state": {}, "tools": [], "context": [],
            "forwardedProps": {}, "messages": [{"id": "m1", "role": "user", "content": text}]}


# ---- malformed input: a short JSON 4xx, never a 5xx, a stack or a path ----------------------

MALFORMED = {
    "null": b"null",
    "array": b"[]",
    "number": b"1",
    "string": b'"archive the workspace"',
    "truncated": b'{"messages": [',
    "not-utf-8": b'{"messages": "\xff\xfe"}',
    "lone-surrogate": b'{"messages": [{"id": "\\ud800"}]}',
    "deep": b'{"messages": ' + b"[" * 200 + b"]" * 200 + b"}",
    "messages-null": b'{"messages": null}',
    "messages-of-null": b'{"messages": [null]}',
}


@on_framework_pages
@pytest.mark.parametrize("body", MALFORMED.values(), ids=MALFORMED.keys())
def test_malformed_run_request_is_a_short_json_4xx(fresh: Served, body: bytes) -> None:
    url = run_endpoint(fresh)

    refused_and_nothing_changed(fresh, lambda: post(url, body, JSON_BODY))


@pytest.mark.parametrize("body", MALFORMED.values(), ids=MALFORMED.keys())
def test_malformed_business_request_through_the_proxy_is_a_short_json_4xx(
        fresh: Served, body: bytes) -> None:
    for path in ("/api/workspace/name", "/api/workspace/archive"):
        refused_and_nothing_changed(fresh, partial(post, fresh.url + path, body, JSON_BODY), 400)


@on_framework_pages
def test_run_request_with_invalid_unicode_never_reaches_the_model(fresh: Served) -> None:
    url = run_endpoint(fresh)
    text = json.dumps(a_conversation(fresh.page, "archive the workspace"))
    for broken in (text.replace("archive", "\\udc00archive").encode(),
                   text.encode().replace(b"archive", b"\xc3\x28archive")):
        refused_and_nothing_changed(fresh, partial(post, url, broken, JSON_BODY), 400)


# ---- bodies capped by the bytes read, whatever the framing -----------------------------------

FRAMINGS: dict[str, Callable[[bytes], bytes | Iterator[bytes]]] = {
    "content-length": lambda body: body, "chunked": chunked}


@on_framework_pages
@pytest.mark.parametrize("megabytes", [6, 20])
@pytest.mark.parametrize("framing", FRAMINGS.keys())
def test_run_request_over_4_mib_is_refused_413_whatever_its_framing(
        fresh: Served, framing: str, megabytes: int) -> None:
    url = run_endpoint(fresh)
    body = json.dumps(a_conversation(fresh.page, "x" * megabytes * MIB)).encode()

    response = refused_and_nothing_changed(
        fresh, lambda: post(url, FRAMINGS[framing](body), JSON_BODY), 413)

    assert response.json()["code"] == "PAYLOAD_TOO_LARGE"
    assert b"xxxx" not in response.content


# ---- a proxied request gets the fixture server's own answer ---------------------------------

PROXIED = {
    "rename": ("/api/workspace/name", json.dumps({"name": "Acme"}).encode()),
    "archive": ("/api/workspace/archive", b"{}"),
    "empty-body": ("/api/workspace/archive", b""),
    "wrong-code": ("/api/workspace/publish", json.dumps({"code": "000000"}).encode()),
    "unknown-field": ("/api/workspace/reset", json.dumps({"force": True}).encode()),
    "over-64-kib": ("/api/workspace/name", json.dumps({"name": "x" * 70_000}).encode()),
    "1-mb": ("/api/workspace/name", json.dumps({"name": "x" * MIB}).encode()),
    "6-mb": ("/api/workspace/name", json.dumps({"name": "x" * 6 * MIB}).encode()),
}


@pytest.mark.parametrize("framing", FRAMINGS.keys())
@pytest.mark.parametrize("case", PROXIED.keys())
def test_proxied_request_gets_the_fixture_servers_own_answer(
        fresh: Served, case: str, framing: str) -> None:
    """Through the page's proxy and straight to the fixture server, from the same state: the
    same status and the same JSON (a 1 MB body was a 502 with an empty body)."""
    path, body = PROXIED[case]
    direct = post(fresh.api.url + path, FRAMINGS[framing](body), JSON_BODY)
    after_direct = fresh.workspace()
    renamed(fresh.api)

    proxied = post(fresh.url + path, FRAMINGS[framing](body), JSON_BODY)

    assert (proxied.status_code, proxied.json()) == (direct.status_code, direct.json())
    assert fresh.workspace() == after_direct


# ---- the dev-endpoint guard reads the request, not the form of its request line -------------


def raw_get(served: Served, target: str) -> tuple[int, bytes]:
    """`GET <target>` exactly as written on the request line, Host this server's own."""
    host = served.url.removeprefix("http://")
    address, port = host.rsplit(":", 1)
    with socket.create_connection((address, int(port)), timeout=TIMEOUT_S) as connection:
        connection.sendall(f"GET {target} HTTP/1.1\r\nHost: {host}\r\n"
                           "Connection: close\r\n\r\n".encode())
        answer = http.client.HTTPResponse(connection)
        answer.begin()
        return answer.status, answer.read()


def test_dev_endpoint_in_absolute_form_is_refused_and_opens_nothing(served: Served) -> None:
    own = served.url.removeprefix("http://")

    status, body = raw_get(served, f"http://{own}/__open-in-editor?file={BACKEND}")

    assert status == 403 and json.loads(body)["code"] == "FORBIDDEN_DEV_ENDPOINT"
    assert raw_get(served, f"http://{own}/%5F%5Fopen-in-editor?file={BACKEND}")[0] == 403
    assert raw_get(served, f"http://{own}/@fs{BACKEND}")[0] == 403
    opened = served.editor_log.read_text() if served.editor_log.exists() else ""
    assert str(BACKEND) not in opened


def test_request_line_naming_another_host_is_refused(served: Served) -> None:
    status, body = raw_get(served, "http://rebound.example/api/workspace")

    assert status == 403 and json.loads(body)["code"] == "FORBIDDEN_HOST"
    assert b"Northwind" not in body and b"Before" not in body


def test_own_page_in_absolute_form_is_still_served(served: Served) -> None:
    own = served.url.removeprefix("http://")

    assert raw_get(served, f"http://{own}/?lang=en")[0] == 200
    status, body = raw_get(served, f"http://{own}/api/workspace")
    assert status == 200 and "name" in json.loads(body)


# ---- another site's page, by Sec-Fetch-Site alone --------------------------------------------


def state_changes(served: Served) -> dict[str, tuple[str, bytes]]:
    """Every request of this page that changes state, with a body it would act on."""
    changes = {"archive": ("/api/workspace/archive", b"{}"),
               "publish": ("/api/workspace/publish", json.dumps({"code": "246810"}).encode())}
    if served.page in RUN_ENDPOINTS:
        changes["run"] = (RUN_ENDPOINTS[served.page],
                          json.dumps(a_conversation(served.page, "archive the workspace")).encode())
    return changes


@pytest.mark.parametrize("site", ["cross-site", "same-site"])
@pytest.mark.parametrize("origin", ["none", "own"])
def test_request_another_site_sent_is_refused_with_or_without_origin(
        fresh: Served, site: str, origin: str) -> None:
    headers = {**JSON_BODY, "Sec-Fetch-Site": site, "Sec-Fetch-Mode": "cors"}
    if origin == "own":
        headers["Origin"] = fresh.url
    for path, body in state_changes(fresh).values():
        refused_and_nothing_changed(fresh, partial(post, fresh.url + path, body, headers), 403)


# ---- a state change needs the body its contract names ----------------------------------------


@pytest.mark.parametrize("path", ["/api/workspace/archive", "/api/workspace/reset"])
def test_state_change_with_an_empty_body_is_refused_and_changes_nothing(
        fresh: Served, path: str) -> None:
    response = refused_and_nothing_changed(
        fresh, lambda: post(fresh.url + path, b"", JSON_BODY), 400)

    assert response.json()["code"] == "BAD_REQUEST"


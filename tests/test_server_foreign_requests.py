"""The business API serves only its own page: every endpoint that changes state refuses a
foreign Origin, a foreign Host and any body not declared as JSON, with the workspace, the
testbed's calls and the log's story of them untouched. In a real browser (another site's
page, a page on a rebound name) and over plain HTTP."""

from __future__ import annotations

import dataclasses
import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, BrowserType, Page, expect

from pling_harness.server.log import ServerRecord
from pling_harness.server.runner import TutorialServer

GUARANTEE = "server-refuses-foreign-requests"

# Every state-changing business endpoint, with a body it would act on.
ENDPOINTS: dict[str, tuple[str, dict[str, Any]]] = {
    "name": ("/api/workspace/name", {"name": "Taken over"}),
    "archive": ("/api/workspace/archive", {}),
    "publish": ("/api/workspace/publish", {"code": "246810"}),
    "reset": ("/api/workspace/reset", {}),
    "testbed-run": ("/api/testbed/run/wipe_disk", {"target": "/"}),
}
READS = ["/api/workspace", "/api/testbed/calls"]


def foreign_origins(port: int) -> dict[str, str]:
    return {
        "other-site": "http://evil.example",
        "other-port": f"http://127.0.0.1:{port + 1}",
        "other-port-localhost": f"http://localhost:{port + 1}",
        "other-scheme": f"https://127.0.0.1:{port}",
        "other-host-same-port": f"http://evil.example:{port}",
        "own-origin-as-prefix": f"http://127.0.0.1:{port}.evil.example",
        "opaque": "null",
    }


def foreign_hosts(port: int) -> dict[str, str]:
    return {
        "rebound-name": f"evil.example:{port}",
        "rebound-name-no-port": "evil.example",
        "other-port": f"127.0.0.1:{port + 1}",
        "own-host-as-prefix": f"localhost.evil.example:{port}",
    }


# What a form or a "simple" fetch can send without a preflight, and JSON look-alikes.
NOT_JSON = {
    "text-plain": "text/plain;charset=UTF-8",
    "urlencoded": "application/x-www-form-urlencoded",
    "multipart": "multipart/form-data; boundary=x",
    "json-as-parameter": "text/plain; a=application/json",
    "json-lookalike": "application/jsonp",
    "none": None,
}
BODYLESS = {"text-plain": "text/plain", "none": None}


@dataclass(frozen=True)
class Before:
    """What an attack must leave as it was."""

    workspace: dict[str, Any]
    testbed_calls: dict[str, Any]
    seq: int


@pytest.fixture
def before(client: httpx.Client, server: TutorialServer) -> Before:
    """A workspace the page itself renamed (so a reset would show) and one testbed call, as
    the server reports them, and the log position after them."""
    client.post("/api/workspace/name", json={"name": "Before"}).raise_for_status()
    client.post("/api/testbed/run/wipe_disk", json={"n": 1}).raise_for_status()
    return Before(workspace=client.get("/api/workspace").json(),
                  testbed_calls=client.get("/api/testbed/calls").json(),
                  seq=server.log.last_seq)


def post(client: httpx.Client, path: str, body: dict[str, Any] | None,
         headers: dict[str, str | None]) -> httpx.Response:
    """POST `body` as JSON text (None: no body) with exactly the headers given (None: absent)."""
    content = b"" if body is None else json.dumps(body).encode()
    sent = {name: value for name, value in headers.items() if value is not None}
    return client.post(path, content=content, headers=sent)


def assert_refused_and_unchanged(client: httpx.Client, server: TutorialServer, before: Before,
                                 *, path: str, status: int, code: str, method: str = "POST",
                                 response: httpx.Response | None = None) -> ServerRecord:
    """The only log record since `before` is the refusal of `path` with the server's error
    envelope, its reason and no body read; the workspace and the testbed calls are as before.
    With `response`, that is what the client was answered."""
    records = server.log.records(after=before.seq)
    assert [(r.kind, r.method, r.path, r.status, (r.response or {}).get("code"), r.body)
            for r in records] == [("api", method, path, status, code, None)], records
    [refusal] = records
    assert refusal.response["ok"] is False and refusal.response["message"], refusal.response
    assert refusal.detail, "a refusal is logged with its reason"
    if response is not None:
        assert (response.status_code, response.json()) == (status, refusal.response)
    assert client.get("/api/workspace").json() == before.workspace
    assert client.get("/api/testbed/calls").json() == before.testbed_calls
    return refusal


# ---- in a browser: the attacks the approval card must not be bypassed by -----------------


class BlankPage(BaseHTTPRequestHandler):
    """Another site: one harmless page for every GET."""

    def do_GET(self) -> None:
        body = b"<!doctype html><title>Another site</title><p>Nothing to see here.</p>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass  # quiet test output


@pytest.fixture(scope="module")
def other_site() -> Iterator[str]:
    """The URL of another site's page: a plain HTTP server on 127.0.0.1 with a port of its
    own, so another origin than the fixture server's."""
    site = ThreadingHTTPServer(("127.0.0.1", 0), BlankPage)
    thread = threading.Thread(target=site.serve_forever, name="other-site", daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{site.server_address[1]}/"
    site.shutdown()
    site.server_close()
    thread.join()


REBOUND_NAME = "rebound.example"


@pytest.fixture(scope="module")
def rebinding_browser(browser_type: BrowserType,
                      browser_type_launch_args: dict[str, Any]) -> Iterator[Browser]:
    """A Chromium in which REBOUND_NAME resolves to 127.0.0.1: DNS rebinding, as a site
    whose name first pointed at its own server and now points at this machine."""
    args = [*browser_type_launch_args.get("args", []),
            f"--host-resolver-rules=MAP {REBOUND_NAME} 127.0.0.1"]
    browser = browser_type.launch(**{**browser_type_launch_args, "args": args})
    yield browser
    browser.close()


FETCH = """async ([url, init]) => {
  try {
    const response = await fetch(url, init);
    return response.type === "opaque" ? "opaque" : String(response.status);
  } catch (error) {
    return `blocked: ${error.name}`;
  }
}"""

# A classic cross-site form. With text/plain encoding, name=value can be made to read as JSON.
SUBMIT_FORM = """([action, enctype, name, value]) => {
  const form = document.createElement("form");
  form.method = "POST";
  form.enctype = enctype;
  form.action = action;
  const field = document.createElement("input");
  field.type = "hidden";
  field.name = name;
  field.value = value;
  form.append(field);
  document.body.append(form);
  form.submit();
}"""
FORM_ENCTYPES = ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data"]


def form_fields(body: dict[str, Any]) -> tuple[str, str]:
    """Name and value whose text/plain form encoding `name=value` is `body` as JSON."""
    text = json.dumps({**body, "padding": ""})
    cut = text.rindex('""') + 1
    return text[:cut], text[cut:]


# "Simple" requests: the browser sends them to another site without asking first.
SIMPLE_FETCHES: dict[str, dict[str, Any]] = {
    "text-plain-json": {"headers": {"Content-Type": "text/plain"}},
    "no-body": {},
}


def assert_refused_from(refusal: ServerRecord, origin: str) -> None:
    """The browser really sent `origin`, as the server's log of its refusal says."""
    assert refusal.detail is not None and origin.rstrip("/") in refusal.detail, refusal.detail


@pytest.mark.guarantee(GUARANTEE)
@pytest.mark.parametrize("kind", SIMPLE_FETCHES.keys())
@pytest.mark.parametrize("endpoint", ENDPOINTS.keys())
def test_simple_fetch_from_another_site_is_refused_and_changes_nothing(
    page: Page, client: httpx.Client, server: TutorialServer, before: Before,
    other_site: str, endpoint: str, kind: str,
) -> None:
    path, body = ENDPOINTS[endpoint]
    init = {"method": "POST", "mode": "no-cors", **SIMPLE_FETCHES[kind]}
    if "headers" in init:
        init["body"] = json.dumps(body)
    page.goto(other_site)

    with page.expect_response(server.url + path) as answer:
        assert page.evaluate(FETCH, [server.url + path, init]) == "opaque"

    assert answer.value.status == 403
    refusal = assert_refused_and_unchanged(client, server, before, path=path, status=403,
                                           code="FORBIDDEN_ORIGIN")
    assert_refused_from(refusal, other_site)


@pytest.mark.guarantee(GUARANTEE)
@pytest.mark.parametrize("enctype", FORM_ENCTYPES)
@pytest.mark.parametrize("endpoint", ENDPOINTS.keys())
def test_form_posted_from_another_site_is_refused_and_changes_nothing(
    page: Page, client: httpx.Client, server: TutorialServer, before: Before,
    other_site: str, endpoint: str, enctype: str,
) -> None:
    path, body = ENDPOINTS[endpoint]
    page.goto(other_site)

    with page.expect_navigation(url=server.url + path) as navigation:
        page.evaluate(SUBMIT_FORM, [server.url + path, enctype, *form_fields(body)])

    assert navigation.value is not None and navigation.value.status == 403
    refusal = assert_refused_and_unchanged(client, server, before, path=path, status=403,
                                           code="FORBIDDEN_ORIGIN")
    assert_refused_from(refusal, other_site)


@pytest.mark.guarantee(GUARANTEE)
@pytest.mark.parametrize("endpoint", ENDPOINTS.keys())
def test_json_fetch_from_another_site_is_stopped_by_the_browser_before_it_is_sent(
    page: Page, client: httpx.Client, server: TutorialServer, before: Before,
    other_site: str, endpoint: str,
) -> None:
    """The page's own kind of request needs the browser to ask first (a CORS preflight),
    and the server never says yes, so the POST itself is never sent."""
    path, body = ENDPOINTS[endpoint]
    init = {"method": "POST", "headers": {"Content-Type": "application/json"},
            "body": json.dumps(body)}
    page.goto(other_site)

    assert page.evaluate(FETCH, [server.url + path, init]) == "blocked: TypeError"

    # Only the browser's question reached the server (logged with its 405); the POST never.
    assert [(r.method, r.status) for r in server.log.records(after=before.seq)] == [
        ("OPTIONS", 405)]
    assert client.get("/api/workspace").json() == before.workspace
    assert client.get("/api/testbed/calls").json() == before.testbed_calls


@pytest.mark.guarantee(GUARANTEE)
@pytest.mark.parametrize("path", READS)
def test_another_site_cannot_read_the_answer(
    page: Page, server: TutorialServer, other_site: str, path: str,
) -> None:
    page.goto(other_site)

    assert page.evaluate(FETCH, [server.url + path, {}]) == "blocked: TypeError"


@pytest.fixture
def rebound_page(rebinding_browser: Browser, server: TutorialServer) -> Iterator[Page]:
    """The r-15 page opened on REBOUND_NAME, once its own request for the workspace has been
    answered (so the attack that follows is the only request the server sees next)."""
    context = rebinding_browser.new_context()
    page = context.new_page()
    url = f"http://{REBOUND_NAME}:{server.port}"
    with page.expect_response(f"{url}/api/workspace"):
        page.goto(f"{url}/?lang=en")
    yield page
    context.close()


@pytest.mark.guarantee(GUARANTEE)
def test_page_on_a_rebound_name_cannot_read_the_workspace(rebound_page: Page) -> None:
    """The page loaded, but the state it asked for was refused: it says so and shows no
    state, and asking again is refused again."""
    expect(rebound_page.get_by_test_id("workspace-message")).to_be_visible()
    assert rebound_page.get_by_test_id("workspace-status").get_attribute("data-state") is None
    assert rebound_page.evaluate(FETCH, ["/api/workspace", {}]) == "403"


@pytest.mark.guarantee(GUARANTEE)
@pytest.mark.parametrize("endpoint", ENDPOINTS.keys())
def test_page_on_a_rebound_name_cannot_change_the_workspace(
    rebound_page: Page, client: httpx.Client, server: TutorialServer, before: Before,
    endpoint: str,
) -> None:
    """To the browser this POST is same-origin JSON, so it is sent; the server refuses it
    because its Host is not the server's address."""
    path, body = ENDPOINTS[endpoint]
    init = {"method": "POST", "headers": {"Content-Type": "application/json"},
            "body": json.dumps(body)}
    since_load = dataclasses.replace(before, seq=server.log.last_seq)

    assert rebound_page.evaluate(FETCH, [path, init]) == "403"

    refusal = assert_refused_and_unchanged(client, server, since_load, path=path, status=403,
                                           code="FORBIDDEN_HOST")
    assert f"{REBOUND_NAME}:{server.port}" in (refusal.detail or "")


# ---- over plain HTTP ------------------------------------------------------------------------


@pytest.mark.guarantee(GUARANTEE)
@pytest.mark.parametrize("which", foreign_origins(0).keys())
@pytest.mark.parametrize("endpoint", ENDPOINTS.keys())
def test_state_change_with_a_foreign_origin_is_refused_403_and_changes_nothing(
    client: httpx.Client, server: TutorialServer, before: Before, endpoint: str, which: str,
) -> None:
    path, body = ENDPOINTS[endpoint]
    origin = foreign_origins(server.port)[which]

    response = post(client, path, body,
                    {"Origin": origin, "Content-Type": "application/json"})

    assert_refused_and_unchanged(client, server, before, path=path, status=403,
                                 code="FORBIDDEN_ORIGIN", response=response)


@pytest.mark.guarantee(GUARANTEE)
@pytest.mark.parametrize("site", ["cross-site", "same-site", "Cross-Site"])
@pytest.mark.parametrize("origin", ["none", "own"])
@pytest.mark.parametrize("endpoint", ENDPOINTS.keys())
def test_state_change_that_says_another_site_sent_it_is_refused_403_with_or_without_origin(
    client: httpx.Client, server: TutorialServer, before: Before, endpoint: str, site: str,
    origin: str,
) -> None:
    """`Sec-Fetch-Site` saying another site's page sent the request is refused on its own
    (issue 39): a browser always adds an Origin to such a POST, but a header that says
    cross-site needs nothing else to be believed."""
    path, body = ENDPOINTS[endpoint]

    response = post(client, path, body, {
        "Sec-Fetch-Site": site, "Origin": server.url if origin == "own" else None,
        "Content-Type": "application/json"})

    refusal = assert_refused_and_unchanged(client, server, before, path=path, status=403,
                                           code="FORBIDDEN_ORIGIN", response=response)
    assert "Sec-Fetch-Site" in (refusal.detail or "")


@pytest.mark.guarantee(GUARANTEE)
@pytest.mark.parametrize("content_type", NOT_JSON.values(), ids=NOT_JSON.keys())
@pytest.mark.parametrize("endpoint", ENDPOINTS.keys())
def test_state_change_from_the_own_page_without_a_json_body_is_refused_415(
    client: httpx.Client, server: TutorialServer, before: Before, endpoint: str,
    content_type: str | None,
) -> None:
    path, body = ENDPOINTS[endpoint]

    response = post(client, path, body, {"Origin": server.url, "Content-Type": content_type})

    assert_refused_and_unchanged(client, server, before, path=path, status=415,
                                 code="UNSUPPORTED_MEDIA_TYPE", response=response)


@pytest.mark.guarantee(GUARANTEE)
@pytest.mark.parametrize("content_type", BODYLESS.values(), ids=BODYLESS.keys())
@pytest.mark.parametrize("endpoint", ENDPOINTS.keys())
def test_state_change_with_no_body_and_no_json_content_type_is_refused_415(
    client: httpx.Client, server: TutorialServer, before: Before, endpoint: str,
    content_type: str | None,
) -> None:
    """A body-less POST is what `fetch(url, {method: "POST", mode: "no-cors"})` sends."""
    path, _ = ENDPOINTS[endpoint]

    response = post(client, path, None, {"Content-Type": content_type})

    assert_refused_and_unchanged(client, server, before, path=path, status=415,
                                 code="UNSUPPORTED_MEDIA_TYPE", response=response)


@pytest.mark.guarantee(GUARANTEE)
@pytest.mark.parametrize("which", foreign_hosts(0).keys())
@pytest.mark.parametrize("endpoint", ENDPOINTS.keys())
def test_state_change_addressed_to_a_foreign_host_is_refused_403(
    client: httpx.Client, server: TutorialServer, before: Before, endpoint: str, which: str,
) -> None:
    """DNS rebinding: the name in Host resolves here, but it is not this server's address.
    No Origin header, so only the Host can tell."""
    path, body = ENDPOINTS[endpoint]

    response = post(client, path, body, {"Host": foreign_hosts(server.port)[which],
                                         "Content-Type": "application/json"})

    assert_refused_and_unchanged(client, server, before, path=path, status=403,
                                 code="FORBIDDEN_HOST", response=response)


@pytest.mark.guarantee(GUARANTEE)
@pytest.mark.parametrize("endpoint", ENDPOINTS.keys())
def test_state_change_from_a_rebound_page_is_refused_403(
    client: httpx.Client, server: TutorialServer, before: Before, endpoint: str,
) -> None:
    """What a page on a rebound name sends: its Host and its Origin agree on that name."""
    path, body = ENDPOINTS[endpoint]
    rebound = f"evil.example:{server.port}"

    response = post(client, path, body, {"Host": rebound, "Origin": f"http://{rebound}",
                                         "Content-Type": "application/json"})

    assert_refused_and_unchanged(client, server, before, path=path, status=403,
                                 code="FORBIDDEN_HOST", response=response)


# What a proxy adds to say which host a request was for; no proxy stands in front of ours.
FORWARDING_HEADERS: dict[str, Callable[[str], dict[str, str]]] = {
    "x-forwarded-host": lambda own: {"X-Forwarded-Host": own},
    "forwarded": lambda own: {"Forwarded": f'host="{own}"'},
}


@pytest.mark.guarantee(GUARANTEE)
@pytest.mark.parametrize("forwarding", FORWARDING_HEADERS.keys())
@pytest.mark.parametrize("endpoint", ENDPOINTS.keys())
def test_foreign_host_stays_refused_whatever_forwarding_headers_say(
    client: httpx.Client, server: TutorialServer, before: Before, endpoint: str,
    forwarding: str,
) -> None:
    """A rebound name's request that names our address in a forwarding header (issue 39): the
    host is the Host header checked against the socket, never a header anyone can send."""
    path, body = ENDPOINTS[endpoint]
    own = f"127.0.0.1:{server.port}"

    response = post(client, path, body, {"Host": f"evil.example:{server.port}",
                                         "Content-Type": "application/json",
                                         **FORWARDING_HEADERS[forwarding](own)})

    assert_refused_and_unchanged(client, server, before, path=path, status=403,
                                 code="FORBIDDEN_HOST", response=response)


@pytest.mark.guarantee(GUARANTEE)
@pytest.mark.parametrize("path", READS)
def test_read_addressed_to_a_foreign_host_is_refused_403(
    client: httpx.Client, server: TutorialServer, before: Before, path: str,
) -> None:
    """A page on a rebound name is same-origin with it in the browser's eyes: only the
    Host check keeps it from reading the workspace."""
    response = client.get(path, headers={"Host": f"evil.example:{server.port}"})

    assert_refused_and_unchanged(client, server, before, path=path, method="GET", status=403,
                                 code="FORBIDDEN_HOST", response=response)


# ---- no CORS: another site can neither read the answers nor be allowed to send JSON --------


@pytest.mark.guarantee(GUARANTEE)
@pytest.mark.parametrize("path", READS)
def test_read_with_a_foreign_origin_carries_no_cors_headers(
    client: httpx.Client, path: str,
) -> None:
    response = client.get(path, headers={"Origin": "http://evil.example"})

    assert [name for name in response.headers if name.startswith("access-control-")] == []


@pytest.mark.guarantee(GUARANTEE)
@pytest.mark.parametrize("endpoint", ENDPOINTS.keys())
def test_preflight_from_a_foreign_origin_is_not_granted(
    client: httpx.Client, server: TutorialServer, before: Before, endpoint: str,
) -> None:
    path, _ = ENDPOINTS[endpoint]

    response = client.options(path, headers={
        "Origin": "http://evil.example", "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type"})

    assert not response.is_success
    assert [name for name in response.headers if name.startswith("access-control-")] == []
    assert client.get("/api/workspace").json() == before.workspace


# ---- the control: the own page's JSON is served ----------------------------------------------


@pytest.mark.parametrize("alias", ["127.0.0.1", "localhost"])
@pytest.mark.parametrize("endpoint", ENDPOINTS.keys())
def test_state_change_from_the_own_page_as_json_is_accepted(
    client: httpx.Client, server: TutorialServer, endpoint: str, alias: str,
) -> None:
    """The refusals above are for the origin, host or content type, not the request."""
    path, body = ENDPOINTS[endpoint]
    own = f"{alias}:{server.port}"

    response = post(client, path, body, {"Host": own, "Origin": f"http://{own}",
                                         "Content-Type": "application/json; charset=utf-8"})

    assert response.status_code == 200, response.json()

"""The gateway serves only its own page: a request from another origin, or one that is not the
page's JSON, is refused before the provider is asked, in a real browser and over plain HTTP,
with the business state and the upstream untouched."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page

from pling_harness import BusinessState, tutorial_backend
from pling_harness.browser.pages import open_page
from pling_harness.plugin.options import required_root
from pling_harness.project.tutorials import load_tutorial
from pling_harness.server.log import ServerRecord
from pling_harness.server.model.fake_upstream import FakeUpstream
from pling_harness.server.runner import TutorialServer

# The harness's own checkout: the project these tests check.
PROJECT_ROOT = Path(__file__).resolve().parents[1]

# r-15's own state, from its backend.py (the harness names no tutorial's state).
R15_BACKEND = tutorial_backend(PROJECT_ROOT / "tutorials" / "r-15-confirmation-and-human-handoff")
INITIAL_WORKSPACE: BusinessState = R15_BACKEND.INITIAL_WORKSPACE

TUTORIAL = "r-15-confirmation-and-human-handoff"
# One promise for the gateway and the business API (tests/test_server_foreign_requests.py).
GUARANTEE = "server-refuses-foreign-requests"
# A request the gateway would forward (and the upstream answer with an archive call).
MODEL_REQUEST: dict[str, Any] = {
    "messages": [{"role": "user", "content": "archive the workspace"}],
    "tools": [{"type": "function", "function": {
        "name": "archive_workspace", "description": "Archive the workspace",
        "parameters": {"type": "object", "properties": {}, "additionalProperties": False}}}],
    "locale": "en",
}


@pytest.fixture
def upstream(pytestconfig: pytest.Config) -> Iterator[FakeUpstream]:
    root = required_root(pytestconfig)
    with FakeUpstream.answering_like(load_tutorial(TUTORIAL, root), root) as fake:
        yield fake


@pytest.fixture
def server(upstream: FakeUpstream, pytestconfig: pytest.Config) -> Iterator[TutorialServer]:
    """The server under attack, with an OpenAI-compatible upstream configured."""
    environ = upstream.environ(api_key="test-hardening-key")
    with TutorialServer(tutorial=TUTORIAL, root=required_root(pytestconfig),
                        environ=environ) as running:
        yield running


@pytest.fixture
def other_origin(pytestconfig: pytest.Config) -> Iterator[TutorialServer]:
    """Another local server: a page on 127.0.0.1 with a different port is another origin."""
    with TutorialServer(tutorial=TUTORIAL, root=required_root(pytestconfig),
                        environ={}) as running:
        yield running


def posts_to_the_gateway(server: TutorialServer) -> list[ServerRecord]:
    """The gateway's log without CORS preflights (a preflight is refused before it is read)."""
    return [r for r in server.log.records(path="/api/model") if r.method != "OPTIONS"]


def assert_untouched(server: TutorialServer, upstream: FakeUpstream, *, refusals: int,
                     status: int, code: str) -> None:
    """The gateway refused `refusals` requests with `status`/`code`, forwarded none, and
    nothing changed."""
    records = posts_to_the_gateway(server)
    assert [(r.kind, r.status, (r.response or {}).get("code")) for r in records] == [
        ("model.error", status, code)] * refusals, records
    assert upstream.received == [], "a refused request reached the upstream"
    assert server.state.snapshot() == INITIAL_WORKSPACE


def assert_refused_origin(server: TutorialServer, origin: str) -> None:
    """The browser really sent `origin` (as the gateway's log of its refusal says)."""
    [refusal] = posts_to_the_gateway(server)
    assert refusal.detail is not None and origin in refusal.detail, refusal.detail


# ---- in a browser -----------------------------------------------------------------------


FETCH = """async ([url, init]) => {
  try {
    const response = await fetch(url, init);
    return response.type === "opaque" ? "opaque" : String(response.status);
  } catch (error) {
    return `blocked: ${error.name}`;
  }
}"""

# A classic cross-site form: text/plain encoding turns name=value into a JSON-looking body.
SUBMIT_FORM = """([action, name, value]) => {
  const form = document.createElement("form");
  form.method = "POST";
  form.enctype = "text/plain";
  form.action = action;
  const field = document.createElement("input");
  field.type = "hidden";
  field.name = name;
  field.value = value;
  form.append(field);
  document.body.append(form);
  form.submit();
}"""


def form_fields(request: dict[str, Any]) -> tuple[str, str]:
    """Name and value whose `name=value` text/plain encoding is `request` as JSON."""
    text = json.dumps({**request, "padding": ""})
    cut = text.rindex('""') + 1
    return text[:cut], text[cut:]


@pytest.mark.guarantee(GUARANTEE)
def test_fetch_from_another_local_origin_is_refused_and_changes_nothing(
    page: Page, server: TutorialServer, upstream: FakeUpstream, other_origin: TutorialServer,
) -> None:
    open_page(page, other_origin.page_url("en"))
    target = f"{server.url}/api/model"
    body = json.dumps(MODEL_REQUEST)

    # The page's own kind of request: the browser must ask first (preflight), and is told no.
    json_post = {"method": "POST", "headers": {"Content-Type": "application/json"}, "body": body}
    assert page.evaluate(FETCH, [target, json_post]) == "blocked: TypeError"
    preflights = [r for r in server.log.records(path="/api/model") if r.method == "OPTIONS"]
    assert [r.status for r in preflights] == [405], preflights

    # A "simple" request needs no preflight, so it does reach the server, with an Origin.
    simple_post = {"method": "POST", "mode": "no-cors", "body": body,
                   "headers": {"Content-Type": "text/plain"}}
    with page.expect_response(target) as answer:
        assert page.evaluate(FETCH, [target, simple_post]) == "opaque"
    assert answer.value.status == 403

    assert_untouched(server, upstream, refusals=1, status=403, code="FORBIDDEN_ORIGIN")
    assert_refused_origin(server, other_origin.url)


@pytest.mark.guarantee(GUARANTEE)
def test_form_posted_from_another_local_origin_is_refused_and_changes_nothing(
    page: Page, server: TutorialServer, upstream: FakeUpstream, other_origin: TutorialServer,
) -> None:
    open_page(page, other_origin.page_url("en"))
    target = f"{server.url}/api/model"

    with page.expect_navigation(url=target) as navigation:
        page.evaluate(SUBMIT_FORM, [target, *form_fields(MODEL_REQUEST)])

    assert navigation.value is not None and navigation.value.status == 403
    assert_untouched(server, upstream, refusals=1, status=403, code="FORBIDDEN_ORIGIN")
    assert_refused_origin(server, other_origin.url)


@pytest.mark.guarantee(GUARANTEE)
def test_form_style_post_from_the_page_itself_is_refused_but_its_json_is_answered(
    page: Page, server: TutorialServer, upstream: FakeUpstream,
) -> None:
    open_page(page, server.page_url("en"))
    body = json.dumps(MODEL_REQUEST)

    for content_type in ("text/plain", "application/x-www-form-urlencoded"):
        init = {"method": "POST", "headers": {"Content-Type": content_type}, "body": body}
        assert page.evaluate(FETCH, ["/api/model", init]) == "415", content_type
    with page.expect_navigation(url=f"{server.url}/api/model") as navigation:
        page.evaluate(SUBMIT_FORM, ["/api/model", *form_fields(MODEL_REQUEST)])
    assert navigation.value is not None and navigation.value.status == 415
    assert_untouched(server, upstream, refusals=3, status=415, code="UNSUPPORTED_MEDIA_TYPE")

    # The same request as the page's JSON (from the same origin, where the form landed) is
    # forwarded: the refusals above were for the content type.
    json_post = {"method": "POST", "headers": {"Content-Type": "application/json"}, "body": body}
    assert page.evaluate(FETCH, ["/api/model", json_post]) == "200"
    assert len(upstream.received) == 1


# ---- over plain HTTP ----------------------------------------------------------------------


def foreign_origins(port: int) -> dict[str, str]:
    return {
        "other-port": f"http://127.0.0.1:{port + 1}",
        "other-port-localhost": f"http://localhost:{port + 1}",
        "other-scheme": f"https://127.0.0.1:{port}",
        "other-host-same-port": f"http://evil.example:{port}",
        "own-origin-as-prefix": f"http://127.0.0.1:{port}.evil.example",
        "opaque": "null",
    }


@pytest.mark.guarantee(GUARANTEE)
@pytest.mark.parametrize("which", foreign_origins(0).keys())
def test_json_post_with_a_foreign_origin_is_refused_403(
    server: TutorialServer, upstream: FakeUpstream, which: str,
) -> None:
    origin = foreign_origins(server.port)[which]

    response = httpx.post(f"{server.url}/api/model", json=MODEL_REQUEST,
                          headers={"Origin": origin})

    assert (response.status_code, response.json().get("code")) == (403, "FORBIDDEN_ORIGIN")
    assert_untouched(server, upstream, refusals=1, status=403, code="FORBIDDEN_ORIGIN")


@pytest.mark.guarantee(GUARANTEE)
@pytest.mark.parametrize("host", ["evil.example", "127.0.0.2"])
def test_json_post_addressed_to_a_foreign_host_is_refused_403(
    server: TutorialServer, upstream: FakeUpstream, host: str,
) -> None:
    """DNS rebinding: a name resolving here is not this server. No Origin, so only the
    Host can tell."""
    response = httpx.post(f"{server.url}/api/model", json=MODEL_REQUEST,
                          headers={"Host": f"{host}:{server.port}"})

    assert (response.status_code, response.json().get("code")) == (403, "FORBIDDEN_HOST")
    assert_untouched(server, upstream, refusals=1, status=403, code="FORBIDDEN_HOST")


FORM_STYLE_TYPES = {
    "text-plain": "text/plain;charset=UTF-8",
    "urlencoded": "application/x-www-form-urlencoded",
    "multipart": "multipart/form-data; boundary=x",
    "json-lookalike": "application/jsonp",
    "json-as-parameter": "text/plain; a=application/json",
    "none": None,
}


@pytest.mark.guarantee(GUARANTEE)
@pytest.mark.parametrize("content_type", FORM_STYLE_TYPES.values(), ids=FORM_STYLE_TYPES.keys())
def test_post_without_the_json_content_type_is_refused_415(
    server: TutorialServer, upstream: FakeUpstream, content_type: str | None,
) -> None:
    headers = {"Origin": server.url}
    if content_type is not None:
        headers["Content-Type"] = content_type

    response = httpx.post(f"{server.url}/api/model", content=json.dumps(MODEL_REQUEST),
                          headers=headers)

    assert (response.status_code, response.json().get("code")) == (415, "UNSUPPORTED_MEDIA_TYPE")
    assert_untouched(server, upstream, refusals=1, status=415, code="UNSUPPORTED_MEDIA_TYPE")


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_json_post_from_the_own_origin_is_forwarded(
    server: TutorialServer, upstream: FakeUpstream, host: str,
) -> None:
    """The control for the refusals above: the same request from the page's origin works."""
    response = httpx.post(f"{server.url}/api/model", json=MODEL_REQUEST,
                          headers={"Origin": f"http://{host}:{server.port}"})

    assert response.status_code == 200
    assert response.json()["message"]["tool_calls"][0]["function"]["name"] == "archive_workspace"
    assert len(upstream.received) == 1

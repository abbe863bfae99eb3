"""Fuzz every JSON endpoint of the fixture server, and its paths, over HTTP (Hypothesis,
derandomized: the same examples on every run, CI included). Whatever the body, headers or
path: no 5xx, every API request in the server log with the status it was answered, and a
refused request (4xx) changes nothing: not the workspace, not the testbed's calls, and the
model is never asked. A failure prints the smallest example, reproducible as it stands."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pling_harness import tutorial_backend
from pling_harness.server.runner import TutorialServer

# The harness's own checkout: the project these tests check.
PROJECT_ROOT = Path(__file__).resolve().parents[1]

R15_BACKEND = tutorial_backend(PROJECT_ROOT / "tutorials" / "r-15-confirmation-and-human-handoff")
# A state each of r-15's writes would change, so a write that got through shows.
START = R15_BACKEND.WorkspaceSnapshot(name="Start", archived=False, published=False)
FUZZ = settings(derandomize=True, database=None, deadline=None, max_examples=300,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# Any JSON value, NaN and infinities included (Python writes them; JSON has none).
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                 max_size=4),
    max_leaves=20)
# JSON texts Python's parser takes or chokes on, that a well-formed value never is.
hostile_texts = st.sampled_from([
    '"\\ud800"', '"a\\udc39b"', '{"\\ud83d": 1}', "NaN", "-Infinity", "1e400", "1" * 5000,
    "[" * 2000 + "]" * 2000, '{"a":' * 300 + "1" + "}" * 300, "", " ", "\ufeff{}", "{", "[1,]",
    '"\\u0000\\u202e"', "null", "[]", "0",
])
texts = st.one_of(st.text(max_size=90), hostile_texts)


def field_body(field: str) -> st.SearchStrategy[str]:
    """A body of the endpoint's shape with the field fuzzed, or anything at all."""
    return st.one_of(
        texts.map(lambda value: json.dumps({field: value})),
        hostile_texts.map(lambda text: f'{{"{field}": {text}}}'),
        json_values.map(json.dumps),
        hostile_texts,
    )


model_bodies = st.one_of(
    st.builds(lambda role, content, locale: json.dumps(
        {"messages": [{"role": role, "content": content}], "locale": locale}),
        st.sampled_from(["user", "assistant", "tool", "system", "admin"]),
        st.one_of(texts, json_values), st.sampled_from(["en", "zh", "fr", None])),
    hostile_texts.map(lambda text: '{"messages": [{"role": "user", "content": ' + text + "}]}"),
    json_values.map(json.dumps),
    hostile_texts,
)
ENDPOINTS: dict[str, st.SearchStrategy[str]] = {
    "/api/workspace/name": field_body("name"),
    "/api/workspace/archive": field_body("x") | st.just("{}") | st.just(""),
    "/api/workspace/reset": field_body("x") | st.just("{}"),
    "/api/workspace/publish": field_body("code"),
    "/api/testbed/run/fuzz": field_body("a"),
    "/api/model": model_bodies,
    # The same model on OpenAI's wire, for a page whose own server calls the model.
    "/v1/chat/completions": model_bodies.map(
        lambda body: body.replace('"locale"', '"model": "pling-scripted", "x-locale"', 1)),
}
CONTENT_TYPES = [None, "application/json", "application/json; charset=utf-8", "text/plain",
                 "application/x-www-form-urlencoded", "application/jsonp",
                 "text/plain; a=application/json", "APPLICATION/JSON"]
ORIGINS = [None, "own", "http://evil.example", "null", "http://127.0.0.1:1"]
HOSTS = ["own", "evil.example", "127.0.0.1:1"]


@pytest.fixture(scope="module")
def running() -> Iterator[TutorialServer]:
    with TutorialServer(tutorial="r-15", environ={}) as server:
        yield server


@pytest.fixture(scope="module")
def client(running: TutorialServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=running.url, timeout=30) as client:
        yield client


def headers_for(server: TutorialServer, content_type: str | None, origin: str | None,
                host: str) -> dict[str, str]:
    own = f"127.0.0.1:{server.port}"
    headers = {"Host": own if host == "own" else host}
    if content_type is not None:
        headers["Content-Type"] = content_type
    if origin is not None:
        headers["Origin"] = f"http://{own}" if origin == "own" else origin
    return headers


def everything(server: TutorialServer) -> tuple[Any, ...]:
    """What a request may change: the workspace, the testbed's calls, the model's requests."""
    model = server.model
    return (server.state.snapshot(), server.testbed.calls(),
            len(model.requests) if model is not None else 0)


def post_and_check(server: TutorialServer, client: httpx.Client, path: str, body: str,
                   headers: dict[str, str]) -> None:
    """POST `body` to `path` from START; no 5xx, logged with its status, a refusal inert."""
    server.reset()
    server.state.replace(START)
    before = everything(server)
    seen = server.log.last_seq

    response = client.post(path, content=body.encode("utf-8", "surrogatepass"), headers=headers)

    assert response.status_code < 500, response.text
    records = server.log.records(after=seen)
    assert records, "the request left no record in the server log"
    assert records[-1].status == response.status_code
    if response.status_code >= 400:
        assert everything(server) == before, f"refused {response.status_code}, yet changed"
        assert len(records) == 1


@FUZZ
@given(path=st.sampled_from(sorted(ENDPOINTS)), data=st.data(),
       origin=st.sampled_from([None, "own"]))
def test_any_body_the_page_could_send_is_answered_below_500_logged_and_a_refusal_changes_nothing(
    running: TutorialServer, client: httpx.Client, path: str, data: st.DataObject,
    origin: str | None,
) -> None:
    body = data.draw(ENDPOINTS[path], label="body")
    post_and_check(running, client, path, body,
                   headers_for(running, "application/json", origin, "own"))


@FUZZ
@given(path=st.sampled_from(sorted(ENDPOINTS)), data=st.data(),
       content_type=st.sampled_from(CONTENT_TYPES), origin=st.sampled_from(ORIGINS),
       host=st.sampled_from(HOSTS))
def test_any_headers_and_body_are_answered_below_500_logged_and_a_refusal_changes_nothing(
    running: TutorialServer, client: httpx.Client, path: str, data: st.DataObject,
    content_type: str | None, origin: str | None, host: str,
) -> None:
    body = data.draw(ENDPOINTS[path], label="body")
    post_and_check(running, client, path, body,
                   headers_for(running, content_type, origin, host))


# Path segments as a client might send them: any text, percent-encoded, plus dot segments.
segments = st.one_of(st.text(max_size=12), st.sampled_from(
    ["..", ".", "", ".env", ".git", "%00", "x.map", "index.html", "en.json", "%2e%2e"]))


@FUZZ
@given(prefix=st.sampled_from(["/", "/pling/", "/testbed/", "/copy/", "/api/", "//"]),
       parts=st.lists(segments, max_size=4), method=st.sampled_from(["GET", "HEAD"]))
def test_any_path_is_answered_below_500(running: TutorialServer, client: httpx.Client,
                                        prefix: str, parts: list[str], method: str) -> None:
    path = prefix + "/".join(quote(part, safe="%.") for part in parts)
    before = everything(running)

    # Absolute: httpx refuses a relative URL whose path starts with "//" before sending it.
    response = client.request(method, running.url + path)

    assert response.status_code < 500, (path, response.text[:200])
    assert everything(running) == before

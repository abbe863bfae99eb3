"""Fuzz every endpoint of every page's server over HTTP (issue 39 §2): the fixture server
(business API, testbed, model gateway, the model on OpenAI's wire, static files, paths a dev
server would answer), the React page under Vite's dev server and under `vite preview` (their
proxy to the fixture server), the AI SDK page's server (its chat route and its proxy),
assistant-ui's (the same AI SDK chat route under its runtime) and CopilotKit's runtime and
proxy. Hypothesis, derandomized (the same examples on every run, CI
included), few examples per test: one test per page and endpoint family, so a failure names
both.

Whatever the method, path, headers (content type, a foreign Origin, Host or
`Sec-Fetch-Site`) and body (malformed JSON at any depth, huge numbers, lone surrogates and
bytes that are not UTF-8, control and bidi characters, long strings):

- an answer comes within the request's timeout, and it is not a 5xx;
- a refused request (4xx) changes nothing: not the workspace, not the testbed's calls, and
  neither the gateway nor the model on OpenAI's wire heard a request;
- no refusal and no API answer shows anything of the checkout: its absolute path,
  `node_modules`, a stack trace's `    at ` frames.

A counterexample found once is kept as an `@example`, so it runs first, every time. To hunt
for more, run more examples: `FUZZ_EXAMPLES=300 .venv/bin/pytest tests/test_pages_fuzz.py`
(`FUZZ_TRACE=1` and `-s` print each request as it is sent: the last one before a hang)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from pling_harness.project.pages_table import page_row
from pling_harness.project.tutorials import load_tutorial
from pling_harness.server.page_process import PageProcess, row_process
from pling_harness.server.runner import TutorialServer

# The harness's own checkout: the project these tests check.
PROJECT_ROOT = Path(__file__).resolve().parents[1]
TUTORIAL = load_tutorial("r-15", PROJECT_ROOT)
# What no answer may show: where the checkout is, what it installed, a stack.
LEAKS = (str(PROJECT_ROOT), "node_modules", "    at ")
# Per request: long enough for an agent turn on a loaded machine, short enough to call a
# request that gets no answer a hang.
REQUEST_TIMEOUT_S = 20.0
# Few examples by default (the suite's cost); FUZZ_EXAMPLES=300 to hunt.
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "25"))
FUZZ = settings(derandomize=True, database=None, deadline=None, max_examples=EXAMPLES,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])

PAGES = ("ours", "react", "react-build", "ai-sdk", "copilotkit", "assistant-ui")
VITE_PAGES = PAGES[1:]


# ---- what a hostile client sends -----------------------------------------------------------------

# Text a JSON string may hold: control and bidi characters, long runs, any character.
hostile_strings = st.one_of(
    st.text(max_size=40),
    st.sampled_from(["\u0000", "\u202e", "\u2066evil\u2069", "\u200b", "\r\n", "\ufeff",
                     "x" * 100_000, "工作区" * 2000, "\U0001f600"]),
)
# Any JSON value, Python's NaN and infinities included (JSON has none).
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | hostile_strings,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(hostile_strings, inner,
                                                                 max_size=4),
    max_leaves=12)
# JSON texts a parser chokes on or a well-formed value never is: huge numbers, escapes of
# lone surrogates, depth, truncation.
hostile_json = st.sampled_from([
    "1e99999", "-1e-99999", "1" * 5000, "123456789012345678901234567890", "NaN", "-Infinity",
    '"\\ud800"', '"a\\udc39b"', '{"\\ud83d": 1}', "[" * 3000 + "]" * 3000,
    '{"a":' * 300 + "1" + "}" * 300, "", " ", "\ufeff{}", "{", "[1,]", '"\\u0000\\u202e"',
    "null", "[]", "0", "{}", '{"__proto__": {"x": 1}}', '{"constructor": {"prototype": 1}}',
])
# Bytes no UTF-8 encoder writes.
not_utf8 = st.sampled_from([b'{"name": "\xff\xfe"}', b"\xc3\x28", b'{"a": "\xed\xa0\x80"}',
                            b"\x80", b'{"messages": "\xf5\x80\x80\x80"}'])


def shaped(envelope: Any, holes: dict[str, Any]) -> st.SearchStrategy[bytes]:
    """`envelope` (a JSON value with "$NAME" strings) with each hole filled by anything."""
    text = json.dumps(envelope)

    def fill(values: dict[str, str]) -> bytes:
        filled = text
        for name, value in values.items():
            filled = filled.replace(f'"${name}"', value)
        return filled.encode("utf-8", "surrogatepass")

    return st.fixed_dictionaries({
        name: st.one_of(st.just(json.dumps(good)), hostile_json,
                        json_values.map(json.dumps), hostile_strings.map(json.dumps))
        for name, good in holes.items()}).map(fill)


def bodies(*shapes: st.SearchStrategy[bytes]) -> st.SearchStrategy[bytes]:
    """A body of one of the endpoint's shapes with holes fuzzed, or anything at all."""
    return st.one_of(*shapes, json_values.map(lambda value: json.dumps(value).encode()),
                     hostile_json.map(lambda text: text.encode("utf-8", "surrogatepass")),
                     not_utf8)


BUSINESS = bodies(shaped({"name": "$name"}, {"name": "Acme"}),
                  shaped({"code": "$code"}, {"code": "246810"}), st.just(b"{}"), st.just(b""))
MODEL_GATEWAY = bodies(shaped(
    {"messages": [{"role": "$role", "content": "$content"}], "locale": "$locale"},
    {"role": "user", "content": "archive the workspace", "locale": "en"}))
CHAT_COMPLETIONS = bodies(shaped(
    {"model": "$model", "messages": [{"role": "$role", "content": "$content"}],
     "stream": "$stream"},
    {"model": "pling-scripted", "role": "user", "content": "archive the workspace",
     "stream": True}))
AI_SDK_CHAT = bodies(shaped(
    {"locale": "$locale", "messages": [{"id": "$id", "role": "$role",
                                        "parts": [{"type": "$type", "text": "$text"}]}]},
    {"locale": "en", "id": "m1", "role": "user", "type": "text",
     "text": "rename the workspace to Acme"}))
COPILOTKIT_RUN = bodies(shaped(
    {"threadId": "$thread", "runId": "r1", "state": "$state", "tools": "$tools",
     "context": [], "forwardedProps": {},
     "messages": [{"id": "m1", "role": "$role", "content": "$content"}]},
    {"thread": "t1", "state": {}, "tools": [], "role": "user",
     "content": "rename the workspace to Acme"}),
    # CopilotKit's single-route form: one POST naming the method.
    shaped({"method": "$method", "params": {"agentId": "$agent"}, "body": "$body"},
           {"method": "agent/run", "agent": "default", "body": {}}))

# Each family's first path is the one its page uses most.
BUSINESS_PATHS = ["/api/workspace/name", "/api/workspace", "/api/workspace/archive",
                  "/api/workspace/reset", "/api/workspace/publish", "/api/workspace/x",
                  "/api/workspace/name/../archive", "/api/workspace%2Farchive"]
GATEWAY_PATHS = ["/api/model", "/api/model/", "/api/models"]
COMPLETIONS_PATHS = ["/v1/chat/completions", "/v1/models", "/v1/completions", "/v1/"]
TESTBED_PATHS = ["/api/testbed/run/fuzz", "/api/testbed/run/", "/api/testbed/calls",
                 "/testbed", "/testbed/"]
AI_SDK_PATHS = ["/api/chat", "/api/chat/", "/api/chat?x=1", "/api/chat/x"]
COPILOTKIT_PATHS = ["/api/copilotkit/agent/default/run", "/api/copilotkit",
                    "/api/copilotkit/", "/api/copilotkit/info",
                    "/api/copilotkit/agent/default/connect",
                    "/api/copilotkit/agent/default/stop/t1", "/api/copilotkit/agent/nobody/run",
                    "/api/copilotkit/transcribe", "/api/copilotkit/threads"]
# Not fuzzed: GET /api/copilotkit/cpk-debug-events, the runtime's debug feed, on whenever
# NODE_ENV is development (as under Vite's dev server): an event stream that stays open by
# design (@copilotkit/runtime 1.74.0, dist/v2/runtime/handlers/handle-debug-events.mjs), so a
# request that reads the whole answer never ends.
# Files, dev-server endpoints (Vite's editor launcher, file system and module routes), and
# paths that reach for what a server must not show.
STATIC_PATHS = ["/", "/?lang=en", "/index.html", "/__open-in-editor?file=backend.py",
                "/%5F%5Fopen-in-editor?file=x", "/__vite_ping", "/@vite/client", "/@fs/etc/passwd",
                f"/@fs{PROJECT_ROOT}/pyproject.toml", "/@id/x", "/src/main.tsx",
                "/src/nothing.tsx", "/src/main.tsx?import&raw", "/node_modules/.vite/x.js",
                "/.env", "/.git/config", "/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd",
                "/pling/agent.js", "/pling/%00", "/copy/en.json", "/copy/xx.json",
                "/assets/x.js.map", "/vite.config.ts", "/package.json", "//evil.example/"]
METHODS = ["POST", "GET", "HEAD", "PUT", "DELETE", "PATCH", "OPTIONS"]
CONTENT_TYPES = [None, "application/json", "application/json", "application/json; charset=utf-8",
                 "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; b=x",
                 "text/plain; a=application/json", "APPLICATION/JSON", "application/jsonp"]
ORIGINS = [None, None, "own", "http://evil.example", "null", "http://127.0.0.1:1"]
HOSTS = ["own", "own", "evil.example", "127.0.0.1:1", "localhost"]
FETCH_SITES = [None, None, "same-origin", "same-site", "cross-site", "none"]


@dataclass(frozen=True, repr=False)
class Hostile:
    """One request as a hostile client might send it."""

    method: str
    path: str
    body: bytes
    content_type: str | None
    origin: str | None
    host: str
    fetch_site: str | None
    forwarded: bool

    def __repr__(self) -> str:
        # A failing example is printed: a large body by its start and its length.
        body = repr(self.body) if len(self.body) <= 300 else (
            f"{self.body[:200]!r} + ... ({len(self.body)} bytes)")
        return (f"Hostile(method={self.method!r}, path={self.path!r}, body={body}, "
                f"content_type={self.content_type!r}, origin={self.origin!r}, "
                f"host={self.host!r}, fetch_site={self.fetch_site!r}, "
                f"forwarded={self.forwarded!r})")


def requests(paths: list[str], body: st.SearchStrategy[bytes],
             method: str = "POST") -> st.SearchStrategy[Hostile]:
    """Half the requests as the page itself sends them (its method, mostly to the first
    path, from its own address, as JSON), so the body reaches the parser; half with any
    method and any headers."""
    as_the_page = st.builds(
        Hostile, method=st.just(method),
        path=st.one_of(st.just(paths[0]), st.sampled_from(paths)), body=body,
        content_type=st.sampled_from(["application/json", "application/json; charset=utf-8"]),
        origin=st.sampled_from([None, "own"]), host=st.just("own"),
        fetch_site=st.sampled_from([None, "same-origin"]), forwarded=st.just(False))
    anyhow = st.builds(
        Hostile, method=st.sampled_from(METHODS), path=st.sampled_from(paths), body=body,
        content_type=st.sampled_from(CONTENT_TYPES), origin=st.sampled_from(ORIGINS),
        host=st.sampled_from(HOSTS), fetch_site=st.sampled_from(FETCH_SITES),
        forwarded=st.booleans())
    return st.one_of(as_the_page, anyhow)


# ---- the servers: each started once for the module -----------------------------------------------


@dataclass(frozen=True)
class Page:
    name: str
    url: str
    api: TutorialServer

    @property
    def authority(self) -> str:
        return self.url.removeprefix("http://")

    def headers(self, request: Hostile) -> dict[str, str]:
        headers = {"Host": self.authority if request.host == "own" else request.host}
        if request.content_type is not None:
            headers["Content-Type"] = request.content_type
        if request.origin is not None:
            headers["Origin"] = self.url if request.origin == "own" else request.origin
        if request.fetch_site is not None:
            headers["Sec-Fetch-Site"] = request.fetch_site
        if request.forwarded:
            # What a proxy would say; no server here trusts it.
            headers["X-Forwarded-Host"] = self.authority
            headers["Forwarded"] = f'host="{self.authority}";proto=http'
        return headers


@pytest.fixture(scope="module")
def api() -> Iterator[TutorialServer]:
    """The fixture server: our page, and every Vite page's API and model."""
    with TutorialServer(tutorial=TUTORIAL, environ={}) as running:
        yield running


def vite_for(page: str, api: TutorialServer) -> PageProcess:
    """The page's row (tutorial.json `pages`), as `check --page` starts it."""
    return row_process(page_row(TUTORIAL, PROJECT_ROOT, page), root=PROJECT_ROOT,
                       api_origin=api.url)


@pytest.fixture(scope="module", params=PAGES)
def page(request: pytest.FixtureRequest, api: TutorialServer) -> Iterator[Page]:
    """One page's server at a time (ours is the fixture server itself)."""
    name = str(request.param)
    if name == "ours":
        yield Page(name, api.url, api)
        return
    with vite_for(name, api) as vite:
        yield Page(name, vite.origin, api)


# ---- the properties ------------------------------------------------------------------------------

# A state each of r-15's writes would change, so a write that got through shows.
START = {"name": "Start", "archived": False, "published": False}


def everything(api: TutorialServer) -> tuple[Any, ...]:
    """What a request may change: the workspace, the testbed's calls, what the model heard
    (on the gateway and on OpenAI's wire)."""
    model = api.model
    return (api.state.snapshot().fields(), api.testbed.calls(),
            len(model.requests) if model is not None else 0,
            [record.path for record in api.log.records(kind="model.request")])


def send(page: Page, request: Hostile) -> None:
    """`request` to `page`, from a known state; the properties of the module's docstring."""
    api = page.api
    api.reset()
    api.state.replace(api.state.reset().model_copy(update=START))
    before = everything(api)
    content = request.body if request.method not in ("GET", "HEAD") else b""
    if os.environ.get("FUZZ_TRACE"):
        print(page.name, request.method, request.path, request.body[:120], flush=True)
    with httpx.Client(timeout=REQUEST_TIMEOUT_S) as client:
        # A timeout raises: a request that gets no answer fails the example.
        response = client.request(request.method, page.url + request.path, content=content,
                                  headers=page.headers(request))
    shown = response.text[:300]
    # --hypothesis-show-statistics tells how many examples were answered, how many refused.
    event(f"answered {response.status_code}")
    assert response.status_code < 500, (response.status_code, shown)
    if response.status_code >= 400 or request.path.startswith(("/api/", "/v1/")):
        answer = response.text + "\n".join(f"{k}: {v}" for k, v in response.headers.items())
        for leak in LEAKS:
            assert leak not in answer, (response.status_code, leak, shown)
    if response.status_code >= 400:
        assert everything(api) == before, f"refused {response.status_code}, yet changed"


def on(*pages: str) -> pytest.MarkDecorator:
    return pytest.mark.parametrize("page", pages, indirect=True)


@on(*PAGES)
@FUZZ
@given(request=requests(BUSINESS_PATHS, BUSINESS))
# A refusal the fixture server answered without reading the body (an unknown path, a wrong
# method or content type) reset a proxy still sending a large body: the page's proxy then
# answered its own error, not the refusal (fixed in pling_harness/server/drain.py).
@example(request=Hostile(method="POST", path="/api/workspace/x", body=b"[" + b'"x",' * 100_000
                         + b"0]", content_type="application/json", origin=None, host="own",
                         fetch_site=None, forwarded=False))
def test_business_api(page: Page, request: Hostile) -> None:
    send(page, request)


@on("ours", "react", "react-build")
@FUZZ
@given(request=requests(GATEWAY_PATHS, MODEL_GATEWAY))
def test_model_gateway(page: Page, request: Hostile) -> None:
    send(page, request)


@on("ours")
@FUZZ
@given(request=requests(COMPLETIONS_PATHS, CHAT_COMPLETIONS))
def test_model_on_openai_wire(page: Page, request: Hostile) -> None:
    send(page, request)


@on("ours", "react", "react-build")
@FUZZ
@given(request=requests(TESTBED_PATHS, BUSINESS))
def test_testbed(page: Page, request: Hostile) -> None:
    send(page, request)


@on("ai-sdk", "assistant-ui")
@FUZZ
@given(request=requests(AI_SDK_PATHS, AI_SDK_CHAT))
def test_ai_sdk_chat_route(page: Page, request: Hostile) -> None:
    send(page, request)


@on("copilotkit")
@FUZZ
@given(request=requests(COPILOTKIT_PATHS, COPILOTKIT_RUN))
def test_copilotkit_runtime(page: Page, request: Hostile) -> None:
    send(page, request)


@on(*PAGES)
@FUZZ
@given(request=requests(STATIC_PATHS, bodies(), method="GET"))
# Vite's dev server refused a file outside `server.fs.allow` with an HTML page listing every
# allowed folder by its absolute path (fixed in fixtures/pling-vite/dev-server-guard.ts).
@example(request=Hostile(method="GET", path="/@fs/etc/passwd", body=b"", content_type=None,
                         origin=None, host="own", fetch_site="same-origin", forwarded=False))
def test_files_and_dev_endpoints(page: Page, request: Hostile) -> None:
    send(page, request)

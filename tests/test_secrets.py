"""The provider key stays on the server: it reaches the upstream in the Authorization header
and nothing the browser ever received or holds contains it, even when the upstream echoes it."""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest
from playwright.sync_api import Page, Request, Response, expect

from pling_harness.browser.dock import Dock
from pling_harness.evidence import guarantees
from pling_harness.evidence.timeline import Timeline
from pling_harness.plugin.options import required_root
from pling_harness.project.tutorials import TutorialError, load_tutorial
from pling_harness.server.model.fake_upstream import Fail, FakeUpstream, Malformed
from pling_harness.server.runner import TutorialServer

# What a user types, per locale (matched by the tutorial's model rules).
ASK = {
    "status": {"en": "what is the workspace status?", "zh": "查看工作区状态"},
    "save": {"en": "rename the workspace to Acme", "zh": "把工作区名称改为 Acme"},
    "archive": {"en": "archive the workspace", "zh": "归档工作区"},
}
STORAGE = """() => JSON.stringify({
  local: Object.entries(localStorage), session: Object.entries(sessionStorage),
  cookie: document.cookie, name: window.name, url: location.href,
})"""


@pytest.fixture
def api_key() -> str:
    """A fresh random key per test, so any trace of it can only come from this run."""
    return f"sk-pling-{secrets.token_hex(24)}"


@pytest.fixture
def upstream(tutorial_id: str, pytestconfig: pytest.Config) -> Iterator[FakeUpstream]:
    """The OpenAI-compatible upstream, echoing the Authorization it receives in every reply."""
    root = required_root(pytestconfig)
    try:
        tutorial = load_tutorial(tutorial_id, root)
    except TutorialError as error:
        pytest.fail(str(error), pytrace=False)
    with FakeUpstream.answering_like(tutorial, root, echo_authorization=True) as fake:
        yield fake


@pytest.fixture
def tutorial_server(upstream: FakeUpstream, api_key: str, tutorial_id: str,
                    pytestconfig: pytest.Config) -> Iterator[TutorialServer]:
    with TutorialServer(tutorial=tutorial_id, root=required_root(pytestconfig),
                        environ=upstream.environ(api_key=api_key)) as server:
        yield server


@dataclass
class BrowserTraffic:
    """Every request the page sent and every response it received, from the first byte."""

    requests: list[Request] = field(default_factory=list)
    responses: list[Response] = field(default_factory=list)

    def texts(self) -> dict[str, str]:
        """Where → what, for everything captured (headers and bodies)."""
        seen: dict[str, str] = {}
        for index, request in enumerate(self.requests):
            where = f"request {index} {request.method} {request.url}"
            seen[f"{where} headers"] = json.dumps(request.all_headers())
            seen[f"{where} body"] = request.post_data or ""
        for index, response in enumerate(self.responses):
            where = f"response {index} {response.status} {response.url}"
            seen[f"{where} headers"] = json.dumps(response.all_headers())
            seen[f"{where} body"] = response.body().decode("utf-8", errors="replace")
        return seen


@pytest.fixture
def traffic(page: Page) -> BrowserTraffic:
    """Records the page's traffic; list it before `tutorial_page` so loading is recorded too."""
    recorded = BrowserTraffic()
    page.on("request", lambda request: recorded.requests.append(request))
    page.on("response", lambda response: recorded.responses.append(response))
    return recorded


@pytest.mark.guarantee("secrets-stay-on-server")
def test_provider_key_reaches_the_upstream_and_nothing_in_the_browser(
    traffic: BrowserTraffic, tutorial_page: Page, dock: Dock, timeline: Timeline,
    upstream: FakeUpstream, api_key: str, locale: str,
) -> None:
    # A walk that uses the model every way the page can: a read, an approved write, a denial,
    # and upstream faults whose bodies carry the key, as some providers' error texts do.
    dock.ask(ASK["status"][locale])
    dock.ask(ASK["save"][locale])
    dock.approve()
    dock.ask(ASK["archive"][locale])
    dock.deny()
    upstream.queue(Fail(401, json.dumps({"error": {
        "message": f"Incorrect API key provided: {api_key}", "type": "invalid_request_error"}})))
    dock.ask(ASK["status"][locale])
    upstream.queue(Malformed(body=f'{{"error": "bad key {api_key}", '))
    dock.ask(ASK["status"][locale])

    # Nothing the browser received, sent, shows or stores carries the key.
    captured = traffic.texts()
    captured["DOM at the end"] = tutorial_page.content()
    captured["storage"] = tutorial_page.evaluate(STORAGE)
    captured["context storage"] = json.dumps(tutorial_page.context.storage_state(indexed_db=True))
    captured["cookies"] = json.dumps(tutorial_page.context.cookies())
    secret = api_key.removeprefix("sk-pling-")
    leaks = [where for where, text in captured.items() if secret in text]
    assert leaks == [], f"the provider key reached the browser in: {leaks}"

    # The key went where it belongs: to the upstream, as a bearer token, every time.
    received = upstream.received
    assert len(received) == len(timeline.server_records(kind="model.request")) >= 8
    assert {r.headers.get("authorization") for r in received} == {f"Bearer {api_key}"}

    # And the search was not vacuous: the walk went as planned and its traffic was captured.
    guarantees.model_received(timeline, action="save_workspace_name", code="OK")
    expect(dock.messages("error")).to_have_count(2)
    model_replies = [where for where in captured
                     if where.startswith("response") and where.endswith("/api/model body")]
    assert len(model_replies) == len(received)

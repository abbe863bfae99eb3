"""The target's own business API refuses what would reach it around the approval card: a
foreign `Origin` (another site, another port or scheme, `null` from a sandboxed frame or a
file page), a body not declared exactly as `application/json` (`text/plain`, forms, none,
`application/jsonp`, `text/plain; a=application/json`), and a foreign `Host` (DNS
rebinding) on reads as well as writes. Sent over HTTP to the server under check, so it runs
against the fixture server and, with `--base-url`, against yours: each state-changing
request the tutorial declares (its presets and its reset) is sent from a state it would
change, is refused with its status, and the state, read back and shown by the page, is
unchanged; the model endpoint (`api.model`) refuses the same requests. (These refusals were
proven only by `tests/` against the fixture server, and the guarantee was
`n/a (external)`.)"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from playwright.sync_api import expect
from workspace_state import WorkspaceSnapshot

from pling_harness import Dock, OpenTutorialPage, Tutorial, TutorialServer

GUARANTEE = "server-refuses-foreign-requests"
# A value for a preset that sets any value (r-15: the name), unlike every state it starts from.
FOREIGN_VALUE = "Taken over"
# Where a declared reset would change something: every field away from the initial state.
CHANGED = WorkspaceSnapshot(name="Globex", archived=True, published=True)
REQUEST_TIMEOUT_SECONDS = 15.0
# A request the model endpoint would answer (gateway wire format): refused, it reaches no model.
GATEWAY_REQUEST = {"messages": [{"role": "user", "content": "archive the workspace"}],
                   "tools": [], "locale": "en"}


@dataclass(frozen=True)
class Foreign:
    """One way a request is foreign: the headers it carries instead of a page's own, and the
    status the contract says it is refused with."""

    status: int
    origin: str | None = None
    host: str | None = None
    content_type: str | None = "application/json"


def foreign_ways(port: int) -> dict[str, Foreign]:
    """Every way a request is foreign to a server on `port` (named for the test ids)."""
    origins = {
        "other-site": "http://evil.example",
        "other-port": f"http://127.0.0.1:{port + 1}",
        "other-scheme": f"https://127.0.0.1:{port}",
        "other-host-same-port": f"http://evil.example:{port}",
        "own-origin-as-prefix": f"http://127.0.0.1:{port}.evil.example",
        "null-sandboxed-frame-or-file-page": "null",
    }
    content_types: dict[str, str | None] = {
        "text-plain": "text/plain;charset=UTF-8",
        "form-urlencoded": "application/x-www-form-urlencoded",
        "multipart": "multipart/form-data; boundary=pling",
        "none": None,
        "jsonp": "application/jsonp",
        "json-only-inside": "text/plain; a=application/json",
    }
    hosts = {
        "rebound-name": f"evil.example:{port}",
        "rebound-name-no-port": "evil.example",
        "other-port": f"127.0.0.1:{port + 1}",
        "own-host-as-prefix": f"localhost.evil.example:{port}",
    }
    return ({f"origin-{k}": Foreign(403, origin=v) for k, v in origins.items()}
            | {f"content-type-{k}": Foreign(415, content_type=v)
               for k, v in content_types.items()}
            | {f"host-{k}": Foreign(403, host=v) for k, v in hosts.items()})


# The ids, the same for every port (the headers are built once the target's port is known).
FOREIGN_WAYS = list(foreign_ways(0))


@dataclass(frozen=True)
class Write:
    """A state-changing request the tutorial declares, and the state it would change."""

    what: str
    method: str
    path: str
    body: dict[str, Any]
    starts_from: WorkspaceSnapshot


def declared_writes(tutorial: Tutorial, initial: WorkspaceSnapshot) -> list[Write]:
    """Each preset (from the initial state, which it would change) and the reset (from a
    state it would change), as `tutorial.json` declares them."""
    api = tutorial.api
    writes = [Write(f"the preset for {p.field}", r.method, r.path, r.body or {}, initial)
              for p in api.presets
              for r in [p.request_for(FOREIGN_VALUE if p.any_value else p.value)]]
    if api.reset is not None:
        writes.append(Write("the reset", api.reset.method, api.reset.path,
                            api.reset.body or {}, CHANGED))
    return writes


def send(client: httpx.Client, foreign: Foreign, method: str, path: str,
         body: dict[str, Any] | None) -> httpx.Response:
    headers = {}
    if foreign.origin is not None:
        headers["Origin"] = foreign.origin
    if foreign.host is not None:
        headers["Host"] = foreign.host
    if body is not None and foreign.content_type is not None:
        headers["Content-Type"] = foreign.content_type
    content = None if body is None else json.dumps(body).encode()
    return client.request(method, path, headers=headers, content=content)


def refused(response: httpx.Response, foreign: Foreign, what: str) -> str | None:
    """What is wrong with the answer to a foreign request, or None when it was refused."""
    problems = []
    if response.status_code != foreign.status:
        problems.append(f"answered {response.status_code}, not {foreign.status}")
    if "access-control-allow-origin" in response.headers:
        problems.append("sent Access-Control-Allow-Origin: "
                        f"{response.headers['access-control-allow-origin']}")
    if not problems:
        return None
    return (f"{what} ({response.request.method} {response.request.url}, "
            f"{dict((k, v) for k, v in response.request.headers.items() if k in HEADERS)}) "
            f"{' and '.join(problems)}: {response.text[:200]!r}")


HEADERS = ("origin", "host", "content-type")


@pytest.mark.guarantee(GUARANTEE)
@pytest.mark.parametrize("way", FOREIGN_WAYS)
def test_foreign_request_to_the_business_api_is_refused_and_changes_nothing(
    tutorial: Tutorial, tutorial_server: TutorialServer,
    open_tutorial_page: OpenTutorialPage, dock: Dock, way: str,
) -> None:
    port = urlsplit(tutorial_server.url).port
    assert port is not None, f"the server under check has no port: {tutorial_server.url}"
    foreign = foreign_ways(port)[way]
    initial = tutorial_server.state.snapshot()
    writes = declared_writes(tutorial, initial)
    assert writes, "tutorial.json declares no state-changing request (api.presets, api.reset)"
    problems: list[str] = []
    last = initial
    with httpx.Client(base_url=tutorial_server.url,
                      timeout=REQUEST_TIMEOUT_SECONDS) as client:
        for write in writes:
            if last != write.starts_from:
                last = tutorial_server.state.replace(write.starts_from)
            problem = refused(send(client, foreign, write.method, write.path, write.body),
                              foreign, write.what)
            now = tutorial_server.state.snapshot()
            if now != last:
                problem = (problem or f"{write.what} was answered as refused") + (
                    f"; the state changed from {last.model_dump()} to {now.model_dump()}")
                last = now
            if problem:
                problems.append(problem)
        # The endpoints that carry the conversation are guarded like the business API:
        # refused, they ask no model. The tutorial's model endpoint, or the assistant's own
        # on the page's server when its framework runs the conversation (the driver's).
        for endpoint in dock.spec.assistant_endpoints or (tutorial.api.model,):
            problem = refused(send(client, foreign, "POST", endpoint, GATEWAY_REQUEST),
                              foreign, f"the conversation's endpoint {endpoint}")
            if problem:
                problems.append(problem)
        # A rebound name may not even read: the Host is checked on every API route.
        if foreign.host is not None and tutorial.api.state is not None:
            read = tutorial.api.state
            problem = refused(send(client, foreign, read.method, read.path, None), foreign,
                              "the state request")
            if problem:
                problems.append(problem)
    assert not problems, (f"the server at {tutorial_server.url} must refuse requests with "
                          f"{way}:\n  " + "\n  ".join(problems))

    # What the page shows, opened now from the server's answers, is the state left before.
    page = open_tutorial_page()
    expect(page.get_by_test_id("workspace-name-display")).to_have_text(last.name)
    status = page.get_by_test_id("workspace-status")
    expect(status).to_have_attribute("data-state", "published" if last.published else "draft")
    expect(status).to_have_attribute("data-archived", "true" if last.archived else "false")

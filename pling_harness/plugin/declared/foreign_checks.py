"""Generated checks that the page's own server refuses what would reach it around the approval
card (guarantee `server-refuses-foreign-requests`): a foreign `Origin` (another site, port or
scheme, `null` from a sandboxed frame or a file page), a `Sec-Fetch-Site` saying another
site's page sent it (with or without an `Origin`), a body not declared exactly as
`application/json`, and a foreign `Host` (DNS rebinding), also when a forwarding header
(`X-Forwarded-Host`, `Forwarded: host=`) names the server's own address: a server under check
trusts no proxy. Sent over HTTP to the server under
check (`under_check`), so they run against the fixture server, against a page the run started
(`--page NAME`: its own server, which runs its assistant's endpoints and proxies the API) and,
with `--base-url`, against yours.

Per action whose business request changes something (its `calls`, or a handoff's
`done.request`, when not a GET): from a state the request would change, each foreign way is
refused with its status, and the state, read back and as the page shows it, is unchanged.
Once per locale for the table: the conversation's endpoints refuse every foreign way (they ask
no model), and a foreign Host may not even read the state."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx

from pling_harness.browser.pages import reload_page
from pling_harness.evidence.arguments import minimal_arguments
from pling_harness.evidence.guarantees import GuaranteeViolation
from pling_harness.plugin.declared.context import DeclaredRun
from pling_harness.plugin.external import ServedTutorial
from pling_harness.project.action_table import filled, placeholder
from pling_harness.project.contract import ApiRequest
from pling_harness.server.runner import TutorialServer

GUARANTEE = "server-refuses-foreign-requests"
REQUEST_TIMEOUT_SECONDS = 15.0
# A request the model endpoint would answer (gateway wire format): refused, it reaches no model.
GATEWAY_REQUEST = {"messages": [{"role": "user", "content": "archive the workspace"}],
                   "tools": [], "locale": "en"}
# The headers a refusal's message quotes.
QUOTED_HEADERS = ("origin", "host", "content-type", "sec-fetch-site", "x-forwarded-host",
                  "forwarded")


@dataclass(frozen=True)
class Foreign:
    """One way a request is foreign: the headers it carries instead of a page's own, and the
    status the contract says it is refused with."""

    status: int
    origin: str | None = None
    host: str | None = None
    content_type: str | None = "application/json"
    # Headers a browser or a proxy adds besides those (`Sec-Fetch-Site`, forwarding headers).
    more: tuple[tuple[str, str], ...] = ()


def foreign_ways(port: int, own_authority: str) -> dict[str, Foreign]:
    """Every way a request is foreign to a server on `port`, whose pages come from
    `own_authority` (`host:port`), by name."""
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
    # A browser names the site that made the request; another port of 127.0.0.1 is the same
    # site, so `same-site` is another page's too. Refused alone, and beside the own Origin.
    own_origin = f"http://{own_authority}"
    sites = {
        "cross-site": Foreign(403, more=(("Sec-Fetch-Site", "cross-site"),)),
        "same-site": Foreign(403, more=(("Sec-Fetch-Site", "same-site"),)),
        "cross-site-beside-own-origin": Foreign(403, origin=own_origin,
                                                more=(("Sec-Fetch-Site", "cross-site"),)),
    }
    # A rebound name whose request says, the way a proxy would, that it was for our address.
    forwarded = {
        "x-forwarded-host": (("X-Forwarded-Host", own_authority),),
        "forwarded-host": (("Forwarded", f'host="{own_authority}"'),),
        "x-forwarded-host-and-proto": (("X-Forwarded-Host", own_authority),
                                       ("X-Forwarded-Proto", "http")),
    }
    return ({f"origin-{k}": Foreign(403, origin=v) for k, v in origins.items()}
            | {f"sec-fetch-site-{k}": v for k, v in sites.items()}
            | {f"content-type-{k}": Foreign(415, content_type=v)
               for k, v in content_types.items()}
            | {f"host-{k}": Foreign(403, host=v) for k, v in hosts.items()}
            | {f"host-rebound-name-forwarded-as-own-by-{k}": Foreign(
                403, host=f"evil.example:{port}", more=v) for k, v in forwarded.items()})


def _send(client: httpx.Client, foreign: Foreign, method: str, path: str,
          body: dict[str, Any] | None) -> httpx.Response:
    headers = dict(foreign.more)
    if foreign.origin is not None:
        headers["Origin"] = foreign.origin
    if foreign.host is not None:
        headers["Host"] = foreign.host
    if body is not None and foreign.content_type is not None:
        headers["Content-Type"] = foreign.content_type
    content = None if body is None else json.dumps(body).encode()
    return client.request(method, path, headers=headers, content=content)


def _not_refused(response: httpx.Response, foreign: Foreign, way: str, what: str) -> str | None:
    """What is wrong with the answer to a foreign request, or None when it was refused."""
    problems = []
    if response.status_code != foreign.status:
        problems.append(f"answered {response.status_code}, not {foreign.status}")
    if "access-control-allow-origin" in response.headers:
        problems.append("sent Access-Control-Allow-Origin: "
                        f"{response.headers['access-control-allow-origin']}")
    if not problems:
        return None
    sent = {k: v for k, v in response.request.headers.items() if k in QUOTED_HEADERS}
    return (f"{what} with {way} ({response.request.method} {response.request.url}, {sent}) "
            f"{' and '.join(problems)}: {response.text[:200]!r}")


def under_check(served: ServedTutorial) -> str:
    """The origin of the server the page is served from: a page the run started itself
    (`check --page NAME`, its server proxying the API to the fixture server and running its
    assistant's endpoints), else the served tutorial's own (the fixture server, or with
    `--base-url` the page served there)."""
    started = served.page_origin if isinstance(served, TutorialServer) else None
    return started or served.url


def _client(run: DeclaredRun) -> tuple[httpx.Client, dict[str, Foreign]]:
    origin = under_check(run.served)
    url = urlsplit(origin)
    assert url.port is not None, f"the server under check has no port: {origin}"
    client = httpx.Client(base_url=origin, timeout=REQUEST_TIMEOUT_SECONDS)
    return client, foreign_ways(url.port, url.netloc)


def _write(run: DeclaredRun) -> tuple[ApiRequest, dict[str, Any]]:
    """The row's state-changing request, with the body that would make its change, and the
    change: its `calls` with arguments the projected schema takes, or its handoff's
    `done.request` with the body of the tutorial's preset for it (the secret the human
    types), if it declares one."""
    row = run.row
    if row.handoff is not None:
        done = row.handoff.done
        presets = [p.request_for(p.value) for p in run.served.tutorial.api.presets
                   if (p.request.method, p.request.path) == (done.request.method,
                                                            done.request.path)]
        request = presets[0] if presets else done.request
        return request.model_copy(update={"body": request.body or {}}), dict(done.state)
    assert row.calls is not None
    needs_arguments = row.calls.body is None or any(
        placeholder(v) for v in [*row.calls.body.values(), *row.effect.values()])
    arguments = minimal_arguments(run.params()) if needs_arguments else {}
    body = run.expected_body(arguments)
    return row.calls.model_copy(update={"body": body}), filled(row.effect, arguments)


def _view(run: DeclaredRun) -> dict[str, str | None]:
    """The page's business view as shown now (name → value; None: no such element)."""
    assert run.page is not None
    shown: dict[str, str | None] = {}
    for name, view in run.served.tutorial.page.business_view.items():
        element = run.page.get_by_test_id(view.testid)
        if element.count() == 0:
            shown[name] = None
        elif view.attribute is None:
            shown[name] = element.inner_text().strip()
        else:
            shown[name] = element.get_attribute(view.attribute)
    return shown


def action_refuses_foreign_requests(run: DeclaredRun) -> None:
    """Each foreign way to send the row's state-changing request, from a state it would
    change, is refused; the state, read back and reloaded on the page, is as before."""
    run.open()
    request, change = _write(run)
    before = run.state()
    if all(before.fields().get(k) == v for k, v in change.items()):
        raise AssertionError(f"{run.action}'s {request.describe()} would not change the state "
                             f"{before.fields()} (its change: {change}), so refusing it shows "
                             "nothing: give the row a `starts_from` its request changes")
    view = _view(run)
    problems: list[str] = []
    client, ways = _client(run)
    with client:
        for way, foreign in ways.items():
            problem = _not_refused(_send(client, foreign, request.method, request.path,
                                         request.body), foreign, way, request.describe())
            now = run.state()
            if now != before:
                problem = (problem or f"{request.describe()} with {way} was answered as "
                           "refused") + (f"; the state changed from {before.fields()} to "
                                         f"{now.fields()}")
                run.served.state.replace(before)
            if problem:
                problems.append(problem)
    if problems:
        raise GuaranteeViolation(GUARANTEE, f"the server at {under_check(run.served)} must "
                                 f"refuse {run.action}'s request sent another way than its "
                                 f"page's:\n  "
                                 + "\n  ".join(problems), run.timeline)
    # What the page shows, opened again from the server's answers, is what it showed before.
    assert run.page is not None
    reload_page(run.page)
    run.expect_shown(view, guarantee=GUARANTEE, after=f"foreign requests for {run.action}")


def _undeclared_writes(run: DeclaredRun) -> list[ApiRequest]:
    """The tutorial's own state-changing requests no row declares (its `api.reset`, its
    presets): refused too, though from the initial state only (they may change nothing)."""
    rows = {(r.method, r.path) for row in run.table.actions.values()
            for r in (row.calls, row.handoff.done.request if row.handoff else None)
            if r is not None}
    api = run.served.tutorial.api
    declared = [*([api.reset] if api.reset else []),
                *(p.request_for(p.value) for p in api.presets)]
    unique = {(r.method, r.path): r for r in declared if r.method != "GET"}
    return [r for key, r in unique.items() if key not in rows]


def table_refuses_foreign_requests(run: DeclaredRun) -> None:
    """The conversation's endpoints (the tutorial's model endpoint, or the assistant's own on
    the page's server when its framework runs the conversation) and the tutorial's requests
    no row declares refuse every foreign way, and a foreign Host may not even read the
    state."""
    tutorial = run.served.tutorial
    problems: list[str] = []
    client, ways = _client(run)
    with client:
        for way, foreign in ways.items():
            for endpoint in run.dock.spec.assistant_endpoints or (tutorial.api.model,):
                problems.append(_not_refused(_send(client, foreign, "POST", endpoint,
                                                   GATEWAY_REQUEST), foreign, way,
                                             f"the conversation's endpoint {endpoint}") or "")
            for request in _undeclared_writes(run):
                before = run.state()
                problems.append(_not_refused(_send(client, foreign, request.method,
                                                   request.path, request.body or {}),
                                             foreign, way, request.describe()) or "")
                if run.state() != before:
                    problems.append(f"{request.describe()} with {way} changed the state")
                    run.served.state.replace(before)
            read = tutorial.api.state
            if foreign.host is not None and read is not None:
                problems.append(_not_refused(_send(client, foreign, read.method, read.path,
                                                   None), foreign, way,
                                             f"the state request {read.describe()}") or "")
    problems = [problem for problem in problems if problem]
    if problems:
        raise GuaranteeViolation(GUARANTEE, f"the server at {under_check(run.served)} must "
                                 "refuse requests sent another way than its page's:\n  "
                                 + "\n  ".join(problems), run.timeline)

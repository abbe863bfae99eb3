"""Fixtures of the tutorial's servers: the fixture server per test (seated on the worker's
shared host), a page served elsewhere (--base-url), the fake upstream and the scripted
model."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from pling_harness.plugin import external, launched_page
from pling_harness.plugin.external import ServedTutorial
from pling_harness.plugin.factories import StartTutorialServer
from pling_harness.project.tutorials import Tutorial
from pling_harness.server.host import ServerHost
from pling_harness.server.model.fake_upstream import FakeUpstream
from pling_harness.server.model.handle import ModelHandle
from pling_harness.server.runner import ServerShutdown, TutorialServer


@pytest.fixture(scope="session")
def _servers_shutting_down() -> Iterator[list[ServerShutdown]]:
    """Finished tests' servers shut down in the background while the next test runs;
    the session waits for the last of them at its end."""
    shutdowns: list[ServerShutdown] = []
    yield shutdowns
    for shutdown in shutdowns:
        shutdown.wait()


@pytest.fixture(scope="session")
def _server_hosts(
        request: pytest.FixtureRequest) -> Iterator[dict[tuple[str, Path], ServerHost]]:
    """One shared fixture server per tutorial and root in this worker (started when first
    needed): the origin stays the same from test to test, so the browser keeps the static
    files cached, while each test's server is seated on it (`pling_harness.server.host`).
    A page the run starts (`check --page NAME`) is stopped first, then the hosts."""
    hosts: dict[tuple[str, Path], ServerHost] = {}
    yield hosts
    launched_page.stop_pages(request.config)
    for host in hosts.values():
        host.stop()


@pytest.fixture
def start_tutorial_server(
    tutorial: Tutorial, tutorial_root: Path, _servers_shutting_down: list[ServerShutdown],
    _server_hosts: dict[tuple[str, Path], ServerHost], request: pytest.FixtureRequest,
) -> Iterator[StartTutorialServer]:
    """A factory: ``start_tutorial_server(environ={...})`` starts a fixture server for the
    tutorial on 127.0.0.1, port 0, serving `tutorial_root`, whose model provider comes from
    `environ` (`PLING_MODEL_*`; none given: the scripted model, whatever the process
    environment says). Each server shuts down in the background after the test, as
    `tutorial_server` does. For provider checks: override `tutorial_server` in the module
    with one started here (e.g. pointed at `fake_upstream`). With a page the run starts
    (`check --page NAME`), a seated server's page is that page, over this server
    (pling_harness/plugin/launched_page.py)."""
    started: list[TutorialServer] = []

    def start(*, environ: Mapping[str, str] | None = None) -> TutorialServer:
        # Seated on the worker's shared host, unless another server of this test still is:
        # then a port of its own (a request naming no seat goes to the one seated last).
        seating = None
        origin = None
        if not any(server.browser_headers for server in started):
            key = (tutorial.id, tutorial_root)
            if key not in _server_hosts:
                _server_hosts[key] = ServerHost().start()
            seating = _server_hosts[key]
            origin = launched_page.page_origin(request.config, seating, tutorial_root)
        else:
            launched_page.second_server_is_not_applicable(request.config)
        server = TutorialServer(tutorial=tutorial, root=tutorial_root,
                                environ=dict(environ or {}), seating=seating)
        server.page_origin = origin
        server.start()
        started.append(server)
        return server

    yield start
    # Forget the shutdowns that are over, so a long session keeps no old servers alive.
    _servers_shutting_down[:] = [old for old in _servers_shutting_down if not old.done]
    _servers_shutting_down.extend(server.begin_stop() for server in started)


@pytest.fixture
def tutorial_server(start_tutorial_server: StartTutorialServer, tutorial: Tutorial,
                    tutorial_root: Path,
                    request: pytest.FixtureRequest) -> Iterator[ServedTutorial]:
    """A fresh fixture server for the tutorial: its own business state, log and scripted
    model, serving --pling-root. Always the scripted model, whatever PLING_MODEL_* says, so
    checks are deterministic. A server per test, not a shared one reset between tests: it is
    seated on the worker's one origin (`pling_harness.server.host`, so the browser's cache keeps
    the static files) and the browser names its seat in every request, so a request still
    in flight when a test ends reaches no later test's server.

    With --base-url, the page served there instead (`pling_harness.server.external.ExternalTarget`,
    same attributes): its state reset before the test by the tutorial's declared reset
    request, its model endpoint answered in the browser by this test's scripted model."""
    base_url = external.base_url_of(request.config)
    if base_url is None:
        yield start_tutorial_server()
    else:
        yield from external.external_target(request, base_url, tutorial, tutorial_root)


@pytest.fixture
def fake_upstream(tutorial: Tutorial, tutorial_root: Path) -> Iterator[FakeUpstream]:
    """An OpenAI-compatible upstream on 127.0.0.1 that answers like the tutorial's scripted
    model unless a check queues a fault (``fake_upstream.queue(Fail(500))``); point a server
    at it with ``start_tutorial_server(environ=fake_upstream.environ(api_key=...))``."""
    with FakeUpstream.answering_like(tutorial, tutorial_root) as upstream:
        yield upstream


@pytest.fixture
def model(tutorial_server: ServedTutorial) -> ModelHandle:
    """The server's scripted model: what each request contained (`requests`,
    `tool_calls()`, `tool_results()`) and per-test overrides (`script(...)`,
    `when_user(pattern, tool, arguments)`)."""
    scripted = tutorial_server.model
    if scripted is None:
        pytest.fail("the model fixture needs the scripted model provider", pytrace=False)
    return ModelHandle(scripted)

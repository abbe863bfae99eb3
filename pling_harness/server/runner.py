"""TutorialServer: one tutorial's fixture server, run by uvicorn in a background thread."""

from __future__ import annotations

import errno
import os
import socket
import threading
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import Protocol, Self

import uvicorn
from starlette.types import ASGIApp

from pling_harness.project.root import current_project_root
from pling_harness.project.tutorials import Tutorial, load_tutorial
from pling_harness.server.app import create_app
from pling_harness.server.backend import load_backend
from pling_harness.server.deadline import BODY_DEADLINE_SECONDS
from pling_harness.server.log import ServerLog
from pling_harness.server.model.config import provider_from_environment
from pling_harness.server.model.provider import ModelProvider
from pling_harness.server.model.scripted import ScriptedModel
from pling_harness.server.static import CACHE_FOR_A_RUN
from pling_harness.server.testbed_calls import TestbedCalls

STARTUP_TIMEOUT_SECONDS = 10.0
# Long enough for an in-flight reply to finish, short enough that a stuck upstream
# cannot hold a test run hostage at shutdown.
GRACEFUL_SHUTDOWN_SECONDS = 3
STOP_TIMEOUT_SECONDS = 10.0
# The header naming the test whose server a request is for, on a shared host.
SEAT_HEADER = "x-pling-seat"


class PortInUse(OSError):
    """Another process already listens on the requested port."""

    def __init__(self, host: str, port: int) -> None:
        super().__init__(
            errno.EADDRINUSE,
            f"port {port} on {host} is already in use; stop the program using it "
            "or choose another port with --port N",
        )
        self.host = host
        self.port = port

    def __str__(self) -> str:
        return str(self.strerror)


class ServerStartError(RuntimeError):
    """uvicorn did not come up within the start-up timeout."""


def bind_socket(host: str, port: int) -> socket.socket:
    """A listening-ready TCP socket on host:port (port 0 = any free port)."""
    family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    sock = socket.socket(family, kind, proto)
    # Lets a restarted dev server reuse the port while old connections sit in TIME_WAIT;
    # on Linux it does not allow two live listeners, so a busy port still fails below.
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError as error:
        sock.close()
        if error.errno == errno.EADDRINUSE:
            raise PortInUse(host, port) from error
        raise
    sock.set_inheritable(True)
    return sock


class _NotifyingServer(uvicorn.Server):
    """uvicorn.Server that sets a threading.Event once start-up is over (ok or not)."""

    def __init__(self, config: uvicorn.Config, startup_over: threading.Event) -> None:
        super().__init__(config)
        self.startup_over = startup_over

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        try:
            await super().startup(sockets=sockets)
        finally:
            self.startup_over.set()


class ServerThread:
    """uvicorn serving `app` on host:port in a daemon thread (port 0 = any free port)."""

    def __init__(self, app: ASGIApp, *, host: str, port: int, name: str) -> None:
        sock = bind_socket(host, port)
        self.port: int = sock.getsockname()[1]
        config = uvicorn.Config(
            app, host=host, port=self.port, lifespan="off", access_log=False,
            log_level="warning", timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_SECONDS,
        )
        startup_over = threading.Event()
        self.server = _NotifyingServer(config, startup_over)

        def serve() -> None:
            try:
                self.server.run(sockets=[sock])
            finally:
                startup_over.set()  # also when run() fails before start-up began
                sock.close()

        self.thread = threading.Thread(target=serve, name=f"{name}:{self.port}", daemon=True)
        self.thread.start()
        self.started = startup_over.wait(STARTUP_TIMEOUT_SECONDS) and self.server.started

    def begin_stop(self) -> ServerShutdown:
        self.server.should_exit = True
        return ServerShutdown(self.server, self.thread)


class Seating(Protocol):
    """Somewhere a `TutorialServer` can be seated instead of running uvicorn of its own
    (`pling_harness.server.host.ServerHost`): one origin for test after test."""

    @property
    def url(self) -> str: ...

    @property
    def port(self) -> int: ...

    def seat(self, app: ASGIApp) -> str:
        """Serve `app` from now on; returns the id the browser sends (`SEAT_HEADER`)."""
        ...

    def unseat(self, seat: str) -> None:
        """Stop serving that app; a request that still names it reaches nothing."""
        ...


class ServerShutdown:
    """A shutdown under way (see `TutorialServer.begin_stop`); `None` parts: nothing to do."""

    def __init__(self, server: uvicorn.Server | None, thread: threading.Thread | None) -> None:
        self._server = server
        self._thread = thread

    @property
    def done(self) -> bool:
        return self._thread is None or not self._thread.is_alive()

    def wait(self) -> None:
        """Return once the server has stopped; force it after STOP_TIMEOUT_SECONDS."""
        server, thread = self._server, self._thread
        if server is None or thread is None:
            return
        thread.join(STOP_TIMEOUT_SECONDS)
        if thread.is_alive():
            server.force_exit = True
            thread.join(STOP_TIMEOUT_SECONDS)


class TutorialServer:
    """Serves one tutorial on `host:port` with its own state, log and model.

    Use as a context manager, or call `start()` and `stop()`. `port=0` picks a free port;
    `.url` has the real one once started. `provider=None` picks the provider from the
    environment (`PLING_MODEL_*`, scripted by default). Static files are cached by the
    browser for the run (`static_cache`; `pling-tutorial dev` passes `NO_STORE`). A request
    body must arrive within `body_deadline` seconds (`pling_harness.server.deadline`).
    `retain=None` keeps the whole log and the scripted model's history since the last reset,
    which the checks read; a server nobody inspects (`pling-tutorial dev`, never reset)
    passes a number: its log keeps that many latest records without their bodies, and its
    scripted model remembers no request, so its memory stays where it started.

    With `seating` (a `pling_harness.server.host.ServerHost`), `start()` seats this server's app on
    that shared host instead of starting uvicorn: same state, log and model of its own, the
    host's origin, and `browser_headers` to set on the browser context so each request
    reaches this server; `stop()` unseats it at once.
    """

    def __init__(
        self,
        *,
        tutorial: Tutorial | str,
        root: Path | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        provider: ModelProvider | None = None,
        environ: Mapping[str, str] | None = None,
        static_cache: str = CACHE_FOR_A_RUN,
        seating: Seating | None = None,
        body_deadline: float = BODY_DEADLINE_SECONDS,
        retain: int | None = None,
    ) -> None:
        # Without a root: the current folder's project (pling_harness.project.root).
        root = root if root is not None else current_project_root()
        self.tutorial = tutorial if isinstance(tutorial, Tutorial) else load_tutorial(
            tutorial, root
        )
        self.root = root
        self.host = host
        self.requested_port = port
        self.provider = provider if provider is not None else provider_from_environment(
            os.environ if environ is None else environ,
            model_rules=self.tutorial.model_rules_path(root), locales=self.tutorial.locales,
        )
        self.log = ServerLog(retain=retain)
        if retain is not None and isinstance(self.provider, ScriptedModel):
            self.provider.remember = False
        self.backend = load_backend(self.tutorial, root)
        self.state = self.backend.make_state()
        """The tutorial's business state (its backend.py's `make_state()`)."""
        self.testbed = TestbedCalls()
        self.app = create_app(tutorial=self.tutorial, root=root, provider=self.provider,
                              log=self.log, backend=self.backend, state=self.state,
                              testbed=self.testbed, static_cache=static_cache,
                              body_deadline=body_deadline)
        self.seating = seating
        self.page_origin: str | None = None
        """Where `page_url` opens the tutorial's page when not on this server: a page
        started over it (`check --page NAME`), whose server proxies its API here."""
        self._serving: ServerThread | None = None
        self._seat: str | None = None
        self._port: int | None = None

    @property
    def model(self) -> ScriptedModel | None:
        """The scripted model, for per-test overrides; None with another provider."""
        return self.provider if isinstance(self.provider, ScriptedModel) else None

    @property
    def port(self) -> int:
        if self._port is None:
            raise RuntimeError("the server has no port yet; call start() first")
        return self._port

    @property
    def url(self) -> str:
        """Base URL without a trailing slash, e.g. http://127.0.0.1:43117."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    def page_url(self, locale: str | None = None) -> str:
        return self.tutorial.page_url(self.page_origin or self.url, locale)

    @property
    def running(self) -> bool:
        return self._seat is not None or (
            self._serving is not None and self._serving.thread.is_alive())

    @property
    def browser_headers(self) -> dict[str, str]:
        """What the browser must send with every request to this server: its seat on a
        shared host (set them on the browser context before the page loads); none for a
        server with a port of its own."""
        return {} if self._seat is None else {SEAT_HEADER: self._seat}

    def reset(self) -> None:
        """Fresh business state between tests: the initial state, no testbed calls, empty
        log (seq keeps growing), and a scripted model without overrides or history."""
        self.state.reset()
        self.testbed.clear()
        self.log.clear()
        if self.model is not None:
            self.model.reset()

    def start(self) -> Self:
        if self._serving is not None or self._seat is not None:
            raise RuntimeError("the server is already started")
        if self.seating is not None:
            self._seat = self.seating.seat(self.app)
            self._port = self.seating.port
            return self
        serving = ServerThread(self.app, host=self.host, port=self.requested_port,
                               name="pling-server")
        self._serving, self._port = serving, serving.port
        if not serving.started:
            self.stop()
            raise ServerStartError(
                f"the server for {self.tutorial.short_id} did not start on "
                f"{self.host}:{self._port}; see the uvicorn messages above"
            )
        return self

    def stop(self) -> None:
        """Shut the server down and wait until it has."""
        self.begin_stop().wait()

    def begin_stop(self) -> ServerShutdown:
        """Ask the server to shut down and return at once; `.wait()` on the result waits
        until it has. uvicorn's shutdown takes about 0.2 s of fixed ticks, which a caller
        with other work to do (the next test) need not sit through. Requests that still
        arrive meanwhile are served from, and logged into, this server's own state."""
        serving, seat = self._serving, self._seat
        self._serving = self._seat = None
        if seat is not None and self.seating is not None:
            self.seating.unseat(seat)
        if serving is None:
            return ServerShutdown(None, None)
        return serving.begin_stop()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

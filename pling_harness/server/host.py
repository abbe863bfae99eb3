"""ServerHost: one origin for test after test, each test with a fixture server of its own.

A worker that runs its tests in one warm browser page keeps the same origin from test to
test, so the browser's cache keeps the page and the runtime between them (issue 12). Each
test still gets a whole `TutorialServer` of its own (its own app: business state, log,
scripted model), *seated* on the host while the test runs.

Every request the browser sends names its test's seat in `SEAT_HEADER`, which the harness
sets on the browser context before the page loads. A request naming a seat that is no longer
there (one still in flight when its test ended) is refused with 410 `TEST_OVER` and reaches
no server; a request naming no seat (an HTTP client in a test, another site's page) goes to
the server seated last.
"""

from __future__ import annotations

import secrets
import threading
from types import TracebackType
from typing import Self

from starlette.types import ASGIApp, Receive, Scope, Send

from pling_harness.server.bodies import error_response
from pling_harness.server.runner import SEAT_HEADER, ServerStartError, ServerThread
from pling_harness.server.static import NO_STORE

_SEAT_HEADER_BYTES = SEAT_HEADER.encode("latin-1")


class ServerHost:
    """uvicorn on `host:port` (port 0 = any free port) that passes each request to the app
    of the seat it names. A `pling_harness.server.runner.Seating`: give it to `TutorialServer`."""

    def __init__(self, *, host: str = "127.0.0.1", port: int = 0) -> None:
        self.host = host
        self.requested_port = port
        self._seats: dict[str, ASGIApp] = {}
        self._last: str | None = None
        self._lock = threading.Lock()
        self._serving: ServerThread | None = None

    @property
    def port(self) -> int:
        if self._serving is None:
            raise RuntimeError("the host has no port yet; call start() first")
        return self._serving.port

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    def start(self) -> Self:
        if self._serving is not None:
            raise RuntimeError("the host is already started")
        self._serving = ServerThread(self, host=self.host, port=self.requested_port,
                                     name="pling-host")
        if not self._serving.started:
            self.stop()
            raise ServerStartError(f"the shared fixture server did not start on {self.host}; "
                                   "see the uvicorn messages above")
        return self

    def stop(self) -> None:
        serving, self._serving = self._serving, None
        if serving is not None:
            serving.begin_stop().wait()

    def seat(self, app: ASGIApp) -> str:
        seat = secrets.token_hex(8)
        with self._lock:
            self._seats[seat] = app
            self._last = seat
        return seat

    def unseat(self, seat: str) -> None:
        with self._lock:
            self._seats.pop(seat, None)
            if self._last == seat:
                self._last = None

    @property
    def seated(self) -> int:
        """How many servers are seated now."""
        with self._lock:
            return len(self._seats)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        named = dict(scope.get("headers") or []).get(_SEAT_HEADER_BYTES)
        with self._lock:
            seat = named.decode("latin-1") if named is not None else self._last
            app = self._seats.get(seat) if seat is not None else None
        if app is not None:
            await app(scope, receive, send)
            return
        if scope["type"] != "http":
            return
        if named is not None:
            response = error_response(
                410, "TEST_OVER", "The test this request belongs to has ended; its server is "
                                  "gone and nothing was changed.")
        else:
            response = error_response(503, "NO_TEST", "No test is running on this server.")
        response.headers["Cache-Control"] = NO_STORE
        await response(scope, receive, send)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

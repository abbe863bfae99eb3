"""FakeUpstream: an OpenAI-compatible `/chat/completions` endpoint on 127.0.0.1 for tests.

The fixture server's OpenAI-compatible provider is pointed at it (`environ()`), so the real
provider code, the real network and the real gateway run; only the model behind them is
fake (the provider boundary, the one place fakes belong). It records every request it
receives (headers included, to see where the key goes) and answers from a queue:

    upstream.fail(500)              # then: upstream.malformed(), upstream.hang_up(), ...
    upstream.stall(release)         # hold the reply until `release` is set (or the limit)
    upstream.answer({"content": None, "tool_calls": [...]})   # a raw assistant message

With the queue empty it answers like the tutorial's scripted model (`fallback`), or with
HTTP 500 when it has none, so an unexpected request shows up as a fault.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from pling_harness.project.tutorials import Tutorial
from pling_harness.server.model.config import (
    API_KEY_VARIABLE,
    BASE_URL_VARIABLE,
    MODEL_NAME_VARIABLE,
    PROVIDER_VARIABLE,
    TIMEOUT_VARIABLE,
)
from pling_harness.server.model.scripted import ScriptedModel
from pling_harness.server.model.wire import ModelRequest

FAKE_MODEL_NAME = "fake-upstream"
# Longest a stalled reply waits for its release, so a test that forgets it cannot hang.
STALL_LIMIT_SECONDS = 10.0
# A connection that sends nothing is dropped after this long (keeps stop() bounded).
SOCKET_TIMEOUT_SECONDS = 5.0


@dataclass(frozen=True)
class Answer:
    """200 with a chat completion carrying this assistant message (role added if missing)."""

    message: Mapping[str, Any]


@dataclass(frozen=True)
class Fail:
    """An error status with an OpenAI-style error body (`body` replaces it if given)."""

    status: int
    body: str | None = None


@dataclass(frozen=True)
class Malformed:
    """200, `application/json`, and a body that is no chat completion (by default not JSON)."""

    body: str = '{"id": "fake", "choices": [{"message": {"content": "cut off'


@dataclass(frozen=True)
class HangUp:
    """Read the request, then close the connection without any response."""


@dataclass(frozen=True)
class Stall:
    """Say nothing until `release` is set (at most STALL_LIMIT_SECONDS), then hang up."""

    release: threading.Event


Behaviour = Answer | Fail | Malformed | HangUp | Stall


@dataclass(frozen=True)
class ReceivedRequest:
    """One request as the upstream received it; header names are lower-case."""

    method: str
    path: str
    headers: Mapping[str, str]
    body: bytes
    answered_with: str

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class _Queue:
    behaviours: deque[Behaviour] = field(default_factory=deque)
    received: list[ReceivedRequest] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


class FakeUpstream:
    """Serves `POST /v1/chat/completions` on 127.0.0.1 (port 0) in background threads.

    Use as a context manager. `base_url` is what `PLING_MODEL_BASE_URL` should be;
    `environ(api_key=...)` builds the whole provider environment for a TutorialServer.
    `echo_authorization=True` makes every completion carry the received Authorization
    header in fields the gateway must drop (a provider that echoes what it got).
    """

    def __init__(self, *, fallback: ScriptedModel | None = None,
                 echo_authorization: bool = False) -> None:
        self.fallback = fallback
        self.echo_authorization = echo_authorization
        self._queue = _Queue()
        self._stalls: list[threading.Event] = []
        self._completion_ids = itertools.count(1)
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @classmethod
    def answering_like(cls, tutorial: Tutorial, root: Path, *,
                       echo_authorization: bool = False) -> FakeUpstream:
        """An upstream whose fallback is `tutorial`'s scripted model (rules under `root`)."""
        return cls(fallback=ScriptedModel.from_file(tutorial.model_rules_path(root),
                                                    locales=tutorial.locales),
                   echo_authorization=echo_authorization)

    # ---- lifecycle -----------------------------------------------------------------------

    def start(self) -> Self:
        if self._server is not None:
            raise RuntimeError("the fake upstream is already started")
        server = _Server(("127.0.0.1", 0), _handler_for(self))
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, name="fake-upstream",
                                        kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        server, thread = self._server, self._thread
        if server is None or thread is None:
            return
        for release in self._stalls:
            release.set()  # a stalled handler would otherwise hold server_close() up
        server.shutdown()
        server.server_close()  # joins the handler threads (block_on_close)
        thread.join()
        self._server = self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        if self._server is None:
            raise RuntimeError("the fake upstream has no address yet; call start() first")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def environ(self, *, api_key: str, timeout: float | None = None) -> dict[str, str]:
        """`PLING_MODEL_*` for a TutorialServer that talks to this upstream with `api_key`."""
        environ = {
            PROVIDER_VARIABLE: "openai",
            BASE_URL_VARIABLE: self.base_url,
            API_KEY_VARIABLE: api_key,
            MODEL_NAME_VARIABLE: FAKE_MODEL_NAME,
        }
        if timeout is not None:
            environ[TIMEOUT_VARIABLE] = str(timeout)
        return environ

    # ---- steering ------------------------------------------------------------------------

    def queue(self, *behaviours: Behaviour) -> None:
        """Answer the next requests with these, in order; then the fallback again."""
        with self._queue.lock:
            for behaviour in behaviours:
                if isinstance(behaviour, Stall):
                    self._stalls.append(behaviour.release)
            self._queue.behaviours.extend(behaviours)

    def answer(self, message: Mapping[str, Any]) -> None:
        self.queue(Answer(message))

    def fail(self, status: int, body: str | None = None) -> None:
        self.queue(Fail(status, body))

    def malformed(self) -> None:
        self.queue(Malformed())

    def hang_up(self) -> None:
        self.queue(HangUp())

    def stall(self, release: threading.Event) -> None:
        self.queue(Stall(release))

    # ---- reading -------------------------------------------------------------------------

    @property
    def received(self) -> list[ReceivedRequest]:
        """Every request received so far, oldest first (a copy)."""
        with self._queue.lock:
            return list(self._queue.received)

    @property
    def problems(self) -> list[str]:
        """Requests the fake could not handle as asked (e.g. a fallback error), for messages."""
        with self._queue.lock:
            return list(self._queue.problems)

    # ---- answering (handler threads) -------------------------------------------------------

    def _next(self) -> Behaviour | None:
        with self._queue.lock:
            return self._queue.behaviours.popleft() if self._queue.behaviours else None

    def _record(self, request: ReceivedRequest) -> None:
        with self._queue.lock:
            self._queue.received.append(request)

    def _problem(self, text: str) -> None:
        with self._queue.lock:
            self._queue.problems.append(text)

    def _completion(self, message: Mapping[str, Any], authorization: str) -> dict[str, Any]:
        full = {"role": "assistant", **message}
        completion: dict[str, Any] = {
            "id": f"fake-{next(self._completion_ids)}",
            "object": "chat.completion",
            "created": 0,
            "model": FAKE_MODEL_NAME,
            "choices": [{"index": 0, "message": full, "logprobs": None,
                         "finish_reason": "tool_calls" if full.get("tool_calls") else "stop"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }
        if self.echo_authorization:
            # Where a careless provider might echo credentials; the gateway must drop these.
            completion["x_received_authorization"] = authorization
            full["x_received_authorization"] = authorization
        return completion

    def _fallback_message(self, body: bytes) -> Mapping[str, Any] | None:
        if self.fallback is None:
            return None
        try:
            sent = json.loads(body)
            request = ModelRequest.model_validate(
                {"messages": sent["messages"], "tools": sent.get("tools", [])})
            return self.fallback.respond(request).choices[0].message.to_wire()
        except Exception as error:  # any failure here must reach the test, not kill the thread
            self._problem(f"fallback could not answer: {type(error).__name__}: {error}")
            return None


class _Server(ThreadingHTTPServer):
    # Handler threads are joined on close, so nothing outlives the test.
    daemon_threads = False
    block_on_close = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that went away mid-reply is expected here (timeouts); stay quiet."""


def _handler_for(upstream: FakeUpstream) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        timeout = SOCKET_TIMEOUT_SECONDS

        def log_message(self, format: str, *args: Any) -> None:
            """No access log on stderr."""

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length)
            self.close_connection = True
            behaviour = upstream._next()
            upstream._record(ReceivedRequest(
                method="POST", path=self.path,
                headers={name.lower(): value for name, value in self.headers.items()},
                body=body, answered_with=type(behaviour).__name__ if behaviour else "fallback",
            ))
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self._send(404, '{"error": {"message": "not found"}}')
                return
            self._behave(behaviour, body)

        def _behave(self, behaviour: Behaviour | None, body: bytes) -> None:
            authorization = self.headers.get("authorization", "")
            match behaviour:
                case Answer(message=message):
                    self._send(200, json.dumps(upstream._completion(message, authorization)))
                case Fail(status=status, body=text):
                    self._send(status, text if text is not None else json.dumps(
                        {"error": {"message": f"upstream failure {status}",
                                   "type": "server_error"}}))
                case Malformed(body=text):
                    self._send(200, text)
                case HangUp():
                    return
                case Stall(release=release):
                    release.wait(STALL_LIMIT_SECONDS)
                    return
                case None:
                    reply = upstream._fallback_message(body)
                    if reply is None:
                        self._send(500, '{"error": {"message": "nothing queued"}}')
                    else:
                        self._send(200, json.dumps(upstream._completion(reply, authorization)))

        def _send(self, status: int, text: str) -> None:
            payload = text.encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(payload)
            except OSError:
                pass  # the gateway gave up on us (its timeout); nothing left to tell it

    return Handler

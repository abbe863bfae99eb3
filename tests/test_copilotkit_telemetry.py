"""The CopilotKit page's server sends CopilotKit no telemetry unless its user asks for it.

CopilotKit's runtime posts events (its start, and three a run) to telemetry.copilotkit.ai
unless `COPILOTKIT_TELEMETRY_DISABLED` is set, and reads that setting once, when its module
is first imported. The page's server sets it before that import
(`fixtures/r-15-copilotkit/server/copilot-runtime.ts`); before branch ck-bench2 it set it
after, so every run reported. Here `COPILOTKIT_TELEMETRY_URL` points the runtime at a sink
in this process, which records what arrives.
"""

from __future__ import annotations

import threading
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from pling_harness.project.pages_table import page_row
from pling_harness.project.tutorials import load_tutorial
from pling_harness.server.page_process import row_process

PROJECT_ROOT = Path(__file__).resolve().parents[1]
PAGE = PROJECT_ROOT / "fixtures" / "r-15-copilotkit"
# Vite's first start bundles CopilotKit's dependencies; a loaded machine needs the time.
WAIT_S = 60
# The event the runtime sends once its handler is built, at the server's start.
STARTED_EVENT = b"oss.runtime.instance_created"


class Sink:
    """An HTTP server on a free port keeping the body of every POST it receives."""

    def __init__(self) -> None:
        self.bodies: list[bytes] = []
        self.arrived = threading.Event()
        sink = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                sink.bodies.append(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                sink.arrived.set()
                self.send_response(204)
                self.end_headers()

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/ingest"


@contextmanager
def page_server(environ: dict[str, str]) -> Iterator[str]:
    """The CopilotKit page under Vite's dev server (its runtime built at the start), with
    `environ` added; yields its URL."""
    if not (PAGE / "node_modules" / ".bin" / "vite").exists():
        pytest.fail("the CopilotKit page is not installed; run ./scripts/bootstrap")
    # The model and the business API are never called here.
    vite = row_process(page_row(load_tutorial("r-15", PROJECT_ROOT), PROJECT_ROOT,
                                "copilotkit"), root=PROJECT_ROOT, api_origin="http://127.0.0.1:9")
    vite.environ.update(environ)
    with vite:
        yield vite.origin


@contextmanager
def sink() -> Iterator[Sink]:
    receiving = Sink()
    thread = threading.Thread(target=receiving.server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiving
    finally:
        receiving.server.shutdown()
        receiving.server.server_close()


def ask_runtime(url: str) -> None:
    """One request answered by the runtime itself (its info), through its own event loop."""
    with urllib.request.urlopen(f"{url}/api/copilotkit/info", timeout=WAIT_S) as answer:
        assert answer.status == 200


def test_copilotkit_page_sends_no_telemetry_by_default() -> None:
    with sink() as receiving, page_server({"COPILOTKIT_TELEMETRY_URL": receiving.url}) as url:
        ask_runtime(url)
        # The start's event left before Vite listened; the control below sees it arrive.
        assert receiving.bodies == []


def test_copilotkit_page_sends_telemetry_when_its_user_turns_it_on() -> None:
    # The control: the same server, the user's own setting kept, reaches the sink.
    with sink() as receiving, page_server({"COPILOTKIT_TELEMETRY_URL": receiving.url,
                                           "COPILOTKIT_TELEMETRY_DISABLED": "false"}) as url:
        ask_runtime(url)
        assert receiving.arrived.wait(WAIT_S), "the runtime sent no telemetry"
        assert any(STARTED_EVENT in body for body in receiving.bodies), receiving.bodies

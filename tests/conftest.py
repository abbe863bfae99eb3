"""Shared fixtures for the server-level tests: one real server per module, reset per test,
and a port another listener already holds."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from pling_harness.server.runner import TutorialServer

# The harness's own checkout: the project these tests check.
PROJECT_ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def pytester(pytester: pytest.Pytester) -> pytest.Pytester:
    """pytester whose runs check this checkout's tutorials: its folder names them in a
    pling.toml, as a user's project may (pling_harness/project/root.py)."""
    pytester.makefile(".toml", pling=f"root = {json.dumps(str(PROJECT_ROOT))}")
    return pytester


@pytest.fixture(scope="module")
def running_server() -> Iterator[TutorialServer]:
    """An r-15 fixture server with the scripted model (environment ignored), for one module."""
    with TutorialServer(tutorial="r-15", environ={}) as server:
        yield server


@pytest.fixture
def server(running_server: TutorialServer) -> TutorialServer:
    """The module's server, reset to a fresh state for this test."""
    running_server.reset()
    return running_server


@pytest.fixture
def client(server: TutorialServer) -> Iterator[httpx.Client]:
    """An HTTP client pointed at `server`."""
    with httpx.Client(base_url=server.url) as client:
        yield client


@pytest.fixture
def busy_port() -> Iterator[int]:
    """A port on 127.0.0.1 that another listener holds for the whole test."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        yield listener.getsockname()[1]

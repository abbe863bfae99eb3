"""The testbed's server-side effect: every `POST /api/testbed/run/<action>` call, per server."""

from __future__ import annotations

import threading
from typing import Any

from pydantic import BaseModel, ConfigDict


class TestbedCall(BaseModel):
    """One `POST /api/testbed/run/<action>` the testbed page made."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    action: str
    body: dict[str, Any]
    count: int


class TestbedCalls:
    """The testbed's real server-side effect: it counts and keeps every call, per action."""

    __test__ = False  # not a pytest test class, despite the name

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._calls: list[TestbedCall] = []

    def record(self, action: str, body: dict[str, Any]) -> TestbedCall:
        with self._lock:
            count = 1 + sum(1 for call in self._calls if call.action == action)
            call = TestbedCall(action=action, body=body, count=count)
            self._calls.append(call)
            return call

    def calls(self, action: str | None = None) -> list[TestbedCall]:
        with self._lock:
            return [call for call in self._calls if action is None or call.action == action]

    def clear(self) -> None:
        with self._lock:
            self._calls.clear()

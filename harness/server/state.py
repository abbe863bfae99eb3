"""Server-side business state: the r-15 workspace and the testbed's call counter, per server."""

from __future__ import annotations

import threading
from typing import Any

from pydantic import BaseModel, ConfigDict

from harness.project.hidden_characters import describe, refused_in_name

INITIAL_NAME = "Northwind"
# The one verification code a human can type to publish (§6).
PUBLISH_CODE = "246810"
NAME_MAX_LENGTH = 80


class WorkspaceSnapshot(BaseModel):
    """The workspace as `GET /api/workspace` reports it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    archived: bool
    published: bool


INITIAL_WORKSPACE = WorkspaceSnapshot(name=INITIAL_NAME, archived=False, published=False)


class BusinessError(Exception):
    """A business rule refused the change; nothing changed."""

    code = "BUSINESS_ERROR"


class InvalidName(BusinessError):
    code = "INVALID_NAME"


class InvalidNameCharacter(BusinessError):
    code = "INVALID_NAME_CHARACTER"


class WrongCode(BusinessError):
    code = "WRONG_CODE"


class WorkspaceState:
    """The workspace of one server instance; every change is atomic under one lock."""

    def __init__(self, initial: WorkspaceSnapshot = INITIAL_WORKSPACE) -> None:
        self._lock = threading.Lock()
        self._current = initial

    def snapshot(self) -> WorkspaceSnapshot:
        with self._lock:
            return self._current

    def rename(self, name: str) -> WorkspaceSnapshot:
        # Checked before trimming: a control or format character is refused wherever it is,
        # never silently stripped (the user approved the name as the card showed it).
        refused = refused_in_name(name)
        if refused is not None:
            position, character = refused
            raise InvalidNameCharacter(
                f"The name holds {describe(character)} at position {position} (counting "
                f"characters from 1), a control or format character that hides or reorders "
                f"text; remove it."
            )
        trimmed = name.strip()
        if not 1 <= len(trimmed) <= NAME_MAX_LENGTH:
            raise InvalidName(
                f"The name must be 1 to {NAME_MAX_LENGTH} characters after trimming "
                f"spaces; got {len(trimmed)}."
            )
        return self._update(name=trimmed)

    def archive(self) -> WorkspaceSnapshot:
        return self._update(archived=True)

    def publish(self, code: str) -> WorkspaceSnapshot:
        if code != PUBLISH_CODE:
            raise WrongCode("The verification code is not correct; nothing was published.")
        return self._update(published=True)

    def reset(self) -> WorkspaceSnapshot:
        return self.replace(INITIAL_WORKSPACE)

    def replace(self, snapshot: WorkspaceSnapshot) -> WorkspaceSnapshot:
        """Set the whole state at once (tests use this to start from a given state)."""
        with self._lock:
            self._current = snapshot
            return snapshot

    def _update(self, **changes: Any) -> WorkspaceSnapshot:
        with self._lock:
            self._current = self._current.model_copy(update=changes)
            return self._current


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

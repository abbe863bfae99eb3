"""r-15's business constants for its checks, from the tutorial's own backend.py (the harness
knows no tutorial's state: see pling_harness/server/backend.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pling_harness import BusinessState, tutorial_backend

_backend = tutorial_backend(__file__)

PUBLISH_CODE: str = _backend.PUBLISH_CODE
INITIAL_WORKSPACE: BusinessState = _backend.INITIAL_WORKSPACE
if TYPE_CHECKING:
    # The backend is loaded by path, so its class is not visible to mypy; its fields are
    # read by name like any BusinessState's.
    WorkspaceSnapshot = BusinessState
else:
    WorkspaceSnapshot = _backend.WorkspaceSnapshot

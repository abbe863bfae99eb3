"""The fixture server: static pages, the business API and the model gateway, per instance."""

from harness.server.app import create_app
from harness.server.log import ServerLog, ServerRecord
from harness.server.state import TestbedCalls, WorkspaceSnapshot, WorkspaceState

__all__ = [
    "ServerLog",
    "ServerRecord",
    "TestbedCalls",
    "WorkspaceSnapshot",
    "WorkspaceState",
    "create_app",
]

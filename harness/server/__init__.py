"""The fixture server: static pages, the business API and the model gateway, per instance."""

from harness.server.app import create_app
from harness.server.log import ServerLog, ServerRecord
from harness.server.testbed_calls import TestbedCalls

__all__ = [
    "ServerLog",
    "ServerRecord",
    "TestbedCalls",
    "create_app",
]

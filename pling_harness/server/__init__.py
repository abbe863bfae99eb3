"""The fixture server: static pages, the business API and the model gateway, per instance."""

from pling_harness.server.app import create_app
from pling_harness.server.log import ServerLog, ServerRecord
from pling_harness.server.testbed_calls import TestbedCalls

__all__ = [
    "ServerLog",
    "ServerRecord",
    "TestbedCalls",
    "create_app",
]

"""Pling pling_harness: proves an in-page agent's confirmation and handoff guarantees end to end.

This is the check author's API, as `pytest` is for tests: a check imports what it names
from here (``from pling_harness import Dock, Timeline, guarantees``), never from the layers below
(`tests/test_check_api.py` holds every check file to that). The fixtures come from the
pytest plugin (`pling_harness.plugin.plugin`, see `pytest --fixtures`); these are their types
and the helpers checks use with them. A tutorial's `backend.py` builds its business API
from the same names (`BusinessState`, `StateStore`, `BusinessApi`: pling_harness/server/backend.py).
"""

from pling_harness.browser.dock import FORGE_ROUTES, Dock, ForgeRoute
from pling_harness.browser.held_requests import HeldRequests
from pling_harness.browser.pages import open_page, reload_page
from pling_harness.browser.testbed import Testbed
from pling_harness.browser.testbed_scripts import TestbedScripts
from pling_harness.browser.timer import time_left
from pling_harness.evidence import guarantees
from pling_harness.evidence.guarantees import GuaranteeViolation
from pling_harness.evidence.records import Mark
from pling_harness.evidence.timeline import Timeline
from pling_harness.plugin.factories import (
    NextTest,
    OpenTutorialPage,
    StartNextTest,
    StartTutorialServer,
)
from pling_harness.project.business_state import BusinessState, declared_state_model
from pling_harness.project.contract import JsonScalar
from pling_harness.project.glossary import Glossary, glossary_for
from pling_harness.project.hidden_characters import describe as describe_character
from pling_harness.project.hidden_characters import refused_in_name
from pling_harness.project.texts import Say, Words, dock_copy, page_copy
from pling_harness.project.tutorial_text import TutorialText, load_tutorial_text, tutorial_text_path
from pling_harness.project.tutorials import Tutorial, TutorialError, load_tutorial, tutorial_of
from pling_harness.server.backend import (
    BusinessApi,
    BusinessError,
    BusinessRoute,
    BusinessStore,
    EmptyBody,
    StateStore,
    StrictBody,
    TutorialBackend,
    tutorial_backend,
)
from pling_harness.server.log import ServerRecord
from pling_harness.server.model.conversation import (
    Conversation,
    ModelExchange,
    ToolCallSeen,
    ToolResultSeen,
)
from pling_harness.server.model.fake_upstream import (
    Answer,
    Behaviour,
    Fail,
    FakeUpstream,
    HangUp,
    Malformed,
    Stall,
)
from pling_harness.server.model.handle import ModelHandle, calling, tool_call
from pling_harness.server.model.provider import (
    ProviderBadReply,
    ProviderError,
    ProviderTimeout,
    ProviderUnavailable,
)
from pling_harness.server.model.wire import ModelRequest, ToolDefinition
from pling_harness.server.runner import TutorialServer
from pling_harness.server.testbed_calls import TestbedCall

__all__ = [
    "FORGE_ROUTES",
    "Answer",
    "Behaviour",
    "BusinessApi",
    "BusinessError",
    "BusinessRoute",
    "BusinessState",
    "BusinessStore",
    "Conversation",
    "Dock",
    "EmptyBody",
    "Fail",
    "FakeUpstream",
    "ForgeRoute",
    "Glossary",
    "GuaranteeViolation",
    "HangUp",
    "HeldRequests",
    "JsonScalar",
    "Malformed",
    "Mark",
    "ModelExchange",
    "ModelHandle",
    "ModelRequest",
    "NextTest",
    "OpenTutorialPage",
    "ProviderBadReply",
    "ProviderError",
    "ProviderTimeout",
    "ProviderUnavailable",
    "Say",
    "ServerRecord",
    "Stall",
    "StartNextTest",
    "StartTutorialServer",
    "StateStore",
    "StrictBody",
    "Testbed",
    "TestbedCall",
    "TestbedScripts",
    "Timeline",
    "ToolCallSeen",
    "ToolDefinition",
    "ToolResultSeen",
    "Tutorial",
    "TutorialBackend",
    "TutorialError",
    "TutorialServer",
    "TutorialText",
    "Words",
    "calling",
    "declared_state_model",
    "describe_character",
    "dock_copy",
    "glossary_for",
    "guarantees",
    "load_tutorial",
    "load_tutorial_text",
    "open_page",
    "page_copy",
    "refused_in_name",
    "reload_page",
    "time_left",
    "tool_call",
    "tutorial_backend",
    "tutorial_of",
    "tutorial_text_path",
]

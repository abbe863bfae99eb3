"""Pling harness: proves an in-page agent's confirmation and handoff guarantees end to end.

This is the check author's API, as `pytest` is for tests: a check imports what it names
from here (``from harness import Dock, Timeline, guarantees``), never from the layers below
(`tests/test_check_api.py` holds every check file to that). The fixtures come from the
pytest plugin (`harness.plugin.plugin`, see `pytest --fixtures`); these are their types
and the helpers checks use with them. A tutorial's `backend.py` builds its business API
from the same names (`BusinessState`, `StateStore`, `BusinessApi`: harness/server/backend.py).
"""

from harness.browser.dock import FORGE_ROUTES, Dock, ForgeRoute
from harness.browser.held_requests import HeldRequests
from harness.browser.pages import open_page, reload_page
from harness.browser.testbed import Testbed
from harness.browser.testbed_scripts import TestbedScripts
from harness.browser.timer import time_left
from harness.evidence import guarantees
from harness.evidence.guarantees import GuaranteeViolation
from harness.evidence.records import Mark
from harness.evidence.timeline import Timeline
from harness.plugin.factories import (
    NextTest,
    OpenTutorialPage,
    StartNextTest,
    StartTutorialServer,
)
from harness.project.business_state import BusinessState, declared_state_model
from harness.project.contract import JsonScalar
from harness.project.glossary import Glossary, glossary_for
from harness.project.hidden_characters import describe as describe_character
from harness.project.hidden_characters import refused_in_name
from harness.project.texts import Say, Words, page_copy, runtime_copy_path, runtime_text
from harness.project.tutorial_text import TutorialText, load_tutorial_text, tutorial_text_path
from harness.project.tutorials import Tutorial, TutorialError, load_tutorial
from harness.server.backend import (
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
from harness.server.log import ServerRecord
from harness.server.model.conversation import (
    Conversation,
    ModelExchange,
    ToolCallSeen,
    ToolResultSeen,
)
from harness.server.model.fake_upstream import (
    Answer,
    Behaviour,
    Fail,
    FakeUpstream,
    HangUp,
    Malformed,
    Stall,
)
from harness.server.model.handle import ModelHandle, calling, tool_call
from harness.server.model.provider import (
    ProviderBadReply,
    ProviderError,
    ProviderTimeout,
    ProviderUnavailable,
)
from harness.server.model.wire import ModelRequest, ToolDefinition
from harness.server.runner import TutorialServer
from harness.server.testbed_calls import TestbedCall

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
    "glossary_for",
    "guarantees",
    "load_tutorial",
    "load_tutorial_text",
    "open_page",
    "page_copy",
    "refused_in_name",
    "reload_page",
    "runtime_copy_path",
    "runtime_text",
    "time_left",
    "tool_call",
    "tutorial_backend",
    "tutorial_text_path",
]

"""Model providers behind the gateway: the scripted model and an OpenAI-compatible upstream."""

from pling_harness.server.model.config import ProviderConfigError, provider_from_environment
from pling_harness.server.model.openai_compat import OpenAICompatibleProvider
from pling_harness.server.model.provider import (
    ModelProvider,
    ProviderBadReply,
    ProviderError,
    ProviderTimeout,
    ProviderUnavailable,
)
from pling_harness.server.model.rules import ModelRules, RulesError, load_rules
from pling_harness.server.model.scripted import ScriptedModel
from pling_harness.server.model.wire import AssistantMessage, ChatCompletion, ModelRequest

__all__ = [
    "AssistantMessage",
    "ChatCompletion",
    "ModelProvider",
    "ModelRequest",
    "ModelRules",
    "OpenAICompatibleProvider",
    "ProviderBadReply",
    "ProviderConfigError",
    "ProviderError",
    "ProviderTimeout",
    "ProviderUnavailable",
    "RulesError",
    "ScriptedModel",
    "load_rules",
    "provider_from_environment",
]

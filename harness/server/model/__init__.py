"""Model providers behind the gateway: the scripted model and an OpenAI-compatible upstream."""

from harness.server.model.config import ProviderConfigError, provider_from_environment
from harness.server.model.openai_compat import OpenAICompatibleProvider
from harness.server.model.provider import (
    ModelProvider,
    ProviderBadReply,
    ProviderError,
    ProviderTimeout,
    ProviderUnavailable,
)
from harness.server.model.rules import ModelRules, RulesError, load_rules
from harness.server.model.scripted import ScriptedModel
from harness.server.model.wire import AssistantMessage, ChatCompletion, ModelRequest

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

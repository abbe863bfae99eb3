"""Model providers behind the gateway: the scripted model and an OpenAI-compatible upstream."""

from harness.model.config import ProviderConfigError, provider_from_environment
from harness.model.openai_compat import OpenAICompatibleProvider
from harness.model.provider import (
    ModelProvider,
    ProviderBadReply,
    ProviderError,
    ProviderTimeout,
    ProviderUnavailable,
)
from harness.model.rules import ModelRules, RulesError, load_rules
from harness.model.scripted import ScriptedModel
from harness.model.wire import AssistantMessage, ChatCompletion, ModelRequest

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

"""The provider boundary: what the gateway asks of a model, and how a model may fail."""

from __future__ import annotations

from typing import Protocol

from pling_harness.server.model.wire import AssistantMessage, ChatCompletion, ModelRequest


class ProviderError(Exception):
    """The provider could not give a usable answer. `code` is the gateway's error code."""

    code = "MODEL_UNAVAILABLE"
    status = 502


class ProviderUnavailable(ProviderError):
    """Upstream error status, closed connection, or a reply that is not a completion."""


class ProviderTimeout(ProviderError):
    code = "MODEL_TIMEOUT"
    status = 504


class ProviderBadReply(ProviderError):
    """A well-formed reply the page cannot use (no text and no tool call, or invalid shape)."""

    code = "MODEL_BAD_REPLY"


class ModelProvider(Protocol):
    """Anything that answers a Chat Completions request; fakes plug in here and only here."""

    async def complete(self, request: ModelRequest) -> ChatCompletion:
        """Answer the request, or raise a ProviderError subclass."""
        ...


def usable_message(completion: ChatCompletion) -> AssistantMessage:
    """The message a page is sent from a provider's completion; a reply with neither text nor
    a tool call is a ProviderBadReply. One rule for the fixture server's gateway and for the
    browser's model route (external mode), so a fault in it shows in both."""
    message = completion.choices[0].message
    if message.is_empty():
        raise ProviderBadReply("the reply has neither content nor a tool call")
    return message

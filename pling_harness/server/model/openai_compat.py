"""OpenAICompatibleProvider: forwards a request to any `/chat/completions` endpoint (httpx)."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
from pydantic import ValidationError

from pling_harness.server.model.provider import ProviderTimeout, ProviderUnavailable
from pling_harness.server.model.wire import ChatCompletion, ModelRequest, UpstreamCompletion

DEFAULT_TIMEOUT_SECONDS = 30.0
# The largest reply read from a provider: as large as the largest request the gateway takes
# (a 1 MiB tool-call argument fits many times), so a provider that streams without end
# cannot make the server buffer without bound.
MAX_REPLY_BYTES = 4 * 1024 * 1024


class ReplyTooLarge(Exception):
    """The provider's reply passed MAX_REPLY_BYTES; it was not read further."""


class OpenAICompatibleProvider:
    """Calls `{base_url}/chat/completions` with `Authorization: Bearer <key>`.

    The key lives only in this object and the outgoing header: no error message built
    here contains it, nor any upstream text that could echo it.
    """

    def __init__(
        self,
        *,
        base_url: str,
        api_key: str,
        model: str,
        timeout: float = DEFAULT_TIMEOUT_SECONDS,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        if timeout <= 0:
            raise ValueError(f"timeout must be > 0 seconds. Current input: {timeout}")
        self.endpoint = base_url.rstrip("/") + "/chat/completions"
        self.model = model
        self.timeout = timeout
        self._api_key = api_key
        self._transport = transport

    def __repr__(self) -> str:
        return f"OpenAICompatibleProvider(endpoint={self.endpoint!r}, model={self.model!r})"

    def request_body(self, request: ModelRequest) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [message.model_dump(exclude_none=True) for message in request.messages],
        }
        # Some compatible servers reject an empty `tools` list, so send none instead.
        if request.tools:
            body["tools"] = [tool.model_dump(exclude_none=True) for tool in request.tools]
        return body

    async def complete(self, request: ModelRequest) -> ChatCompletion:
        try:
            # httpx's timeout is per phase; this bounds the whole exchange as well.
            async with asyncio.timeout(self.timeout):
                response = await self._post(self.request_body(request))
        except (TimeoutError, httpx.TimeoutException) as error:
            raise ProviderTimeout(f"no reply from {self.endpoint} within {self.timeout} s") \
                from error
        except httpx.HTTPError as error:
            raise ProviderUnavailable(
                f"request to {self.endpoint} failed: {type(error).__name__}"
            ) from error
        except ReplyTooLarge as error:
            raise ProviderUnavailable(
                f"{self.endpoint} sent a reply larger than {MAX_REPLY_BYTES} bytes"
            ) from error
        status, content = response
        if status >= 400:
            raise ProviderUnavailable(f"{self.endpoint} answered HTTP {status}")
        try:
            upstream = UpstreamCompletion.model_validate_json(content)
        except ValidationError as error:
            raise ProviderUnavailable(
                f"{self.endpoint} sent a reply that is not a chat completion "
                f"({error.error_count()} problems, first at "
                f"{'.'.join(str(p) for p in error.errors()[0]['loc']) or 'top level'})"
            ) from error
        return upstream.to_completion()

    async def _post(self, body: dict[str, Any]) -> tuple[int, bytes]:
        """The reply's status and body, read up to MAX_REPLY_BYTES (else ReplyTooLarge)."""
        async with (
            httpx.AsyncClient(timeout=self.timeout, transport=self._transport) as client,
            client.stream("POST", self.endpoint, json=body,
                          headers={"Authorization": f"Bearer {self._api_key}"}) as response,
        ):
            chunks: list[bytes] = []
            size = 0
            async for chunk in response.aiter_bytes():
                size += len(chunk)
                if size > MAX_REPLY_BYTES:
                    raise ReplyTooLarge
                chunks.append(chunk)
            return response.status_code, b"".join(chunks)

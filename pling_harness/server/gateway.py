"""`POST /api/model`: validates the request, asks the provider, maps faults (the caller is
checked before, by `pling_harness.server.guard`)."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from pling_harness.project.locales import entry_for
from pling_harness.server.backend import BusinessStore
from pling_harness.server.bodies import (
    MIB,
    BodyRejected,
    error_body,
    parse_json,
    read_body,
    validate_body,
)
from pling_harness.server.guard import Refusal
from pling_harness.server.log import RecordKind, ServerLog
from pling_harness.server.model.provider import ModelProvider, ProviderError, usable_message
from pling_harness.server.model.wire import AssistantMessage, ModelRequest

GATEWAY_PATH = "/api/model"
# Generous for long conversations (a 1 MiB tool-call argument may come back in history),
# small enough that a runaway page cannot make the server buffer without bound.
MAX_REQUEST_BYTES = 4 * MIB
# A language tag longer than this is no locale (BCP 47's practical bound).
MAX_LOCALE_LENGTH = 35

# What the gateway says, per code. The messages are for the page's developers (a dock shows
# its own words for the code), so they come in the languages the harness is written in: the
# request's, where it is one of them, else English.
MESSAGES_FALLBACK_LOCALE = "en"
MESSAGES: dict[str, dict[str, str]] = {
    "FORBIDDEN_HOST": {
        "en": "This server answers only to its own address.",
        "zh": "本服务器只响应发往其自身地址的请求。",
    },
    "FORBIDDEN_ORIGIN": {
        "en": "Only the page served by this server may call the model.",
        "zh": "只有本服务器提供的页面可以调用模型。",
    },
    "UNSUPPORTED_MEDIA_TYPE": {
        "en": "Send the request as application/json.",
        "zh": "请以 application/json 格式发送请求。",
    },
    "PAYLOAD_TOO_LARGE": {
        "en": f"The request is larger than {MAX_REQUEST_BYTES // MIB} MiB.",
        "zh": f"请求超过了 {MAX_REQUEST_BYTES // MIB} MiB。",
    },
    "REQUEST_TIMEOUT": {
        "en": "The request did not arrive in time. Nothing was run.",
        "zh": "请求未能及时送达，没有执行任何操作。",
    },
    "BAD_REQUEST": {
        "en": "The request is not valid ({detail}).",
        "zh": "请求无效（{detail}）。",
    },
    "MODEL_UNAVAILABLE": {
        "en": "The model is not available right now. Nothing was run.",
        "zh": "模型暂时不可用，没有执行任何操作。",
    },
    "MODEL_TIMEOUT": {
        "en": "The model did not answer in time. Nothing was run.",
        "zh": "模型没有及时回复，没有执行任何操作。",
    },
    "MODEL_BAD_REPLY": {
        "en": "The model sent a reply that cannot be used. Nothing was run.",
        "zh": "模型的回复无法使用，没有执行任何操作。",
    },
}


def say(code: str, locale: str | None, **params: str) -> str:
    messages = MESSAGES[code]
    found = entry_for(messages, locale) if locale else None
    return (found or messages[MESSAGES_FALLBACK_LOCALE]).format(**params)


def locale_hint(data: Any) -> str | None:
    """The request's locale, read before validation so even a 400 speaks the page's language."""
    locale = data.get("locale") if isinstance(data, dict) else None
    return locale if isinstance(locale, str) and len(locale) <= MAX_LOCALE_LENGTH else None


class Gateway:
    """One per server: forwards to `provider` and records every exchange in `log`."""

    def __init__(self, *, provider: ModelProvider, log: ServerLog, state: BusinessStore) -> None:
        self.provider = provider
        self.log = log
        self.state = state

    async def handle(self, request: Request) -> Response:
        """A model request that passed the guard (`pling_harness.server.guard`): own Host and
        Origin, JSON content type."""
        try:
            raw = await read_body(request, limit=MAX_REQUEST_BYTES)
        except BodyRejected as rejected:
            return self._refuse(request, rejected.status, rejected.code, None,
                                detail=rejected.message)
        data: Any = None
        try:
            data = parse_json(raw)
            model_request = validate_body(ModelRequest, data)
        except BodyRejected as rejected:
            return self._refuse(request, rejected.status, rejected.code, locale_hint(data),
                                body=data, detail=rejected.message)
        return await self._forward(request, model_request, data)

    def refuse(self, request: Request, refusal: Refusal) -> Response:
        """The guard's refusal, in the gateway's words; logged as a model error."""
        return self._refuse(request, refusal.status, refusal.code, None, detail=refusal.detail)

    async def _forward(self, request: Request, model_request: ModelRequest, data: Any) -> Response:
        locale = model_request.locale
        asked = self._record("model.request", request, body=data, model_request=model_request)
        try:
            message = usable_message(await self.provider.complete(model_request))
        except ProviderError as fault:
            return self._refuse(request, fault.status, fault.code, locale, body=data,
                                detail=str(fault), model_request=model_request, answers=asked)
        except Exception as fault:
            # A provider bug must still look like an unavailable model to the page,
            # never like a reply it could act on.
            return self._refuse(request, 502, "MODEL_UNAVAILABLE", locale, body=data,
                                detail=f"provider raised {type(fault).__name__}",
                                model_request=model_request, answers=asked)
        reply = {"message": message.to_wire()}
        self._record("model.reply", request, body=data, status=200, response=reply,
                     model_request=model_request, model_reply=message, answers=asked)
        return JSONResponse(reply)

    def _refuse(
        self,
        request: Request,
        status: int,
        code: str,
        locale: str | None,
        *,
        body: Any = None,
        detail: str,
        model_request: ModelRequest | None = None,
        answers: int | None = None,
    ) -> Response:
        params = {"detail": detail} if code == "BAD_REQUEST" else {}
        answer = error_body(code, say(code, locale, **params))
        self._record("model.error", request, body=body, status=status, response=answer,
                     detail=detail, model_request=model_request, answers=answers)
        return JSONResponse(answer, status_code=status)

    def _record(
        self,
        kind: RecordKind,
        request: Request,
        *,
        body: Any,
        status: int | None = None,
        response: Any = None,
        detail: str | None = None,
        model_request: ModelRequest | None = None,
        model_reply: AssistantMessage | None = None,
        answers: int | None = None,
    ) -> int:
        """Log one record; returns its seq."""
        return self.log.append(
            kind=kind, method=request.method, path=request.url.path, body=body, status=status,
            response=response, state=self.state.snapshot(), detail=detail,
            model_request=model_request, model_reply=model_reply, answers=answers).seq

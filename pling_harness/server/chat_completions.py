"""The scripted model on OpenAI's wire: `POST /v1/chat/completions` and `GET /v1/models`.

For pages whose own server calls the model (the AI SDK's `streamText`, CopilotKit's
runtime): point the framework's OpenAI-compatible provider at `<server>/v1`. The fixture
server mounts these routes beside its gateway (`create_app`), over the same model and log;
`ModelServer` (`pling_harness.server.model_server`) serves them alone on a port of their
own, for a page served elsewhere.

An exchange is logged as the gateway logs one (`model.request`, then `model.reply` or
`model.error`, the wire models parsed once), so `ServerLog.model_exchanges()`,
`ModelHandle` and `Conversation` read it like any other: the request as
`openai_wire.to_model_request` makes it, tool results as `framework_results` reads them.
The guard of every API route applies (`pling_harness.server.guard`): another site's page
cannot call the model with this server's key, nor read its answers. Faults are OpenAI's
error object with a 4xx for a bad request, never a 500; a fault a test scripts
(`ProviderError`) keeps its 502 or 504.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Match, Route

from pling_harness.project.business_state import BusinessState
from pling_harness.server.bodies import BodyRejected, parse_json, read_body
from pling_harness.server.gateway import MAX_REQUEST_BYTES, say
from pling_harness.server.guard import Refusal, guarded
from pling_harness.server.log import RecordKind, ServerLog
from pling_harness.server.model.openai_wire import (
    ACCEPT_UNANSWERED_CALLS,
    CHAT_COMPLETIONS_PATH,
    MODELS_PATH,
    Answer,
    ChatCompletionRequest,
    completion_body,
    completion_chunks,
    error_body,
    models_body,
    sse_event,
    to_model_request,
)
from pling_harness.server.model.provider import ModelProvider, ProviderError, usable_message
from pling_harness.server.model.wire import AssistantMessage, ModelRequest

ALL_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
NO_STORE_HEADERS = {"Cache-Control": "no-store"}


@dataclass(frozen=True)
class ModelSeat:
    """The model an endpoint answers with, the log it records in, and how it reads the
    business state each record carries."""

    provider: ModelProvider
    log: ServerLog
    read_state: Callable[[], BusinessState]


def openai_error(status: int, code: str, message: str, param: str | None = None) -> Response:
    return JSONResponse(error_body(message, code=code.lower(), param=param, status=status),
                        status_code=status, headers=NO_STORE_HEADERS)


def field_path(location: tuple[int | str, ...]) -> str:
    """`("messages", 2, "content")` → `messages[2].content`, as OpenAI names a parameter."""
    path = ""
    for part in location:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path


# Words pydantic puts in an error's location for a union's member, not fields of the wire.
UNION_MEMBERS = frozenset({"str", "int", "float", "bool", "dict", "list", "none"})
MESSAGE_ROLES = frozenset({"system", "developer", "user", "assistant", "tool"})
TEXT_ONLY = "; the scripted model reads text content only"


def wire_location(location: tuple[int | str, ...]) -> tuple[int | str, ...]:
    """The fields of an error location: without the role pydantic adds after a message's
    index (the union's tag) or a member's type name (`str`, `list[TextPart]`)."""
    kept: list[int | str] = []
    for position, part in enumerate(location):
        follows_index = position > 0 and isinstance(location[position - 1], int)
        if isinstance(part, str) and (
                part in UNION_MEMBERS or "[" in part or (follows_index and part in MESSAGE_ROLES)):
            continue
        kept.append(part)
    return tuple(kept)


def validation_problem(error: ValidationError) -> tuple[str, str | None]:
    """The message of the deepest problem (in a union, the member that came closest),
    naming its field, and that field's path."""
    deepest = max(error.errors(), key=lambda problem: len(problem["loc"]))
    location = wire_location(deepest["loc"])
    where = field_path(location) or None
    message = str(deepest["msg"]).removeprefix("Value error, ")
    if deepest["type"] == "extra_forbidden":
        message = "not an argument of OpenAI's Chat Completions API; leave it out"
    if "content" in location and location[-1] == "type":
        message += TEXT_ONLY
    return (f"{where}: {message}" if where else message), where


class ChatCompletions:
    """OpenAI's wire over one seat. `seat` may change between requests (a model server
    serves one check after another); with no seat the endpoint answers 503."""

    def __init__(self, seat: ModelSeat | None = None) -> None:
        self.seat = seat

    def routes(self) -> list[Route]:
        """The guarded routes, and an OpenAI-style 404/405 for any other `/v1/` path."""
        served = [
            Route(CHAT_COMPLETIONS_PATH, guarded(self.completions, refuse=self.refuse),
                  methods=["POST"]),
            Route(MODELS_PATH, guarded(self.models, refuse=self.refuse), methods=["GET"]),
        ]

        async def not_served(request: Request) -> Response:
            for route in served:
                match, _ = route.matches({**request.scope, "method": "OPTIONS"})
                if match is not Match.NONE:
                    return openai_error(405, "method_not_allowed",
                                        f"{request.method} is not allowed on "
                                        f"{request.url.path}.")
            return openai_error(404, "not_found", f"No endpoint at {request.url.path}; this "
                                f"server answers POST {CHAT_COMPLETIONS_PATH} and GET "
                                f"{MODELS_PATH}.")

        return [*served, Route("/v1/{rest:path}", not_served, methods=ALL_METHODS)]

    def refuse(self, request: Request, refusal: Refusal) -> Response:
        """The guard's refusal (foreign Host or Origin, not JSON) as OpenAI's error object."""
        if self.seat is not None and request.url.path == CHAT_COMPLETIONS_PATH:
            self._record("model.error", request, body=None, status=refusal.status,
                         response=None, detail=refusal.detail)
        return openai_error(refusal.status, refusal.code, refusal.message)

    async def models(self, request: Request) -> Response:
        return JSONResponse(models_body(), headers=NO_STORE_HEADERS)

    async def completions(self, request: Request) -> Response:
        if self.seat is None:
            return openai_error(503, "no_model", "No check is running on this model server: "
                                "it answers while a check that started it runs.")
        try:
            raw = await read_body(request, limit=MAX_REQUEST_BYTES)
        except BodyRejected as rejected:
            return self._refuse(request, rejected.status, rejected.code, rejected.message)
        try:
            data = parse_json(raw)
        except BodyRejected as rejected:
            return self._refuse(request, 400, "invalid_json", f"{rejected.message} Send the "
                                "request as a JSON object.")
        try:
            lenient = getattr(self.seat.provider, "accepts_unanswered_calls", False) is True
            wire = ChatCompletionRequest.model_validate(
                data, context={ACCEPT_UNANSWERED_CALLS: lenient})
        except ValidationError as error:
            message, param = validation_problem(error)
            return self._refuse(request, 400, "invalid_request", message, body=data,
                                param=param)
        return await self._answer(request, wire, data)

    async def _answer(self, request: Request, wire: ChatCompletionRequest,
                      data: Any) -> Response:
        assert self.seat is not None
        model_request = to_model_request(wire)
        asked = self._record("model.request", request, body=data, model_request=model_request)
        try:
            completion = await self.seat.provider.complete(model_request)
            message = usable_message(completion)
        except ProviderError as fault:
            return self._refuse(request, fault.status, fault.code, say(fault.code, None),
                                body=data, detail=str(fault), model_request=model_request,
                                answers=asked)
        except Exception as fault:
            # A provider bug looks like an unavailable model, never like a reply to act on.
            return self._refuse(request, 502, "MODEL_UNAVAILABLE",
                                say("MODEL_UNAVAILABLE", None), body=data,
                                detail=f"provider raised {type(fault).__name__}",
                                model_request=model_request, answers=asked)
        answer = Answer(completion_id=f"chatcmpl-{completion.id}", model=wire.model,
                        created=int(time.time()))
        body = completion_body(message, answer)
        self._record("model.reply", request, body=data, status=200, response=body,
                     model_request=model_request, model_reply=message, answers=asked)
        if not wire.stream:
            return JSONResponse(body, headers=NO_STORE_HEADERS)
        include_usage = bool(wire.stream_options and wire.stream_options.include_usage)

        async def events() -> AsyncIterator[bytes]:
            for chunk in completion_chunks(message, answer, include_usage=include_usage):
                yield sse_event(chunk)
            yield sse_event("[DONE]")

        return StreamingResponse(events(), media_type="text/event-stream",
                                 headers=NO_STORE_HEADERS)

    def _refuse(self, request: Request, status: int, code: str, message: str, *,
                body: Any = None, param: str | None = None, detail: str | None = None,
                model_request: ModelRequest | None = None,
                answers: int | None = None) -> Response:
        response = openai_error(status, code, message, param)
        self._record("model.error", request, body=body, status=status,
                     response=error_body(message, code=code.lower(), param=param,
                                         status=status),
                     detail=detail or message, model_request=model_request, answers=answers)
        return response

    def _record(self, kind: RecordKind, request: Request, *, body: Any,
                status: int | None = None, response: Any = None, detail: str | None = None,
                model_request: ModelRequest | None = None,
                model_reply: AssistantMessage | None = None,
                answers: int | None = None) -> int:
        assert self.seat is not None
        return self.seat.log.append(
            kind=kind, method=request.method, path=request.url.path, body=body,
            status=status, response=response, state=self.seat.read_state(), detail=detail,
            model_request=model_request, model_reply=model_reply, answers=answers).seq

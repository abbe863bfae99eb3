"""ModelRoute: the page's model endpoint answered inside the browser (external mode).

When the harness checks a page it does not serve (`--base-url`), the page's own gateway and
provider must never be used: the checks need the deterministic scripted model, and a real
provider would cost money and change answers. So Playwright routes the declared model path
of the target's origin (`tutorial.api.model`, e.g. `POST /api/model`) and answers it here
with the same `ScriptedModel`, the same rules file and the same wire format as the fixture
server's gateway (`pling_harness.server.gateway`): the request is validated the same way, faults
a test scripts (`ProviderError`) become the same 502/504 envelopes in the page's language,
and every exchange is logged in a `ServerLog` the way the gateway logs it, with the
target's business state read through its declared state request when the request arrived.
The request never leaves the browser, so the target's gateway never sees it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from playwright.sync_api import BrowserContext, Page, Route

from pling_harness.project.business_state import BusinessState
from pling_harness.server.bodies import (
    BodyRejected,
    error_body,
    parse_json,
    validate_body,
)
from pling_harness.server.gateway import MAX_REQUEST_BYTES, locale_hint, say
from pling_harness.server.guard import is_json_content_type
from pling_harness.server.log import RecordKind, ServerLog
from pling_harness.server.model.provider import ProviderError, usable_message
from pling_harness.server.model.scripted import ScriptedModel
from pling_harness.server.model.wire import AssistantMessage, ModelRequest

# Like the fixture server: no answer of the model endpoint is ever cached.
ANSWER_HEADERS = {"Cache-Control": "no-store"}

ReadState = Callable[[], BusinessState]


class ModelRoute:
    """Answers `POST <origin><path>` for every page of a browser context it is installed on.

    `read_state` gives the target's business state for the log's records (the gateway logs
    the state at each request too). `requests_seen` counts what the route answered, so a
    test can tell the route, not the target, took them.
    """

    def __init__(self, *, model: ScriptedModel, log: ServerLog, origin: str, path: str,
                 read_state: ReadState) -> None:
        self.model = model
        self.log = log
        self.origin = origin.rstrip("/")
        self.path = path
        self.read_state = read_state
        self.requests_seen = 0

    def install(self, target: BrowserContext | Page) -> None:
        """Route the model endpoint on `target`; call before the first navigation."""
        target.route(self.matches, self.answer)

    def matches(self, url: str) -> bool:
        parts = urlsplit(url)
        return f"{parts.scheme}://{parts.netloc}" == self.origin and parts.path == self.path

    def answer(self, route: Route) -> None:
        """Answer one intercepted request, as the gateway would."""
        self.requests_seen += 1
        status, body = self._respond(route.request.method, route.request.headers,
                                     route.request.post_data_buffer or b"")
        route.fulfill(status=status, json=body, headers=ANSWER_HEADERS)

    def _respond(self, method: str, headers: dict[str, str],
                 raw: bytes) -> tuple[int, dict[str, Any]]:
        if method != "POST":
            return self._refuse(method, 405, "METHOD_NOT_ALLOWED", None,
                                message=f"{method} is not allowed on {self.path}.",
                                detail=f"method {method}")
        content_type = headers.get("content-type", "")
        if not is_json_content_type(content_type):
            return self._refuse(method, 415, "UNSUPPORTED_MEDIA_TYPE", None,
                                detail=f"Content-Type {content_type!r}")
        if len(raw) > MAX_REQUEST_BYTES:
            return self._refuse(method, 413, "PAYLOAD_TOO_LARGE", None,
                                detail=f"The request body is larger than {MAX_REQUEST_BYTES} "
                                "bytes.")
        data: Any = None
        try:
            data = parse_json(raw)
            request = validate_body(ModelRequest, data)
        except BodyRejected as rejected:
            return self._refuse(method, rejected.status, rejected.code, locale_hint(data),
                                body=data, detail=rejected.message)
        asked = self._record("model.request", method, body=data, model_request=request)
        try:
            message = usable_message(self.model.respond(request))
        except ProviderError as fault:
            return self._refuse(method, fault.status, fault.code, request.locale, body=data,
                                detail=str(fault), model_request=request, answers=asked)
        reply = {"message": message.to_wire()}
        self._record("model.reply", method, body=data, status=200, response=reply,
                     model_request=request, model_reply=message, answers=asked)
        return 200, reply

    def _refuse(self, method: str, status: int, code: str, locale: str | None, *,
                detail: str, body: Any = None, message: str | None = None,
                model_request: ModelRequest | None = None,
                answers: int | None = None) -> tuple[int, dict[str, Any]]:
        params = {"detail": detail} if code == "BAD_REQUEST" else {}
        answer = error_body(code, message if message is not None else say(code, locale,
                                                                              **params))
        self._record("model.error", method, body=body, status=status, response=answer,
                     detail=detail, model_request=model_request, answers=answers)
        return status, answer

    def _record(self, kind: RecordKind, method: str, *, body: Any, status: int | None = None,
                response: Any = None, detail: str | None = None,
                model_request: ModelRequest | None = None,
                model_reply: AssistantMessage | None = None, answers: int | None = None) -> int:
        return self.log.append(
            kind=kind, method=method, path=self.path, body=body, status=status,
            response=response, state=self.read_state(), detail=detail,
            model_request=model_request, model_reply=model_reply, answers=answers).seq

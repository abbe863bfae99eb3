"""The business API: `/api/workspace` for r-15 and `/api/testbed` for the testbed page."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from harness.server.bodies import (
    KIB,
    BodyRejected,
    error_body,
    parse_json,
    read_body,
    try_parse_json,
    validate_body,
)
from harness.server.guard import Refusal
from harness.server.log import ServerLog
from harness.server.state import BusinessError, TestbedCalls, WorkspaceSnapshot, WorkspaceState

# Business bodies are tiny; the testbed's limit is the documented 64 KiB.
MAX_BUSINESS_BODY_BYTES = 64 * KIB
ACTION_ID = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")


class StrictBody(BaseModel):
    model_config = ConfigDict(extra="forbid")


class EmptyBody(StrictBody):
    pass


class NameBody(StrictBody):
    name: str


class PublishBody(StrictBody):
    code: str


Change = Callable[[Any], WorkspaceSnapshot]


class BusinessApi:
    """Handlers over one server's state, each call recorded in the log with the state after."""

    def __init__(self, *, state: WorkspaceState, testbed: TestbedCalls, log: ServerLog) -> None:
        self.state = state
        self.testbed = testbed
        self.log = log

    # --- workspace -------------------------------------------------------------------

    async def get_workspace(self, request: Request) -> Response:
        return self._answer(request, None, 200, self.state.snapshot().model_dump())

    async def rename(self, request: Request) -> Response:
        return await self._change(request, NameBody, lambda body: self.state.rename(body.name))

    async def archive(self, request: Request) -> Response:
        return await self._change(request, EmptyBody, lambda _: self.state.archive())

    async def reset(self, request: Request) -> Response:
        return await self._change(request, EmptyBody, lambda _: self.state.reset())

    async def publish(self, request: Request) -> Response:
        return await self._change(request, PublishBody, lambda body: self.state.publish(body.code))

    async def _change(
        self, request: Request, model: type[StrictBody], change: Change
    ) -> Response:
        data: Any = None
        try:
            raw = await read_body(request, limit=MAX_BUSINESS_BODY_BYTES)
            data = try_parse_json(raw)
            # An empty body means "no fields"; models with required fields still refuse it.
            # Safe only because the guard demands a JSON content type, which no cross-site
            # form or "simple" fetch can send.
            body = validate_body(model, parse_json(raw) if raw.strip() else {})
            snapshot = change(body)
        except BodyRejected as rejected:
            return self._answer(request, data, rejected.status,
                                error_body(rejected.code, rejected.message))
        except BusinessError as refused:
            return self._answer(request, data, 400, error_body(refused.code, str(refused)))
        return self._answer(request, data, 200, snapshot.model_dump())

    # --- testbed ---------------------------------------------------------------------

    async def testbed_run(self, request: Request) -> Response:
        action = request.path_params["action"]
        data: Any = None
        try:
            if not ACTION_ID.fullmatch(action):
                raise BodyRejected(404, "NOT_FOUND", f"{action!r} is not an action id.")
            data = try_parse_json(await read_body(request, limit=MAX_BUSINESS_BODY_BYTES))
            if not isinstance(data, dict):
                raise BodyRejected(400, "BAD_REQUEST", "The body must be a JSON object.")
        except BodyRejected as rejected:
            return self._answer(request, data, rejected.status,
                                error_body(rejected.code, rejected.message))
        call = self.testbed.record(action, data)
        return self._answer(request, data, 200,
                            {"ok": True, "action": action, "count": call.count})

    async def testbed_calls(self, request: Request) -> Response:
        calls = [call.model_dump() for call in self.testbed.calls()]
        return self._answer(request, None, 200, {"calls": calls})

    # --- common ----------------------------------------------------------------------

    def refuse(self, request: Request, refusal: Refusal) -> Response:
        """The guard's refusal: logged with its reason (body unread, state untouched)."""
        return self._answer(request, None, refusal.status,
                            error_body(refusal.code, refusal.message), detail=refusal.detail)

    def _answer(self, request: Request, body: Any, status: int, response: Any, *,
                detail: str | None = None) -> Response:
        self.log.append(kind="api", method=request.method, path=request.url.path, body=body,
                        status=status, response=response, state=self.state.snapshot(),
                        detail=detail)
        return JSONResponse(response, status_code=status)


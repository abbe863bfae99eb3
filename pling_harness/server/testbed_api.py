"""The testbed page's business API: `/api/testbed`, a real server-side effect for any action."""

from __future__ import annotations

import re
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from pling_harness.server.backend import MAX_BUSINESS_BODY_BYTES, BusinessApi
from pling_harness.server.bodies import BodyRejected, error_body, parse_json, read_body
from pling_harness.server.testbed_calls import TestbedCalls

ACTION_ID = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")


class TestbedApi:
    """Handlers over one server's testbed calls, logged (with the tutorial's state) like
    every business call."""

    __test__ = False  # not a pytest test class, despite the name

    def __init__(self, *, business: BusinessApi[Any], testbed: TestbedCalls) -> None:
        self.business = business
        self.testbed = testbed

    async def run(self, request: Request) -> Response:
        action = request.path_params["action"]
        data: Any = None
        try:
            if not ACTION_ID.fullmatch(action):
                raise BodyRejected(404, "NOT_FOUND", f"{action!r} is not an action id.")
            data = parse_json(await read_body(request, limit=MAX_BUSINESS_BODY_BYTES))
            if not isinstance(data, dict):
                raise BodyRejected(400, "BAD_REQUEST", "The body must be a JSON object.")
        except BodyRejected as rejected:
            return self.business.answer(request, data, rejected.status,
                                        error_body(rejected.code, rejected.message))
        call = self.testbed.record(action, data)
        return self.business.answer(request, data, 200,
                                    {"ok": True, "action": action, "count": call.count})

    async def calls(self, request: Request) -> Response:
        calls = [call.model_dump() for call in self.testbed.calls()]
        return self.business.answer(request, None, 200, {"calls": calls})

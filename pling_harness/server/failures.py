"""The last line behind every API handler: a failure the handler did not foresee is still
logged and answered in the server's envelope, never a bare 500 that leaves no evidence."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from pling_harness.server.backend import BusinessStore
from pling_harness.server.bodies import error_body, error_response
from pling_harness.server.guard import Endpoint
from pling_harness.server.log import ServerLog

INTERNAL_ERROR_MESSAGE = "The server failed on this request; nothing was changed by it."


def logging_failures(endpoint: Endpoint, *, log: ServerLog, state: BusinessStore) -> Endpoint:
    """`endpoint`, with any exception it raises logged as an `api` record (status 500, the
    exception's type in `detail`) and answered 500 `INTERNAL_ERROR`. A bug stays a bug (the
    fuzz test fails on any 5xx), but the log shows it where the checks read."""

    async def endpoint_logging_failures(request: Request) -> Response:
        try:
            return await endpoint(request)
        except Exception as failure:
            log.append(kind="api", method=request.method, path=request.url.path, status=500,
                       response=error_body("INTERNAL_ERROR", INTERNAL_ERROR_MESSAGE),
                       state=state.snapshot(),
                       detail=f"{type(failure).__name__}: {str(failure)[:200]}")
            return error_response(500, "INTERNAL_ERROR", INTERNAL_ERROR_MESSAGE)

    return endpoint_logging_failures

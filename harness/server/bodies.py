"""Reading JSON request bodies with a size cap, and the server's error envelope."""

from __future__ import annotations

import json
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse

KIB = 1024
MIB = 1024 * KIB

ModelT = TypeVar("ModelT", bound=BaseModel)


class BodyRejected(Exception):
    """The request body cannot be used; carries the HTTP status, code and message to answer."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


def error_body(code: str, message: str) -> dict[str, Any]:
    return {"ok": False, "code": code, "message": message}


def error_response(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse(error_body(code, message), status_code=status)


async def read_body(request: Request, *, limit: int) -> bytes:
    """The raw body, refusing (413) anything over `limit` bytes without reading it all."""
    too_large = BodyRejected(
        413, "PAYLOAD_TOO_LARGE", f"The request body is larger than {limit} bytes."
    )
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise too_large
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise too_large
        chunks.append(chunk)
    return b"".join(chunks)


def parse_json(raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise BodyRejected(400, "BAD_REQUEST", f"The body is not JSON: {error}.") from error


def try_parse_json(raw: bytes) -> Any:
    """The parsed body for the log, or None when it is not JSON."""
    try:
        return json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None


def validation_message(error: ValidationError) -> str:
    """'field name: String should have at most 80 characters' for the first problem."""
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "body"
    return f"field {where}: {first['msg']}"


def validate_body(model: type[ModelT], data: Any) -> ModelT:
    try:
        return model.model_validate(data)
    except ValidationError as error:
        raise BodyRejected(400, "BAD_REQUEST", validation_message(error)) from error

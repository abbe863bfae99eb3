"""Reading request bodies: a size cap, strict JSON, and the server's error envelope."""

from __future__ import annotations

import json
import math
import re
from typing import Any, NoReturn, TypeVar

from pydantic import BaseModel, ValidationError
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse

from pling_harness.server.deadline import BodyTimedOut

KIB = 1024
MIB = 1024 * KIB
# A body over its cap is still read (and dropped) up to this many bytes, so its client gets
# the 413; a larger one is answered at once and its connection closed.
DRAIN_LIMIT_BYTES = 32 * MIB
# Deeper than any body a page sends (a tool's parameter schema nests a few levels), shallow
# enough that nothing that walks a body (validation, the log, JSON answers) can recurse
# too deep.
MAX_JSON_DEPTH = 64
# A JSON integer longer than this is no count or id anyone sends; Python would build it
# (slowly, past 4300 digits not at all), so it is refused before.
MAX_INTEGER_DIGITS = 100
# A UTF-16 surrogate alone is no character: no UTF-8 encoder can write it back (the log, an
# answer, the page), so a string holding one (`"\ud800"`) is refused where it is read.
LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")
# Strict UTF-8 holds no surrogate, so one can come only from a `\uD800`-style escape; a body
# without one (almost every body) skips the search through its strings.
SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")

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
    """The raw body, refusing (413) anything over `limit` bytes, counted as read whatever the
    framing, and (408) a body that does not arrive in time (`pling_harness.server.deadline`).

    Past the cap nothing more is kept, but the rest is read and dropped (up to
    DRAIN_LIMIT_BYTES) before the 413 is answered: a server that answers and closes while
    the client is still sending resets the connection, and the client (a proxy in front of
    this server, such as Vite's) loses the answer and reports its own 502 instead."""
    too_large = BodyRejected(
        413, "PAYLOAD_TOO_LARGE", f"The request body is larger than {limit} bytes."
    )
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > DRAIN_LIMIT_BYTES:
        raise too_large  # too much even to drop: answered at once, the connection closed
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > DRAIN_LIMIT_BYTES:
                break
            if size <= limit:
                chunks.append(chunk)
    except BodyTimedOut as late:
        if size > limit:
            raise too_large from late
        raise BodyRejected(408, "REQUEST_TIMEOUT", str(late)) from late
    except ClientDisconnect as gone:
        if size > limit:
            raise too_large from gone
        raise BodyRejected(400, "BAD_REQUEST", f"The client closed the connection after "
                                               f"{size} bytes of the body.") from gone
    if size > limit:
        raise too_large
    return b"".join(chunks)


def _not_json(reason: str) -> NoReturn:
    raise BodyRejected(400, "BAD_REQUEST", f"The body is not JSON: {reason}.")


def _refuse_constant(name: str) -> NoReturn:
    _not_json(f"{name} is not a JSON number; send a finite number or a string")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        _not_json(f"{text[:20]}… is too large for a number; send it as a string")
    return value


def _bounded_int(text: str) -> int:
    digits = text.lstrip("-")
    if len(digits) > MAX_INTEGER_DIGITS:
        _not_json(f"an integer of {len(digits)} digits (at most {MAX_INTEGER_DIGITS}); "
                  "send it as a string")
    return int(text)


def _check_shape(value: Any, *, strings: bool) -> None:
    """Depth at most MAX_JSON_DEPTH and, if `strings`, no lone surrogate in a string; walked
    without recursion."""
    pending: list[tuple[Any, int]] = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, str):
            found = LONE_SURROGATE.search(item) if strings and not item.isascii() else None
            if found:
                _not_json(f"a string holds the lone surrogate \\u{ord(found.group()):04x}, "
                          "which is no character; send text as UTF-8")
        elif isinstance(item, dict | list):
            if depth > MAX_JSON_DEPTH:
                _not_json(f"it nests deeper than {MAX_JSON_DEPTH} levels")
            children = [*item.keys(), *item.values()] if isinstance(item, dict) else item
            pending.extend((child, depth + 1) for child in children)


def parse_json(raw: bytes) -> Any:
    """Strict JSON in UTF-8 (RFC 8259): no NaN or Infinity, no number too large to be one, no
    lone surrogate, at most MAX_JSON_DEPTH levels deep; anything else is a 400 BAD_REQUEST
    naming the problem, never an exception of the parser's."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        _not_json(f"byte {error.start} is not UTF-8")
    try:
        value = json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float,
                           parse_int=_bounded_int)
    except json.JSONDecodeError as error:
        _not_json(str(error))
    except RecursionError:
        _not_json(f"it nests deeper than {MAX_JSON_DEPTH} levels")
    _check_shape(value, strings=SURROGATE_ESCAPE.search(text) is not None)
    return value


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

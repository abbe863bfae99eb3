"""A deadline for request bodies: a client that declares 100 bytes and sends 9 is answered
408 once the deadline passes, instead of holding a connection (and a handler) open."""

from __future__ import annotations

import asyncio

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

# Long enough for a 4 MiB model request over a slow link (≈ 400 KB/s), short enough that a
# stalled body frees its connection well before anyone waits on it.
BODY_DEADLINE_SECONDS = 10.0


class BodyTimedOut(Exception):
    """The body did not arrive before the deadline; `read_body` answers it 408."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"The request body did not arrive within {seconds:g} s; send the "
                         "whole body at once, as its Content-Length says.")


class BodyDeadline:
    """ASGI middleware: each request's body must have arrived `seconds` after the request
    began. Only the body's own messages are timed: once its last chunk is in, `receive`
    is passed through as it is (a response may still wait on it for a disconnect)."""

    def __init__(self, app: ASGIApp, *, seconds: float = BODY_DEADLINE_SECONDS) -> None:
        if seconds <= 0:
            raise ValueError(f"seconds must be > 0. Current input: {seconds}")
        self.app = app
        self.seconds = seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.seconds
        body_done = False
        timed_out = False

        async def receive_in_time() -> Message:
            nonlocal body_done, timed_out
            if body_done:
                return await receive()
            try:
                async with asyncio.timeout_at(deadline):
                    message = await receive()
            except TimeoutError as late:
                timed_out = True
                raise BodyTimedOut(self.seconds) from late
            body_done = message["type"] != "http.request" or not message.get("more_body")
            return message

        async def send_closing_if_late(message: Message) -> None:
            # The rest of a late body may never come: close the connection with the answer
            # rather than keep it for the next request.
            if timed_out and message["type"] == "http.response.start":
                MutableHeaders(scope=message)["Connection"] = "close"
            await send(message)

        await self.app(scope, receive_in_time, send_closing_if_late)

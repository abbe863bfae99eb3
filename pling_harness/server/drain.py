"""Every answer, a refusal included, reaches a client still sending its body: what is left of
the body is read and dropped before the answer starts."""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from pling_harness.server.bodies import DRAIN_LIMIT_BYTES
from pling_harness.server.deadline import BodyTimedOut


class DrainUnreadBody:
    """ASGI middleware: before a response starts, the rest of the request's body is received
    and dropped, up to DRAIN_LIMIT_BYTES. A route that answers without reading the body (the
    guard's 403 and 415, an unknown API path's 404, a wrong method's 405) otherwise closed
    the connection while a large body was still coming; the client, or a proxy in front of
    this server such as Vite's, got a reset instead of the answer, and the proxy answered its
    own empty 502. Inside BodyDeadline, so a body that stalls still ends at its deadline; one
    that declares more than the limit is not read (closing is the answer then)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        body_pending = True
        received = 0

        async def tracking_receive() -> Message:
            nonlocal body_pending, received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                body_pending = bool(message.get("more_body"))
            else:
                body_pending = False
            return message

        async def drain() -> None:
            declared = dict(scope["headers"]).get(b"content-length", b"")
            if declared.isdigit() and int(declared) > DRAIN_LIMIT_BYTES:
                return
            try:
                while body_pending and received <= DRAIN_LIMIT_BYTES:
                    await tracking_receive()
            except BodyTimedOut:
                return  # BodyDeadline closes the connection with the answer

        async def send_after_draining(message: Message) -> None:
            if message["type"] == "http.response.start" and body_pending:
                await drain()
            await send(message)

        await self.app(scope, tracking_receive, send_after_draining)

"""Who may call the API: requests addressed to this server and, for a change, sent as JSON by
its own page. One rule for the business API and the model gateway alike.

The page's approval card is only a promise if nobody can reach the business API around it:
another site's page must not archive, rename or publish by posting here directly (a
cross-site request), and a name that resolves here must not make this server its own (DNS
rebinding).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from starlette.requests import Request
from starlette.responses import Response

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
DEFAULT_PORTS = {"http": 80, "https": 443}
# Methods that only read. A cross-site request with one of them changes nothing, and the
# browser keeps the answer from the other site because this server sends no CORS headers.
READ_METHODS = frozenset({"GET", "HEAD"})
# `Sec-Fetch-Site` values a browser sends for a request another site's page made (another
# port of 127.0.0.1 is the same site): refused on a change even without an `Origin`.
FROM_ANOTHER_SITE = frozenset({"cross-site", "same-site"})

# What a refused caller is told (the log's `detail` names the offending value).
REFUSAL_MESSAGES = {
    "FORBIDDEN_HOST": "This server answers only to its own address.",
    "FORBIDDEN_ORIGIN": "Only the page served by this server may send this request.",
    "UNSUPPORTED_MEDIA_TYPE": "Send the request as application/json.",
}

Endpoint = Callable[[Request], Awaitable[Response]]


@dataclass(frozen=True)
class Refusal:
    """Why a request is turned away: the HTTP status, the error code, and for the log the
    value that was wrong."""

    status: int
    code: str
    detail: str

    @property
    def message(self) -> str:
        return REFUSAL_MESSAGES[self.code]


Refuse = Callable[[Request, Refusal], Response]


def own_authorities(request: Request) -> set[str]:
    """`host:port` as a browser names this server, lower-case.

    Built from the socket the request came in on, never from the Host header, so a name
    that resolves here (DNS rebinding) stays foreign. A loopback address also goes by the
    other loopback names; on the scheme's default port the port may be left out, as
    browsers do. Without a socket address nothing is this server's own: everything is
    refused rather than trusted.
    """
    server = request.scope.get("server")
    if not server:
        return set()
    host, port = str(server[0]), server[1]
    names = {f"[{host}]" if ":" in host else host}
    if names & set(LOOPBACK_NAMES):
        names.update(LOOPBACK_NAMES)
    authorities = {f"{name}:{port}" for name in names}
    if port == DEFAULT_PORTS.get(request.scope.get("scheme", "http")):
        authorities |= names
    return {authority.lower() for authority in authorities}


def own_origins(request: Request) -> set[str]:
    """The origins of this server's own pages (see `own_authorities`)."""
    scheme = request.scope.get("scheme", "http")
    return {f"{scheme}://{authority}" for authority in own_authorities(request)}


def is_json_content_type(value: str) -> bool:
    """Exactly `application/json`, with parameters (charset) allowed: not a prefix
    (`application/jsonp`), not anywhere in the value (`text/plain; a=application/json`)."""
    return value.split(";", 1)[0].strip().lower() == "application/json"


def refusal_for(request: Request) -> Refusal | None:
    """Why this server must not serve `request`, or None when it may.

    Every API request must name this server in its Host header. A request that may change
    state (any method but GET and HEAD) must also come from this server's own page, or from
    no page at all (no Origin: curl, the harness), must not say it was sent by another
    site's page (`Sec-Fetch-Site`, whether or not an Origin came with it), and declare a
    JSON body. A browser sends
    that content type to another site only after asking first (a CORS preflight), which this
    server never grants; forms and "simple" fetches cannot send it at all.
    """
    host = request.headers.get("host")
    if host is None or host.lower() not in own_authorities(request):
        return Refusal(403, "FORBIDDEN_HOST", f"Host {host!r} is not this server")
    if request.method in READ_METHODS:
        return None
    origin = request.headers.get("origin")
    if origin is not None and origin.lower() not in own_origins(request):
        return Refusal(403, "FORBIDDEN_ORIGIN", f"Origin {origin!r} is not this server")
    site = request.headers.get("sec-fetch-site", "").lower()
    if site in FROM_ANOTHER_SITE:
        return Refusal(403, "FORBIDDEN_ORIGIN", f"sent by another site's page "
                                                f"(Sec-Fetch-Site: {site})")
    content_type = request.headers.get("content-type", "")
    if not is_json_content_type(content_type):
        return Refusal(415, "UNSUPPORTED_MEDIA_TYPE", f"Content-Type {content_type!r}")
    return None


def guarded(endpoint: Endpoint, *, refuse: Refuse) -> Endpoint:
    """`endpoint` behind `refusal_for`: a refused request is answered by `refuse` and never
    reaches `endpoint`, so its body is not even read."""

    async def guarded_endpoint(request: Request) -> Response:
        refusal = refusal_for(request)
        if refusal is not None:
            return refuse(request, refusal)
        return await endpoint(request)

    return guarded_endpoint

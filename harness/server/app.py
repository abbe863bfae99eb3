"""create_app: one tutorial's fixture server (static files, business API, model gateway)."""

from __future__ import annotations

from pathlib import Path

from starlette.applications import Starlette
from starlette.datastructures import MutableHeaders
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Match, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from harness.project.paths import FIXTURES_DIR_NAME, RUNTIME_DIR_NAME, TESTBED_DIR_NAME
from harness.project.tutorials import Tutorial
from harness.server.backend import BusinessApi, BusinessStore, TutorialBackend, load_backend
from harness.server.bodies import error_response
from harness.server.gateway import Gateway
from harness.server.guard import Endpoint, Refuse, guarded
from harness.server.log import ServerLog
from harness.server.model.provider import ModelProvider
from harness.server.preload import with_runtime_preloads
from harness.server.static import NO_STORE, StaticDirectory, file_response
from harness.server.testbed_api import TestbedApi
from harness.server.testbed_calls import TestbedCalls

STATIC_METHODS = ["GET", "HEAD"]
ALL_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]


class NoStoreMiddleware:
    """Adds `Cache-Control: no-store` to every response that does not say otherwise (API
    answers, errors), so nothing but a static file is ever kept by the browser."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_no_store(message: Message) -> None:
            if message["type"] == "http.response.start":
                MutableHeaders(scope=message).setdefault("Cache-Control", NO_STORE)
            await send(message)

        await self.app(scope, receive, send_no_store)


def create_app(
    *,
    tutorial: Tutorial,
    root: Path,
    provider: ModelProvider,
    log: ServerLog,
    backend: TutorialBackend | None = None,
    state: BusinessStore | None = None,
    testbed: TestbedCalls | None = None,
    static_cache: str = NO_STORE,
) -> Starlette:
    """One server's app: the tutorial's business routes (its backend.py under `root`, unless
    `backend` is given) over its state, and the harness's testbed and gateway routes. State
    and testbed calls are this app's own unless passed in. `static_cache` is the
    `Cache-Control` of the static files (see `harness.server.static`)."""
    backend = backend if backend is not None else load_backend(tutorial, root)
    state = state if state is not None else backend.make_state()
    testbed = testbed if testbed is not None else TestbedCalls()
    api = BusinessApi(state=state, log=log)
    testbed_api = TestbedApi(business=api, testbed=testbed)
    gateway = Gateway(provider=provider, log=log, state=state)
    runtime_dir = root / FIXTURES_DIR_NAME / RUNTIME_DIR_NAME
    runtime_files = StaticDirectory(runtime_dir, cache_control=static_cache)

    def preloads(html: str) -> str:
        # The pages preload the runtime's graph as the runtime lays it out, not by name.
        return with_runtime_preloads(html, runtime_dir)

    testbed_files = StaticDirectory(root / FIXTURES_DIR_NAME / TESTBED_DIR_NAME,
                                    cache_control=static_cache, rewrite_html=preloads)
    fixture_files = StaticDirectory(tutorial.fixture_directory(root), cache_control=static_cache,
                                    rewrite_html=preloads)
    copy_directory = tutorial.copy_directory(root)

    def api_route(path: str, endpoint: Endpoint, method: str, refuse: Refuse = api.refuse) -> Route:
        # Every API route is guarded, not just the gateway: a business call that another
        # site's page could make would bypass the approval the page asks for.
        return Route(path, guarded(endpoint, refuse=refuse), methods=[method])

    api_routes = [
        *(api_route(route.path, route.endpoint, route.method) for route in backend.routes(api)),
        api_route("/api/testbed/run/{action}", testbed_api.run, "POST"),
        api_route("/api/testbed/calls", testbed_api.calls, "GET"),
        api_route(tutorial.api.model, gateway.handle, "POST", refuse=gateway.refuse),
    ]

    async def api_not_found(request: Request) -> Response:
        # Without this, a wrong method on an API path would fall through to the static files.
        for route in api_routes:
            match, _ = route.matches({**request.scope, "method": "OPTIONS"})
            if match is not Match.NONE:
                return error_response(405, "METHOD_NOT_ALLOWED",
                                      f"{request.method} is not allowed on {request.url.path}.")
        return error_response(404, "NOT_FOUND", f"No API at {request.url.path}.")

    async def copy(request: Request) -> Response:
        return file_response(copy_directory, f"{request.path_params['locale']}.json",
                             cache_control=static_cache)

    async def testbed_slash(request: Request) -> Response:
        return RedirectResponse("/testbed/", status_code=307)

    routes = [
        *api_routes,
        Route("/api/{rest:path}", api_not_found, methods=ALL_METHODS),
        Route("/pling/{path:path}", runtime_files.handle, methods=STATIC_METHODS),
        Route("/testbed", testbed_slash, methods=STATIC_METHODS),
        Route("/testbed/{path:path}", testbed_files.handle, methods=STATIC_METHODS),
        Route("/copy/{locale}.json", copy, methods=STATIC_METHODS),
        Route("/{path:path}", fixture_files.handle, methods=STATIC_METHODS),
    ]
    app = Starlette(routes=routes, middleware=[Middleware(NoStoreMiddleware)])
    app.state.business_state = state
    app.state.testbed = testbed
    app.state.log = log
    app.state.provider = provider
    return app

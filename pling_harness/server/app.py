"""create_app: one tutorial's fixture server (static files, business API, model gateway, the
model on OpenAI's wire)."""

from __future__ import annotations

from pathlib import Path

from starlette.applications import Starlette
from starlette.datastructures import MutableHeaders
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Match, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from pling_harness.project.paths import RUNTIME_DIR, TESTBED_DIR
from pling_harness.project.tutorials import Tutorial
from pling_harness.server.backend import BusinessApi, BusinessStore, TutorialBackend, load_backend
from pling_harness.server.bodies import error_body, error_response
from pling_harness.server.chat_completions import ChatCompletions, ModelSeat
from pling_harness.server.deadline import BODY_DEADLINE_SECONDS, BodyDeadline
from pling_harness.server.drain import DrainUnreadBody
from pling_harness.server.failures import logging_failures
from pling_harness.server.gateway import Gateway
from pling_harness.server.guard import Endpoint, Refuse, guarded
from pling_harness.server.log import ServerLog
from pling_harness.server.model.provider import ModelProvider
from pling_harness.server.preload import with_runtime_preloads
from pling_harness.server.static import NO_STORE, StaticDirectory, file_response
from pling_harness.server.testbed_api import TestbedApi
from pling_harness.server.testbed_calls import TestbedCalls

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
    body_deadline: float = BODY_DEADLINE_SECONDS,
) -> Starlette:
    """One server's app: the tutorial's business routes (its backend.py under `root`, unless
    `backend` is given) over its state, and the harness's testbed and gateway routes. State
    and testbed calls are this app's own unless passed in. `static_cache` is the
    `Cache-Control` of the static files (see `pling_harness.server.static`);
    `body_deadline` the seconds a request's body may take (`pling_harness.server.deadline`)."""
    backend = backend if backend is not None else load_backend(tutorial, root)
    state = state if state is not None else backend.make_state()
    testbed = testbed if testbed is not None else TestbedCalls()
    api = BusinessApi(state=state, log=log)
    testbed_api = TestbedApi(business=api, testbed=testbed)
    gateway = Gateway(provider=provider, log=log, state=state)
    # The runtime and the testbed are the package's own files, whatever the root.
    runtime_dir = RUNTIME_DIR

    def log_refused(request: Request, status: int, reason: str) -> None:
        # A static path refused on purpose (a dotfile, a source map, a path that names no
        # file) is evidence like an API refusal; a file that is simply missing is not.
        log.append(kind="static", method=request.method, path=request.url.path,
                   status=status, state=state.snapshot(), detail=reason)

    runtime_files = StaticDirectory(runtime_dir, cache_control=static_cache,
                                    on_refused=log_refused)

    def preloads(html: str) -> str:
        # The pages preload the runtime's graph as the runtime lays it out, not by name.
        return with_runtime_preloads(html, runtime_dir)

    testbed_files = StaticDirectory(TESTBED_DIR,
                                    cache_control=static_cache, rewrite_html=preloads,
                                    on_refused=log_refused)
    fixture_files = StaticDirectory(tutorial.fixture_directory(root), cache_control=static_cache,
                                    rewrite_html=preloads, on_refused=log_refused)
    copy_directory = tutorial.copy_directory(root)

    def api_route(path: str, endpoint: Endpoint, method: str, refuse: Refuse = api.refuse) -> Route:
        # Every API route is guarded, not just the gateway: a business call that another
        # site's page could make would bypass the approval the page asks for.
        endpoint = logging_failures(endpoint, log=log, state=state)
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
                return api.answer(request, None, 405, error_body(
                    "METHOD_NOT_ALLOWED", f"{request.method} is not allowed on "
                                          f"{request.url.path}."))
        return api.answer(request, None, 404,
                          error_body("NOT_FOUND", f"No API at {request.url.path}."))

    async def copy(request: Request) -> Response:
        # The tutorial's copy, one file per locale it offers; no other file of that folder.
        locale = request.path_params["locale"]
        if locale not in tutorial.locales:
            log_refused(request, 404, f"{locale!r} is not one of the tutorial's locales "
                                      f"{list(tutorial.locales)}")
            return error_response(404, "NOT_FOUND", f"No copy for {locale!r}.")
        return file_response(copy_directory, f"{locale}.json", cache_control=static_cache)

    async def dock_copy(request: Request) -> Response:
        # The dock's strings the tutorial brings for a locale the runtime ships none for.
        return file_response(tutorial.dock_copy_directory(root),
                             f"{request.path_params['locale']}.json", cache_control=static_cache)

    async def testbed_slash(request: Request) -> Response:
        return RedirectResponse("/testbed/", status_code=307)

    # The same model and log on OpenAI's wire, for pages whose own server calls the model.
    openai_wire = ChatCompletions(ModelSeat(provider=provider, log=log, read_state=state.snapshot))
    routes = [
        *api_routes,
        *openai_wire.routes(),
        Route("/api/{rest:path}", api_not_found, methods=ALL_METHODS),
        Route("/pling/{path:path}", runtime_files.handle, methods=STATIC_METHODS),
        Route("/testbed", testbed_slash, methods=STATIC_METHODS),
        Route("/testbed/{path:path}", testbed_files.handle, methods=STATIC_METHODS),
        Route("/copy/dock/{locale}.json", dock_copy, methods=STATIC_METHODS),
        Route("/copy/{locale}.json", copy, methods=STATIC_METHODS),
        Route("/{path:path}", fixture_files.handle, methods=STATIC_METHODS),
    ]
    # Outermost first: the drain receives through the deadline, so a stalled body still ends.
    middleware = [Middleware(NoStoreMiddleware), Middleware(BodyDeadline, seconds=body_deadline),
                  Middleware(DrainUnreadBody)]
    app = Starlette(routes=routes, middleware=middleware)
    app.state.business_state = state
    app.state.testbed = testbed
    app.state.log = log
    app.state.provider = provider
    return app

"""A tutorial's business API: the one extension point a tutorial's server side provides.

A tutorial with a server-side business state puts a `backend.py` next to its tutorial.json
(`tutorials/<id>/backend.py`); the fixture server loads it by path from the root it serves
(so a mutant's copy serves the mutated file) and mounts what it declares. The file defines
two functions, typed by the `TutorialBackend` protocol:

    from pling_harness import BusinessApi, BusinessRoute, BusinessState, StateStore

    class Counter(BusinessState):            # the fields of api.initial_state
        count: int

    INITIAL = Counter(count=0)

    def make_state() -> StateStore:
        return StateStore(INITIAL)           # one per server instance

    def routes(api: BusinessApi[StateStore]) -> list[BusinessRoute]:
        store = api.state                    # the store make_state() returned
        return [api.read("/api/counter"),
                api.change("/api/counter/add", AddBody,
                           lambda body: store.update(count=store.snapshot().count + body.by))]

Every route is guarded like the gateway (pling_harness/server/guard.py), each call is logged with
the state after it, and a `BusinessError` raised by a change is answered 400 with its code.
A tutorial without a backend.py gets no business routes (its state is the empty state).
The harness checks that the state `make_state()` starts from is `api.initial_state`, when the
tutorial declares one.
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Generic, Literal, Protocol, TypeVar, cast

from pydantic import BaseModel, ConfigDict
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from pling_harness.project.business_state import BusinessState
from pling_harness.project.tutorials import (
    TUTORIAL_FILE_NAME,
    Tutorial,
    TutorialError,
    tutorial_folder,
)
from pling_harness.server.bodies import (
    KIB,
    BodyRejected,
    error_body,
    parse_json,
    read_body,
    validate_body,
)
from pling_harness.server.guard import Endpoint, Refusal
from pling_harness.server.log import ServerLog

BACKEND_FILE_NAME = "backend.py"
# Business bodies are tiny; the documented limit is 64 KiB.
MAX_BUSINESS_BODY_BYTES = 64 * KIB

BodyT = TypeVar("BodyT", bound=BaseModel)


class BusinessError(Exception):
    """A business rule refused the change; nothing changed. Subclasses name their `code`."""

    code = "BUSINESS_ERROR"


class StrictBody(BaseModel):
    """Base of a route's request body: unknown fields are refused."""

    model_config = ConfigDict(extra="forbid")


class EmptyBody(StrictBody):
    """A change without fields: its body is `{}` (an empty body is refused, 400)."""


class BusinessStore(Protocol):
    """What the harness needs of a tutorial's state (fixture server and external target)."""

    def snapshot(self) -> BusinessState: ...

    def reset(self) -> BusinessState:
        """Back to the initial state (between tests)."""
        ...

    def replace(self, state: BusinessState) -> BusinessState:
        """Set the whole state at once (a check that starts from a given state)."""
        ...


class StateStore:
    """A thread-safe business state for one server instance: every change is atomic, and
    every state it holds is of its initial state's class (so its fields are checked)."""

    def __init__(self, initial: BusinessState) -> None:
        self.initial = initial
        self._lock = threading.Lock()
        self._current = initial

    def snapshot(self) -> BusinessState:
        with self._lock:
            return self._current

    def reset(self) -> BusinessState:
        return self.replace(self.initial)

    def replace(self, state: BusinessState) -> BusinessState:
        typed = type(self.initial).model_validate(state.model_dump())
        with self._lock:
            self._current = typed
            return typed

    def update(self, **changes: Any) -> BusinessState:
        with self._lock:
            merged = {**self._current.model_dump(), **changes}
            self._current = type(self.initial).model_validate(merged)
            return self._current


class EmptyState(BusinessState):
    """The state of a tutorial without a backend: no fields."""


@dataclass(frozen=True)
class BusinessRoute:
    """One business endpoint; the fixture server guards and mounts it."""

    method: Literal["GET", "POST", "PUT", "PATCH", "DELETE"]
    path: str
    endpoint: Endpoint


Change = Callable[[BodyT], BusinessState]


StoreT = TypeVar("StoreT", bound=BusinessStore)


class BusinessApi(Generic[StoreT]):
    """Builds a tutorial's routes over one server's state (`state`: the store its
    `make_state()` returned); every call is logged with the state after it."""

    def __init__(self, *, state: StoreT, log: ServerLog) -> None:
        self.state = state
        self.log = log

    def read(self, path: str) -> BusinessRoute:
        """`GET path` answers the state's fields."""

        async def endpoint(request: Request) -> Response:
            return self.answer(request, None, 200, self.state.snapshot().fields())

        return BusinessRoute("GET", path, endpoint)

    def change(self, path: str, body: type[BodyT], change: Change[BodyT], *,
               method: Literal["POST", "PUT", "PATCH", "DELETE"] = "POST") -> BusinessRoute:
        """`POST path` with a JSON `body` runs `change` and answers the new state's fields;
        a bad or empty body is 400 BAD_REQUEST (413 over 64 KiB), a `BusinessError` 400 with
        its code."""

        async def endpoint(request: Request) -> Response:
            return await self._change(request, body, change)

        return BusinessRoute(method, path, endpoint)

    async def _change(self, request: Request, model: type[BodyT], change: Change[BodyT]
                      ) -> Response:
        data: Any = None
        try:
            raw = await read_body(request, limit=MAX_BUSINESS_BODY_BYTES)
            if not raw.strip():
                # The contract names a body for every change (`{}` for one without fields):
                # a request that sent none is not that request, and changes nothing.
                raise BodyRejected(400, "BAD_REQUEST", "The body is empty; send the JSON "
                                                       "this endpoint takes ({} for none).")
            data = parse_json(raw)
            parsed = validate_body(model, data)
            state = change(parsed)
        except BodyRejected as rejected:
            return self.answer(request, data, rejected.status,
                               error_body(rejected.code, rejected.message))
        except BusinessError as refused:
            return self.answer(request, data, 400, error_body(refused.code, str(refused)))
        return self.answer(request, data, 200, state.fields())

    def refuse(self, request: Request, refusal: Refusal) -> Response:
        """The guard's refusal: logged with its reason (body unread, state untouched)."""
        return self.answer(request, None, refusal.status,
                           error_body(refusal.code, refusal.message), detail=refusal.detail)

    def answer(self, request: Request, body: Any, status: int, response: Any, *,
               detail: str | None = None) -> Response:
        """Log the call with the state after it, and answer `response` as JSON."""
        self.log.append(kind="api", method=request.method, path=request.url.path, body=body,
                        status=status, response=response, state=self.state.snapshot(),
                        detail=detail)
        return JSONResponse(response, status_code=status)


class TutorialBackend(Protocol):
    """What `tutorials/<id>/backend.py` defines (module-level functions)."""

    def make_state(self) -> BusinessStore: ...

    def routes(self, api: BusinessApi[Any]) -> Sequence[BusinessRoute]: ...


class NoBackend:
    """A tutorial without backend.py: an empty state and no routes."""

    def make_state(self) -> BusinessStore:
        return StateStore(EmptyState())

    def routes(self, api: BusinessApi[Any]) -> Sequence[BusinessRoute]:
        return []


_loaded: dict[Path, ModuleType] = {}
_loading = threading.Lock()


def backend_module(path: Path) -> ModuleType:
    """The module at `path`, loaded once per process (a module name of its own per file, so
    a mutant's copy and the project's file are two modules)."""
    path = path.resolve()
    with _loading:
        module = _loaded.get(path)
        if module is not None:
            return module
        digest = hashlib.sha1(str(path).encode()).hexdigest()[:10]
        name = f"pling_backend_{path.parent.name.replace('-', '_')}_{digest}"
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise TutorialError(f"{path}: cannot be loaded as a Python module")
        module = importlib.util.module_from_spec(spec)
        # Registered before it runs: pydantic resolves the module's annotations through it.
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[name]
            raise
        _loaded[path] = module
        return module


def load_backend(tutorial: Tutorial, root: Path) -> TutorialBackend:
    """The tutorial's backend.py under `root`, or `NoBackend` when it has none; checked to
    define both functions and to start from the declared initial state."""
    path = tutorial.directory(root) / BACKEND_FILE_NAME
    if not path.is_file():
        return NoBackend()
    module = backend_module(path)
    missing = [name for name in ("make_state", "routes")
               if not callable(getattr(module, name, None))]
    if missing:
        raise TutorialError(f"{path}: defines no {' and no '.join(missing)}(); see "
                            "pling_harness/server/backend.py for what a backend provides")
    backend = cast(TutorialBackend, module)
    declared = tutorial.api.initial_state
    if declared is not None:
        starts = backend.make_state().snapshot().fields()
        if starts != declared:
            raise TutorialError(f"{path}: make_state() starts from {starts}, not the "
                                f"api.initial_state {declared} of its {TUTORIAL_FILE_NAME}")
    return backend


def tutorial_backend(where: str | Path) -> ModuleType:
    """The backend.py module of the tutorial holding `where` (a check passes `__file__`):
    how checks reach their tutorial's own state model and constants."""
    path = tutorial_folder(Path(where).resolve()) / BACKEND_FILE_NAME
    if not path.is_file():
        raise TutorialError(f"{path.parent} has no {BACKEND_FILE_NAME}")
    return backend_module(path)


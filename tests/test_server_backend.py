"""A tutorial's business API is its own backend.py (pling_harness/server/backend.py): the fixture
server mounts what it declares, guarded and logged, and knows no tutorial's state itself."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from pydantic import ValidationError

from pling_harness.project.business_state import BusinessState, declared_state_model
from pling_harness.project.paths import FIXTURES_DIR_NAME, TUTORIALS_DIR_NAME
from pling_harness.project.tutorials import TutorialError
from pling_harness.server.backend import BACKEND_FILE_NAME, tutorial_backend
from pling_harness.server.runner import TutorialServer

# The harness's own checkout: the project these tests check.
PROJECT_ROOT = Path(__file__).resolve().parents[1]

R15_ID = "r-15-confirmation-and-human-handoff"
JSON = {"Content-Type": "application/json"}

# A backend whose state is not r-15's: a counter, with a rule that refuses.
COUNTER_BACKEND = '''
from __future__ import annotations

from pling_harness import BusinessApi, BusinessError, BusinessRoute, BusinessState, StateStore
from pling_harness import StrictBody


class Counter(BusinessState):
    count: int


class TooMany(BusinessError):
    code = "TOO_MANY"


class AddBody(StrictBody):
    by: int


def make_state() -> StateStore:
    return StateStore(Counter(count=START))


def routes(api: BusinessApi[StateStore]) -> list[BusinessRoute]:
    store = api.state

    def add(body: AddBody) -> BusinessState:
        if body.by > 5:
            raise TooMany("at most 5 at a time")
        return store.update(count=store.snapshot().count + body.by)

    return [api.read("/api/counter"), api.change("/api/counter/add", AddBody, add)]
'''


def tutorial_copy(tmp_path: Path, *, backend: str | None, initial_state: object) -> Path:
    """A root serving r-15's page and copy, with `backend` as its backend.py (None: none)
    and `initial_state` as its declared api.initial_state (None: no state declared)."""
    root = tmp_path / "root"
    (root / TUTORIALS_DIR_NAME).mkdir(parents=True)
    (root / FIXTURES_DIR_NAME).symlink_to(PROJECT_ROOT / FIXTURES_DIR_NAME)
    folder = root / TUTORIALS_DIR_NAME / R15_ID
    shutil.copytree(PROJECT_ROOT / TUTORIALS_DIR_NAME / R15_ID, folder,
                    ignore=shutil.ignore_patterns("checks", "mutation", BACKEND_FILE_NAME))
    definition = json.loads((folder / "tutorial.json").read_text(encoding="utf-8"))
    definition["published"] = None
    definition["api"] = ({"model": "/api/model"} if initial_state is None else {
        "model": "/api/model", "state": {"method": "GET", "path": "/api/counter"},
        "reset": {"method": "POST", "path": "/api/counter/reset", "body": {}},
        "initial_state": initial_state})
    (folder / "tutorial.json").write_text(json.dumps(definition), encoding="utf-8")
    if backend is not None:
        (folder / BACKEND_FILE_NAME).write_text(backend, encoding="utf-8")
    return root


@pytest.fixture
def counter_server(tmp_path: Path) -> Iterator[TutorialServer]:
    root = tutorial_copy(tmp_path, backend=COUNTER_BACKEND.replace("START", "3"),
                         initial_state={"count": 3})
    with TutorialServer(tutorial=R15_ID, root=root, environ={}) as server:
        yield server


def test_a_backends_routes_are_mounted_over_its_own_state(counter_server: TutorialServer
                                                          ) -> None:
    with httpx.Client(base_url=counter_server.url) as client:
        assert client.get("/api/counter").json() == {"count": 3}
        added = client.post("/api/counter/add", json={"by": 2})
        refused = client.post("/api/counter/add", json={"by": 9})

    assert added.status_code == 200 and added.json() == {"count": 5}
    assert refused.status_code == 400
    assert refused.json()["code"] == "TOO_MANY"
    assert counter_server.state.snapshot().fields() == {"count": 5}
    logged = [(r.path, r.status, r.state.fields()) for r in counter_server.log.records()]
    assert logged == [("/api/counter", 200, {"count": 3}), ("/api/counter/add", 200, {"count": 5}),
                      ("/api/counter/add", 400, {"count": 5})]


def test_a_backends_routes_are_guarded_like_every_api_route(counter_server: TutorialServer
                                                            ) -> None:
    with httpx.Client(base_url=counter_server.url) as client:
        plain = client.post("/api/counter/add", content=b'{"by": 1}',
                            headers={"Content-Type": "text/plain"})
        foreign = client.post("/api/counter/add", json={"by": 1},
                              headers={"Origin": "http://evil.example"})
        wrong_method = client.delete("/api/counter/add")

    assert (plain.status_code, plain.json()["code"]) == (415, "UNSUPPORTED_MEDIA_TYPE")
    assert (foreign.status_code, foreign.json()["code"]) == (403, "FORBIDDEN_ORIGIN")
    assert wrong_method.status_code == 405
    assert counter_server.state.snapshot().fields() == {"count": 3}


def test_reset_between_tests_goes_back_to_the_backends_initial_state(
        counter_server: TutorialServer) -> None:
    counter_server.state.replace(counter_server.state.snapshot().model_copy(update={"count": 7}))

    counter_server.reset()

    assert counter_server.state.snapshot().fields() == {"count": 3}


def test_a_tutorial_without_a_backend_has_no_business_routes(tmp_path: Path) -> None:
    root = tutorial_copy(tmp_path, backend=None, initial_state=None)
    with TutorialServer(tutorial=R15_ID, root=root, environ={}) as server, \
            httpx.Client(base_url=server.url) as client:
        response = client.get("/api/workspace")
        state = server.state.snapshot().fields()

    assert (response.status_code, response.json()["code"]) == (404, "NOT_FOUND")
    assert state == {}


def test_a_backend_that_does_not_start_from_the_declared_state_is_refused(
        tmp_path: Path) -> None:
    root = tutorial_copy(tmp_path, backend=COUNTER_BACKEND.replace("START", "0"),
                         initial_state={"count": 3})

    with pytest.raises(TutorialError, match=r"starts from \{'count': 0\}, not the "
                                            r"api.initial_state \{'count': 3\}"):
        TutorialServer(tutorial=R15_ID, root=root, environ={})


def test_a_backend_without_routes_is_refused(tmp_path: Path) -> None:
    backend = COUNTER_BACKEND.replace("START", "3").split("\ndef routes")[0]
    root = tutorial_copy(tmp_path, backend=backend, initial_state={"count": 3})

    with pytest.raises(TutorialError, match=r"defines no routes\(\)"):
        TutorialServer(tutorial=R15_ID, root=root, environ={})


def test_tutorial_backend_finds_the_backend_of_the_folder_holding_a_check() -> None:
    check = PROJECT_ROOT / TUTORIALS_DIR_NAME / R15_ID / "checks" / "test_handoff.py"

    backend = tutorial_backend(check)

    assert backend is tutorial_backend(check.parent.parent)
    assert backend.make_state().snapshot().fields() == {
        "name": "Northwind", "archived": False, "published": False}


def test_tutorial_backend_outside_a_tutorial_says_so(tmp_path: Path) -> None:
    with pytest.raises(TutorialError, match="not inside a tutorial folder"):
        tutorial_backend(tmp_path / "test_x.py")


def test_the_declared_state_is_typed_by_the_declared_values() -> None:
    model = declared_state_model({"name": "Northwind", "count": 0, "open": False})

    assert model.model_validate({"name": "x", "count": 2, "open": True}).fields() == {
        "name": "x", "count": 2, "open": True}
    for wrong in ({"name": "x", "count": 2, "open": "true"},
                  {"name": "x", "count": 2},
                  {"name": "x", "count": 2, "open": True, "id": 9}):
        with pytest.raises(ValidationError):
            model.model_validate(wrong)


def test_states_with_the_same_fields_are_equal_whatever_class_holds_them() -> None:
    class Typed(BusinessState):
        name: str
        count: int

    declared = declared_state_model({"name": "a", "count": 0})

    assert Typed(name="a", count=1) == declared(name="a", count=1)
    assert Typed(name="a", count=1) != declared(name="a", count=2)
    assert hash(Typed(name="a", count=1)) == hash(declared(name="a", count=1))

"""What a tutorial declares about its page and server (`page`, `api`, `published` in
tutorial.json): r-15's declarations, the rules read from them, and the refusals."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from pling_harness import BusinessState, tutorial_backend
from pling_harness.project.tutorials import TutorialError, load_tutorial
from pling_harness.server.gateway import GATEWAY_PATH

# The harness's own checkout: the project these tests check.
PROJECT_ROOT = Path(__file__).resolve().parents[1]

# r-15's own state, from its backend.py (the harness names no tutorial's state).
R15_BACKEND = tutorial_backend(PROJECT_ROOT / "tutorials" / "r-15-confirmation-and-human-handoff")
INITIAL_WORKSPACE: BusinessState = R15_BACKEND.INITIAL_WORKSPACE
R15_ID = "r-15-confirmation-and-human-handoff"
R15_DEFINITION: dict[str, Any] = json.loads(
    (PROJECT_ROOT / "tutorials" / R15_ID / "tutorial.json").read_text(encoding="utf-8"))


def write_tutorial(root: Path, data: dict[str, Any]) -> Path:
    path = root / "tutorials" / R15_ID / "tutorial.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def changed(path: tuple[str, ...], value: Any) -> dict[str, Any]:
    """R-15's definition with the key at `path` set to `value`."""
    data = copy.deepcopy(R15_DEFINITION)
    where = data
    for key in path[:-1]:
        where = where[key]
    where[path[-1]] = value
    return data


def test_r15_declares_what_its_fixture_server_serves() -> None:
    api = load_tutorial("r-15").api

    assert api.model == GATEWAY_PATH
    assert api.initial_state == INITIAL_WORKSPACE.model_dump()
    assert api.state is not None and api.state.describe() == "GET /api/workspace"
    assert api.reset is not None and api.reset.describe() == "POST /api/workspace/reset"


@pytest.mark.parametrize(("method", "path", "business"), [
    ("POST", "/api/workspace/archive", True),
    ("POST", "/api/testbed/run/row_write?x=1", True),
    ("GET", "/api/workspace", False),
    ("POST", "/api/model", False),
    ("POST", "/elsewhere", False),
])
def test_r15_business_requests_are_changes_to_its_api_other_than_the_model(
    method: str, path: str, business: bool
) -> None:
    assert load_tutorial("r-15").api.is_business(method, path) is business


def test_r15_preset_fills_the_value_into_its_body() -> None:
    name, archived, _ = load_tutorial("r-15").api.presets

    assert name.sets("Harbor") and name.request_for("Harbor").body == {"name": "Harbor"}
    assert archived.sets(True) and not archived.sets(False)


def test_r15_published_rule_reads_the_declared_state_and_view() -> None:
    rule = load_tutorial("r-15").published

    assert rule is not None
    assert rule.state_matches({"name": "Northwind", "archived": False, "published": True})
    assert not rule.state_matches(INITIAL_WORKSPACE.model_dump())
    assert rule.view_matches({"status": "published", "name": "Northwind"})
    assert not rule.view_matches({"status": "draft"})


@pytest.mark.parametrize(("path", "value", "named"), [
    (("page", "colour"), "blue", "page.colour"),
    (("api", "state", "verb"), "GET", "api.state.verb"),
    (("api", "state", "method"), "POST", "state must be a GET request"),
    (("api", "reset", "method"), "GET", "reset must change state"),
    (("api", "model"), "api/model", "api.model"),
    (("api", "presets"), [{"field": "colour", "value": "red",
                           "request": {"method": "POST", "path": "/api/colour"}}],
     "presets set ['colour']"),
    (("published", "view"), {"colour": "red"}, "published.view names ['colour']"),
    (("page", "business_view", "status", "selector"), "#status",
     "page.business_view.status.selector"),
])
def test_tutorial_contract_bad_or_unknown_key_is_refused_naming_it(
    tmp_path: Path, path: tuple[str, ...], value: Any, named: str
) -> None:
    file = write_tutorial(tmp_path, changed(path, value))

    with pytest.raises(TutorialError) as caught:
        load_tutorial("r-15", tmp_path)

    assert str(file) in str(caught.value)
    assert named in str(caught.value)


def test_tutorial_without_declarations_gets_the_runtimes_defaults(tmp_path: Path) -> None:
    bare = {k: v for k, v in R15_DEFINITION.items() if k not in ("page", "api", "published")}
    write_tutorial(tmp_path, bare)

    tutorial = load_tutorial("r-15", tmp_path)

    assert tutorial.api.model == GATEWAY_PATH
    assert tutorial.api.state is None and tutorial.published is None
    assert tutorial.page.business_view == {}

"""The r-15 business API: server-side workspace state, its rules, and its log records."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from pling_harness import BusinessState, tutorial_backend
from pling_harness.server.runner import TutorialServer

# The harness's own checkout: the project these tests check.
PROJECT_ROOT = Path(__file__).resolve().parents[1]

# r-15's own state, from its backend.py (the harness names no tutorial's state).
R15_BACKEND = tutorial_backend(PROJECT_ROOT / "tutorials" / "r-15-confirmation-and-human-handoff")
INITIAL_WORKSPACE: BusinessState = R15_BACKEND.INITIAL_WORKSPACE
INITIAL = {"name": "Northwind", "archived": False, "published": False}


def test_get_workspace_fresh_server_returns_initial_state(client: httpx.Client) -> None:
    response = client.get("/api/workspace")

    assert response.status_code == 200
    assert response.json() == INITIAL


def test_rename_valid_name_saves_trimmed_name(
    client: httpx.Client, server: TutorialServer
) -> None:
    response = client.post("/api/workspace/name", json={"name": "  Acme Labs  "})

    assert response.status_code == 200
    assert response.json() == {**INITIAL, "name": "Acme Labs"}
    assert server.state.snapshot().name == "Acme Labs"


@pytest.mark.parametrize("name", ["a", "x" * 80, "  " + "y" * 80 + "  ", "工作区"])
def test_rename_name_within_limits_is_saved(client: httpx.Client, name: str) -> None:
    response = client.post("/api/workspace/name", json={"name": name})

    assert response.status_code == 200
    assert response.json()["name"] == name.strip()


@pytest.mark.parametrize("name", ["", "   ", "x" * 81])
def test_rename_name_outside_limits_is_refused_and_changes_nothing(
    client: httpx.Client, server: TutorialServer, name: str
) -> None:
    response = client.post("/api/workspace/name", json={"name": name})

    assert response.status_code == 400
    assert response.json()["ok"] is False
    assert response.json()["code"] == "INVALID_NAME"
    assert response.json()["message"]
    assert server.state.snapshot() == INITIAL_WORKSPACE


# A control or format character anywhere in the name (Trojan Source, CVE-2021-42574), with
# the position (code points from 1) and the description the refusal must name.
HIDDEN_IN_NAME = [
    ("Acme\u202eTSET", 5, "U+202E RIGHT-TO-LEFT OVERRIDE"),
    ("\u0000\u202e", 1, "U+0000"),
    ("Acme\u2066x\u2069", 5, "U+2066 LEFT-TO-RIGHT ISOLATE"),
    ("Ac\u200bme", 3, "U+200B ZERO WIDTH SPACE"),
    ("Acme\u200f", 5, "U+200F RIGHT-TO-LEFT MARK"),
    ("\ufeffAcme", 1, "U+FEFF ZERO WIDTH NO-BREAK SPACE"),
    ("Acme Labs\n", 10, "U+000A"),
    ("Acme\u2028Labs", 5, "U+2028 LINE SEPARATOR"),
    ("Acme\u007f", 5, "U+007F"),
    ("北风\U000e0041", 3, "U+E0041 TAG LATIN CAPITAL LETTER A"),
]


@pytest.mark.parametrize(("name", "position", "described"), HIDDEN_IN_NAME)
def test_rename_name_with_control_or_format_character_is_refused_naming_it(
    client: httpx.Client, server: TutorialServer, name: str, position: int, described: str
) -> None:
    response = client.post("/api/workspace/name", json={"name": name})

    assert response.status_code == 400
    assert response.json()["code"] == "INVALID_NAME_CHARACTER"
    message = response.json()["message"]
    assert f"{described} at position {position} " in message, message
    assert server.state.snapshot() == INITIAL_WORKSPACE
    assert server.log.records()[-1].state == INITIAL_WORKSPACE


@pytest.mark.parametrize("name", ["Acme\u00a0Labs", "北风\u3000实验室", "Team \u2764\ufe0f"])
def test_rename_name_with_odd_space_or_variation_selector_is_saved(
    client: httpx.Client, name: str
) -> None:
    """Spaces of any width and invisible marks are allowed (the card shows them escaped)."""
    response = client.post("/api/workspace/name", json={"name": name})

    assert response.status_code == 200
    assert response.json()["name"] == name


@pytest.mark.parametrize(
    ("path", "content"),
    [
        ("/api/workspace/name", b"not json"),
        ("/api/workspace/name", b"[]"),
        ("/api/workspace/name", b'{"name": 5}'),
        ("/api/workspace/name", b"{}"),
        ("/api/workspace/name", b'{"name": "Acme", "archived": true}'),
        ("/api/workspace/archive", b'{"force": true}'),
        ("/api/workspace/reset", b"null"),
        ("/api/workspace/publish", b"{}"),
        ("/api/workspace/publish", b'{"code": 246810}'),
        ("/api/workspace/publish", b'{"code": "246810", "published": true}'),
    ],
)
def test_post_bad_body_is_refused_and_changes_nothing(
    client: httpx.Client, server: TutorialServer, path: str, content: bytes
) -> None:
    server.state.replace(INITIAL_WORKSPACE.model_copy(update={"name": "Before"}))
    before = server.state.snapshot()

    response = client.post(path, content=content, headers={"Content-Type": "application/json"})

    assert response.status_code == 400
    assert response.json()["code"] == "BAD_REQUEST"
    assert server.state.snapshot() == before
    assert server.log.records()[-1].status == 400


def test_post_bad_body_names_the_field(client: httpx.Client) -> None:
    response = client.post("/api/workspace/name", json={"name": "Acme", "colour": "red"})

    assert "colour" in response.json()["message"]


def test_post_body_over_64_kib_is_refused_413(client: httpx.Client, server: TutorialServer) -> None:
    response = client.post("/api/workspace/name", json={"name": "x" * (65 * 1024)})

    assert response.status_code == 413
    assert response.json()["code"] == "PAYLOAD_TOO_LARGE"
    assert server.state.snapshot() == INITIAL_WORKSPACE


@pytest.mark.parametrize("megabytes", [1, 6, 20])
@pytest.mark.parametrize("framing", ["content-length", "chunked"])
def test_post_body_of_megabytes_is_answered_413_whatever_its_framing(
    client: httpx.Client, server: TutorialServer, framing: str, megabytes: int,
) -> None:
    """Counted as read, and read to its end (dropped) before the answer: a client still
    writing it, Vite's proxy among them, gets the 413 rather than a reset connection."""
    body = b'{"name": "' + b"x" * (megabytes * 1024 * 1024) + b'"}'
    step = 64 * 1024
    content = body if framing == "content-length" else (
        body[start:start + step] for start in range(0, len(body), step))

    response = client.post("/api/workspace/name", content=content,
                           headers={"Content-Type": "application/json"})

    assert (response.status_code, response.json()["code"]) == (413, "PAYLOAD_TOO_LARGE")
    assert server.state.snapshot() == INITIAL_WORKSPACE


def test_archive_empty_object_archives(client: httpx.Client) -> None:
    response = client.post("/api/workspace/archive", json={})

    assert response.status_code == 200
    assert response.json() == {**INITIAL, "archived": True}


@pytest.mark.parametrize("path", ["/api/workspace/archive", "/api/workspace/reset"])
@pytest.mark.parametrize("body", [b"", b"  \r\n"], ids=["empty", "blank"])
def test_change_without_its_body_is_refused_400_and_changes_nothing(
    client: httpx.Client, server: TutorialServer, path: str, body: bytes,
) -> None:
    """The contract names `{}` as these changes' body (docs/page-contract.md, `api.reset`,
    `api.presets`): a request without it is not that request (issue 39)."""
    client.post("/api/workspace/name", json={"name": "Before"}).raise_for_status()
    before = client.get("/api/workspace").json()

    response = client.post(path, content=body, headers={"Content-Type": "application/json"})

    assert response.status_code == 400
    assert response.json()["code"] == "BAD_REQUEST" and "empty" in response.json()["message"]
    assert client.get("/api/workspace").json() == before


def test_reset_after_changes_restores_initial_state(client: httpx.Client) -> None:
    client.post("/api/workspace/name", json={"name": "Acme"})
    client.post("/api/workspace/archive", json={})
    client.post("/api/workspace/publish", json={"code": "246810"})

    response = client.post("/api/workspace/reset", json={})

    assert response.status_code == 200
    assert response.json() == INITIAL


def test_publish_right_code_publishes(client: httpx.Client) -> None:
    response = client.post("/api/workspace/publish", json={"code": "246810"})

    assert response.status_code == 200
    assert response.json() == {**INITIAL, "published": True}


@pytest.mark.parametrize("code", ["", "123456", " 246810", "2468100"])
def test_publish_wrong_code_is_refused_and_stays_unpublished(
    client: httpx.Client, server: TutorialServer, code: str
) -> None:
    response = client.post("/api/workspace/publish", json={"code": code})

    assert response.status_code == 400
    assert response.json()["ok"] is False
    assert response.json()["code"] == "WRONG_CODE"
    assert response.json()["message"]
    assert server.state.snapshot().published is False


def test_business_calls_are_logged_in_order_with_state_after(
    client: httpx.Client, server: TutorialServer
) -> None:
    client.get("/api/workspace")
    client.post("/api/workspace/name", json={"name": "Acme"})
    client.post("/api/workspace/publish", json={"code": "000000"})

    records = server.log.records()

    first = records[0].seq
    assert [r.seq for r in records] == [first, first + 1, first + 2]
    assert {r.kind for r in records} == {"api"}
    assert [(r.method, r.path, r.status) for r in records] == [
        ("GET", "/api/workspace", 200),
        ("POST", "/api/workspace/name", 200),
        ("POST", "/api/workspace/publish", 400),
    ]
    assert records[1].body == {"name": "Acme"}
    assert records[1].response == {**INITIAL, "name": "Acme"}
    assert records[1].state.name == "Acme"
    assert records[2].body == {"code": "000000"}
    assert records[2].response["code"] == "WRONG_CODE"
    assert records[2].state.published is False


def test_unknown_api_path_answers_404_json(client: httpx.Client) -> None:
    response = client.get("/api/nothing-here")

    assert response.status_code == 404
    assert response.json()["code"] == "NOT_FOUND"


@pytest.mark.parametrize(("method", "path"), [("GET", "/api/model"),
                                               ("GET", "/api/workspace/name"),
                                               ("POST", "/api/workspace")])
def test_api_path_wrong_method_answers_405(client: httpx.Client, method: str, path: str) -> None:
    response = client.request(method, path)

    assert response.status_code == 405
    assert response.json()["code"] == "METHOD_NOT_ALLOWED"


def test_api_responses_are_not_cached(client: httpx.Client) -> None:
    assert client.get("/api/workspace").headers["cache-control"] == "no-store"


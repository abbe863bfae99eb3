"""Malformed JSON on every JSON endpoint is a 400 that names the problem, changes nothing and
is in the server log; never the parser's exception as a 500 that leaves no record (issue 31
§2: 1,000-deep nesting, a 5,000-digit number, a lone surrogate, NaN)."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from pling_harness import BusinessState, tutorial_backend
from pling_harness.server.bodies import MAX_JSON_DEPTH
from pling_harness.server.runner import TutorialServer

# The harness's own checkout: the project these tests check.
PROJECT_ROOT = Path(__file__).resolve().parents[1]

R15_BACKEND = tutorial_backend(PROJECT_ROOT / "tutorials" / "r-15-confirmation-and-human-handoff")
INITIAL_WORKSPACE: BusinessState = R15_BACKEND.INITIAL_WORKSPACE
JSON = {"Content-Type": "application/json"}

# Each JSON endpoint, as a body with one value left open (`%s`) for the bad JSON text.
ENDPOINTS = {
    "name": ("/api/workspace/name", '{"name": %s}'),
    "archive": ("/api/workspace/archive", '{"x": %s}'),
    "reset": ("/api/workspace/reset", '{"x": %s}'),
    "publish": ("/api/workspace/publish", '{"code": %s}'),
    "testbed-run": ("/api/testbed/run/any", '{"a": %s}'),
    "gateway": ("/api/model", '{"messages": [{"role": "user", "content": %s}], "locale": "en"}'),
}
# Values that are not JSON (RFC 8259) though Python's parser takes some, and what the 400's
# message must say about each.
BAD_VALUES = {
    "nested-1000-deep": ("[" * 1000 + "]" * 1000, f"deeper than {MAX_JSON_DEPTH} levels"),
    "nested-just-too-deep": ("[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH,
                             f"deeper than {MAX_JSON_DEPTH} levels"),
    "integer-of-5000-digits": ("1" * 5000, "5000 digits"),
    "number-beyond-float": ("1" + "0" * 400 + ".5", "too large for a number"),
    "exponent-beyond-float": ("1e400", "too large for a number"),
    "lone-high-surrogate": ('"a\\ud800b"', "lone surrogate \\ud800"),
    "lone-low-surrogate": ('"\\udc39"', "lone surrogate \\udc39"),
    "lone-surrogate-upper-case-escape": ('"x\\uDBFF"', "lone surrogate \\udbff"),
    "surrogate-in-a-key": ('{"\\ud83d": 1}', "lone surrogate \\ud83d"),
    "nan": ("NaN", "NaN is not a JSON number"),
    "infinity": ("Infinity", "Infinity is not a JSON number"),
    "minus-infinity": ("-Infinity", "-Infinity is not a JSON number"),
}


def post_raw(client: httpx.Client, path: str, body: bytes) -> httpx.Response:
    return client.post(path, content=body, headers=JSON)


@pytest.mark.parametrize("value", BAD_VALUES)
@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_malformed_json_is_refused_400_logged_and_changes_nothing(
    client: httpx.Client, server: TutorialServer, endpoint: str, value: str,
) -> None:
    path, template = ENDPOINTS[endpoint]
    text, said = BAD_VALUES[value]

    response = post_raw(client, path, (template % text).encode())

    assert (response.status_code, response.json()["code"]) == (400, "BAD_REQUEST"), response.text
    assert said in response.json()["message"], response.json()["message"]
    [record] = server.log.records(path=path)
    assert (record.status, record.body, record.state) == (400, None, INITIAL_WORKSPACE)
    assert said in record.response["message"]
    assert server.testbed.calls() == []
    if server.model is not None:
        assert server.model.requests == [], "a refused request reached the model"


def test_deepest_nesting_allowed_is_parsed(client: httpx.Client, server: TutorialServer) -> None:
    # One level less than the refused one above: `{"a": [[…]]}` is MAX_JSON_DEPTH deep.
    depth = MAX_JSON_DEPTH - 1
    body = '{"a": %s}' % ("[" * depth + "]" * depth)

    response = post_raw(client, "/api/testbed/run/deep", body.encode())

    assert response.status_code == 200, response.text
    assert [call.action for call in server.testbed.calls()] == ["deep"]


@pytest.mark.parametrize("body", [b'{"name": "\xff"}', b"\xef\xbb\xbf{}", b'{"name": "a"'])
def test_body_not_utf8_json_is_refused_400(client: httpx.Client, server: TutorialServer,
                                           body: bytes) -> None:
    response = post_raw(client, "/api/workspace/name", body)

    assert (response.status_code, response.json()["code"]) == (400, "BAD_REQUEST")
    assert server.log.records()[-1].status == 400
    assert server.state.snapshot() == INITIAL_WORKSPACE


def test_testbed_calls_stay_readable_after_a_refused_nan(
    client: httpx.Client, server: TutorialServer,
) -> None:
    # A NaN the server once kept made every later read of the calls fail until a reset.
    post_raw(client, "/api/testbed/run/x", b'{"a": NaN}')
    client.post("/api/testbed/run/x", json={"a": 1.5})

    response = client.get("/api/testbed/calls")

    assert response.status_code == 200
    assert response.json()["calls"] == [{"action": "x", "body": {"a": 1.5}, "count": 1}]


def test_lone_surrogate_name_is_refused_before_the_name_rule(
    client: httpx.Client, server: TutorialServer,
) -> None:
    # As JSON escapes, `"\ud80d\udc39"` is a pair (U+13439); alone, either half is no text.
    response = post_raw(client, "/api/workspace/name", b'{"name": "a\\ud80db"}')

    assert response.json()["code"] == "BAD_REQUEST"
    assert server.state.snapshot() == INITIAL_WORKSPACE


@pytest.mark.parametrize("prefix", ["/", "/pling/", "/testbed/", "/copy/"])
def test_path_with_a_nul_byte_is_refused_404_and_logged(
    client: httpx.Client, server: TutorialServer, prefix: str,
) -> None:
    path = prefix + "%00" + (".json" if prefix == "/copy/" else "")

    response = client.get(path)

    assert response.status_code == 404
    [record] = server.log.records(kind="static")
    assert (record.method, record.status) == ("GET", 404)
    assert record.path == prefix + "\x00" + (".json" if prefix == "/copy/" else "")

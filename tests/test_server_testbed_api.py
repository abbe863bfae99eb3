"""The testbed business endpoint: a real server-side effect for actions declared in tests."""

from __future__ import annotations

import httpx
import pytest

from pling_harness.server.runner import TutorialServer


def test_testbed_run_counts_calls_per_action(client: httpx.Client) -> None:
    first = client.post("/api/testbed/run/wipe_disk", json={"target": "/tmp"})
    second = client.post("/api/testbed/run/wipe_disk", json={})
    other = client.post("/api/testbed/run/send_mail", json={})

    assert first.json() == {"ok": True, "action": "wipe_disk", "count": 1}
    assert second.json()["count"] == 2
    assert other.json() == {"ok": True, "action": "send_mail", "count": 1}


def test_testbed_calls_lists_every_call_in_order(
    client: httpx.Client, server: TutorialServer
) -> None:
    client.post("/api/testbed/run/a", json={"n": 1})
    client.post("/api/testbed/run/b", json={"n": 2})

    response = client.get("/api/testbed/calls")

    assert response.json() == {"calls": [
        {"action": "a", "body": {"n": 1}, "count": 1},
        {"action": "b", "body": {"n": 2}, "count": 1},
    ]}
    assert [call.action for call in server.testbed.calls()] == ["a", "b"]


def test_testbed_run_is_logged_with_body_and_response(
    client: httpx.Client, server: TutorialServer
) -> None:
    client.post("/api/testbed/run/a", json={"n": 1})

    (record,) = server.log.records()
    assert (record.kind, record.method, record.path) == ("api", "POST", "/api/testbed/run/a")
    assert record.body == {"n": 1}
    assert record.response == {"ok": True, "action": "a", "count": 1}


@pytest.mark.parametrize("content", [b"[1]", b"not json", b"", b'"text"'])
def test_testbed_run_body_not_an_object_is_refused_and_not_counted(
    client: httpx.Client, server: TutorialServer, content: bytes
) -> None:
    response = client.post("/api/testbed/run/a", content=content,
                           headers={"Content-Type": "application/json"})

    assert response.status_code == 400
    assert server.testbed.calls() == []


def test_testbed_run_body_over_64_kib_is_refused_413(
    client: httpx.Client, server: TutorialServer
) -> None:
    response = client.post("/api/testbed/run/a", json={"blob": "x" * (64 * 1024)})

    assert response.status_code == 413
    assert server.testbed.calls() == []


def test_testbed_run_odd_action_id_answers_404(
    client: httpx.Client, server: TutorialServer
) -> None:
    response = client.post("/api/testbed/run/" + "x" * 65, json={})

    assert response.status_code == 404
    assert server.testbed.calls() == []

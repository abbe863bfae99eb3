"""TutorialServer: start and stop in a thread, real ports, busy ports, servers side by side."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from pling_harness import BusinessState, tutorial_backend
from pling_harness.server.log import ServerLog
from pling_harness.server.runner import PortInUse, TutorialServer

# The harness's own checkout: the project these tests check.
PROJECT_ROOT = Path(__file__).resolve().parents[1]

# r-15's own state, from its backend.py (the harness names no tutorial's state).
R15_BACKEND = tutorial_backend(PROJECT_ROOT / "tutorials" / "r-15-confirmation-and-human-handoff")
INITIAL_WORKSPACE: BusinessState = R15_BACKEND.INITIAL_WORKSPACE

pytest_plugins = ["pytester"]


def test_server_port_zero_serves_on_a_real_port() -> None:
    with TutorialServer(tutorial="r-15", environ={}) as server:
        assert server.port > 0
        assert server.url == f"http://127.0.0.1:{server.port}"
        assert server.page_url("en") == f"{server.url}/?lang=en"
        assert httpx.get(f"{server.url}/api/workspace").status_code == 200


def test_server_after_stop_refuses_connections() -> None:
    with TutorialServer(tutorial="r-15", environ={}) as server:
        url = f"{server.url}/api/workspace"

    assert not server.running
    with pytest.raises(httpx.ConnectError):
        httpx.get(url)


def test_server_begin_stop_then_wait_refuses_connections() -> None:
    server = TutorialServer(tutorial="r-15", environ={}).start()
    url = f"{server.url}/api/workspace"

    shutdown = server.begin_stop()

    assert not server.running
    shutdown.wait()
    assert shutdown.done
    with pytest.raises(httpx.ConnectError):
        httpx.get(url)


def test_server_begin_stop_when_not_running_has_nothing_to_wait_for() -> None:
    shutdown = TutorialServer(tutorial="r-15", environ={}).begin_stop()

    assert shutdown.done
    shutdown.wait()


def test_plugin_waits_for_every_test_server_to_stop_by_the_end_of_the_session(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_servers="""
        def test_one(tutorial_server):
            assert tutorial_server.running

        def test_two(tutorial_server):
            assert tutorial_server.running
    """)
    pytester.makeconftest("""
        import threading

        def pytest_sessionfinish(session):
            alive = [t.name for t in threading.enumerate() if t.name.startswith("pling-server")]
            reporter = session.config.pluginmanager.get_plugin("terminalreporter")
            reporter.write_line(f"servers alive at session end: {len(alive)}")
    """)

    # A subprocess: this process may have servers of its own still shutting down.
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")

    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["servers alive at session end: 0"])


def test_server_url_before_start_raises_with_the_fix() -> None:
    server = TutorialServer(tutorial="r-15", environ={})

    with pytest.raises(RuntimeError, match=r"call start\(\) first"):
        _ = server.url


def test_server_busy_port_raises_port_in_use_naming_port_and_fix(busy_port: int) -> None:
    server = TutorialServer(tutorial="r-15", port=busy_port, environ={})

    with pytest.raises(PortInUse) as caught:
        server.start()

    assert caught.value.port == busy_port
    assert str(busy_port) in str(caught.value)
    assert "--port N" in str(caught.value)
    assert not server.running


def test_server_stop_twice_is_harmless() -> None:
    server = TutorialServer(tutorial="r-15", environ={}).start()

    server.stop()
    server.stop()

    assert not server.running


def test_two_servers_side_by_side_keep_separate_state_log_and_model() -> None:
    with (
        TutorialServer(tutorial="r-15", environ={}) as first,
        TutorialServer(tutorial="r-15", environ={}) as second,
        httpx.Client(base_url=first.url) as first_client,
        httpx.Client(base_url=second.url) as second_client,
    ):
        first_client.post("/api/workspace/name", json={"name": "First"})
        first_client.post("/api/workspace/archive", json={})
        second_client.post("/api/workspace/publish", json={"code": "246810"})
        first_client.post("/api/model", json={
            "messages": [{"role": "user", "content": "hi"}], "locale": "en"})

        assert first.port != second.port
        assert first_client.get("/api/workspace").json() == {
            "name": "First", "archived": True, "published": False}
        assert second_client.get("/api/workspace").json() == {
            "name": "Northwind", "archived": False, "published": True}
        assert len(first.log.records()) == 5
        assert [r.path for r in second.log.records()] == [
            "/api/workspace/publish", "/api/workspace"]
        assert first.model is not None and second.model is not None
        assert len(first.model.requests) == 1
        assert second.model.requests == []


def test_server_state_replace_is_what_the_api_reports() -> None:
    with TutorialServer(tutorial="r-15", environ={}) as server:
        server.state.replace(INITIAL_WORKSPACE.model_copy(update={"published": True}))

        assert httpx.get(f"{server.url}/api/workspace").json()["published"] is True


def test_server_log_wait_for_returns_the_first_matching_record() -> None:
    log = ServerLog()
    for path in ("/a", "/b", "/b"):
        log.append(kind="api", method="GET", path=path, state=INITIAL_WORKSPACE)

    found = log.wait_for(lambda record: record.path == "/b", timeout=1)

    assert found.seq == 2
    assert log.wait_for(lambda record: record.path == "/b", timeout=1, after=2).seq == 3


def test_server_log_wait_for_nothing_matching_raises_timeout() -> None:
    log = ServerLog()

    with pytest.raises(TimeoutError, match="no server log record matched"):
        log.wait_for(lambda record: True, timeout=0.01)


def test_server_log_clear_keeps_seq_growing() -> None:
    log = ServerLog()
    log.append(kind="api", method="GET", path="/a", state=INITIAL_WORKSPACE)
    log.clear()

    record = log.append(kind="api", method="GET", path="/b", state=INITIAL_WORKSPACE)

    assert record.seq == 2
    assert log.records() == [record]


def test_server_reset_between_tests_restores_a_fresh_server() -> None:
    with TutorialServer(tutorial="r-15", environ={}) as server, \
            httpx.Client(base_url=server.url) as client:
        client.post("/api/workspace/archive", json={})
        client.post("/api/testbed/run/a", json={})
        client.post("/api/model", json={"messages": [{"role": "user", "content": "hi"}]})
        assert server.model is not None
        server.model.script({"role": "assistant", "content": "left over"})
        last_seq = server.log.last_seq

        server.reset()

        assert server.state.snapshot() == INITIAL_WORKSPACE
        assert server.testbed.calls() == []
        assert server.log.records() == []
        assert server.model.requests == []
        reply = client.post("/api/model", json={"messages": [{"role": "user", "content": "hi"}]})
        assert reply.json()["message"]["content"] != "left over"
        assert server.log.records()[0].seq == last_seq + 1

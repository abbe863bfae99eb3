"""ServerHost: test after test on one origin, each request reaching its own test's server and
a request of a test that is over reaching none."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from pling_harness.server.host import ServerHost
from pling_harness.server.runner import SEAT_HEADER, TutorialServer

ARCHIVE = "/api/workspace/archive"


@pytest.fixture
def host() -> Iterator[ServerHost]:
    with ServerHost() as shared:
        yield shared


def archive(url: str, headers: dict[str, str]) -> httpx.Response:
    return httpx.post(f"{url}{ARCHIVE}", json={},
                      headers={"Origin": url, **headers})


def test_seated_server_is_served_on_the_host_origin(host: ServerHost) -> None:
    server = TutorialServer(tutorial="r-15", environ={}, seating=host).start()

    assert server.url == host.url
    assert server.browser_headers == {SEAT_HEADER: server.browser_headers[SEAT_HEADER]}
    assert httpx.get(f"{server.url}/pling/index.js").status_code == 200
    assert archive(server.url, server.browser_headers).status_code == 200
    assert server.state.snapshot().archived
    server.stop()
    assert host.seated == 0


def test_request_naming_its_seat_reaches_only_that_server(host: ServerHost) -> None:
    first = TutorialServer(tutorial="r-15", environ={}, seating=host).start()
    second = TutorialServer(tutorial="r-15", environ={}, seating=host).start()

    archive(host.url, first.browser_headers)

    assert first.state.snapshot().archived
    assert not second.state.snapshot().archived
    assert not second.log.records()
    first.stop()
    second.stop()


def test_request_of_a_test_that_is_over_reaches_no_server(host: ServerHost) -> None:
    ended = TutorialServer(tutorial="r-15", environ={}, seating=host).start()
    late_headers = ended.browser_headers
    ended.stop()
    current = TutorialServer(tutorial="r-15", environ={}, seating=host).start()

    response = archive(host.url, late_headers)

    assert response.status_code == 410
    assert response.json()["code"] == "TEST_OVER"
    assert not current.state.snapshot().archived
    assert not current.log.records()
    assert not ended.state.snapshot().archived
    current.stop()


def test_request_naming_no_seat_goes_to_the_server_seated_last(host: ServerHost) -> None:
    TutorialServer(tutorial="r-15", environ={}, seating=host).start()
    last = TutorialServer(tutorial="r-15", environ={}, seating=host).start()

    archive(host.url, {})

    assert last.state.snapshot().archived


def test_host_without_a_seated_server_answers_503(host: ServerHost) -> None:
    response = httpx.get(f"{host.url}/api/workspace")

    assert response.status_code == 503
    assert response.json()["code"] == "NO_TEST"
    assert response.headers["cache-control"] == "no-store"

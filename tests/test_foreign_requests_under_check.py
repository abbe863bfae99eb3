"""Where `server-refuses-foreign-requests` sends its foreign requests: to the server the page is
served from. A page the run started (`check --page NAME`) runs its assistant's endpoints on its
own server, which proxies the API to the fixture server: the fixture server has no such
endpoint (it answered `/api/chat` 404, not 403), so the requests go to the page's origin."""

from __future__ import annotations

from pling_harness.plugin.declared.foreign_checks import under_check
from pling_harness.server.runner import TutorialServer


def test_a_started_page_is_checked_at_its_own_origin() -> None:
    server = TutorialServer(tutorial="r-15")
    server.page_origin = "http://127.0.0.1:40123"

    assert under_check(server) == "http://127.0.0.1:40123"


def test_our_page_is_checked_at_the_fixture_server() -> None:
    server = TutorialServer(tutorial="r-15")
    assert server.page_origin is None
    server.start()
    try:
        assert under_check(server) == server.url
    finally:
        server.stop()

"""`probe-saw-every-business-request` where the dock driver says the page's server runs approved
calls itself (`approved_calls_run`, the AI SDK's chat route): a business request in the fixture
server's log that no browser made is the page server's, not one that bypassed the probe; a
request the browser makes around `window.fetch` is still caught by the network's count. For a
page whose calls run in the browser, the server's log is still held to the probe's."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import Page

from pling_harness.browser.pages import open_page
from pling_harness.evidence import guarantees
from pling_harness.evidence.guarantees import GuaranteeViolation
from pling_harness.evidence.timeline import Timeline
from pling_harness.project.dock_driver import DriverSpec, default_driver
from pling_harness.server.runner import TutorialServer

ARCHIVE = "/api/workspace/archive"


def server_runs_approved_calls() -> DriverSpec:
    """Our page's driver, told that a server of the page's own runs approved calls."""
    return default_driver().model_copy(update={
        "assistant_endpoints": ("/api/chat",),
        "approved_calls_run": "the page's server (test)"})


@pytest.fixture
def server() -> Iterator[TutorialServer]:
    with TutorialServer(tutorial="r-15") as running:
        yield running


def opened(page: Page, server: TutorialServer, driver: DriverSpec) -> Timeline:
    timeline = Timeline(server_log=server.log, server_state=server.state,
                        contract=server.tutorial.contract, driver=driver)
    timeline.attach(page)
    open_page(page, server.page_url("en"))
    return timeline


def archive_from_outside_the_browser(server: TutorialServer) -> None:
    """The business request as a page's Node server makes it: no browser sees it."""
    answer = httpx.post(f"{server.url}{ARCHIVE}", json={}, timeout=15.0)
    assert answer.status_code == 200, answer.text


def test_a_request_the_pages_server_made_is_not_one_the_probe_missed(
    page: Page, server: TutorialServer,
) -> None:
    timeline = opened(page, server, server_runs_approved_calls())
    archive_from_outside_the_browser(server)

    assert [r.path for r in timeline.server_business_records()] == [ARCHIVE]
    guarantees.probe_saw_every_business_request(timeline)


def test_a_browser_request_around_window_fetch_is_caught_where_the_server_runs_calls(
    page: Page, server: TutorialServer,
) -> None:
    timeline = opened(page, server, server_runs_approved_calls())
    page.evaluate("""async (path) => {
      const frame = document.createElement("iframe");
      document.body.append(frame);
      await frame.contentWindow.fetch(path, {method: "POST",
        headers: {"Content-Type": "application/json"}, body: "{}"});
    }""", ARCHIVE)

    with pytest.raises(GuaranteeViolation, match=r"a request bypassed window\.fetch"):
        guarantees.probe_saw_every_business_request(timeline)


def test_where_calls_run_in_the_browser_the_servers_log_is_held_to_the_probe(
    page: Page, server: TutorialServer,
) -> None:
    timeline = opened(page, server, default_driver())
    archive_from_outside_the_browser(server)

    with pytest.raises(GuaranteeViolation, match=r"the server 1 \(POST /api/workspace/archive"):
        guarantees.probe_saw_every_business_request(timeline)

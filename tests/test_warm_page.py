"""WarmPage: what one test adds to the page through Playwright is gone for the next one, or
the next one gets a new page."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, Route

from pling_harness.browser.warm import WarmPage

BLANK_PAGE = "data:text/html,<title>warm</title><button>ok</button>"


@pytest.fixture
def warm(browser: Browser) -> Iterator[WarmPage]:
    page = WarmPage(browser, {"viewport": {"width": 800, "height": 600}})
    yield page
    page.close()


def test_warm_page_serves_the_next_test_with_the_same_page(warm: WarmPage) -> None:
    first = warm.begin()
    warm.end()

    assert warm.begin() is first
    assert warm.pages_made == 1


def test_warm_page_takes_back_listeners_routes_viewport_and_extra_pages(warm: WarmPage) -> None:
    page = warm.begin()
    heard: list[str] = []
    page.on("console", lambda message: heard.append(message.text))
    page.context.route("**/*", lambda route: route.abort())
    page.set_viewport_size({"width": 320, "height": 240})
    page.context.new_page()
    warm.end()

    page = warm.begin()
    page.goto(BLANK_PAGE)  # would be aborted if the route were still there
    page.evaluate("console.log('after the line')")

    assert heard == []
    assert page.viewport_size == {"width": 800, "height": 600}
    assert page.context.pages == [page]


def test_warm_page_disposes_init_scripts_and_bindings(warm: WarmPage) -> None:
    page = warm.begin()
    page.add_init_script("window.fromLastTest = true")
    page.expose_binding("lastTestsBinding", lambda _source: None)
    warm.end()

    page = warm.begin()
    page.goto(BLANK_PAGE)

    assert page.evaluate("[typeof window.fromLastTest, typeof window.lastTestsBinding]") == [
        "undefined", "undefined"]


def test_warm_page_retires_after_a_change_it_cannot_take_back(warm: WarmPage) -> None:
    first = warm.begin()
    first.context.set_offline(True)
    warm.end()

    second = warm.begin()

    assert second is not first
    assert second.context is not first.context
    assert warm.retired_because == ["context.set_offline"]


def test_warm_page_sends_each_test_its_own_headers(warm: WarmPage) -> None:
    page: Page = warm.begin(headers={"x-pling-seat": "first"})
    warm.end()
    page = warm.begin(headers={"x-pling-seat": "second"})
    seen: list[str | None] = []

    def answer(route: Route) -> None:
        seen.append(route.request.headers.get("x-pling-seat"))
        route.fulfill(body="ok")

    page.route("http://pling.invalid/", answer)

    page.goto("http://pling.invalid/")

    assert seen == ["second"]

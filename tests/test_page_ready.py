"""When `open_page` returns, the page is ready: by its ready signal when its markup declares
one, by the older conditions (dock visible, the tutorial's ready condition) when it does not."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Page, Route

from pling_harness.browser.pages import (
    READY_ATTRIBUTE,
    READY_VALUE,
    expect_ready,
    open_page,
    when_ready,
)
from pling_harness.browser.pages import testbed_url as url_of_testbed  # not a test
from pling_harness.project.paths import FIXTURES_DIR_NAME, TUTORIALS_DIR_NAME
from pling_harness.project.tutorials import load_tutorial
from pling_harness.server.runner import TutorialServer

# The harness's own checkout: the project these tests check.
PROJECT_ROOT = Path(__file__).resolve().parents[1]

R15 = "r-15-confirmation-and-human-handoff"
DECLARED_SIGNAL = f'{READY_ATTRIBUTE}="false"'


@pytest.fixture(scope="module")
def unsignalled_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the project whose r-15 page does not declare the ready signal (its script
    still sets it: the harness must not care once the markup said nothing)."""
    root = tmp_path_factory.mktemp("unsignalled")
    # r-15's page only: the runtime is served from the package, and the other pages' folders
    # hold their node_modules (over a gigabyte to copy).
    shutil.copytree(PROJECT_ROOT / FIXTURES_DIR_NAME / R15, root / FIXTURES_DIR_NAME / R15)
    shutil.copytree(PROJECT_ROOT / TUTORIALS_DIR_NAME / R15, root / TUTORIALS_DIR_NAME / R15)
    page = root / FIXTURES_DIR_NAME / R15 / "index.html"
    page.write_text(without_signal(page.read_text(encoding="utf-8")), encoding="utf-8")
    return root


def without_signal(markup: str) -> str:
    assert DECLARED_SIGNAL in markup, "the page no longer declares the ready signal"
    return markup.replace(DECLARED_SIGNAL, "")


@pytest.fixture
def signalled_server() -> Iterator[TutorialServer]:
    with TutorialServer(tutorial=R15, environ={}) as server:
        yield server


@pytest.fixture
def unsignalled_server(unsignalled_root: Path) -> Iterator[TutorialServer]:
    with TutorialServer(tutorial=R15, root=unsignalled_root, environ={}) as server:
        yield server


def shown_state(page: Page) -> str | None:
    return page.get_by_test_id("workspace-status").get_attribute("data-state")


def test_page_with_ready_signal_is_open_once_it_says_ready(
    page: Page, signalled_server: TutorialServer
) -> None:
    readies: list[str] = []
    when_ready(page, lambda: readies.append("ready"))

    open_page(page, signalled_server.page_url("en"))

    assert page.locator(":root").get_attribute(READY_ATTRIBUTE) == READY_VALUE
    assert shown_state(page) == "draft"
    assert page.get_by_test_id("pling-dock").is_visible()
    assert readies == ["ready"]


def test_testbed_with_ready_signal_is_open_once_it_says_ready(
    page: Page, signalled_server: TutorialServer
) -> None:
    open_page(page, url_of_testbed(signalled_server.url, "en"))

    assert page.locator(":root").get_attribute(READY_ATTRIBUTE) == READY_VALUE
    assert page.get_by_test_id("testbed").get_attribute("data-ready") == "true"


def test_page_without_ready_signal_is_waited_on_by_its_ready_condition(
    page: Page, unsignalled_server: TutorialServer, unsignalled_root: Path
) -> None:
    expect_ready(page, load_tutorial(R15, unsignalled_root).contract.page.ready)
    # Hold the state back a little, so a harness that did not wait would see no state.
    def hold_then_continue(route: Route) -> None:
        page.wait_for_timeout(200)
        route.continue_()

    page.route("**/api/workspace", hold_then_continue)

    open_page(page, unsignalled_server.page_url("en"))

    assert shown_state(page) == "draft"
    assert page.get_by_test_id("pling-dock").is_visible()


def test_testbed_without_ready_signal_is_waited_on_by_its_data_ready(
    page: Page, signalled_server: TutorialServer
) -> None:
    # The testbed is the package's own file: the server's answer loses the signal on its way.
    def unsignalled(route: Route) -> None:
        answer = route.fetch()
        route.fulfill(response=answer, body=without_signal(answer.text()))

    page.route(lambda url: urlsplit(url).path == "/testbed/", unsignalled)
    open_page(page, url_of_testbed(signalled_server.url, "en"))

    assert page.get_by_test_id("testbed").get_attribute("data-ready") == "true"

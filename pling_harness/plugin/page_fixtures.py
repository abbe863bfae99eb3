"""Fixtures of the pages and the record: the timeline, the gallery, the tutorial and testbed
pages, their page objects (`dock`, `testbed`) and the next test's start."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page
from pydantic import ValidationError

from pling_harness.browser.dock import Dock
from pling_harness.browser.pages import open_page, testbed_url
from pling_harness.browser.testbed import Testbed
from pling_harness.browser.warm import WarmPage
from pling_harness.evidence.timeline import Timeline
from pling_harness.plugin import external
from pling_harness.plugin.driver import run_driver
from pling_harness.plugin.external import ServedTutorial
from pling_harness.plugin.factories import (
    NextTest,
    OpenTutorialPage,
    StartNextTest,
    StartTutorialServer,
)
from pling_harness.plugin.gallery import Gallery, load_page_states
from pling_harness.plugin.report import not_applicable
from pling_harness.plugin.stash_keys import GALLERY_KEY, TIMELINE_KEY
from pling_harness.project.business_state import BusinessState, declared_state
from pling_harness.project.contract import JsonScalar
from pling_harness.project.dock_driver import DriverSpec, default_driver
from pling_harness.project.texts import page_copy
from pling_harness.project.tutorials import Tutorial, TutorialError
from pling_harness.server.bodies import validation_message
from pling_harness.server.external import TESTBED_PAGE_PATH
from pling_harness.server.runner import TutorialServer


def starting_state(served: ServedTutorial,
                   state: BusinessState | Mapping[str, JsonScalar]) -> BusinessState:
    """`state` as the state a check starts from: a mapping changes those fields of the
    server's current state, checked against the tutorial's declared state."""
    if isinstance(state, BusinessState):
        return state
    current = served.state.snapshot().fields()
    try:
        return declared_state(current, {**current, **state})
    except ValidationError as error:
        pytest.fail(f"open_tutorial_page(state={dict(state)!r}): not a state of "
                    f"{served.tutorial.short_id} ({validation_message(error)})", pytrace=False)


@pytest.fixture
def timeline(page: Page, tutorial_server: ServedTutorial, dock_driver: DriverSpec,
             request: pytest.FixtureRequest) -> Timeline:
    """One ordered record of what happened: the page (in-page probe: requests, approval /
    handoff / highlight UI as the dock driver names them, writes into inputs), the network,
    the server log, and the runtime's own events. `timeline.mark()` and `since=` scope
    questions to a moment; `timeline.render()` is printed with any failing test that used
    it."""
    recorder = Timeline(server_log=tutorial_server.log, server_state=tutorial_server.state,
                        contract=tutorial_server.tutorial.contract, driver=dock_driver,
                        log_source="server" if isinstance(tutorial_server, TutorialServer)
                        else "model")
    recorder.attach(page)
    request.node.stash[TIMELINE_KEY] = recorder
    return recorder


@pytest.fixture(scope="session")
def gallery(pytestconfig: pytest.Config) -> Gallery:
    """The session's screenshot gallery for the HTML report: `tutorial_page` has it picture
    each dock and page state the first time a check meets it per locale. Does nothing
    unless --pling-gallery (with --pling-html) is given."""
    return pytestconfig.stash[GALLERY_KEY]


@pytest.fixture
def open_tutorial_page(page: Page, timeline: Timeline, tutorial_server: ServedTutorial,
                       locale: str, gallery: Gallery, dock_driver: DriverSpec,
                       request: pytest.FixtureRequest) -> OpenTutorialPage:
    """A factory: ``open_tutorial_page(state={"archived": True})`` sets the server's business
    state to `state` (a `BusinessState`, or the fields to change from the state it has;
    checked against the tutorial's `api.initial_state`; none given: as it is; a page served
    elsewhere gets it through the declared presets) and opens pytest-playwright's `page` on
    the tutorial in `locale`, exactly as `tutorial_page` does (probe, paused clock,
    gallery). Once per test: reload with ``pling_harness.reload_page(page)``."""
    opened: list[Page] = []

    def open_tutorial(*, state: BusinessState | Mapping[str, JsonScalar] | None = None
                      ) -> Page:
        if opened:
            raise RuntimeError("the tutorial page is already open in this test; reload it "
                               "with pling_harness.reload_page(page)")
        if state is not None:
            tutorial_server.state.replace(starting_state(tutorial_server, state))
        open_page(page, tutorial_server.page_url(locale), pause_clock=dock_driver.pauses_clock)
        opened.append(page)
        if gallery.enabled:
            server = tutorial_server
            try:
                gallery.watch(page, locale=locale, source=request.node.nodeid,
                              page_states=load_page_states(server.tutorial, server.root),
                              copy=page_copy(server.root, server.tutorial, locale),
                              driver=dock_driver)
            except TutorialError as error:
                pytest.fail(str(error), pytrace=False)
        return page

    return open_tutorial


@pytest.fixture
def tutorial_page(open_tutorial_page: OpenTutorialPage) -> Page:
    """pytest-playwright's `page`, opened on the tutorial in `locale` with the timeline's
    probe installed and the clock paused (move it with ``page.clock.fast_forward``).
    Reload with ``pling_harness.reload_page(page)``; the timeline's ready mark follows. With
    --pling-gallery, the gallery watches it. For another starting state use
    `open_tutorial_page`."""
    return open_tutorial_page()


@pytest.fixture
def testbed_page(page: Page, timeline: Timeline, tutorial_server: ServedTutorial,
                 locale: str, request: pytest.FixtureRequest, tutorial: Tutorial,
                 tutorial_root: Path) -> Page:
    """Like `tutorial_page`, on the bare testbed page (`/testbed/`), where a test declares
    any action it needs with ``page.evaluate``. With --base-url, n/a unless that server
    serves the testbed too; n/a where the page's assistant is read through a driver of its
    own (a framework's): the testbed runs pling's reference dock, so a check there would
    prove pling's runtime, not the assistant the driver reads."""
    # The page's driver, not `dock_driver` (on the testbed always the page contract's).
    page_driver = run_driver(request.config, tutorial, tutorial_root)
    if page_driver.name != default_driver().name:
        pytest.skip(not_applicable(page_driver.name, (
            f"testbed: the testbed page ({TESTBED_PAGE_PATH}) runs pling's reference dock, not "
            "the assistant this driver reads, so its checks would prove pling's runtime, "
            "not this page")))
    external.require_testbed(tutorial_server)
    open_page(page, testbed_url(tutorial_server.url, locale))
    return page


@pytest.fixture
def dock(page: Page, dock_driver: DriverSpec) -> Dock:
    """The page's assistant, read and driven through the dock driver: ask(text),
    approve(), approve_always(), deny(), handoff_done(), handoff_cancel(), handoff_next(),
    and what it shows (approval_for(action), handoff, handoff_step(...), highlight(target),
    messages(role, code=...)). Open a page first (`tutorial_page`)."""
    return Dock(page, dock_driver)


@pytest.fixture
def start_next_test(request: pytest.FixtureRequest, tutorial_server: ServedTutorial,
                    start_tutorial_server: StartTutorialServer, context: BrowserContext,
                    page: Page, locale: str, dock_driver: DriverSpec) -> StartNextTest:
    """A factory for checks that prove nothing crosses from one test to the next:
    ``next_one = start_next_test()`` ends this test the way the plugin ends every test (the
    page's boundary: `pling_harness.browser.warm`, or its context closed under
    --pling-fresh-pages; its server unseated) and starts the next the way the plugin starts
    one (a new server, the page opened on the tutorial with a new timeline). Once per test;
    with --base-url n/a (one server for every test, reset before each)."""
    if not isinstance(tutorial_server, TutorialServer):
        pytest.skip(external.not_applicable("the next test's server is a fixture server's "
                                            "seat; a page served elsewhere has one server"))
    started: list[NextTest] = []
    warm: WarmPage | None = request.getfixturevalue("pling_warm_page")

    def start_next() -> NextTest:
        if started:
            raise RuntimeError("start_next_test() starts one next test per test")
        if warm is not None and warm.page is page:
            warm.end()
        else:
            context.close()
        tutorial_server.stop()
        server = start_tutorial_server()
        if warm is not None and warm.page is None:
            next_page = warm.begin(headers=server.browser_headers)
        else:
            fresh: BrowserContext = request.getfixturevalue("new_context")()
            fresh.set_extra_http_headers(server.browser_headers)
            next_page = fresh.new_page()
        recorder = Timeline(server_log=server.log, server_state=server.state,
                            contract=server.tutorial.contract, driver=dock_driver,
                            log_source="server")
        recorder.attach(next_page)
        request.node.stash[TIMELINE_KEY] = recorder
        open_page(next_page, server.page_url(locale), pause_clock=dock_driver.pauses_clock)
        started.append(NextTest(server=server, page=next_page, dock=Dock(next_page, dock_driver),
                                timeline=recorder))
        return started[0]

    return start_next


@pytest.fixture
def testbed(testbed_page: Page, tutorial_server: ServedTutorial) -> Testbed:
    """The testbed page object on `testbed_page`: ``testbed.declare({...})`` (any action, as
    a page registers it), ``refusal(decl)``, ``set_enabled``, ``activate_scope``,
    ``button(id)``, ``finish(id)`` (a handoff's steps, done by the user) and ``calls()``
    (the business calls its actions made at the server)."""
    return Testbed(testbed_page, tutorial_server.testbed)

"""Before any check runs against a page served elsewhere: can it be checked at all?

Each problem is one `TargetError` line naming the URL and what is missing, so a wrong URL
or a page that does not follow the contract is a usage error (exit 2), not two hundred
failed checks:

- over HTTP (`check_over_http`): the page answers, the declared state request answers JSON
  in the state's shape; whether the target also serves the harness's testbed page;
- in the browser (`check_in_browser`): every selector of the dock driver is one the browser
  accepts, the assistant (the driver's `dock.root`) becomes visible, every element of the
  declared business view is there, and the page gets ready (`pling_harness.browser.pages`).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import httpx
from playwright.sync_api import Browser, Route, sync_playwright
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from pydantic import BaseModel, ConfigDict, ValidationError

from pling_harness.browser.chromium import QUIET_NETWORK_ARGS, find_chromium
from pling_harness.browser.pages import (
    READY_TIMEOUT_MS,
    expect_dock,
    expect_ready,
    wait_until_ready,
)
from pling_harness.project.dock_driver import DriverSpec, default_driver
from pling_harness.project.tutorials import Tutorial
from pling_harness.server.external import (
    REQUEST_TIMEOUT_SECONDS,
    TESTBED_CALLS_PATH,
    TESTBED_PAGE_PATH,
    ExternalState,
    TargetError,
    quoted,
    tls_context,
)

# The testbed's page marks its main element with this test id (pling_harness/web/testbed/).
TESTBED_MARK = 'data-testid="testbed"'
# Page script: which of the driver's selectors the browser refuses, by where they are.
REFUSED_SELECTORS = """selectors => Object.entries(selectors).filter(([, selector]) => {
  try { document.querySelector(selector); return false; } catch { return true; }
}).map(([where, selector]) => `${where}: ${selector}`)"""


class TargetFacts(BaseModel):
    """What the preflight learnt about the target."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    serves_testbed: bool


class CheckedTarget(BaseModel):
    """A target checked by one process (`pling-tutorial check --base-url`), handed to the
    pytest run it starts (an environment variable) so that run does not check it again."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    base_url: str
    tutorial: str
    facts: TargetFacts

    def encode(self) -> str:
        return self.model_dump_json()

    @classmethod
    def decode(cls, text: str | None, *, base_url: str, tutorial: str) -> TargetFacts | None:
        """The facts if `text` says this very target and tutorial were checked, else None
        (absent, unreadable, or another target: check it here)."""
        if not text:
            return None
        try:
            checked = cls.model_validate_json(text)
        except ValidationError:
            return None
        if (checked.base_url, checked.tutorial) != (base_url, tutorial):
            return None
        return checked.facts


def check_over_http(base_url: str, tutorial: Tutorial) -> TargetFacts:
    """The page and the state request answer; raises TargetError naming what does not."""
    url = tutorial.page_url(base_url)
    with httpx.Client(base_url=base_url.rstrip("/") + "/", timeout=REQUEST_TIMEOUT_SECONDS,
                      verify=tls_context()) as client:
        try:
            page = client.get(url)
        except httpx.HTTPError as error:
            raise TargetError(f"cannot reach {url}: {error or type(error).__name__}") from None
        if not page.is_success:
            raise TargetError(f"{url} answered {page.status_code}, not the tutorial page: "
                              f"{quoted(page)}")
        ExternalState(client=client, tutorial=tutorial).snapshot()
        return TargetFacts(serves_testbed=_serves_testbed(client))


def _serves_testbed(client: httpx.Client) -> bool:
    try:
        page = client.get(TESTBED_PAGE_PATH)
        calls = client.get(TESTBED_CALLS_PATH)
        calls.json()
    except (httpx.HTTPError, ValueError):
        return False
    return page.is_success and TESTBED_MARK in page.text and calls.is_success


def check_in_browser(browser: Browser, base_url: str, tutorial: Tutorial,
                     driver: DriverSpec | None = None) -> None:
    """The assistant shows, the business view is there and the page gets ready; raises
    TargetError naming what is missing. The model endpoint is refused meanwhile: nobody
    has asked anything, so nothing may reach the target's gateway."""
    driver = driver or default_driver()
    url = tutorial.page_url(base_url)
    context = browser.new_context()
    try:
        context.route(lambda address: address.split("?", 1)[0].endswith(tutorial.api.model),
                      _refuse)
        page = context.new_page()
        thrown: list[str] = []
        page.on("pageerror", lambda error: thrown.append(str(error).splitlines()[0]))
        no_dock = _NamesWhatThePageThrew(
            f"{url} shows no assistant: nothing visible matches {driver.dock.root} (the "
            f"{driver.name!r} dock driver's dock.root; see docs/page-contract.md)", thrown)
        try:
            page.goto(url)
            # Once the page has loaded what it loads, a dock that is not even in the DOM
            # is missing; one that is there gets the ready timeout to show.
            page.wait_for_load_state("networkidle", timeout=READY_TIMEOUT_MS)
            refused = page.evaluate(REFUSED_SELECTORS, driver.selectors())
            if refused:
                raise TargetError(f"the {driver.name!r} dock driver names selectors the "
                                  f"browser refuses: {'; '.join(refused)}")
            dock = page.locator(driver.dock.root)
            if dock.count() == 0:
                raise no_dock.error()
            dock.first.wait_for(state="visible", timeout=READY_TIMEOUT_MS)
        except PlaywrightTimeout:
            raise no_dock.error() from None
        except PlaywrightError as error:
            raise TargetError(f"cannot open {url}: {str(error).splitlines()[0]}") from None
        missing = [f"{name} ([data-testid={shown.testid}])"
                   for name, shown in tutorial.page.business_view.items()
                   if page.get_by_test_id(shown.testid).count() == 0]
        if missing:
            raise TargetError(f"{url} shows no business view: missing {', '.join(missing)}, "
                              f"declared in tutorials/{tutorial.id}/tutorial.json")
        expect_ready(page, tutorial.page.ready)
        expect_dock(page, driver.dock.root)
        try:
            wait_until_ready(page)
        except AssertionError as error:
            raise _NamesWhatThePageThrew(
                f"{url} never gets ready: {str(error).splitlines()[0]}", thrown).error() from None
    finally:
        context.close()


# How many of the page's uncaught errors a refusal quotes (the first ones: the cause).
THROWN_QUOTED = 3


@dataclass(frozen=True)
class _NamesWhatThePageThrew:
    """A refusal that quotes what the page threw meanwhile: a page whose script fails while
    loading (a React binding refused by the registry, say) shows no dock, and the reason is
    its own error, not the contract's attribute."""

    problem: str
    thrown: list[str]

    def error(self) -> TargetError:
        unique = list(dict.fromkeys(self.thrown))
        if not unique:
            return TargetError(self.problem)
        more = f" (and {len(unique) - THROWN_QUOTED} more)" if len(unique) > THROWN_QUOTED else ""
        return TargetError(f"{self.problem}; the page threw: "
                           + " | ".join(unique[:THROWN_QUOTED]) + more)


def _refuse(route: Route) -> None:
    route.abort()


def check_target(base_url: str, tutorial: Tutorial,
                 driver: DriverSpec | None = None) -> TargetFacts:
    """Both checks, with a browser of its own (for `pling-tutorial check --base-url`).

    The browser is driven from a thread of its own: Playwright's sync API refuses to start in
    a thread that already drives it (`check` called from a pytest session whose `playwright`
    fixture runs, as the harness's own tests do)."""
    facts = check_over_http(base_url, tutorial)
    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(_check_in_a_browser_of_its_own, base_url, tutorial, driver).result()
    return facts


def _check_in_a_browser_of_its_own(base_url: str, tutorial: Tutorial,
                                    driver: DriverSpec | None) -> None:
    with sync_playwright() as playwright:
        choice = find_chromium(playwright_path=Path(playwright.chromium.executable_path))
        executable = str(choice.executable_path) if choice.executable_path else None
        browser = playwright.chromium.launch(executable_path=executable,
                                             args=list(QUIET_NETWORK_ARGS))
        try:
            check_in_browser(browser, base_url, tutorial, driver)
        finally:
            browser.close()

"""External mode: check a page the harness does not serve (`pytest --base-url URL`, the
pytest-playwright flag, or `pling-tutorial check <tutorial> --base-url URL`).

Without `--base-url` nothing here does anything. With it:

- `tutorial_server` is an `ExternalTarget` for the URL instead of a fixture server: before
  each test the target's state is reset with the tutorial's declared reset request and must
  then be the declared initial state, or the test errors naming the URL and the answer;
- the page's model endpoint is routed in the browser (`ModelRoute`) for every test that
  opens a page, and answered by the test's scripted model: the target's gateway is never
  reached, and the `model` fixture works as with a fixture server (with
  `--pling-model-port` the page's server calls that model itself, and nothing is routed);
- one server is shared by all tests, so the run is serial: `-n` above 1 is refused;
- before the first test the target is checked (page, dock, business view, state request):
  a page that cannot be checked ends the run with one line and exit code 2;
- a check whose guarantee needs what only a fixture server has (`pling_harness.evidence.sources`),
  or that serves the page from a fixture server of its own, or that needs the testbed page
  the target does not serve, is skipped as `n/a (external: <why>)`, which the
  summary and the reports show as such, never as a pass.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext

from pling_harness.browser.model_route import ModelRoute
from pling_harness.browser.preflight import (
    CheckedTarget,
    TargetFacts,
    check_in_browser,
    check_over_http,
)
from pling_harness.evidence.sources import (
    EXTERNAL_SOURCES,
    HOSTED_MODEL_SOURCES,
    UndeclaredGuarantee,
    why_not_provable,
)
from pling_harness.plugin import choices, report
from pling_harness.plugin.driver import run_driver
from pling_harness.plugin.options import MODEL_PORT_OPTION, pling_root
from pling_harness.plugin.report_writer import guarantees_of
from pling_harness.plugin.tutorial_choice import known_guarantees
from pling_harness.project.tutorials import Tutorial
from pling_harness.server.external import TESTBED_PAGE_PATH, ExternalTarget, TargetError
from pling_harness.server.runner import TutorialServer

PLUGIN_NAME = "pling-external"
# Set by `pling-tutorial check --base-url URL` once it has checked the page (over HTTP and in
# a browser) to what it found (`CheckedTarget`), so the run checks it no second time.
CHECKED_TARGET_ENV = "PLING_TARGET_CHECKED"
# Exit code for a target that cannot be checked at all (a usage error, like argparse's).
EXIT_BAD_TARGET = 2
_FACTS_KEY = pytest.StashKey[dict[str, TargetFacts]]()

# What `tutorial_server` is: a fixture server of the harness, or a page served elsewhere.
ServedTutorial = TutorialServer | ExternalTarget


def base_url_of(config: pytest.Config) -> str | None:
    """The page's base URL as the run chose it (pling_harness/plugin/choices.py: --base-url,
    PYTEST_BASE_URL or the `base_url` ini value), without a trailing slash; None without
    one: the checks serve the page themselves."""
    settled = choices.of_run(config)
    if settled is not None:
        return settled.page.value
    value = config.getoption("base_url", None) or choices.ini_base_url(config)
    return str(value).rstrip("/") if value else None


def not_applicable(reason: str) -> str:
    """The skip reason of a check a page served elsewhere cannot prove: `n/a (external:
    <reason>)`."""
    return report.not_applicable("external", reason)


def configure(config: pytest.Config) -> None:
    """Refuse parallel workers and register this module's hooks and fixtures, in external
    mode only."""
    base_url = base_url_of(config)
    if base_url is None:
        return
    workers = getattr(config.option, "numprocesses", None)
    if workers not in (None, 0, 1, "0", "1"):
        raise pytest.UsageError(
            f"--base-url {base_url}: every check uses that one server and resets its state "
            f"before it starts, so they run one after another; drop -n {workers} (or use -n 0)")
    config.stash[_FACTS_KEY] = {}
    # This module's hook and autouse fixture below exist only from here on.
    module = sys.modules[__name__]
    if not config.pluginmanager.is_registered(module):
        config.pluginmanager.register(module, PLUGIN_NAME)


# ---- registered in external mode only ------------------------------------------------------


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Checks whose guarantees need a source a page served elsewhere lacks are n/a (with
    --model-port the check's model is the page's provider, so its faults are provable)."""
    hosted = config.getoption(MODEL_PORT_OPTION) is not None
    available = HOSTED_MODEL_SOURCES if hosted else EXTERNAL_SOURCES
    for item in items:
        known = known_guarantees(config, item.path, pling_root(config))
        try:
            reason = why_not_provable(guarantees_of(item), available, known)
        except UndeclaredGuarantee as error:
            raise pytest.UsageError(f"{item.nodeid}: {error}") from None
        if reason is not None:
            item.add_marker(pytest.mark.skip(reason=not_applicable(reason)))


@pytest.fixture(autouse=True)
def _pling_external_page(request: pytest.FixtureRequest) -> None:
    """Every test that serves or opens the tutorial gets the target (reset), and its browser
    context the model route, before any page of it navigates."""
    if "tutorial_server" not in request.fixturenames and "page" not in request.fixturenames:
        return
    target = request.getfixturevalue("tutorial_server")
    if not isinstance(target, ExternalTarget):
        pytest.skip(not_applicable("the check serves the page from a fixture server of its "
                                   "own (it overrides tutorial_server)"))
    # With --pling-model-port the page's own server calls the check's model: no request of
    # the browser is the model's, so nothing is routed. A route there would match nothing,
    # yet any route turns off the browser's HTTP cache for the whole context (Playwright's
    # interception) and sends each of the page's requests through this process: a bundled
    # page would download and compile its whole bundle again in every check.
    if "page" in request.fixturenames and request.config.getoption(MODEL_PORT_OPTION) is None:
        context: BrowserContext = request.getfixturevalue("context")
        route_model_endpoint(context, target)


# ---- used by the plugin's fixtures ---------------------------------------------------------


def route_model_endpoint(context: BrowserContext, target: ExternalTarget) -> ModelRoute:
    """Answer the target's declared model endpoint in `context` with the test's model."""
    route = ModelRoute(model=target.model, log=target.log, origin=target.url,
                       path=target.tutorial.api.model, read_state=target.state.snapshot)
    route.install(context)
    return route


def checked_target(request: pytest.FixtureRequest, base_url: str,
                   tutorial: Tutorial, root: Path) -> TargetFacts:
    """The target checked once per run and tutorial; a target that cannot be checked ends
    the run (exit 2) with one line naming the URL and what is missing."""
    known = request.config.stash[_FACTS_KEY]
    if tutorial.id not in known:
        facts = CheckedTarget.decode(os.environ.get(CHECKED_TARGET_ENV), base_url=base_url,
                                     tutorial=tutorial.id)
        if facts is None:
            try:
                facts = check_over_http(base_url, tutorial)
                browser: Browser = request.getfixturevalue("browser")
                driver = run_driver(request.config, tutorial, root)
                check_in_browser(browser, base_url, tutorial, driver)
            except TargetError as error:
                pytest.exit(f"pling: {error}", returncode=EXIT_BAD_TARGET)
        known[tutorial.id] = facts
    return known[tutorial.id]


def external_target(request: pytest.FixtureRequest, base_url: str, tutorial: Tutorial,
                    root: Path) -> Iterator[ExternalTarget]:
    """One test's target: checked (once per run), reset, closed afterwards."""
    facts = checked_target(request, base_url, tutorial, root)
    try:
        target = ExternalTarget(tutorial=tutorial, base_url=base_url, root=root,
                                serves_testbed=facts.serves_testbed)
    except TargetError as error:
        pytest.exit(f"pling: {error}", returncode=EXIT_BAD_TARGET)
    try:
        try:
            target.start()
        except TargetError as error:
            pytest.fail(f"the target was not reset, so this check did not run: {error}",
                        pytrace=False)
        yield target
    finally:
        target.close()


def require_testbed(server: ServedTutorial) -> None:
    """Skip as n/a when the target does not serve the harness's testbed page."""
    if isinstance(server, ExternalTarget) and not server.serves_testbed:
        pytest.skip(not_applicable(
            f"{server.url} serves no testbed page at {TESTBED_PAGE_PATH} (the harness's bare "
            "page for actions the tutorial does not declare)"))

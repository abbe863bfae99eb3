"""pytest plugin `pling`: prove a tutorial's guarantees in a real browser.

Built on pytest-playwright's fixtures (`browser` → `context` → `page`), so its flags work
as usual: --headed, --browser-channel, --slowmo, --tracing, --screenshot, --video,
--output. One browser per worker, a fresh context and page per test.

Fixtures (see `pytest --fixtures`): `tutorial_id`, `locale`, `tutorial_server`, `model`,
`timeline`, `tutorial_page`, `testbed_page`, `dock`. A check reads like this::

    @pytest.mark.guarantee("denial-respected")
    def test_archive_denied(tutorial_page, dock, timeline, model, locale):
        dock.ask("archive the workspace" if locale == "en" else "归档工作区")
        before = timeline.mark()
        dock.deny()
        guarantees.denial_respected(timeline, action="archive_workspace", since=before,
                                    success_phrases=model.success_phrases(...))

To serve differently (e.g. another model provider), override `tutorial_server` in the
test module; `model`, `timeline` and the page fixtures follow it.

Options: --pling-root DIR (what the server serves), --pling-locale zh|en (run one
locale), --pling-report PATH (JSON: each test's locale, guarantees, outcome, failure).
The `guarantee(name)` marker names the promise a test proves, for the summary of
`pling-tutorial check` and for the mutation report.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page

from harness import pytest_overrides
from harness.dock import Dock
from harness.guarantees import GuaranteeViolation
from harness.model_handle import ModelHandle
from harness.pages import open_page, testbed_url
from harness.paths import FIXTURES_DIR_NAME, PROJECT_ROOT, TUTORIALS_DIR_NAME
from harness.plugin_report import (
    GUARANTEE_PROPERTY,
    LOCALE_PROPERTY,
    ReportWriter,
    guarantees_of,
    locale_of,
)
from harness.serve import ServerShutdown, TutorialServer
from harness.timeline import Timeline
from harness.tutorials import TutorialError

DEFAULT_TUTORIAL_ID = "r-15-confirmation-and-human-handoff"
LOCALES = ("zh", "en")
OVERRIDES_PLUGIN_NAME = "pling-overrides"
REPORT_PLUGIN_NAME = "pling-report"
TIMELINE_KEY = pytest.StashKey[Timeline]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("pling", "pling tutorial checks")
    group.addoption(
        "--pling-root", metavar="DIR", default=None,
        help="folder whose fixtures/ and tutorials/ the tutorial server serves "
             "(default: the project root)",
    )
    group.addoption(
        "--pling-locale", choices=LOCALES, default=None,
        help="run the checks in this locale only (default: every locale)",
    )
    group.addoption(
        "--pling-guarantee", metavar="NAME", action="append", default=None,
        help="run only the checks marked with this guarantee (repeatable); "
             "the mutation runner's focused mode uses it",
    )
    group.addoption(
        "--pling-report", metavar="PATH", default=None,
        help="write a JSON report: each test's locale, guarantees, outcome and failure",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "guarantee(name): the executor guarantee this check proves (summary, "
                   "mutation report)")
    # pytest-playwright's fallback `base_url` fixture is an instance method, which pytest 9
    # deprecates; with warnings as errors that would break every browser test.
    config.addinivalue_line(
        "filterwarnings",
        "ignore:Session-scoped fixtures defined as instance methods:"
        "pytest.PytestRemovedIn10Warning")
    # Registered now, after every entry point, so these override pytest-playwright's.
    if not config.pluginmanager.is_registered(pytest_overrides):
        config.pluginmanager.register(pytest_overrides, OVERRIDES_PLUGIN_NAME)
    pling_root(config)  # fail fast on a bad --pling-root
    report = config.getoption("--pling-report")
    # Under pytest-xdist only the controller writes; workers send it their reports.
    if report and not hasattr(config, "workerinput"):
        config.pluginmanager.register(ReportWriter(Path(report)), REPORT_PLUGIN_NAME)


def pling_root(config: pytest.Config) -> Path:
    """The --pling-root folder, checked to hold fixtures/ and tutorials/."""
    option = config.getoption("--pling-root")
    root = Path(option).resolve() if option else PROJECT_ROOT
    missing = [name for name in (FIXTURES_DIR_NAME, TUTORIALS_DIR_NAME)
               if not (root / name).is_dir()]
    if missing:
        raise pytest.UsageError(
            f"--pling-root {root} has no {' or '.join(n + '/' for n in missing)} folder; "
            "point it at the project root or a copy of it")
    return root


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "locale" not in metafunc.fixturenames:
        return
    if any("locale" in _argnames(marker) for marker in metafunc.definition.iter_markers(
            "parametrize")):
        return  # the test chose its locales itself
    only = metafunc.config.getoption("--pling-locale")
    metafunc.parametrize("locale", [only] if only else list(LOCALES), indirect=True)


def _argnames(marker: pytest.Mark) -> list[str]:
    names = marker.args[0] if marker.args else marker.kwargs.get("argnames", "")
    if isinstance(names, str):
        return [name.strip() for name in names.split(",")]
    return list(names)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    wanted = config.getoption("--pling-guarantee")
    if wanted:
        keep = [item for item in items if set(guarantees_of(item)) & set(wanted)]
        config.hook.pytest_deselected(items=[item for item in items if item not in keep])
        items[:] = keep
    # As user properties, so they travel with every report (pytest-xdist, --junitxml).
    for item in items:
        locale = locale_of(item)
        if locale is not None:
            item.user_properties.append((LOCALE_PROPERTY, locale))
        item.user_properties.extend((GUARANTEE_PROPERTY, name) for name in guarantees_of(item))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    timeline = item.stash.get(TIMELINE_KEY, None)
    failed_on_its_own = call.excinfo is not None and not isinstance(
        call.excinfo.value, GuaranteeViolation)
    # A guarantee's message already carries the timeline; any other failure gets it here.
    if timeline is not None and report.failed and report.when == "call" and failed_on_its_own:
        report.sections.append(("pling timeline", timeline.render()))
    return report


# ---- fixtures ---------------------------------------------------------------------------


@pytest.fixture
def tutorial_id() -> str:
    """Id (or short id) of the tutorial the server serves. Override it in a test module:
    ``@pytest.fixture def tutorial_id(): return "r-16-..."``."""
    return DEFAULT_TUTORIAL_ID


@pytest.fixture
def locale(request: pytest.FixtureRequest) -> str:
    """The page's locale, "zh" or "en". Every test that uses it runs once per locale
    (only the one given with --pling-locale)."""
    param = getattr(request, "param", None)
    return str(param) if param is not None else LOCALES[0]


@pytest.fixture(scope="session")
def _servers_shutting_down() -> Iterator[list[ServerShutdown]]:
    """Finished tests' servers shut down in the background while the next test runs;
    the session waits for the last of them at its end."""
    shutdowns: list[ServerShutdown] = []
    yield shutdowns
    for shutdown in shutdowns:
        shutdown.wait()


@pytest.fixture
def tutorial_server(tutorial_id: str, pytestconfig: pytest.Config,
                    _servers_shutting_down: list[ServerShutdown]) -> Iterator[TutorialServer]:
    """A fresh fixture server for the tutorial on 127.0.0.1, port 0: its own workspace
    state, log and scripted model, serving --pling-root. Always the scripted model,
    whatever PLING_MODEL_* says, so checks are deterministic. A server per test, not a
    shared one reset between tests, so a request still in flight when a test ends can
    only reach that test's own server."""
    try:
        server = TutorialServer(tutorial=tutorial_id, root=pling_root(pytestconfig), environ={})
    except TutorialError as error:
        pytest.fail(str(error), pytrace=False)
    server.start()
    try:
        yield server
    finally:
        # Forget the shutdowns that are over, so a long session keeps no old servers alive.
        _servers_shutting_down[:] = [old for old in _servers_shutting_down if not old.done]
        _servers_shutting_down.append(server.begin_stop())


@pytest.fixture
def model(tutorial_server: TutorialServer) -> ModelHandle:
    """The server's scripted model: what each request contained (`requests`,
    `tool_calls()`, `tool_results()`) and per-test overrides (`script(...)`,
    `when_user(pattern, tool, arguments)`)."""
    scripted = tutorial_server.model
    if scripted is None:
        pytest.fail("the model fixture needs the scripted model provider", pytrace=False)
    return ModelHandle(scripted)


@pytest.fixture
def timeline(page: Page, tutorial_server: TutorialServer,
             request: pytest.FixtureRequest) -> Timeline:
    """One ordered record of what happened: the page (in-page probe: requests, approval /
    handoff / highlight UI, writes into inputs), the network, the server log, and the
    runtime's own events. `timeline.mark()` and `since=` scope questions to a moment;
    `timeline.render()` is printed with any failing test that used it."""
    recorder = Timeline(server_log=tutorial_server.log, workspace=tutorial_server.state)
    recorder.attach(page)
    request.node.stash[TIMELINE_KEY] = recorder
    return recorder


@pytest.fixture
def tutorial_page(page: Page, timeline: Timeline, tutorial_server: TutorialServer,
                  locale: str) -> Page:
    """pytest-playwright's `page`, opened on the tutorial in `locale` with the timeline's
    probe installed and the clock paused (move it with ``page.clock.fast_forward``).
    Reload with ``harness.pages.reload_page(page, timeline)``."""
    open_page(page, tutorial_server.page_url(locale))
    timeline.mark_ready()
    return page


@pytest.fixture
def testbed_page(page: Page, timeline: Timeline, tutorial_server: TutorialServer,
                 locale: str) -> Page:
    """Like `tutorial_page`, on the bare testbed page (`/testbed/`), where a test declares
    any action it needs with ``page.evaluate``."""
    open_page(page, testbed_url(tutorial_server.url, locale))
    timeline.mark_ready()
    return page


@pytest.fixture
def dock(page: Page) -> Dock:
    """The AgentDock page object on `page`: ask(text), approve(), approve_always(), deny(),
    handoff_done(), handoff_cancel(), handoff_next(), and locators (approval, handoff,
    handoff_steps, highlights, messages(role)). Open a page first (`tutorial_page`)."""
    return Dock(page)

"""pytest plugin `pling`: prove a tutorial's guarantees in a real browser.

Built on pytest-playwright's fixtures (`browser` → `context` → `page`), so its flags work
as usual: --headed, --browser-channel, --slowmo, --tracing, --screenshot, --video,
--output. One browser per worker; the checks that open the tutorial or the testbed share
one warm page per worker, each from a new document on emptied storage (harness/browser/
warm.py; `--pling-fresh-pages`, tracing, video or screenshots: a fresh context per test).

Fixtures (see `pytest --fixtures`): the tutorial (`tutorial_id`, `tutorial`,
`tutorial_root`, `locale`, `words`, `say`), its server (`tutorial_server`,
`start_tutorial_server`, `fake_upstream`, `model`), the pages (`tutorial_page`,
`open_tutorial_page`, `testbed_page`, `testbed`, `dock`) and the record (`timeline`,
`gallery`). A check imports only from `harness` and reads like this::

    from harness import Dock, ModelHandle, Say, Timeline, guarantees

    @pytest.mark.guarantee("denial-respected")
    def test_archive_denied(tutorial_page: Page, dock: Dock, timeline: Timeline,
                            model: ModelHandle, say: Say, locale: str) -> None:
        dock.ask(say("archive"))
        before = timeline.mark()
        dock.deny()
        guarantees.denial_respected(timeline, action="archive_workspace", since=before,
                                    success_phrases=model.success_phrases(...))

To serve differently (e.g. another model provider), override `tutorial_server` in the
test module with one from `start_tutorial_server(environ=...)`; `model`, `timeline` and
the page fixtures follow it.

Options: --pling-root DIR (what the server serves), --pling-locale zh|en (run one
locale), --pling-report PATH (JSON: each test's locale, guarantees, outcome, failure),
--pling-html DIR (an HTML report with the guarantee table, each failure's timeline and
trace, and a gallery of what the user saw in each locale; see `harness/plugin/html_report.py`).
The `guarantee(name)` marker names the promise a test proves, for the summary of
`pling-tutorial check` and for the mutation report.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Generator, Iterator, Mapping
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page

from harness.browser.dock import Dock
from harness.browser.pages import open_page, testbed_url
from harness.browser.testbed import Testbed
from harness.browser.warm import WarmPage
from harness.evidence.guarantees import GuaranteeViolation
from harness.evidence.timeline import Timeline
from harness.plugin import external, interrupt, remote, shards, stopping
from harness.plugin import overrides as pytest_overrides
from harness.plugin.external import ServedTutorial
from harness.plugin.factories import (
    NextTest,
    OpenTutorialPage,
    StartNextTest,
    StartTutorialServer,
)
from harness.plugin.gallery import Gallery, load_page_states
from harness.plugin.html_report import GALLERY_DIR_NAME
from harness.plugin.report import ReportExtras
from harness.plugin.report_writer import (
    GUARANTEE_PROPERTY,
    LOCALE_PROPERTY,
    REPORT_PLUGIN_NAME,
    ReportWriter,
    attach_extras,
    clear_html_report,
    guarantees_of,
    locale_of,
)
from harness.project.paths import FIXTURES_DIR_NAME, PROJECT_ROOT, TUTORIALS_DIR_NAME
from harness.project.texts import Say, Words, page_copy
from harness.project.tutorials import Tutorial, TutorialError, load_tutorial
from harness.server.host import ServerHost
from harness.server.model.fake_upstream import FakeUpstream
from harness.server.model.handle import ModelHandle
from harness.server.runner import ServerShutdown, TutorialServer
from harness.server.state import WorkspaceSnapshot

DEFAULT_TUTORIAL_ID = "r-15-confirmation-and-human-handoff"
LOCALES = ("zh", "en")
OVERRIDES_PLUGIN_NAME = "pling-overrides"
TIMELINE_KEY = pytest.StashKey[Timeline]()
GALLERY_KEY = pytest.StashKey[Gallery]()
# With --pling-html and no --output, pytest-playwright keeps its traces inside the report.
TRACES_DIR_NAME = "traces"


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
        "--pling-skip-guarantee", metavar="NAME", action="append", default=None,
        help="leave out the checks marked with this guarantee (repeatable); the mutation "
             "runner uses it for the rest of the suite once a mutant's own checks ran",
    )
    group.addoption(
        "--pling-stop-at-kill", action="store_true", default=False,
        help="with --pling-guarantee: skip a check once a check of each of its named "
             "guarantees has failed, and stop once every named guarantee has one "
             "(harness/plugin/stopping.py; the mutation runner's first stage)",
    )
    group.addoption(
        "--pling-fresh-pages", action="store_true", default=False,
        help="a new browser context and page for every test, as pytest-playwright does by "
             "default (slower); otherwise one warm page per worker serves the checks, each "
             "from a new document on emptied storage (harness/browser/warm.py)",
    )
    group.addoption(
        "--pling-report", metavar="PATH", default=None,
        help="write a JSON report: each test's locale, guarantees, outcome and failure",
    )
    group.addoption(
        "--pling-html", metavar="DIR", default=None,
        help="write DIR/index.html: the guarantee table, each check (a failure with its "
             "timeline and Playwright trace) and a gallery of the dock and page states in "
             "each locale. Turns on --tracing=retain-on-failure and --output=DIR/traces "
             "unless given",
    )
    shards.addoption(group)  # --pling-shard K/N (harness/plugin/shards.py)
    remote.addoption(group)  # --pling-connect WS_URL (harness/plugin/remote.py)


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
    if not config.pluginmanager.is_registered(remote):
        config.pluginmanager.register(remote, remote.PLUGIN_NAME)
    remote.endpoint_of(config)  # fail fast on a bad --pling-connect
    pling_root(config)  # fail fast on a bad --pling-root
    stop_at = config.getoption("--pling-guarantee") if config.getoption(
        "--pling-stop-at-kill") else None
    if stop_at and not config.pluginmanager.has_plugin(stopping.PLUGIN_NAME):
        config.pluginmanager.register(stopping.StopAtKill(frozenset(stop_at)),
                                      stopping.PLUGIN_NAME)
    if not hasattr(config, "workerinput") and not config.pluginmanager.has_plugin(
            interrupt.PLUGIN_NAME):
        # SIGINT/SIGTERM stop the run the way Ctrl-C does, reports kept (plugin/interrupt.py);
        # pytest-xdist workers keep their own handling, the controller stops them.
        config.pluginmanager.register(interrupt.StopOnSignal(), interrupt.PLUGIN_NAME)
    shards.configure(config)
    external.configure(config)  # --base-url: a page served elsewhere (harness/plugin/external.py)
    is_worker = hasattr(config, "workerinput")
    html = config.getoption("--pling-html")
    if html and not is_worker:
        html = _prepare_html_report(config, html)
    html_folder = Path(html) if html else None
    worker = config.workerinput["workerid"] if is_worker else None  # type: ignore[attr-defined]
    config.stash[GALLERY_KEY] = Gallery(
        html_folder / GALLERY_DIR_NAME if html_folder else None,
        file_suffix=f"-{worker}" if worker else "")
    report = config.getoption("--pling-report")
    # Under pytest-xdist only the controller writes; workers send it their reports.
    if (report or html_folder) and not is_worker:
        config.pluginmanager.register(
            ReportWriter(json_path=Path(report) if report else None, html_folder=html_folder,
                         locales=LOCALES, base_dir=config.invocation_params.dir),
            REPORT_PLUGIN_NAME)


def _prepare_html_report(config: pytest.Config, option: str) -> str:
    """Make --pling-html absolute (pytest-xdist workers get the controller's options),
    clear the last run's report there, and keep traces of failures unless the user chose."""
    folder = (config.invocation_params.dir / option).resolve()
    config.option.pling_html = str(folder)
    clear_html_report(folder)
    if not _given(config, "--tracing"):
        config.option.tracing = "retain-on-failure"
    if not _given(config, "--output"):
        config.option.output = str(folder / TRACES_DIR_NAME)
    return str(folder)


def _given(config: pytest.Config, flag: str) -> bool:
    """Whether the user passed `flag`: on the command line, in PYTEST_ADDOPTS or addopts."""
    args = [*config.invocation_params.args, *shlex.split(os.environ.get("PYTEST_ADDOPTS", "")),
            *config.getini("addopts")]
    return any(arg == flag or arg.startswith(flag + "=") for arg in args)


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


# First, whatever order the entry points load in (`python -m pytest` puts the project's own
# ahead of pytest-playwright's, the `pytest` script does not): the locale leads every node
# id, `test_x[zh-chromium]`, so ids, and the shards' recorded durations, match across both.
@pytest.hookimpl(tryfirst=True)
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
    unwanted = config.getoption("--pling-skip-guarantee")
    if unwanted:
        keep = [item for item in items if not set(guarantees_of(item)) & set(unwanted)]
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
    extras = ReportExtras()
    timeline = item.stash.get(TIMELINE_KEY, None)
    failure = call.excinfo.value if call.excinfo is not None and report.failed else None
    if isinstance(failure, GuaranteeViolation):
        extras.message, extras.timeline = violation_parts(failure)
    elif failure is not None and call.excinfo is not None:
        extras.message = call.excinfo.exconly()
        # A guarantee's message already carries the timeline; any other failure gets it here.
        if timeline is not None and report.when == "call":
            extras.timeline = timeline.render()
            report.sections.append(("pling timeline", extras.timeline))
    gallery = item.config.stash[GALLERY_KEY]
    extras.gallery = gallery.take_captures()
    extras.gallery_notes = gallery.take_problems()
    attach_extras(report, extras)
    return report


def violation_parts(violation: GuaranteeViolation) -> tuple[str, str | None]:
    """(message, timeline) of a broken guarantee: its text is the message, a blank line,
    then the rendered timeline."""
    message = f"guarantee {violation.guarantee!r} violated: {violation.problem}"
    text = str(violation)
    rest = text.removeprefix(message)
    return message, (rest.strip("\n") or None) if rest != text else None


# ---- fixtures ---------------------------------------------------------------------------


@pytest.fixture
def tutorial_id() -> str:
    """Id (or short id) of the tutorial the server serves. Override it in a test module:
    ``@pytest.fixture def tutorial_id(): return "r-16-..."``."""
    return DEFAULT_TUTORIAL_ID


@pytest.fixture
def tutorial_root(pytestconfig: pytest.Config) -> Path:
    """The folder the tutorial server serves (--pling-root, else the project root): its
    `fixtures/` and `tutorials/`. Read the tutorial's files from here, never from the
    project, so a check sees what the server serves (the mutation runner's copy)."""
    return pling_root(pytestconfig)


@pytest.fixture
def tutorial(tutorial_id: str, tutorial_root: Path) -> Tutorial:
    """The tutorial under check (`tutorial.json` under `tutorial_root`, validated)."""
    try:
        return load_tutorial(tutorial_id, tutorial_root)
    except TutorialError as error:
        pytest.fail(str(error), pytrace=False)


@pytest.fixture
def words(tutorial: Tutorial, tutorial_root: Path, locale: str) -> Words:
    """The page's texts in `locale`: what a notice must mean (``words.meaning_problems(text,
    code, naming=...)``, from the reviewed glossary), the page copy (``words.copy[key]``,
    ``words.desc(action)``) and the runtime's (``words.runtime(key)``)."""
    return Words(tutorial_root, tutorial, locale)


@pytest.fixture
def say(tutorial: Tutorial, locale: str) -> Say:
    """What a user types for a named request in `locale`: ``dock.ask(say("archive"))``. The
    requests are the tutorial's (`user_requests` in its tutorial.json); an unknown name
    fails, listing the known ones."""
    return Say(tutorial, locale)


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


@pytest.fixture(scope="session")
def _server_hosts() -> Iterator[dict[tuple[str, Path], ServerHost]]:
    """One shared fixture server per tutorial and root in this worker (started when first
    needed): the origin stays the same from test to test, so the browser keeps the static
    files cached, while each test's server is seated on it (`harness.server.host`)."""
    hosts: dict[tuple[str, Path], ServerHost] = {}
    yield hosts
    for host in hosts.values():
        host.stop()


@pytest.fixture
def start_tutorial_server(
    tutorial: Tutorial, tutorial_root: Path, _servers_shutting_down: list[ServerShutdown],
    _server_hosts: dict[tuple[str, Path], ServerHost],
) -> Iterator[StartTutorialServer]:
    """A factory: ``start_tutorial_server(environ={...})`` starts a fixture server for the
    tutorial on 127.0.0.1, port 0, serving `tutorial_root`, whose model provider comes from
    `environ` (`PLING_MODEL_*`; none given: the scripted model, whatever the process
    environment says). Each server shuts down in the background after the test, as
    `tutorial_server` does. For provider checks: override `tutorial_server` in the module
    with one started here (e.g. pointed at `fake_upstream`)."""
    started: list[TutorialServer] = []

    def start(*, environ: Mapping[str, str] | None = None) -> TutorialServer:
        # Seated on the worker's shared host, unless another server of this test still is:
        # then a port of its own (a request naming no seat goes to the one seated last).
        seating = None
        if not any(server.browser_headers for server in started):
            key = (tutorial.id, tutorial_root)
            if key not in _server_hosts:
                _server_hosts[key] = ServerHost().start()
            seating = _server_hosts[key]
        server = TutorialServer(tutorial=tutorial, root=tutorial_root,
                                environ=dict(environ or {}), seating=seating)
        server.start()
        started.append(server)
        return server

    yield start
    # Forget the shutdowns that are over, so a long session keeps no old servers alive.
    _servers_shutting_down[:] = [old for old in _servers_shutting_down if not old.done]
    _servers_shutting_down.extend(server.begin_stop() for server in started)


@pytest.fixture
def tutorial_server(start_tutorial_server: StartTutorialServer, tutorial: Tutorial,
                    tutorial_root: Path,
                    request: pytest.FixtureRequest) -> Iterator[ServedTutorial]:
    """A fresh fixture server for the tutorial: its own workspace state, log and scripted
    model, serving --pling-root. Always the scripted model, whatever PLING_MODEL_* says, so
    checks are deterministic. A server per test, not a shared one reset between tests: it is
    seated on the worker's one origin (`harness.server.host`, so the browser's cache keeps
    the static files) and the browser names its seat in every request, so a request still
    in flight when a test ends reaches no later test's server.

    With --base-url, the page served there instead (`harness.server.external.ExternalTarget`,
    same attributes): its state reset before the test by the tutorial's declared reset
    request, its model endpoint answered in the browser by this test's scripted model."""
    base_url = external.base_url_of(request.config)
    if base_url is None:
        yield start_tutorial_server()
    else:
        yield from external.external_target(request, base_url, tutorial, tutorial_root)


@pytest.fixture
def fake_upstream(tutorial: Tutorial, tutorial_root: Path) -> Iterator[FakeUpstream]:
    """An OpenAI-compatible upstream on 127.0.0.1 that answers like the tutorial's scripted
    model unless a check queues a fault (``fake_upstream.queue(Fail(500))``); point a server
    at it with ``start_tutorial_server(environ=fake_upstream.environ(api_key=...))``."""
    with FakeUpstream.answering_like(tutorial, tutorial_root) as upstream:
        yield upstream


@pytest.fixture
def model(tutorial_server: ServedTutorial) -> ModelHandle:
    """The server's scripted model: what each request contained (`requests`,
    `tool_calls()`, `tool_results()`) and per-test overrides (`script(...)`,
    `when_user(pattern, tool, arguments)`)."""
    scripted = tutorial_server.model
    if scripted is None:
        pytest.fail("the model fixture needs the scripted model provider", pytrace=False)
    return ModelHandle(scripted)


@pytest.fixture
def timeline(page: Page, tutorial_server: ServedTutorial,
             request: pytest.FixtureRequest) -> Timeline:
    """One ordered record of what happened: the page (in-page probe: requests, approval /
    handoff / highlight UI, writes into inputs), the network, the server log, and the
    runtime's own events. `timeline.mark()` and `since=` scope questions to a moment;
    `timeline.render()` is printed with any failing test that used it."""
    recorder = Timeline(server_log=tutorial_server.log, workspace=tutorial_server.state,
                        contract=tutorial_server.tutorial.contract,
                        log_source="server" if isinstance(tutorial_server, TutorialServer)
                        else "model")
    recorder.attach(page)
    request.node.stash[TIMELINE_KEY] = recorder
    return recorder


@pytest.fixture(scope="session")
def gallery(pytestconfig: pytest.Config) -> Gallery:
    """The session's screenshot gallery for the HTML report: `tutorial_page` has it picture
    each dock and page state the first time a check meets it per locale. Does nothing
    unless --pling-html is given."""
    return pytestconfig.stash[GALLERY_KEY]


@pytest.fixture
def open_tutorial_page(page: Page, timeline: Timeline, tutorial_server: ServedTutorial,
                       locale: str, gallery: Gallery,
                       request: pytest.FixtureRequest) -> OpenTutorialPage:
    """A factory: ``open_tutorial_page(workspace=WorkspaceSnapshot(...))`` puts the server's
    workspace in that state (none given: as it is) and opens pytest-playwright's `page` on
    the tutorial in `locale`, exactly as `tutorial_page` does (probe, paused clock,
    gallery). Once per test: reload with ``harness.reload_page(page)``."""
    opened: list[Page] = []

    def open_tutorial(*, workspace: WorkspaceSnapshot | None = None) -> Page:
        if opened:
            raise RuntimeError("the tutorial page is already open in this test; reload it "
                               "with harness.reload_page(page)")
        if workspace is not None:
            tutorial_server.state.replace(workspace)
        open_page(page, tutorial_server.page_url(locale))
        opened.append(page)
        if gallery.enabled:
            server = tutorial_server
            try:
                gallery.watch(page, locale=locale, source=request.node.nodeid,
                              page_states=load_page_states(server.tutorial, server.root),
                              copy=page_copy(server.root, server.tutorial, locale))
            except TutorialError as error:
                pytest.fail(str(error), pytrace=False)
        return page

    return open_tutorial


@pytest.fixture
def tutorial_page(open_tutorial_page: OpenTutorialPage) -> Page:
    """pytest-playwright's `page`, opened on the tutorial in `locale` with the timeline's
    probe installed and the clock paused (move it with ``page.clock.fast_forward``).
    Reload with ``harness.reload_page(page)``; the timeline's ready mark follows. With
    --pling-html, the gallery watches it. For another starting workspace use
    `open_tutorial_page`."""
    return open_tutorial_page()


@pytest.fixture
def testbed_page(page: Page, timeline: Timeline, tutorial_server: ServedTutorial,
                 locale: str) -> Page:
    """Like `tutorial_page`, on the bare testbed page (`/testbed/`), where a test declares
    any action it needs with ``page.evaluate``. With --base-url, n/a unless that server
    serves the testbed too."""
    external.require_testbed(tutorial_server)
    open_page(page, testbed_url(tutorial_server.url, locale))
    return page


@pytest.fixture
def dock(page: Page) -> Dock:
    """The AgentDock page object on `page`: ask(text), approve(), approve_always(), deny(),
    handoff_done(), handoff_cancel(), handoff_next(), and locators (approval, handoff,
    handoff_steps, highlights, messages(role)). Open a page first (`tutorial_page`)."""
    return Dock(page)


@pytest.fixture
def start_next_test(request: pytest.FixtureRequest, tutorial_server: ServedTutorial,
                    start_tutorial_server: StartTutorialServer, context: BrowserContext,
                    page: Page, locale: str) -> StartNextTest:
    """A factory for checks that prove nothing crosses from one test to the next:
    ``next_one = start_next_test()`` ends this test the way the plugin ends every test (the
    page's boundary: `harness.browser.warm`, or its context closed under
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
        recorder = Timeline(server_log=server.log, workspace=server.state,
                            contract=server.tutorial.contract, log_source="server")
        recorder.attach(next_page)
        request.node.stash[TIMELINE_KEY] = recorder
        open_page(next_page, server.page_url(locale))
        started.append(NextTest(server=server, page=next_page, dock=Dock(next_page),
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

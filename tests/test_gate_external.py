"""Which checks external mode (`--base-url`) runs and which it calls n/a, with what reason:
a check whose guarantee needs the fixture server's provider, log or seats, one that serves
the page from a server of its own, one that needs a testbed the target lacks. Nothing here
reaches a target: an n/a check never contacts it, and nothing listens at the URL."""

from __future__ import annotations

from pathlib import Path

import pytest

from pling_harness.evidence.sources import (
    ALL_SOURCES,
    EXTERNAL_SOURCES,
    MISSING_EXTERNALLY,
    UndeclaredGuarantee,
)
from pling_harness.evidence.sources import sources_needed as needed_of
from pling_harness.evidence.sources import why_not_provable as why_not_of
from pling_harness.plugin import external
from pling_harness.plugin.external import base_url_of, require_testbed
from pling_harness.plugin.guarantee_registry import guarantee_sources, tutorial_guarantees
from pling_harness.plugin.report import SuiteReport, not_applicable
from pling_harness.project.guarantee_families import EvidenceSource
from pling_harness.project.tutorials import TutorialError, load_tutorial
from pling_harness.server.external import TESTBED_PAGE_PATH, ExternalTarget

pytest_plugins = ["pytester"]

# Port 9 (discard) is never served here: a check that tried to reach it would fail.
NOWHERE = "http://127.0.0.1:9"
PROVIDER = MISSING_EXTERNALLY["provider"]
SERVER = MISSING_EXTERNALLY["server"]

CHECKS = """
import pytest

@pytest.mark.guarantee("gateway-faults")
def test_needs_the_provider():
    raise AssertionError("an n/a check must not run")

@pytest.mark.guarantee("tests-isolated")
def test_needs_a_seat():
    raise AssertionError("an n/a check must not run")

@pytest.mark.guarantee("denial-respected")
def test_needs_only_the_page():
    pass

def test_without_a_guarantee():
    pass

class TestOwnServer:
    @pytest.fixture
    def tutorial_server(self):
        return object()

    @pytest.mark.guarantee("denial-respected")
    def test_serves_its_own_page(self, tutorial_server):
        raise AssertionError("an n/a check must not run")
"""


def reasons(pytester: pytest.Pytester, *args: str) -> dict[str, str | None]:
    """Each check → the n/a reason its collection gave it (None: it runs)."""
    pytester.makepyfile(test_external=CHECKS)
    items, _ = pytester.inline_genitems(*args)  # collects only: nothing runs
    found = {}
    for item in items:
        marker = item.get_closest_marker("skip")
        found[item.name] = marker.kwargs["reason"] if marker else None
    return found


def test_checks_needing_what_only_a_fixture_server_has_are_na_with_the_reason(
    pytester: pytest.Pytester
) -> None:
    assert reasons(pytester, "--base-url", NOWHERE) == {
        "test_needs_the_provider": not_applicable("external", PROVIDER),
        "test_needs_a_seat": not_applicable("external", SERVER),
        "test_needs_only_the_page": None,
        "test_without_a_guarantee": None,
        "test_serves_its_own_page": None,
    }


def test_with_a_model_port_the_providers_faults_are_the_checks_to_script(
    pytester: pytest.Pytester
) -> None:
    # The check hosts the model the page's own server calls: only the seat stays n/a.
    assert reasons(pytester, "--base-url", NOWHERE, "--pling-model-port", "9") == {
        "test_needs_the_provider": None,
        "test_needs_a_seat": not_applicable("external", SERVER),
        "test_needs_only_the_page": None,
        "test_without_a_guarantee": None,
        "test_serves_its_own_page": None,
    }


def test_without_a_base_url_every_check_runs(pytester: pytest.Pytester) -> None:
    assert set(reasons(pytester).values()) == {None}


@pytest.mark.parametrize("workers", ["2", "auto"])
def test_an_external_run_refuses_parallel_workers(pytester: pytest.Pytester,
                                                   workers: str) -> None:
    with pytest.raises(pytest.UsageError, match=(
            f"--base-url {NOWHERE}: every check uses that one server and resets its state "
            f"before it starts, so they run one after another; drop -n {workers} "
            r"\(or use -n 0\)")):
        external.configure(pytester.parseconfig("--base-url", NOWHERE, "-n", workers))


@pytest.mark.parametrize("workers", ["0", "1"])
def test_an_external_run_of_one_worker_is_serial_and_allowed(pytester: pytest.Pytester,
                                                             workers: str) -> None:
    config = pytester.parseconfig("--base-url", NOWHERE, "-n", workers)

    external.configure(config)

    assert config.pluginmanager.has_plugin(external.PLUGIN_NAME)


def test_a_run_without_a_base_url_registers_nothing(pytester: pytest.Pytester) -> None:
    config = pytester.parseconfig("-n", "2")

    external.configure(config)

    assert not config.pluginmanager.has_plugin(external.PLUGIN_NAME)


def test_the_base_url_comes_from_the_option_or_the_ini_without_its_slash(
    pytester: pytest.Pytester
) -> None:
    assert base_url_of(pytester.parseconfig("--base-url", "http://a.test:1/")) == (
        "http://a.test:1")
    assert base_url_of(pytester.parseconfig()) is None
    # Without pytest-playwright (or pytest-base-url) nothing declares the ini value.
    assert base_url_of(pytester.parseconfig("-p", "no:playwright")) is None
    pytester.makeini("[pytest]\nbase_url = http://b.test/\n")
    assert base_url_of(pytester.parseconfig()) == "http://b.test"


def test_a_target_without_a_testbed_makes_a_testbed_check_na() -> None:
    tutorial = load_tutorial("r-15")
    without = ExternalTarget(tutorial=tutorial, base_url=NOWHERE)
    with_testbed = ExternalTarget(tutorial=tutorial, base_url=NOWHERE, serves_testbed=True)
    try:
        with pytest.raises(pytest.skip.Exception) as skipped:
            require_testbed(without)
        # A skip escaping here would skip this test, not fail it: catch it.
        for runs in (with_testbed, object()):  # object(): a fixture server, not external
            try:
                require_testbed(runs)  # type: ignore[arg-type]
            except pytest.skip.Exception as wrongly:
                pytest.fail(f"{runs!r} was made n/a: {wrongly}")
    finally:
        without.close()
        with_testbed.close()

    assert skipped.value.msg == not_applicable(
        "external", f"{NOWHERE} serves no testbed page at {TESTBED_PAGE_PATH} "
        "(the harness's bare page for actions the tutorial does not declare)")


# The harness's guarantees, as their declarations say (pling_harness/plugin/guarantees/).
HARNESS = guarantee_sources(None)


def sources_needed(guarantees: list[str]) -> frozenset[EvidenceSource]:
    return needed_of(guarantees, HARNESS)


def why_not_provable(guarantees: list[str], available: frozenset[EvidenceSource]) -> str | None:
    return why_not_of(guarantees, available, HARNESS)


def test_what_a_guarantee_needs_is_the_union_of_its_names_sources() -> None:
    assert sources_needed([]) == frozenset()
    assert sources_needed(["denial-respected"]) == EXTERNAL_SOURCES
    assert sources_needed(["denial-respected", "gateway-faults"]) == EXTERNAL_SOURCES | {
        "provider"}
    assert EXTERNAL_SOURCES | {"server-log", "provider", "server"} == ALL_SOURCES


def test_why_not_provable_names_each_missing_source_once_in_order() -> None:
    assert why_not_provable(["denial-respected"], EXTERNAL_SOURCES) is None
    assert why_not_provable(["gateway-faults", "secrets-stay-on-server"], ALL_SOURCES) is None
    assert why_not_provable(["secrets-stay-on-server", "gateway-faults"], EXTERNAL_SOURCES) == (
        f"{PROVIDER}; {SERVER}")
    assert why_not_provable(["gateway-faults"], frozenset({"page", "model"})) == PROVIDER


def test_a_tutorials_own_guarantees_join_the_harnesss_and_may_not_redefine_one() -> None:
    r15 = load_tutorial("r-15")
    own = set(r15.guarantees)
    assert own and not own & HARNESS.keys()

    assert guarantee_sources(r15).keys() == HARNESS.keys() | own
    # The same unit as the harness's: what it means, what breaks (its meaning if unsaid).
    walk = r15.guarantees["acceptance-walk"]
    assert walk.breaks is not None
    assert tutorial_guarantees(r15)["acceptance-walk"].breaks == walk.breaks
    unsaid = r15.model_copy(update={"guarantees": {
        "acceptance-walk": walk.model_copy(update={"breaks": None})}})
    assert tutorial_guarantees(unsaid)["acceptance-walk"].breaks == walk.means
    clash = r15.model_copy(update={"guarantees": {
        "denial-respected": next(iter(r15.guarantees.values()))}})
    with pytest.raises(TutorialError, match=r"declares \['denial-respected'\]"):
        guarantee_sources(clash)


def test_an_unknown_guarantee_says_where_to_declare_it() -> None:
    with pytest.raises(UndeclaredGuarantee) as raised:
        sources_needed(["denial-respected", "no-silent-retyr"])

    assert str(raised.value) == (
        "guarantee 'no-silent-retyr' is neither the harness's nor its tutorial's; did you "
        "mean 'no-silent-retry'? (a tutorial declares its own under \"guarantees\" in its "
        "tutorial.json; the harness's are declared in pling_harness/plugin/guarantees/)")


# ---- whole runs, each in a pytest process of its own (slower: last) ----


def test_an_external_run_reports_each_na_check_with_its_reason_and_runs_the_rest(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    pytester.makepyfile(test_external=CHECKS)
    path = tmp_path / "report.json"

    result = pytester.runpytest_subprocess("--base-url", NOWHERE + "/", "--pling-report",
                                           str(path), "-p", "no:cacheprovider")

    result.assert_outcomes(passed=2, skipped=3)
    found = {t.nodeid.split("::")[-1]: (t.outcome, t.reason)
             for t in SuiteReport.read(path).tests}
    assert found == {
        "test_needs_the_provider": ("n/a", f"external: {PROVIDER}"),
        "test_needs_a_seat": ("n/a", f"external: {SERVER}"),
        "test_needs_only_the_page": ("passed", None),
        "test_without_a_guarantee": ("passed", None),
        "test_serves_its_own_page": ("n/a", "external: the check serves the page from a "
                                            "fixture server of its own (it overrides "
                                            "tutorial_server)"),
    }


# pytest-playwright's context and page stood in for (no browser here): the context keeps
# the routes put on it. The target is r-15's at NOWHERE, never started, so never reached.
ROUTED = """
import pytest

from pling_harness.project.tutorials import load_tutorial
from pling_harness.server.external import ExternalTarget

contexts = []


class RecordingContext:
    def __init__(self):
        self.routes = []

    def route(self, url, handler):
        self.routes.append(url)


@pytest.fixture
def tutorial_server(base_url):
    target = ExternalTarget(tutorial=load_tutorial("r-15"), base_url=base_url)
    yield target
    target.close()


@pytest.fixture
def context():
    contexts.append(RecordingContext())
    return contexts[-1]


@pytest.fixture
def page(context):
    return object()


def test_serves_no_page(tutorial_server):
    assert contexts == []


def test_opens_the_page(page, context):
    assert len(context.routes) == {routes}
"""


@pytest.mark.parametrize(("options", "routes"), [
    ((), 1),
    # The page's own server calls the check's model: a route would only turn the browser's
    # cache off.
    (("--pling-model-port", "9"), 0)])
def test_an_external_check_routes_the_model_only_for_a_page_whose_browser_calls_it(
    pytester: pytest.Pytester, options: tuple[str, ...], routes: int
) -> None:
    pytester.makepyfile(test_routed=ROUTED.format(routes=routes))

    result = pytester.runpytest_subprocess("--base-url", NOWHERE, *options,
                                           "-p", "no:cacheprovider")

    result.assert_outcomes(passed=2)


def test_a_guarantee_a_hook_marks_after_collection_is_refused_naming_the_check(
    pytester: pytest.Pytester
) -> None:
    # Files are checked as they are collected (plugin/guarantee_names.py); a conftest's
    # hook may add a guarantee after that.
    pytester.makeconftest("""
        import pytest

        def pytest_collection_modifyitems(items):
            for item in items:
                item.add_marker(pytest.mark.guarantee("denial-respectd"))
    """)
    pytester.makepyfile(test_tagged="def test_x():\n    pass\n")

    result = pytester.runpytest_subprocess("--base-url", NOWHERE, "-p", "no:cacheprovider")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*test_tagged.py::test_x: guarantee 'denial-respectd' is "
                                 "neither*did you mean 'denial-respected'*"])


def test_a_check_naming_an_unknown_guarantee_is_a_collection_error_in_external_mode(
    pytester: pytest.Pytester
) -> None:
    pytester.makepyfile(test_typo="""
        import pytest

        @pytest.mark.guarantee("denial-respectd")
        def test_typo():
            pass
    """)

    result = pytester.runpytest_subprocess("--base-url", NOWHERE, "-p", "no:cacheprovider")

    # As in every run (tests/test_guarantee_names.py): nothing runs, the typo is named.
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*'denial-respectd'*did you mean 'denial-respected'*"])

"""External mode (`--base-url URL`): the checks run against a page served by another process.

Each target here is a real server on 127.0.0.1 and each check run a real pytest process with
a real Chromium: a fixture server whose log this test reads (so it can tell that no model
request reached it), the same server refusing its reset, and tiny sites that break the page
contract one way each.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Awaitable, Callable, Iterator, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from playwright.sync_api import Playwright
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route

from pling_harness import BusinessState, tutorial_backend
from pling_harness.browser.preflight import check_target
from pling_harness.cli.check import render_summary
from pling_harness.mutation.catalogue import catalogue_path, load_catalogue
from pling_harness.mutation.render import render_run
from pling_harness.mutation.runner import SuiteInvocation, run_catalogue
from pling_harness.plugin.html_report import write_html_report
from pling_harness.plugin.report import SuiteReport, TestRecord
from pling_harness.project.tutorials import load_tutorial
from pling_harness.server.runner import TutorialServer

# The harness's own checkout: the project these tests check.
PROJECT_ROOT = Path(__file__).resolve().parents[1]

# r-15's own state, from its backend.py (the harness names no tutorial's state).
R15_BACKEND = tutorial_backend(PROJECT_ROOT / "tutorials" / "r-15-confirmation-and-human-handoff")
WorkspaceSnapshot: type[BusinessState] = R15_BACKEND.WorkspaceSnapshot

pytest_plugins = ["pytester"]

TUTORIAL_ID = "r-15-confirmation-and-human-handoff"

# A check as a user of the harness writes it: it steers the model (per-test override), has
# the user approve, and reads the model's side and the state through the usual fixtures.
APPROVED_ARCHIVE_CHECK = """
import pytest
from pling_harness import calling, guarantees, tool_call

@pytest.mark.guarantee("approval-before-side-effects")
def test_archive_approved(tutorial_page, dock, timeline, model, tutorial_server, say):
    model.script(calling(tool_call("call_scripted", "archive_workspace")))
    dock.ask(say("archive"))
    dock.approve()
    guarantees.approval_before_side_effects(timeline, action="archive_workspace")
    guarantees.model_received(timeline, action="archive_workspace", code="OK")
    assert model.result_codes("archive_workspace") == ["OK"]
    assert tutorial_server.state.snapshot().archived
"""

ANY_CHECK = """
import pytest

@pytest.mark.guarantee("denial-respected")
def test_never_runs(tutorial_page, dock, say):
    dock.ask(say("archive"))
"""

PROVIDER_FAULT_CHECK = """
import pytest

@pytest.mark.guarantee("gateway-faults")
def test_provider_fault(tutorial_server):
    raise AssertionError("an n/a check must not run")
"""

DOCK = '<div data-testid="pling-dock">assistant</div>'
STATUS = '<div data-testid="workspace-status" data-state="draft" data-archived="false"></div>'
NAME = '<h2 data-testid="workspace-name-display">Northwind</h2>'
STATE = json.dumps({"name": "Northwind", "archived": False, "published": False})


@pytest.fixture
def target() -> Iterator[TutorialServer]:
    """The r-15 fixture server as the page under check, its log read by the test."""
    with TutorialServer(tutorial="r-15", environ={}) as server:
        yield server


def run_checks(pytester: pytest.Pytester, check: str, *args: str,
               report: Path | None = None) -> pytest.RunResult:
    pytester.makepyfile(check)
    extra = ["--pling-report", str(report)] if report is not None else []
    return pytester.runpytest_subprocess("--pling-locale", "en", "-p", "no:randomly",
                                         "-p", "no:cacheprovider", *extra, *args)


def test_external_check_model_endpoint_answered_in_the_browser_never_reaches_the_target(
    pytester: pytest.Pytester, target: TutorialServer, tmp_path: Path,
) -> None:
    report = tmp_path / "report.json"

    result = run_checks(pytester, APPROVED_ARCHIVE_CHECK, "--base-url", target.url,
                        report=report)

    result.assert_outcomes(passed=1)
    assert target.log.records(kind="model.request") == []
    assert target.log.records(kind="model.reply") == []
    assert target.log.records(kind="model.error") == []
    changes = [f"{r.method} {r.path} → {r.status}" for r in target.log.records(kind="api")
               if r.method == "POST"]
    assert changes == ["POST /api/workspace/reset → 200",
                       "POST /api/workspace/archive → 200"]
    assert target.state.snapshot().archived
    [record] = SuiteReport.read(report).tests
    assert record.outcome == "passed"


def answering(server: TutorialServer, method: str, path: str,
              answer: Callable[[Request], Awaitable[Response]]) -> None:
    """`server` answers `method path` with `answer` instead; everything else as before."""
    server.app = Starlette(routes=[Route(path, answer, methods=[method]),
                                   Mount("/", app=server.app)])


def refusing_reset(server: TutorialServer, answer: Response) -> None:
    """`server` answers its reset request with `answer` instead (and changes nothing)."""
    async def refuse(_request: Request) -> Response:
        return answer

    answering(server, "POST", "/api/workspace/reset", refuse)


@pytest.fixture
def target_refusing_reset() -> Iterator[TutorialServer]:
    server = TutorialServer(tutorial="r-15", environ={})
    refusing_reset(server, JSONResponse(
        {"ok": False, "code": "FORBIDDEN", "message": "resets are switched off"},
        status_code=403))
    with server:
        yield server


def test_external_target_refusing_the_reset_is_reported_and_not_checked(
    pytester: pytest.Pytester, target_refusing_reset: TutorialServer, tmp_path: Path,
) -> None:
    report = tmp_path / "report.json"

    result = run_checks(pytester, ANY_CHECK, "--base-url", target_refusing_reset.url,
                        report=report)

    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([
        f"*the target was not reset, so this check did not run: the reset request: POST "
        f"{target_refusing_reset.url}/api/workspace/reset answered 403: "
        '{"ok":false,"code":"FORBIDDEN","message":"resets are switched off"}*'])
    asked = [f"{r.method} {r.path}" for r in target_refusing_reset.log.records()]
    assert "POST /api/model" not in asked and "POST /api/workspace/archive" not in asked
    [record] = SuiteReport.read(report).tests
    assert record.outcome == "error"


def test_external_target_whose_reset_leaves_another_state_is_reported_and_not_checked(
    pytester: pytest.Pytester,
) -> None:
    server = TutorialServer(tutorial="r-15", environ={})
    refusing_reset(server, JSONResponse({"ok": True}))  # says yes, does nothing
    server.state.replace(WorkspaceSnapshot(name="Harbor", archived=True, published=False))
    with server:
        result = run_checks(pytester, ANY_CHECK, "--base-url", server.url)

    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([
        f"*after the reset request POST {server.url}/api/workspace/reset the state is "
        "{'name': 'Harbor', 'archived': True, 'published': False}, not the declared initial "
        "state {'name': 'Northwind', 'archived': False, 'published': False}*"])


def test_external_target_whose_state_carries_more_fields_is_checked_on_the_declared_ones(
    pytester: pytest.Pytester,
) -> None:
    server = TutorialServer(tutorial="r-15", environ={})

    async def state_with_more(_request: Request) -> Response:
        state = server.state.snapshot().model_dump(mode="json")
        return JSONResponse({**state, "id": "ws-1", "updatedAt": "2025-01-06T09:00:00Z"})

    answering(server, "GET", "/api/workspace", state_with_more)
    with server:
        result = run_checks(pytester, APPROVED_ARCHIVE_CHECK, "--base-url", server.url)

    result.assert_outcomes(passed=1)
    assert server.state.snapshot().archived


def test_external_check_needing_the_fixture_servers_provider_is_na_with_its_reason(
    pytester: pytest.Pytester, tmp_path: Path,
) -> None:
    report = tmp_path / "report.json"

    # Nothing listens there: an n/a check never contacts the target.
    result = run_checks(pytester, PROVIDER_FAULT_CHECK, "--base-url", closed_port_url(),
                        "-rs", report=report)

    result.assert_outcomes(skipped=1)
    [record] = SuiteReport.read(report).tests
    assert record.outcome == "n/a"
    assert record.reason is not None and "model provider" in record.reason


def test_external_mode_refuses_parallel_workers(pytester: pytest.Pytester) -> None:
    result = run_checks(pytester, ANY_CHECK, "--base-url", closed_port_url(), "-n", "2")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*--base-url {closed_port_url()}: every check uses that one "
                                 "server*drop -n 2*"])


def test_plain_pytest_unreachable_base_url_ends_the_run_with_exit_2_naming_it(
    pytester: pytest.Pytester,
) -> None:
    result = run_checks(pytester, ANY_CHECK, "--base-url", closed_port_url())

    assert result.ret == 2
    result.stdout.fnmatch_lines([f"*pling: cannot reach {closed_port_url()}/?lang=zh: *"])
    result.assert_outcomes()


# ---- pling-tutorial check --base-url: a page that cannot be checked --------------------------


def closed_port_url() -> str:
    """An address on 127.0.0.1 where nothing listens (port 9, discard, is never served
    here; a test run does not bind it)."""
    return "http://127.0.0.1:9"


class Site:
    """A real HTTP server on 127.0.0.1 answering fixed paths: path → (status, type, body)."""

    def __init__(self, answers: Mapping[str, tuple[int, str, str]]) -> None:
        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                status, kind, body = answers.get(self.path.split("?", 1)[0],
                                                 (404, "text/plain", "not found"))
                data = body.encode()
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: object) -> None:
                pass  # quiet

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> Site:
        self.thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def check_command(url: str) -> subprocess.CompletedProcess[str]:
    """`pling-tutorial check r-15 --base-url url` in its own process."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith("PLING_")}
    return subprocess.run(
        [sys.executable, "-m", "pling_harness.cli.main", "check", "r-15", "--base-url", url],
        cwd=PROJECT_ROOT, env=environ, text=True, capture_output=True, timeout=120,
        check=False)


THROWS_WHILE_LOADING = ("<script>throw new Error('pling: action \"get_workspace\" is already "
                        "registered; unregister it first.');</script>")


def page(*parts: str) -> tuple[int, str, str]:
    return 200, "text/html", f"<!doctype html><html><body>{''.join(parts)}</body></html>"


def test_check_unreachable_base_url_exits_2_naming_it() -> None:
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{free.getsockname()[1]}"  # bound, not listening

    done = check_command(url)

    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [
        f"pling-tutorial: error: cannot reach {url}/?lang=zh: "
        f"{done.stderr.split(': ', 3)[-1].strip()}"]
    assert done.stdout == ""


@pytest.mark.parametrize(("answers", "missing"), [
    ({"/": page(STATUS, NAME), "/api/workspace": (200, "application/json", STATE)},
     "shows no assistant: nothing visible matches [data-testid='pling-dock'] (the 'pling' "
     "dock driver's dock.root; see docs/page-contract.md)"),
    # A page whose script throws while loading (a React binding the registry refused, say):
    # the refusal names the error, the cause (it said only "no agent dock").
    ({"/": page(STATUS, NAME, THROWS_WHILE_LOADING),
      "/api/workspace": (200, "application/json", STATE)},
     "shows no assistant: nothing visible matches [data-testid='pling-dock'] (the 'pling' "
     "dock driver's dock.root; see docs/page-contract.md); the page threw: pling: action "
     '"get_workspace" is already registered; unregister it first.'),
    ({"/": page(DOCK, NAME), "/api/workspace": (200, "application/json", STATE)},
     "shows no business view: missing status ([data-testid=workspace-status]), archived "
     "([data-testid=workspace-status])"),
    ({"/": page(DOCK, STATUS, NAME), "/api/workspace": (200, "text/html", "<p>hello</p>")},
     "the state request: GET {url}/api/workspace answered text/html, not JSON: <p>hello</p>"),
], ids=["no-dock", "no-dock-page-threw", "no-business-view", "state-not-json"])
def test_check_page_breaking_the_contract_exits_2_with_one_line_naming_it(
    answers: Mapping[str, tuple[int, str, str]], missing: str,
) -> None:
    with Site(answers) as site:
        done = check_command(site.url)

    assert done.returncode == 2, done.stdout + done.stderr
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("pling-tutorial: error: ")
    assert missing.format(url=site.url) in line
    assert site.url in line


def test_render_summary_external_run_lists_na_and_how_many_checks_ran() -> None:
    def record(nodeid: str, guarantee: str, outcome: str, reason: str | None = None) -> TestRecord:
        return TestRecord.model_validate({"nodeid": nodeid, "locale": "en",
                                          "guarantees": [guarantee], "outcome": outcome,
                                          "reason": reason})
    no_always = "acme: approval.always: it approves one call at a time"
    report = SuiteReport(tests=[
        record("a", "denial-respected", "passed"),
        record("b", "denial-respected", "n/a", "external: needs the testbed"),
        record("c", "gateway-faults", "n/a", "external: needs the provider"),
        record("d", "policy-table", "passed"),
        record("e", "session-grant-for-ask", "n/a", no_always),
        record("f", "session-grant-for-ask", "n/a", no_always),
    ])

    lines = render_summary(report, ["en"]).splitlines()

    assert lines[1].split() == ["denial-respected", "pass"]
    assert lines[2].split() == ["gateway-faults", "n/a"]
    assert lines[5] == "2/4 guarantees proven in en; 2 n/a"
    assert lines[6] == "2 of 6 checks ran against the page (33%); 4 are n/a:"
    assert lines[7:] == ["  1 × denial-respected: external: needs the testbed",
                         "  1 × gateway-faults: external: needs the provider",
                         f"  2 × session-grant-for-ask: {no_always}"]


def test_every_guarantee_a_check_names_says_which_evidence_it_needs() -> None:
    # Collecting with --base-url decides each check's n/a; an undeclared guarantee is a
    # usage error there. Nothing is contacted: collection runs no fixture.
    done = subprocess.run(
        [sys.executable, "-m", "pytest", str(PROJECT_ROOT / "tutorials" / TUTORIAL_ID / "checks"),
         "--collect-only", "-q", "-p", "no:randomly", "--base-url", closed_port_url()],
        cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=300, check=False)

    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]


@pytest.mark.mutation
def test_mutate_external_serves_each_mutant_by_its_own_dev_process() -> None:
    wanted = ("denial-generic-error", "gateway-error-swallowed")
    catalogue = load_catalogue(catalogue_path(TUTORIAL_ID, PROJECT_ROOT))
    catalogue = catalogue.model_copy(
        update={"mutants": tuple(m for m in catalogue.mutants if m.name in wanted)})
    invocation = SuiteInvocation(tutorial_id=TUTORIAL_ID, source_root=PROJECT_ROOT, focused=True,
                                 external=True)

    run = run_catalogue(catalogue, invocation, jobs=1, declared_guarantees=frozenset())

    verdicts = {result.mutant.name: result.verdict for result in run.results}
    assert verdicts == {"denial-generic-error": "killed", "gateway-error-swallowed": "n/a"}, (
        render_run(run))


def test_html_report_shows_an_na_check_with_its_reason_never_as_a_pass(tmp_path: Path) -> None:
    suite = SuiteReport(tests=[TestRecord.model_validate({
        "nodeid": "checks/test_gateway_faults.py::test_fault[en]", "locale": "en",
        "guarantees": ["gateway-faults"], "outcome": "n/a",
        "reason": "faults are injected at the fixture server's model provider"})])

    write_html_report(suite, tmp_path, locales=["en"])

    html = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert '<td data-locale="en" class="outcome-na">' in html
    assert ">n/a (1)<" in html
    assert "Not proven on this run: n/a (faults are injected at the fixture server" in html
    assert 'class="outcome-passed"' not in html and ">pass" not in html


def test_check_target_answers_inside_a_running_sync_playwright(playwright: Playwright) -> None:
    # `check --base-url` called from a pytest session whose `playwright` fixture already runs
    # (the harness's own tests call main() in-process): the sync API refuses a second start
    # in that thread, so the preflight's browser gets one of its own.
    tutorial = load_tutorial(TUTORIAL_ID)
    with TutorialServer(tutorial=tutorial) as served:
        facts = check_target(served.url, tutorial)

    assert facts.serves_testbed

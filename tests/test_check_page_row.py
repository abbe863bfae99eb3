"""`pling-tutorial check <tutorial> --page NAME` with a user's own row: a project whose
`[tool.pling]` lists a page served by the user's own dev server (their command, nothing
started by hand) is checked over the check's own fixture server, so the checks that are n/a
"external" against a page served elsewhere (gateway faults, isolation) run on it; the server
is stopped at the end, no process left. A page that does not start is one line and exit 2."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from pling_harness.plugin.report import SuiteReport

PROJECT_ROOT = Path(__file__).resolve().parents[1]
PLING_TUTORIAL = Path(sys.executable).parent / "pling-tutorial"
TUTORIAL = "r-15-confirmation-and-human-handoff"
RUN_TIMEOUT_S = 900

# The user's own dev server, as a project might have one: their page's files, and the paths
# the fixture server answers (/api/, the runtime, the copy, the testbed) passed on to it, the
# way Vite's proxy does (its Host, and its Origin for the page's own requests). It writes
# each request it answers to served.log.
USER_DEV_SERVER = textwrap.dedent('''\
    import http.client, http.server, os, sys, urllib.parse

    API = os.environ["API_ORIGIN"]
    PASSED_ON = ("/api/", "/pling/", "/copy/", "/testbed")
    NOT_PASSED = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade",
                  "host", "content-length"}


    class Handler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format, *args):
            with open("served.log", "a", encoding="utf-8") as log:
                log.write(f"{self.command} {self.path}\\n")

        def do_GET(self):
            self.pass_on() if self.path.startswith(PASSED_ON) else super().do_GET()

        def do_POST(self):
            self.pass_on()

        def pass_on(self):
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            own = "http://" + (self.headers.get("Host") or "")
            headers = {}
            for name, value in self.headers.items():
                if name.lower() == "origin" and value == own:
                    value = API
                if name.lower() not in NOT_PASSED:
                    headers[name] = value
            target = urllib.parse.urlsplit(API)
            connection = http.client.HTTPConnection(target.hostname, target.port, timeout=120)
            connection.request(self.command, self.path, body=body, headers=headers)
            answer = connection.getresponse()
            data = answer.read()
            self.send_response(answer.status)
            for name, value in answer.getheaders():
                if name.lower() not in NOT_PASSED:
                    self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            self.log_message("")


    port = int(sys.argv[sys.argv.index("--port") + 1])
    print(f"my dev server on http://127.0.0.1:{port}/", flush=True)
    http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
''')


def user_project(folder: Path, rows: str) -> Path:
    """A project with r-15's definition, its fixture, the user's copy of the page in web/
    with their dev server, and `rows` under [tool.pling]."""
    ignore = shutil.ignore_patterns("__pycache__", ".test_durations")
    shutil.copytree(PROJECT_ROOT / "tutorials" / TUTORIAL, folder / "tutorials" / TUTORIAL,
                    ignore=ignore)
    page = PROJECT_ROOT / "fixtures" / TUTORIAL
    shutil.copytree(page, folder / "fixtures" / TUTORIAL)
    shutil.copytree(page, folder / "web")
    (folder / "web" / "dev_server.py").write_text(USER_DEV_SERVER, encoding="utf-8")
    (folder / "pyproject.toml").write_text(rows, encoding="utf-8")
    return folder


def processes_mentioning(text: str) -> list[int]:
    """Live processes whose command line names `text`."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            state = (entry / "stat").read_text().split(") ")[1][0]
        except OSError:
            continue
        if text in command and state != "Z":
            found.append(int(entry.name))
    return found


def check(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(PLING_TUTORIAL), "check", "r-15", "--root", str(project), "--locale", "en",
         *args, "-p", "no:cacheprovider"],
        cwd=project, capture_output=True, text=True, timeout=RUN_TIMEOUT_S, check=False)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_users_row_is_started_checked_over_the_checks_own_server_and_stopped(
        tmp_path: Path) -> None:
    project = user_project(tmp_path / "project", textwrap.dedent(f"""\
        [[tool.pling.pages]]
        name = "my-page"
        command = ["{sys.executable}", "dev_server.py", "--port", "{{port}}"]
        cwd = "web"
        url = "http://127.0.0.1:{{port}}/"
        ready_timeout_s = 60
        env = {{ API_ORIGIN = "{{api_origin}}" }}
        """))
    report = tmp_path / "report.json"

    done = check(project, "--page", "my-page", "--pling-report", str(report), "-k",
                 "error-500 or next-test or test_one_message_sent_in_the_pages_dock")

    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    outcomes = {(test.guarantees, test.outcome) for test in SuiteReport.read(report).tests}
    # The checks a page served elsewhere cannot prove (n/a "external") ran, and passed.
    assert (("gateway-faults",), "passed") in outcomes
    assert (("tests-isolated",), "passed") in outcomes
    assert all(outcome == "passed" for _, outcome in outcomes), outcomes
    # The browser loaded the page from the user's server, and the page's model and business
    # requests went through it to the check's own fixture server.
    served = (project / "web" / "served.log").read_text(encoding="utf-8").splitlines()
    assert "GET /?lang=en" in served
    assert any(line.startswith("POST /api/model") for line in served), served[:20]
    assert "page my-page, started: " in done.stdout
    assert processes_mentioning(str(project / "web")) == []
    assert processes_mentioning("dev_server.py --port") == []


def test_a_page_that_does_not_start_is_one_line_and_exit_2(tmp_path: Path) -> None:
    failing = json.dumps([sys.executable, "-c", "print('Error: Cannot find module vite'); "
                          "raise SystemExit(4)"])
    project = user_project(tmp_path / "project", textwrap.dedent(f"""\
        [[tool.pling.pages]]
        name = "broken"
        command = {failing}
        cwd = "web"
        """))

    done = check(project, "--page", "broken", "-k", "test_one_message_sent_in_the_pages_dock")

    assert done.returncode == 2, done.stdout[-3000:] + done.stderr[-2000:]
    [line] = done.stderr.splitlines()
    assert line.startswith("pling-tutorial: error: page broken did not start: `"), line
    assert "exited with code 4 before http://127.0.0.1:" in line
    assert line.endswith("its last lines: Error: Cannot find module vite")
    assert "guarantee " not in done.stdout  # no table of checks that never ran


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_run_stopped_by_sigterm_stops_the_page_it_started(tmp_path: Path) -> None:
    project = user_project(tmp_path / "project", textwrap.dedent(f"""\
        [[tool.pling.pages]]
        name = "my-page"
        command = ["{sys.executable}", "dev_server.py", "--port", "{{port}}"]
        cwd = "web"
        env = {{ API_ORIGIN = "{{api_origin}}" }}
        """))
    served = project / "web" / "served.log"
    run = subprocess.Popen(
        [str(PLING_TUTORIAL), "check", "r-15", "--root", str(project), "--locale", "en",
         "--page", "my-page", "-k", "test_one_turn or test_confirmation", "-p",
         "no:cacheprovider"],
        cwd=project, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    output: list[str] = []
    reader = threading.Thread(target=lambda: output.extend(run.stdout or ()), daemon=True)
    reader.start()
    try:
        # Until a check has opened the page from the user's server (or the run ended).
        opened = threading.Event()
        while not opened.wait(0.1):
            if served.exists() and "GET /?lang=en" in served.read_text(encoding="utf-8"):
                opened.set()
            assert run.poll() is None, "".join(output)[-3000:]
        assert processes_mentioning("dev_server.py --port"), "the page was never started"
        run.send_signal(signal.SIGTERM)
        run.wait(timeout=RUN_TIMEOUT_S)
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    reader.join(RUN_TIMEOUT_S)
    if run.stdout is not None:
        run.stdout.close()
    assert run.returncode == 128 + signal.SIGTERM, "".join(output)[-2000:]
    assert "INTERRUPTED (interrupted by SIGTERM)" in "".join(output)
    assert processes_mentioning("dev_server.py --port") == []


def test_pytest_run_directly_starts_the_row_too(tmp_path: Path) -> None:
    """`pytest <checks> --pling-page NAME`: the same row, started by the plugin."""
    failing = json.dumps([sys.executable, "-c", "print('no dev server here'); "
                          "raise SystemExit(5)"])
    project = user_project(tmp_path / "project", textwrap.dedent(f"""\
        [[tool.pling.pages]]
        name = "broken"
        command = {failing}
        cwd = "web"
        """))

    done = subprocess.run(
        [sys.executable, "-m", "pytest", f"tutorials/{TUTORIAL}/checks", "--pling-page",
         "broken", "--pling-locale", "en", "-k", "test_one_message_sent_in_the_pages_dock",
         "-p", "no:cacheprovider"],
        cwd=project, capture_output=True, text=True, timeout=RUN_TIMEOUT_S, check=False)

    assert done.returncode == 2, done.stdout[-3000:] + done.stderr[-2000:]
    assert "page broken, started: " in done.stdout  # the report header names the row
    assert "page broken did not start: " in done.stdout
    assert "exited with code 5" in done.stdout and "no dev server here" in done.stdout

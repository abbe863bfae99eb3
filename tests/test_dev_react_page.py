"""`pling-tutorial dev r-15 --page react|react-build`: the React page is served, the business
API answers behind Vite's proxy (its guard still refusing another site), stopping the
command leaves no process it started, and CI's share of the checks passes against it: one
check per guarantee and locale (the first the suite collects for it), with `--base-url`,
against Vite's dev server (StrictMode) and the production build. The whole suite runs
against either with `pling-tutorial check r-15 --base-url URL`."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from pling_harness.evidence.sources import EXTERNAL_SOURCES, why_not_provable
from pling_harness.plugin.guarantee_registry import guarantee_sources
from pling_harness.plugin.report import SuiteReport
from pling_harness.project.tutorials import load_tutorial

# The harness's own checkout: the project these tests check.
PROJECT_ROOT = Path(__file__).resolve().parents[1]

SERVING = re.compile(r"at (http://127\.0\.0\.1:\d+)/\?lang=zh \(page react")
PLING_TUTORIAL = Path(sys.executable).parent / "pling-tutorial"
START_TIMEOUT_S = 180


def descendants(pid: int) -> set[int]:
    """Every live process below `pid` (Linux /proc)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def request(url: str, *, body: bytes | None = None,
            headers: dict[str, str] | None = None) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data=body, headers=headers or {}),
                                    timeout=30) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


class Served:
    def __init__(self, process: subprocess.Popen[str], url: str) -> None:
        self.process = process
        self.url = url


def serve(page: str) -> Iterator[Served]:
    process = subprocess.Popen(
        [str(PLING_TUTORIAL), "dev", "r-15", "--page", page, "--port", "0"],
        cwd=PROJECT_ROOT, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert process.stdout is not None
    seen = []
    for line in process.stdout:
        seen.append(line)
        found = SERVING.search(line)
        if found:
            break
    else:
        process.wait(timeout=30)
        pytest.fail(f"dev --page {page} did not start: {''.join(seen)}")
    try:
        yield Served(process, found.group(1))
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate()  # reads what is left and closes the pipe


@pytest.fixture(params=["react", "react-build"])
def served(request: pytest.FixtureRequest) -> Iterator[Served]:
    if not (PROJECT_ROOT / "fixtures" / "r-15-react" / "node_modules" / ".bin" / "vite").exists():
        pytest.fail("the React page is not installed; run ./scripts/bootstrap (Node.js >= 20.19)")
    yield from serve(str(request.param))


def test_react_page_and_api_behind_it_and_nothing_left_after_ctrl_c(served: Served) -> None:
    status, page = request(f"{served.url}/?lang=en")
    assert status == 200
    assert b'<div id="root">' in page and b"data-pling-ready" in page
    script = re.search(rb'<script type="module"[^>]* src="([^"]+)"', page)
    assert script is not None, page
    # The page's own module request, as the browser sends it: Vite's dev endpoints (`/@vite/client`)
    # answer only the page's same-origin requests (fixtures/pling-vite/dev-server-guard.ts).
    status, code = request(served.url + script.group(1).decode(),
                           headers={"Sec-Fetch-Site": "same-origin"})
    assert status == 200 and len(code) > 0

    status, state = request(f"{served.url}/api/workspace")
    assert (status, json.loads(state)) == (200, {"name": "Northwind", "archived": False,
                                                 "published": False})
    own = {"Content-Type": "application/json", "Origin": served.url}
    status, archived = request(f"{served.url}/api/workspace/archive", body=b"{}", headers=own)
    assert (status, json.loads(archived)["archived"]) == (200, True)
    # The proxy passes the page's own origin as the server's; another site stays refused.
    foreign = {"Content-Type": "application/json", "Origin": "http://evil.example"}
    status, refused = request(f"{served.url}/api/workspace/reset", body=b"{}", headers=foreign)
    assert (status, json.loads(refused)["code"]) == (403, "FORBIDDEN_ORIGIN")
    # The testbed, as `dev` serves it, for the checks that declare actions r-15 does not.
    assert request(f"{served.url}/testbed/")[0] == 200

    started = descendants(served.process.pid)
    assert any("vite" in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
               for pid in started if alive(pid)), "no Vite process under dev"
    served.process.send_signal(signal.SIGINT)
    assert served.process.wait(timeout=30) == 0
    left = sorted(pid for pid in started if alive(pid))
    assert left == [], f"processes left after Ctrl-C: {left}"
    with pytest.raises(OSError):
        request(f"{served.url}/?lang=en")


def test_a_page_the_pages_table_lacks_is_a_usage_error() -> None:
    from pling_harness.cli.main import main

    assert main(["dev", "r-15", "--page", "vue"]) == 2
    assert os.environ.get("PLING_API_ORIGIN") is None


# ---- CI's share of the checks, against the served React page ---------------------------

CHECKS = PROJECT_ROOT / "tutorials" / "r-15-confirmation-and-human-handoff" / "checks"
# The checks generated from r-15's action table (beside its checks folder).
ACTION_TABLE = CHECKS.parent / "actions.json"
RUN_TIMEOUT_S = 900
# Every check of the foreign requests (one per state-changing action and the table's), not
# only the first.
FOREIGN_REQUESTS = "server-refuses-foreign-requests"
# The harness's guarantees and r-15's own (its tutorial.json).
KNOWN_GUARANTEES = guarantee_sources(load_tutorial("r-15"))


def pytest_command(report: Path, base_url: str, *args: str) -> list[str]:
    return [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--no-header",
            "--rootdir", str(PROJECT_ROOT), "--pling-report", str(report),
            "--base-url", base_url, *args]


def covering_checks(base_url: str) -> tuple[dict[tuple[str, str | None], str], list[str]]:
    """The first check of each guarantee in each locale, for every guarantee a page served
    elsewhere can prove (`pling_harness.evidence.sources`, from the guarantees'
    declarations), and every check of the foreign requests."""
    with tempfile.TemporaryDirectory(prefix="pling-react-collect-") as scratch:
        report = Path(scratch) / "report.json"
        subprocess.run(pytest_command(report, base_url, str(CHECKS), str(ACTION_TABLE),
                                      "--collect-only"),
                       cwd=PROJECT_ROOT, capture_output=True, text=True, check=False,
                       timeout=300)
        collected = SuiteReport.read(report)
    chosen: dict[tuple[str, str | None], str] = {}
    for test in collected.tests:
        for guarantee in test.guarantees:
            if why_not_provable([guarantee], EXTERNAL_SOURCES, KNOWN_GUARANTEES) is None:
                chosen.setdefault((guarantee, test.locale), test.nodeid)
    foreign = [test.nodeid for test in collected.tests if FOREIGN_REQUESTS in test.guarantees]
    return chosen, foreign


@pytest.fixture(params=["react", "react-build"], scope="module")
def react_page(request: pytest.FixtureRequest) -> Iterator[Served]:
    if not (PROJECT_ROOT / "fixtures" / "r-15-react" / "node_modules" / ".bin" / "vite").exists():
        pytest.fail("the React page is not installed; run ./scripts/bootstrap (Node.js >= 20.19)")
    yield from serve(str(request.param))


def test_covering_checks_pass_on_the_react_page(react_page: Served, tmp_path: Path) -> None:
    chosen, foreign = covering_checks(react_page.url)
    assert len({g for g, _ in chosen}) >= 35, chosen  # every guarantee provable externally
    nodeids = sorted({*chosen.values(), *foreign})
    report = tmp_path / "report.json"
    # Every foreign request, not only the first: the dev server and its proxy stand between
    # them and the API (Vite's CORS and a rewritten Host each let one through once).
    result = subprocess.run(
        pytest_command(report, react_page.url, *(str(PROJECT_ROOT / n) for n in nodeids)),
        cwd=PROJECT_ROOT, capture_output=True, text=True, check=False, timeout=RUN_TIMEOUT_S)
    outcomes = SuiteReport.read(report)
    failed = [f"{t.nodeid}: {t.outcome} {t.failure}" for t in outcomes.tests
              if t.outcome not in ("passed", "n/a")]
    assert result.returncode == 0 and not failed, "\n".join(failed) or result.stdout[-3000:]
    proven = {(g, t.locale) for t in outcomes.tests if t.outcome == "passed" for g in t.guarantees}
    assert {locale for _, locale in chosen} - {None} == {"zh", "en"}
    assert set(chosen) <= proven, sorted(set(chosen) - proven)

"""What a check on a framework page costs against a hand-written pytest-playwright test of the
same steps on the same served page (issue 38's goal: at most 0.8×). Prints figures and the
ratio; asserts nothing.

    .venv/bin/python scripts/bench_by_hand.py --page ai-sdk            # 3 rounds
    .venv/bin/python scripts/bench_by_hand.py --page copilotkit --rounds 5
    .venv/bin/python scripts/bench_by_hand.py --page ai-sdk --ref main   # and main's check

The page is served once (`dev r-15 --page P --model-url http://127.0.0.1:M/v1`, as
`pling-tutorial frameworks`'s `served` serves it; `--page copilotkit` is its development build,
`copilotkit-dev` Vite's dev server). Each round then runs, in an order that alternates from
round to round so both pay the same machine load:

- the check, `pling-tutorial check r-15 --base-url URL --model-port M --driver D --locale en
  -k archive_workspace-approval-before-side-effects`, TESTS times (pytest-repeat): ask to
  archive, the card shown and nothing run yet, Allow, run once after the click, the model
  told OK;
- the hand-written test, plain pytest with pytest-playwright and without the pling plugin,
  TESTS times: what a user writes against that page with its model faked by `pling-tutorial
  model-server r-15` on the same port M in a process of its own (`page.request` resets the
  workspace, `page.goto`, type the request, send, click Allow, wait for the reply and the
  status, read the state from the API).

Both drive the same Chromium with the same flags (the harness's `chromium_launch_args`, in
the hand-written test's conftest). Each figure is one test's duration as pytest reports it
(setup, call and teardown; the run's start-up is not in it), the first and the last test
of each run left out (the first pays for what the run's start left behind: the first page
load, the model's first connection; the last one's teardown carries the session's). The
ratio is the check's median over the hand-written test's. The machine's load average is
printed too: figures from a busy machine are upper bounds.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from pling_harness.plugin.report import SuiteReport
from pling_harness.server.page_process import free_port

PROJECT_ROOT = Path(__file__).resolve().parents[1]
PLING_TUTORIAL = Path(sys.executable).parent / "pling-tutorial"
CHECK = "archive_workspace-approval-before-side-effects"
# Tests per run; the first and the last of each are left out.
TESTS = 5
GOAL = 0.8
# pytest-repeat's suffix of the K-th of N runs of a test: `[...-K-N]` or `[K-N]`.
REPEAT = re.compile(r"(\d+)-\d+\]$")


@dataclass(frozen=True)
class Steps:
    """The page's parts a hand-written test names (its dock driver's selectors)."""

    driver: str
    dev_page: str
    input: str
    send: str
    allow: str


STEPS = {
    "ai-sdk": Steps("ai-sdk", "ai-sdk", "[data-testid='prompt-textarea']",
                    "[data-testid='prompt-submit']", "[data-testid='confirmation-approve']"),
    "copilotkit": Steps("copilotkit", "copilotkit-build",
                        "textarea[data-testid='copilot-chat-textarea']",
                        "[data-testid='copilot-send-button']",
                        "[data-testid='approval-allow']:enabled"),
    "copilotkit-dev": Steps("copilotkit", "copilotkit",
                            "textarea[data-testid='copilot-chat-textarea']",
                            "[data-testid='copilot-send-button']",
                            "[data-testid='approval-allow']:enabled"),
}

BY_HAND = '''
"""Written as a user would with pytest-playwright's defaults (a new context and page per
test), against a page already served, its model faked by `pling-tutorial model-server`."""

import os
import signal
import subprocess

import pytest
from playwright.sync_api import Page, expect

PAGE_URL = os.environ["BENCH_PAGE_URL"]
INPUT, SEND, ALLOW = os.environ["BENCH_INPUT"], os.environ["BENCH_SEND"], os.environ["BENCH_ALLOW"]


@pytest.fixture(scope="session", autouse=True)
def fake_model():
    server = subprocess.Popen([os.environ["BENCH_PLING_TUTORIAL"], "model-server", "r-15",
                               "--port", os.environ["BENCH_MODEL_PORT"],
                               "--root", os.environ["BENCH_ROOT"]],
                              stdout=subprocess.PIPE, text=True)
    assert "Serving" in server.stdout.readline()
    yield
    server.send_signal(signal.SIGINT)
    server.wait(timeout=30)


def test_archive_by_hand(page: Page) -> None:
    expect(page.request.post(f"{PAGE_URL}/api/workspace/reset", data={})).to_be_ok()
    page.goto(f"{PAGE_URL}/?lang=en")
    page.locator(INPUT).fill("archive the workspace")
    page.locator(SEND).click()
    page.locator(ALLOW).click()
    expect(page.get_by_text("Done — the workspace is archived.")).to_be_visible()
    expect(page.get_by_test_id("workspace-status")).to_have_attribute("data-archived", "true")
    assert page.request.get(f"{PAGE_URL}/api/workspace").json()["archived"] is True
'''

RECORDER = '''
import json
import os
from pathlib import Path

import pytest

from pling_harness.plugin.overrides import chromium_launch_args


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args, browser_type):
    # The Chromium and flags the check's run gets, so both tests drive the same browser.
    return chromium_launch_args(browser_type_launch_args, browser_name=browser_type.name,
                                playwright_path=Path(browser_type.executable_path))

DURATIONS, FAILED = {}, []


def pytest_runtest_logreport(report):
    if report.failed:
        FAILED.append(report.nodeid + ": " + report.longreprtext[-1500:])
    DURATIONS[report.nodeid] = DURATIONS.get(report.nodeid, 0.0) + report.duration


def pytest_sessionfinish(session):
    with open(os.environ["BENCH_OUT"], "w") as out:
        json.dump({"durations": DURATIONS, "failed": FAILED}, out)
'''


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f}, {five:.2f}, {fifteen:.2f} on {os.cpu_count()} cores"


def kept(durations: dict[str, float]) -> list[float]:
    """The tests' durations in the order they ran (pytest-repeat's `-K-of-N` suffix), the
    first and the last left out: the last one's teardown report carries the session's
    teardown (the browser closed, the hand-written test's model server stopped)."""
    def order(nodeid: str) -> int:
        found = REPEAT.search(nodeid)
        return int(found.group(1)) if found else 0
    return [durations[nodeid] for nodeid in sorted(durations, key=order)][1:-1]


def run_check(url: str, model_port: int, steps: Steps, scratch: Path,
              harness: Path | None = None) -> list[float]:
    """The check TESTS times; `harness`: with the `pling_harness` of that folder (an export
    of another commit) instead of this checkout's."""
    report = scratch / "check.json"
    environ = {**os.environ, **({"PYTHONPATH": str(harness)} if harness else {})}
    completed = subprocess.run(
        [str(PLING_TUTORIAL), "check", "r-15", "--base-url", url, "--model-port",
         str(model_port), "--driver", steps.driver, "--locale", "en", "-k", CHECK,
         "--count", str(TESTS), "--pling-report", str(report), "-q", "-p", "no:randomly",
         "-p", "no:cacheprovider", "--root", str(PROJECT_ROOT)],
        # From the other harness's folder: `python -m pytest` puts its folder first on the
        # path, so it imports that folder's pling_harness.
        cwd=harness or PROJECT_ROOT, capture_output=True, text=True, check=False,
        timeout=1800, env=environ)
    tests = SuiteReport.read(report).tests if report.exists() else []
    passed = {t.nodeid: t.duration for t in tests if t.outcome == "passed"}
    if completed.returncode != 0 or len(passed) != TESTS:
        raise SystemExit("the check did not pass every time:\n" + completed.stdout[-3000:])
    return kept(passed)


def run_by_hand(url: str, model_port: int, steps: Steps, scratch: Path,
                harness: Path | None = None) -> list[float]:
    folder = scratch / "by_hand"
    folder.mkdir(exist_ok=True)
    (folder / "test_by_hand.py").write_text(BY_HAND, encoding="utf-8")
    (folder / "conftest.py").write_text(RECORDER, encoding="utf-8")
    out = folder / "durations.json"
    completed = subprocess.run(
        [sys.executable, "-m", "pytest", str(folder), "-p", "no:pling", "-p", "no:randomly",
         "-p", "no:cacheprovider", "--rootdir", str(folder), "-q", "--count", str(TESTS)],
        cwd=folder, capture_output=True, text=True, check=False, timeout=1800,
        env={**os.environ, "BENCH_OUT": str(out), "BENCH_PAGE_URL": url,
             "BENCH_MODEL_PORT": str(model_port), "BENCH_PLING_TUTORIAL": str(PLING_TUTORIAL),
             "BENCH_ROOT": str(PROJECT_ROOT),
             "BENCH_INPUT": steps.input, "BENCH_SEND": steps.send, "BENCH_ALLOW": steps.allow})
    recorded = json.loads(out.read_text(encoding="utf-8")) if out.exists() else {}
    if completed.returncode != 0 or recorded.get("failed"):
        raise SystemExit("the hand-written test failed:\n" + completed.stdout[-3000:]
                         + "\n".join(recorded.get("failed", [])))
    return kept(recorded["durations"])


def exported(ref: str, folder: Path) -> Path:
    """`ref`'s tree in `folder` (git archive), for its `pling_harness`."""
    folder.mkdir()
    archive = subprocess.run(["git", "archive", ref], cwd=PROJECT_ROOT, capture_output=True,
                             check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder


SERVING = re.compile(r"at (http://127\.0\.0\.1:\d+)/\?lang=")


@contextmanager
def served(page: str, model_port: int) -> Iterator[str]:
    """`pling-tutorial dev r-15 --page PAGE` (its row), its server calling the model on
    `model_port`, which both arms script; its URL. Served once, so both arms pay the same."""
    process = subprocess.Popen(
        [str(Path(sys.executable).parent / "pling-tutorial"), "dev", "r-15", "--root",
         str(PROJECT_ROOT), "--page", page, "--port", "0",
         "--model-url", f"http://127.0.0.1:{model_port}/v1"],
        cwd=PROJECT_ROOT, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert process.stdout is not None
    try:
        for line in process.stdout:
            found = SERVING.search(line)
            if found:
                yield found.group(1)
                return
        raise SystemExit(f"dev --page {page} did not start")
    finally:
        process.terminate()
        process.communicate(timeout=60)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--page", choices=sorted(STEPS), required=True)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--ref", metavar="COMMIT",
                        help="also run the check with the harness of COMMIT (exported with "
                        "git archive, imported first): a before/after in the same rounds")
    args = parser.parse_args()
    steps = STEPS[args.page]
    model_port = free_port("127.0.0.1")
    print(f"{args.page}: before: {load()}", flush=True)
    with served(steps.dev_page, model_port) as url, \
            tempfile.TemporaryDirectory(prefix="pling-bench-by-hand-") as scratch:
        folder = Path(scratch)
        arms: dict[str, tuple[Callable[..., list[float]], Path | None]] = {
            "check": (run_check, None), "by hand": (run_by_hand, None)}
        if args.ref:
            arms[f"check at {args.ref}"] = (run_check, exported(args.ref, folder / "ref"))
        took: dict[str, list[float]] = {name: [] for name in arms}
        run_by_hand(url, model_port, steps, folder)  # the page's first load bundles it
        for round_ in range(args.rounds):
            order = list(arms) if round_ % 2 == 0 else list(reversed(arms))
            for name in order:
                run, harness = arms[name]
                seconds = run(url, model_port, steps, folder, harness)
                took[name] += seconds
                print(f"round {round_ + 1}: {name:<8} " + " ".join(f"{s:.2f}" for s in seconds)
                      + f" s   ({load()})", flush=True)
    check, by_hand = (statistics.median(took[name]) for name in ("check", "by hand"))
    print(f"{'hand-written test of the steps':<44} median {by_hand:6.2f} s  "
          f"(n={len(took['by hand'])})")
    print(f"{'the check ' + CHECK:<44} median {check:6.2f} s  (n={len(took['check'])})")
    print(f"ratio check / hand-written on {args.page}: {check / by_hand:.2f} "
          f"(goal: at most {GOAL})")
    if args.ref:
        before = statistics.median(took[f"check at {args.ref}"])
        print(f"{'the check at ' + args.ref:<44} median {before:6.2f} s  "
              f"(n={len(took[f'check at {args.ref}'])}): ratio {before / by_hand:.2f}")
    print(f"after: {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

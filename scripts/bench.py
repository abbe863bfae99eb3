"""Speed figures for the harness: prints numbers and ratios, asserts nothing.

    .venv/bin/python scripts/bench.py            # quick: server, page, one check turn
    .venv/bin/python scripts/bench.py --suite    # also time the r-15 check suite per locale

Speed targets are read from this output, never enforced by timed assertions in tests.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import sync_playwright

from harness.browser.chromium import QUIET_NETWORK_ARGS, find_chromium
from harness.browser.dock import Dock
from harness.browser.pages import open_page
from harness.project.paths import PROJECT_ROOT
from harness.project.tutorials import load_tutorial
from harness.server.runner import ServerShutdown, TutorialServer


def timed(action: Callable[[], object], repeat: int) -> list[float]:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        samples.append(time.perf_counter() - start)
    return samples


def show(label: str, samples: list[float]) -> float:
    median = statistics.median(samples)
    print(f"{label:<44} median {median * 1000:8.1f} ms   "
          f"min {min(samples) * 1000:8.1f}   max {max(samples) * 1000:8.1f}   (n={len(samples)})")
    return median


def bench_runtime(repeat: int) -> None:
    tutorial = load_tutorial("r-15")

    def server_cycle() -> None:
        with TutorialServer(tutorial=tutorial):
            pass

    show("fixture server start + stop (waited for)", timed(server_cycle, repeat))

    # What a test waits for: the plugin lets the shutdown finish in the background.
    shutting_down: list[ServerShutdown] = []

    def server_per_test() -> None:
        server = TutorialServer(tutorial=tutorial).start()
        shutting_down.append(server.begin_stop())

    server = show("fixture server start + begin_stop (per test)", timed(server_per_test, repeat))
    for shutdown in shutting_down:
        shutdown.wait()

    choice = find_chromium()
    with sync_playwright() as playwright, TutorialServer(tutorial=tutorial) as live:
        browser = playwright.chromium.launch(
            args=list(QUIET_NETWORK_ARGS),
            executable_path=choice.executable_path,  # None: Playwright's own Chromium
        )

        def page_ready() -> None:
            context = browser.new_context()
            open_page(context.new_page(), live.page_url("en"))
            context.close()

        ready = show("new context + r-15 page ready", timed(page_ready, repeat))

        def approval_turn() -> None:
            live.reset()
            context = browser.new_context()
            page = open_page(context.new_page(), live.page_url("en"))
            dock = Dock(page)
            dock.ask("rename the workspace to Acme")
            dock.approve()
            context.close()

        turn = show("page ready + ask + approve (one check)", timed(approval_turn, repeat))
        browser.close()
    print(f"{'ratio: per-test server / one check':<44} {server / turn:8.2%}")
    print(f"{'ratio: page load / one check':<44} {ready / turn:8.2%}")


def bench_suite() -> None:
    checks = PROJECT_ROOT / "tutorials" / "r-15-confirmation-and-human-handoff" / "checks"
    figures = {}
    for label, extra in (("en", ["--pling-locale", "en"]), ("zh+en", []),
                         ("zh+en -n 2", ["-n", "2"])):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "pytest", str(checks), "-q", "-p",
                        "no:cacheprovider", *extra], cwd=PROJECT_ROOT, check=False,
                       capture_output=True)
        figures[label] = time.perf_counter() - start
        print(f"{'check suite, ' + label:<44} {figures[label]:8.1f} s")
    print(f"{'ratio: zh+en / en':<44} {figures['zh+en'] / figures['en']:8.2f}")
    print(f"{'ratio: -n 2 / serial':<44} {figures['zh+en -n 2'] / figures['zh+en']:8.2f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--suite", action="store_true", help="also time the whole check suite")
    args = parser.parse_args()
    bench_runtime(args.repeat)
    if args.suite:
        bench_suite()
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    raise SystemExit(main())

"""What a check costs on the AI SDK page against the same check on our page: prints figures
and ratios, asserts nothing. A reference figure only: issue 38 replaced its goal (at most
1.5x our page) with one against a hand-written test of the same steps on the AI SDK page
(scripts/bench_by_hand.py --page ai-sdk: at most 0.8x); what remains here is the framework's
own cost.

    .venv/bin/python scripts/bench_ai_sdk.py               # 3 rounds
    .venv/bin/python scripts/bench_ai_sdk.py --rounds 5

Both pages are checked with the same checks, `check r-15 … --locale en -k <the same
checks>`: our page served elsewhere by `dev r-15` (`--base-url`), the AI SDK page from its
row (`--page ai-sdk`: each run starts its Vite, with `--bypass-lock`, over the run's own
fixture server and reads it through its driver). The rounds alternate between the pages
so both pay the same machine load; each figure is a check's whole duration as the
harness's report gives it (setup, call, teardown), the median over the rounds. The
machine's load average is printed too: figures from a busy machine are upper bounds.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_ROOT))

from pling_harness.plugin.report import SuiteReport  # noqa: E402

PLING_TUTORIAL = Path(sys.executable).with_name("pling-tutorial")
# Checks both pages run (no n/a on either): ask, allow or deny, the human's step.
SELECTION = " or ".join([
    "archive_workspace-approval-before-side-effects",
    "reset_workspace-denial-respected",
    "publish_changes-handoff-cancel",
    "publish_changes-success-only-after-published",
])


@contextmanager
def our_page() -> Iterator[list[str]]:
    process = subprocess.Popen([str(PLING_TUTORIAL), "dev", "r-15", "--port", "0"],
                               cwd=PROJECT_ROOT, text=True, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        url = line.split(" at ", 1)[1].split("/?", 1)[0]
        yield ["--base-url", url]
    finally:
        process.terminate()
        process.communicate(timeout=30)


@contextmanager
def ai_sdk_page() -> Iterator[list[str]]:
    # Its row (tutorial.json `pages`): each run starts it over its own fixture server.
    yield ["--page", "ai-sdk"]


def durations(target: list[str]) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="pling-bench-") as scratch:
        report = Path(scratch) / "report.json"
        subprocess.run([str(PLING_TUTORIAL), "check", "r-15", *target, "--locale", "en",
                        "-k", SELECTION, "--pling-report", str(report), "-q",
                        "-p", "no:cacheprovider"], cwd=PROJECT_ROOT, capture_output=True,
                       check=False, timeout=1800)
        tests = SuiteReport.read(report).tests
    return {test.nodeid.split("::")[-1]: test.duration for test in tests
            if test.outcome == "passed"}


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    seen: dict[str, dict[str, list[float]]] = {"ours": {}, "ai-sdk": {}}
    with our_page() as ours, ai_sdk_page() as ai_sdk:
        durations(ai_sdk)  # Vite bundles the page's dependencies on its first load
        for _ in range(args.rounds):
            for name, target in (("ours", ours), ("ai-sdk", ai_sdk)):
                for check, seconds in durations(target).items():
                    seen[name].setdefault(check, []).append(seconds)
    print(f"load average {os.getloadavg()[0]:.1f} (1 min), {args.rounds} rounds, median s")
    print(f"{'check':<80} {'ours':>6} {'ai-sdk':>7} {'ratio':>6}")
    ratios = []
    for check in sorted(seen["ours"]):
        if check not in seen["ai-sdk"]:
            print(f"{check:<80} {statistics.median(seen['ours'][check]):6.2f}    (not passed "
                  "on the AI SDK page)")
            continue
        ours_s = statistics.median(seen["ours"][check])
        ai_s = statistics.median(seen["ai-sdk"][check])
        ratios.append(ai_s / ours_s)
        print(f"{check:<80} {ours_s:6.2f} {ai_s:7.2f} {ai_s / ours_s:6.2f}")
    if ratios:
        print(f"median ratio ai-sdk / ours: {statistics.median(ratios):.2f} "
              f"(max {max(ratios):.2f}); reference, no goal (issue 38's: scripts/bench_by_hand.py)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

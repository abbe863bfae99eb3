"""What a check costs on the CopilotKit page against the same check on our page, measured
side by side in one run. A reference figure only: issue 38 replaced issue 28's goal (at most
1.5×) with one against a hand-written test of the same steps on the CopilotKit page
(scripts/bench_by_hand.py --page copilotkit: at most 0.8×).

    .venv/bin/python scripts/bench_copilotkit.py                      # 3 rounds, en
    .venv/bin/python scripts/bench_copilotkit.py --rounds 5 -k acceptance_walk
    .venv/bin/python scripts/bench_copilotkit.py --page copilotkit    # under Vite's dev server

Each round runs the same selection of r-15's checks on our page (served by the harness) and
on the CopilotKit page (`check --page copilotkit-build` by default, its row: its development
build, StrictMode kept; `--page copilotkit`: Vite's dev server; each run starts it over its
own fixture server and checks it through its row's driver), alternating which goes first,
and sums the checks' own durations from the JSON report (setup, call and teardown: the
page's load included, the run's start-up not). Prints each round, the median ratio and
each check's median ratio; figures go to docs/measurements.md.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from pling_harness.plugin.report import SuiteReport

PROJECT_ROOT = Path(__file__).resolve().parents[1]
PLING_TUTORIAL = Path(sys.executable).parent / "pling-tutorial"
# Every action's registered-once check as served (five) and the acceptance walk.
DEFAULT_SELECTION = "registered-once-as-served or acceptance_walk"


def seconds(command: list[str], report: Path) -> dict[str, float]:
    """Each passed check's duration by node id (a failed one stops the bench)."""
    subprocess.run([*command, "--pling-report", str(report), "-q", "-p", "no:randomly"],
                   cwd=PROJECT_ROOT, check=False, capture_output=True)
    tests = SuiteReport.read(report).tests
    failed = [f"{t.nodeid}: {(t.message or t.failure or t.outcome)[:400]}"
              for t in tests if t.outcome not in ("passed", "n/a")]
    if failed:
        page = "CopilotKit" if "--page" in command else "ours"
        raise SystemExit(f"not comparable: on {page}, " + "; ".join(failed))
    return {t.nodeid: t.duration for t in tests if t.outcome == "passed"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--locale", default="en")
    parser.add_argument("-k", dest="selection", default=DEFAULT_SELECTION)
    parser.add_argument("--page", choices=("copilotkit-build", "copilotkit"),
                        default="copilotkit-build",
                        help="the CopilotKit page's row that each check run starts")
    args = parser.parse_args()
    check = [str(PLING_TUTORIAL), "check", "r-15", "--locale", args.locale, "-k", args.selection]
    ratios = []
    per_check: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        # Each run starts the page from its row over its own fixture server (`check
        # --page`); a check's duration is its own, the page's start is the run's.
        theirs = [*check, "--page", args.page]
        seconds(theirs, Path(scratch) / "warm.json")  # Vite bundles on the first load
        for round_ in range(args.rounds):
            order = [("ours", check), ("copilotkit", theirs)]
            if round_ % 2:
                order.reverse()
            took = {name: seconds(command, Path(scratch) / f"{name}.json")
                    for name, command in order}
            ours, theirs_took = took["ours"], took["copilotkit"]
            if set(ours) != set(theirs_took):
                raise SystemExit(f"not comparable: different checks passed: "
                                 f"{sorted(set(ours) ^ set(theirs_took))}")
            ratio = sum(theirs_took.values()) / sum(ours.values())
            ratios.append(ratio)
            for nodeid in ours:
                per_check.setdefault(nodeid, []).append(theirs_took[nodeid] / ours[nodeid])
            print(f"round {round_ + 1}: ours {sum(ours.values()):.1f} s ({len(ours)} checks), "
                  f"CopilotKit {sum(theirs_took.values()):.1f} s: {ratio:.2f}x", flush=True)
    for nodeid, each in sorted(per_check.items()):
        print(f"  {statistics.median(each):.2f}x  {nodeid.rsplit('::', 1)[-1]}")
    print(f"median ratio CopilotKit ({args.page}) / ours: {statistics.median(ratios):.2f}x "
          f"(reference, no goal: issue 38's is scripts/bench_by_hand.py), selection "
          f"{args.selection!r}, {args.locale}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Measure every figure of issue 21's goals in one run and write them into docs/measurements.md.

    .venv/bin/python scripts/measure.py                 # measure, print, rewrite the page's block
    .venv/bin/python scripts/measure.py --no-write      # measure and print only
    .venv/bin/python scripts/measure.py --rounds 6      # fewer bench rounds (quicker, noisier)
    .venv/bin/python scripts/measure.py --rounds 2 -k handoff --no-write   # a quick try

One after another, in this session, with the machine's load printed at each step (a busy
machine makes every figure an upper bound; run it on a quiet one):

1. the bench's pairs (`scripts/bench.py`): a check against a bare Playwright test, and against
   a hand-written pytest-playwright test of the same steps, side by side;
2. `pling-tutorial check r-15 --report DIR` serial, then `--shard K/4` for K = 1..4, each
   timed from start to exit as a CI runner pays it;
3. `merge-reports` of the four shards, compared with the serial run: the same checks, the
   same outcomes, the same guarantees proven, and its exit code;
4. the whole suite through a browser server in another process (`browser-server`, then
   `check r-15 --connect`).

It prints the figures, then records them in docs/measurements.json with the date, the commit
and the load, and rewrites docs/measurements.md from it (`scripts/figures.py`). It asserts
nothing: the goals are read from the table.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import bench
import figures

PROJECT_ROOT = Path(__file__).resolve().parent.parent
CLI = PROJECT_ROOT / ".venv" / "bin" / "pling-tutorial"
SHARDS = 4
REPORT_FILE = "report.json"


@dataclass(frozen=True)
class Run:
    """One timed `pling-tutorial` run and what its report says."""

    label: str
    seconds: float
    exit_code: int
    load: float
    outcomes: Counter[str]
    results: frozenset[tuple[str, str]]
    """(nodeid, outcome) of every check the report names."""
    proven: frozenset[tuple[str, str]]
    """(guarantee, locale) pairs whose every check passed."""


def load_now() -> float:
    return os.getloadavg()[0]


def read_report(folder: Path) -> tuple[Counter[str], frozenset[tuple[str, str]],
                                       frozenset[tuple[str, str]]]:
    """Outcome counts, (nodeid, outcome) pairs and proven (guarantee, locale) pairs."""
    path = folder / REPORT_FILE
    if not path.is_file():
        return Counter(), frozenset(), frozenset()
    tests = json.loads(path.read_text(encoding="utf-8"))["tests"]
    outcomes = Counter(test["outcome"] for test in tests)
    results = frozenset((test["nodeid"], test["outcome"]) for test in tests)
    verdict: dict[tuple[str, str], bool] = {}
    for test in tests:
        for guarantee in test.get("guarantees", ()):
            key = (guarantee, test.get("locale") or "-")
            verdict[key] = verdict.get(key, True) and test["outcome"] == "passed"
    return outcomes, results, frozenset(key for key, ok in verdict.items() if ok)


def timed(label: str, arguments: list[str], report: Path | None) -> Run:
    """Run `pling-tutorial ARGUMENTS`, timed from start to exit, and read its report."""
    before = load_now()
    start = time.perf_counter()
    completed = subprocess.run([str(CLI), *arguments], cwd=PROJECT_ROOT, capture_output=True,
                               text=True, check=False)
    seconds = time.perf_counter() - start
    outcomes, results, proven = read_report(report) if report else (Counter(), frozenset(),
                                                                      frozenset())
    run = Run(label, seconds, completed.returncode, max(before, load_now()), outcomes,
              results, proven)
    counted = ", ".join(f"{count} {outcome}" for outcome, count in sorted(outcomes.items()))
    print(f"{label:<40} {seconds:7.1f} s   exit {completed.returncode}   {counted}   "
          f"load {run.load:.2f}", flush=True)
    return run


def through_browser_server(scratch: Path, select: list[str]) -> Run:
    """The whole suite, its browser served by `pling-tutorial browser-server` in another
    process on 127.0.0.1."""
    server = subprocess.Popen([str(CLI), "browser-server", "--port", "0"], cwd=PROJECT_ROOT,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        first = server.stdout.readline()  # "Browser server at ws://127.0.0.1:P/…"
        match = re.search(r"(ws://\S+)", first)
        if match is None:
            raise SystemExit(f"browser-server printed no endpoint: {first!r}")
        report = scratch / "connect"
        return timed("check r-15 --connect (another process)",
                     ["check", "r-15", *select, "--connect", match.group(1), "--report",
                      str(report)],
                     report)
    finally:
        server.terminate()
        server.wait(timeout=60)


def commit() -> str:
    completed = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=PROJECT_ROOT,
                               capture_output=True, text=True, check=False)
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                           cwd=PROJECT_ROOT, capture_output=True, text=True, check=False)
    return completed.stdout.strip() + (" with uncommitted changes" if dirty.stdout.strip()
                                       else "")


def checks(run: Run) -> int:
    return sum(run.outcomes.values())


def render(pairs: list[bench.PairFigures], serial: Run, shards: list[Run], merged: Run,
           connect: Run) -> str:
    """The markdown that goes between the markers."""
    ms = 1000
    bare, by_hand = pairs
    slowest, fastest = max(run.seconds for run in shards), min(run.seconds for run in shards)
    same = merged.results == serial.results and merged.proven == serial.proven
    today = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        f"Measured {today}, commit {commit()}, by `scripts/measure.py`, one step after "
        f"another in one session on this 2-core machine (the load average beside each).",
        "",
        "| figure | value | goal |",
        "|---|---|---|",
        f"| check of the same steps / hand-written pytest-playwright test, pair by pair "
        f"| **{by_hand.ratio:.2f}** ({by_hand.check_wall * ms:.0f} ms against "
        f"{by_hand.base_wall * ms:.0f} ms; CPU {by_hand.cpu_ratio:.2f}) | ≤ 0.8 |",
        f"| slowest of {SHARDS} shards / serial run | **{slowest / serial.seconds:.2f}** | ≤ 0.3 |",
        f"| slowest shard / fastest shard | **{slowest / fastest:.2f}** | ≤ 1.15 |",
        f"| merged report of {SHARDS} shards against the serial run (checks, outcomes, "
        f"guarantees) | **{'the same' if same else 'DIFFERENT'}**, merge exit "
        f"{merged.exit_code} | the same |",
        f"| whole suite through a browser server in another process | "
        f"**{connect.outcomes.get('passed', 0)} passed, {connect.outcomes.get('failed', 0)} "
        f"failed**, exit {connect.exit_code} | passes |",
        f"| check (ready, ask, approve) / bare one-click Playwright test | "
        f"{bare.ratio:.2f} ({bare.check_wall * ms:.0f} ms against {bare.base_wall * ms:.0f} "
        f"ms) | withdrawn (issue 21) |",
        "",
        "| run | checks | outcomes | guarantee × locale proven | wall time | exit | load |",
        "|---|---|---|---|---|---|---|",
    ]
    for run in (serial, *shards, merged, connect):
        counted = ", ".join(f"{count} {outcome}" for outcome, count in
                            sorted(run.outcomes.items()))
        lines.append(f"| {run.label} | {checks(run)} | {counted} | {len(run.proven)} | "
                     f"{run.seconds:.1f} s | {run.exit_code} | {run.load:.2f} |")
    return "\n".join(lines)


def recorded(pairs: list[bench.PairFigures], serial: Run, shards: list[Run], merged: Run,
             connect: Run) -> list[figures.Figure]:
    """The figures of this run, as records of docs/measurements.json."""
    ms = 1000
    by_hand = pairs[1]
    slowest, fastest = max(run.seconds for run in shards), min(run.seconds for run in shards)
    same = merged.results == serial.results and merged.proven == serial.proven
    loads = [run.load for run in (serial, *shards, merged, connect)]
    when = {"date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d"),
            "commit": commit(), "load": f"{min(loads):.1f}-{max(loads):.1f}",
            "topic": "Checks and their cost"}
    return [
        figures.Figure(key="check-vs-hand-written", **when,
                       what="a check / a hand-written pytest-playwright test of the same steps "
                       "on our page, pair by pair",
                       value=f"{by_hand.ratio:.2f} ({by_hand.check_wall * ms:.0f} ms against "
                       f"{by_hand.base_wall * ms:.0f} ms; CPU {by_hand.cpu_ratio:.2f})",
                       goal="≤ 0.8", command=".venv/bin/python scripts/measure.py"),
        figures.Figure(key="shard-ratio", **when,
                       what=f"slowest of {SHARDS} shards / serial run; slowest shard / fastest",
                       value=f"{slowest / serial.seconds:.2f}; {slowest / fastest:.2f} (merged "
                       f"report of the {SHARDS} {'the same as' if same else 'DIFFERENT from'} "
                       "the serial run's)",
                       goal="≤ 0.3; ≤ 1.15", command=".venv/bin/python scripts/measure.py"),
        figures.Figure(key="browser-server", **when,
                       what="r-15's whole suite through a browser server in another process",
                       value=f"{connect.outcomes.get('passed', 0)} passed, "
                       f"{connect.outcomes.get('failed', 0)} failed, exit {connect.exit_code}",
                       goal="passes", command=".venv/bin/python scripts/measure.py"),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=12,
                        help=f"bench blocks of {bench.BLOCK} tests of each kind (default 12)")
    parser.add_argument("--no-write", action="store_true",
                        help="print the figures; leave docs/measurements.json as it is")
    parser.add_argument("-k", dest="select", metavar="EXPR",
                        help="only the checks pytest's -k EXPR selects (a quick try; "
                        "implies --no-write)")
    args = parser.parse_args()
    select = ["-k", args.select] if args.select else []
    print(f"before: {bench.load()}", flush=True)
    pairs = [bench.report("", bench.side_by_side(PROJECT_ROOT, args.rounds, [],
                                                 (pair[0], pair[1])), pair)
             for pair in bench.PAIRS]
    with tempfile.TemporaryDirectory(prefix="pling-measure-") as scratch_name:
        scratch = Path(scratch_name)
        serial = timed("check r-15, serial", ["check", "r-15", *select, "--report",
                                              str(scratch / "serial")], scratch / "serial")
        shards = [timed(f"check r-15 --shard {k}/{SHARDS}",
                        ["check", "r-15", *select, "--shard", f"{k}/{SHARDS}", "--report",
                         str(scratch / f"shard-{k}")], scratch / f"shard-{k}")
                  for k in range(1, SHARDS + 1)]
        merged = timed(f"merge-reports of the {SHARDS} shards",
                       ["merge-reports", *(str(scratch / f"shard-{k}")
                                           for k in range(1, SHARDS + 1)),
                        "--report", str(scratch / "merged")], scratch / "merged")
        connect = through_browser_server(scratch, select)
    block = render(pairs, serial, shards, merged, connect)
    print(block)
    print(f"after: {bench.load()}")
    if not (args.no_write or args.select):
        figures.record(recorded(pairs, serial, shards, merged, connect))
        print(f"recorded in {figures.FIGURES.relative_to(PROJECT_ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

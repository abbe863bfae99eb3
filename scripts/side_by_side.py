"""A tutorial's whole check suite on another commit and on this checkout, started together, so
both runs share the machine's load; prints each run's wall time, its checks' outcomes and the
guarantees proven (read from each run's `--report` folder), and their ratio. Asserts nothing.

    .venv/bin/python scripts/side_by_side.py                  # r-15, against main
    .venv/bin/python scripts/side_by_side.py --ref HEAD~3 --tutorial r-15
    .venv/bin/python scripts/side_by_side.py --ref 0507142 --own-environment --rounds 2

How the other commit runs:

- by default it is exported with `git archive` into a temporary folder and imported from there
  (`PYTHONPATH`) with this checkout's environment, so only the harness and the tutorial differ.
  That works only while the other commit has this checkout's package and entry points.
- `--own-environment` makes a git worktree of it (detached, under a temporary folder or
  `--worktree PATH`), runs that tree's own `./scripts/bootstrap` (its own .venv and npm
  packages; minutes) before any timing, and runs its own `pling-tutorial check`. Any commit
  whose bootstrap and `check --report` work can be measured this way (issue 29's baseline,
  0507142, still had the package `harness`, not `pling_harness`).

Each run is `nice -n 10 <tree>/.venv/bin/pling-tutorial check TUTORIAL --report DIR` started in
its tree, timed from start to exit. A run that exits non-zero or whose report counts a failed or
errored check is reported as FAILED with its counts and log, never as a time, and a round gives
a ratio only when both runs are green. What the script made (worktree, scratch folders, the
processes' groups) is removed when it ends, interrupted or not. Figures go to
docs/measurements.md by hand, with the date and the loads printed here.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
REPORT_FILE = "report.json"
UNSUCCESSFUL = ("failed", "error", "not run")


@dataclass(frozen=True)
class Side:
    """One tree to check: where it is, which Python environment runs it, how it is named."""

    label: str
    commit: str
    root: Path
    venv: Path
    env: dict[str, str]


@dataclass(frozen=True)
class Outcome:
    """One timed run and what its report says."""

    side: Side
    seconds: float
    exit_code: int
    outcomes: Counter[str]
    proven: int
    """Guarantees whose every check that ran passed, in every locale."""
    guarantees: int
    log: Path

    @property
    def green(self) -> bool:
        return (self.exit_code == 0 and sum(self.outcomes.values()) > 0
                and not any(self.outcomes[name] for name in UNSUCCESSFUL))

    def summary(self) -> str:
        counted = ", ".join(f"{count} {name}" for name, count in sorted(self.outcomes.items()))
        checks = sum(self.outcomes.values())
        head = (f"{self.side.label} ({self.side.commit}): {checks} checks ({counted or 'none'}), "
                f"{self.proven}/{self.guarantees} guarantees proven, exit {self.exit_code}")
        if self.green:
            return f"{head}, {self.seconds:.0f} s"
        tail = self.log.read_text(encoding="utf-8", errors="replace").splitlines()[-15:]
        return f"{head}: FAILED, no time; its output ends:\n" + "\n".join(tail)


def git(*arguments: str, cwd: Path = PROJECT_ROOT) -> str:
    return subprocess.run(["git", *arguments], cwd=cwd, capture_output=True, text=True,
                          check=True).stdout.strip()


def load() -> str:
    return "/".join(f"{value:.1f}" for value in os.getloadavg())


def clean_env(**extra: str) -> dict[str, str]:
    """This process's environment without another virtual environment's traces."""
    env = {key: value for key, value in os.environ.items()
           if key not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    return {**env, **extra}


def read_report(folder: Path) -> tuple[Counter[str], int, int]:
    """Outcome counts, guarantees proven and guarantees named, from `folder/report.json`.
    A guarantee is proven when its worst outcome over every locale is "passed" (an n/a check
    beside passed ones does not undo it, as in the report's own table)."""
    path = folder / REPORT_FILE
    if not path.is_file():
        return Counter(), 0, 0
    tests = json.loads(path.read_text(encoding="utf-8"))["tests"]
    worst: dict[str, set[str]] = {}
    for test in tests:
        for guarantee in test.get("guarantees", ()):
            worst.setdefault(guarantee, set()).add(test["outcome"])
    proven = sum(1 for outcomes in worst.values() if "passed" in outcomes
                 and outcomes <= {"passed", "n/a"})
    return Counter(test["outcome"] for test in tests), proven, len(worst)


def archived(ref: str, scratch: Path) -> Side:
    """The other commit exported into `scratch`, run with this checkout's environment."""
    tree = scratch / "other"
    tree.mkdir()
    archive = subprocess.run(["git", "archive", ref], cwd=PROJECT_ROOT, capture_output=True,
                             check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    return Side(ref, git("rev-parse", "--short", ref), tree, PROJECT_ROOT / ".venv",
                clean_env(PYTHONPATH=str(tree)))


@contextmanager
def own_worktree(ref: str, folder: Path, scratch: Path) -> Iterator[Side]:
    """A detached worktree of `ref` at `folder` with its own bootstrap; removed afterwards."""
    if folder.exists():
        raise SystemExit(f"{folder} exists already; give another --worktree or remove it")
    git("worktree", "add", "--detach", str(folder), ref)
    try:
        log = scratch / "bootstrap.log"
        print(f"bootstrapping {ref} in {folder} (its own .venv and npm packages; log {log}), "
              f"load {load()}", flush=True)
        start = time.monotonic()
        with log.open("w", encoding="utf-8") as output:
            done = subprocess.run(["./scripts/bootstrap"], cwd=folder, env=clean_env(),
                                  stdout=output, stderr=subprocess.STDOUT, check=False)
        if done.returncode != 0:
            tail = "\n".join(log.read_text(encoding="utf-8").splitlines()[-15:])
            raise SystemExit(f"{ref}'s bootstrap failed (exit {done.returncode}):\n{tail}")
        print(f"bootstrapped in {time.monotonic() - start:.0f} s", flush=True)
        yield Side(ref, git("rev-parse", "--short", ref), folder, folder / ".venv", clean_env())
    finally:
        git("worktree", "remove", "--force", str(folder))


def run_together(sides: list[Side], tutorial: str, scratch: Path, select: list[str],
                 round_number: int) -> list[Outcome]:
    """Start every side's check at once; time each from start to its own exit."""
    started: list[tuple[Side, Path, Path, float, subprocess.Popen[bytes]]] = []
    try:
        for index, side in enumerate(sides):
            report = scratch / f"round-{round_number}-side-{index}"
            log = scratch / f"round-{round_number}-side-{index}.log"
            command = ["nice", "-n", "10", str(side.venv / "bin" / "pling-tutorial"), "check",
                       tutorial, "--report", str(report), *select, "-p", "no:cacheprovider"]
            with log.open("wb") as output:
                process = subprocess.Popen(command, cwd=side.root, env=side.env, stdout=output,
                                           stderr=subprocess.STDOUT, start_new_session=True)
            started.append((side, report, log, time.monotonic(), process))
        took: dict[int, float] = {}
        while len(took) < len(started):  # each timed when it ends, whichever ends first
            for index, (_, _, _, start, process) in enumerate(started):
                if index not in took and process.poll() is not None:
                    took[index] = time.monotonic() - start
            time.sleep(0.5)
    finally:  # interrupted: end the groups this round started (their browsers and servers)
        for *_, process in started:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait(timeout=60)
    results = []
    for index, (side, report, log, _, process) in enumerate(started):
        outcomes, proven, named = read_report(report)
        results.append(Outcome(side, took[index], process.returncode, outcomes, proven, named,
                               log))
    return results


def measure(sides: list[Side], args: argparse.Namespace, scratch: Path) -> None:
    select = ["-k", args.select] if args.select else []
    for round_number in range(1, args.rounds + 1):
        now = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
        print(f"round {round_number}: started {now}, load {load()}", flush=True)
        other, this = run_together(sides, args.tutorial, scratch, select, round_number)
        print(f"round {round_number}: ended, load {load()}")
        print(f"  {other.summary()}\n  {this.summary()}")
        if other.green and this.green:
            print(f"  this checkout / {other.side.label}: "
                  f"{this.seconds / other.seconds:.2f}x", flush=True)
        else:
            print("  no ratio: a run was not green", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--ref", default="main", help="the other commit (default: main)")
    parser.add_argument("--tutorial", default="r-15")
    parser.add_argument("--own-environment", action="store_true",
                        help="run the other commit in a worktree with its own bootstrap")
    parser.add_argument("--worktree", type=Path, metavar="PATH",
                        help="where --own-environment puts the worktree (default: a temporary "
                        "folder); it must not exist, and is removed at the end")
    parser.add_argument("--rounds", type=int, default=1, help="side-by-side rounds (default 1)")
    parser.add_argument("-k", dest="select", metavar="EXPR",
                        help="only the checks pytest's -k EXPR selects, on both sides (a try)")
    args = parser.parse_args()
    this = Side("this checkout", git("rev-parse", "--short", "HEAD"), PROJECT_ROOT,
                PROJECT_ROOT / ".venv", clean_env())
    with tempfile.TemporaryDirectory(prefix="pling-side-") as folder:
        scratch = Path(folder)
        if not args.own_environment:
            measure([archived(args.ref, scratch), this], args, scratch)
            return 0
        with own_worktree(args.ref, args.worktree or scratch / "worktree", scratch) as other:
            measure([other, this], args, scratch)
    return 0


if __name__ == "__main__":
    sys.exit(main())

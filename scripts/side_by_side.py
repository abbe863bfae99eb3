"""A tutorial's whole check suite on another commit and on this checkout, started together, so
both runs share the machine's load; prints each wall time and their ratio. Asserts nothing.

    .venv/bin/python scripts/side_by_side.py                  # r-15, against main
    .venv/bin/python scripts/side_by_side.py --ref HEAD~3 --tutorial r-15

The other commit is exported with `git archive` into a temporary folder and imported from
there (`PYTHONPATH`) with this checkout's environment, so only the harness and the tutorial
differ. Figures go to docs/measurements.md by hand, with the date and the load printed here.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
PYTHON = PROJECT_ROOT / ".venv" / "bin" / "python"


def check_command(tutorial: str, root: Path) -> list[str]:
    code = (f"import sys; from pling_harness.cli.main import main; sys.exit(main(['check', "
            f"{tutorial!r}, '--root', {str(root)!r}, '-p', 'no:cacheprovider', '-q']))")
    return ["nice", "-n", "10", str(PYTHON), "-c", code]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ref", default="main", help="the other commit (default: main)")
    parser.add_argument("--tutorial", default="r-15")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pling-side-") as scratch:
        other = Path(scratch) / "other"
        other.mkdir()
        archive = subprocess.run(["git", "archive", args.ref], cwd=PROJECT_ROOT,
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(other)], input=archive, check=True)
        runs = {args.ref: (other, {**os.environ, "PYTHONPATH": str(other)}),
                "this checkout": (PROJECT_ROOT, dict(os.environ))}
        started = {name: (time.monotonic(), subprocess.Popen(
            check_command(args.tutorial, root), cwd=root, env=env, stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT)) for name, (root, env) in runs.items()}
        took: dict[str, float] = {}
        while len(took) < len(started):  # each timed when it ends, whichever ends first
            for name, (start, process) in started.items():
                if name not in took and process.poll() is not None:
                    took[name] = time.monotonic() - start
                    print(f"{name}: {took[name]:.0f} s, exit {process.returncode}, "
                          f"load {os.getloadavg()[0]:.1f}", flush=True)
            time.sleep(1)
    ratio = took["this checkout"] / took[args.ref]
    print(f"this checkout / {args.ref}: {ratio:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())

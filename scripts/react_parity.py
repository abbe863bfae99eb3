"""Issue 19's claim, measured: the same suite, unchanged, proves the same guarantees on the
React page (Vite's dev server and its production build) as on our own page served elsewhere.

    .venv/bin/python scripts/react_parity.py              # about 12 minutes; rewrites its block
    .venv/bin/python scripts/react_parity.py --no-write   # print only
    .venv/bin/python scripts/react_parity.py -k handoff   # a quick try (implies --no-write)

One after another: `pling-tutorial dev r-15` (our page), `dev r-15 --page react` and
`dev r-15 --page react-build`, each on a port of its own, and against each `check r-15
--base-url URL --report DIR`, zh and en. It compares what the three reports prove (the
(guarantee, locale) pairs whose every check passed), which checks ran and which were
n/a (external), prints the table and records its verdict in docs/measurements.json
(`scripts/figures.py` writes the page). It asserts nothing.
"""

from __future__ import annotations

import argparse
import datetime
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import figures
import measure

PAGES = (("ours", "our page (`dev r-15`)"), ("react", "React, Vite dev server"),
         ("react-build", "React, production build"))
FIRST_PORT = 5380
# The reports are read for what they prove; a trace of every check would double the runs.
NO_TRACES = ["--tracing=off"]


def served(page: str, port: int) -> tuple[subprocess.Popen[str], str]:
    """`dev r-15 --page PAGE` on PORT, once it prints its address (Vite is ready by then)."""
    server = subprocess.Popen([str(measure.CLI), "dev", "r-15", "--page", page, "--port",
                               str(port)], cwd=measure.PROJECT_ROOT, stdout=subprocess.PIPE,
                              text=True, start_new_session=True)
    assert server.stdout is not None
    for line in server.stdout:
        match = re.search(r"at (http://127\.0\.0\.1:\d+)", line)
        if match:
            return server, match.group(1)
    server.wait()
    raise SystemExit(f"dev --page {page} exited ({server.returncode}) before serving")


def stop(server: subprocess.Popen[str]) -> None:
    server.send_signal(2)  # Ctrl-C: dev stops Vite and its fixture server itself
    try:
        server.wait(timeout=60)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


def render(runs: dict[str, measure.Run]) -> str:
    ours = runs["ours"]
    names = dict(PAGES)
    lines = [
        f"Measured {datetime.datetime.now(datetime.UTC).strftime('%Y-%m-%d %H:%M UTC')}, "
        f"commit {measure.commit()}, by `scripts/react_parity.py`: `check r-15 --base-url` "
        f"against each page, zh and en, one after another.",
        "",
        "| page | checks | outcomes | guarantee × locale proven | the same as our page | "
        "wall time | exit | load |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for page, run in runs.items():
        counted = ", ".join(f"{count} {outcome}" for outcome, count in
                            sorted(run.outcomes.items()))
        same_checks = {nodeid for nodeid, _ in run.results} == {n for n, _ in ours.results}
        same = ("—" if page == "ours" else
                f"proven: **{'yes' if run.proven == ours.proven else 'NO'}**; checks and "
                f"outcomes: **{'yes' if run.results == ours.results else 'NO'}**"
                + ("" if same_checks else " (other checks ran)"))
        lines.append(f"| {names[page]} | {measure.checks(run)} | {counted} | "
                     f"{len(run.proven)} | {same} | {run.seconds:.1f} s | {run.exit_code} | "
                     f"{run.load:.2f} |")
    for page, run in runs.items():
        for label, pairs in (("proven only on our page", ours.proven - run.proven),
                             (f"proven only on {names[page]}", run.proven - ours.proven)):
            if page != "ours" and pairs:
                lines += ["", f"{label}: " + ", ".join(f"{g} ({loc})" for g, loc in
                                                         sorted(pairs))]
    return "\n".join(lines)


def recorded(runs: dict[str, measure.Run]) -> figures.Figure:
    """The verdict of this run, as a record of docs/measurements.json."""
    ours = runs["ours"]
    names = dict(PAGES)
    verdicts = "; ".join(
        f"{names[page]}: {measure.checks(run)} checks, proven "
        f"{'the same' if run.proven == ours.proven else 'NOT the same'}, checks and outcomes "
        f"{'the same' if run.results == ours.results else 'NOT the same'}, {run.seconds:.0f} s"
        for page, run in runs.items() if page != "ours")
    loads = [run.load for run in runs.values()]
    return figures.Figure(
        key="react-parity", topic="Framework pages",
        what="r-15's whole suite on the React page against our page, zh and en",
        value=f"{verdicts} (ours {ours.seconds:.0f} s)", goal="the same",
        date=datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d"), commit=measure.commit(),
        load=f"{min(loads):.1f}-{max(loads):.1f}",
        command=".venv/bin/python scripts/react_parity.py")


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--no-write", action="store_true",
                        help="print the figures; leave docs/measurements.json as it is")
    parser.add_argument("-k", dest="select", metavar="EXPR",
                        help="only the checks pytest's -k EXPR selects (implies --no-write)")
    args = parser.parse_args()
    select = ["-k", args.select] if args.select else []
    runs: dict[str, measure.Run] = {}
    with tempfile.TemporaryDirectory(prefix="pling-react-parity-") as scratch_name:
        for offset, (page, name) in enumerate(PAGES):
            server, url = served(page, FIRST_PORT + offset)
            try:
                report = Path(scratch_name) / page
                runs[page] = measure.timed(f"check r-15 --base-url ({name})",
                                           ["check", "r-15", *select, "--base-url", url,
                                            "--report", str(report), *NO_TRACES], report)
            finally:
                stop(server)
    block = render(runs)
    print(block)
    if not (args.no_write or args.select):
        figures.record([recorded(runs)])
    return 0


if __name__ == "__main__":
    sys.exit(main())

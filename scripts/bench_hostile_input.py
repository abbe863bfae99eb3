"""What a hostile message costs the fixture server: prints figures, asserts nothing.

    .venv/bin/python scripts/bench_hostile_input.py               # on 127.0.0.1:5460
    .venv/bin/python scripts/bench_hostile_input.py --port 5461 --requests 1000 --big 100
    .venv/bin/python scripts/bench_hostile_input.py --package /tmp/old --cases 180   # an older
        # checkout's server (a folder holding its pling_harness, fixtures and tutorials), only
        # the requests whose name holds "180" (its quadratic intents make 4 MiB of 工作区 hours)

Serves r-15 as `pling-tutorial dev r-15` does, in a process of its own, and measures it from
outside (issue 31 §3):

1. Holding: while a probe sends `GET /api/workspace` back to back, one large request at a
   time is sent: a 4 MiB model message of English text, the same in Chinese (工作区…), a
   4 MiB body that is not JSON, and one over the 4 MiB limit (refused 413). The probe's
   longest wait while each is in flight is printed beside its longest wait with nothing
   else in flight, measured in alternating rounds, and their ratio.
2. Memory: the server's resident memory (VmRSS) after a warm-up, then after `--requests`
   more (`--big` of them 4 MiB model messages, the rest a mix of business calls, testbed
   calls, malformed JSON, refused and slow bodies), and the difference.

The machine's load average is printed with the figures: on a busy machine they are upper
bounds. Targets are read from this output (docs/measurements.md), never asserted in tests.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

PROJECT_ROOT = Path(__file__).resolve().parent.parent
SERVING = re.compile(r"at (http://127\.0\.0\.1:\d+)/")
MIB = 1024 * 1024
JSON = {"Content-Type": "application/json"}
ROUNDS = 7


# r-15's actions, offered as its page offers them: the scripted model tries an action's
# intents only when the page offers it.
TOOLS = [{"type": "function", "function": {"name": name, "description": name}}
         for name in ("get_workspace", "save_workspace_name", "archive_workspace",
                      "reset_workspace", "publish_changes")]


def model_body(text: str) -> bytes:
    return json.dumps({"messages": [{"role": "user", "content": text}], "tools": TOOLS,
                       "locale": "en"}, ensure_ascii=False).encode()


def sized(unit: str, size: int) -> str:
    """`unit` repeated to about `size` bytes of UTF-8, leaving room for the envelope."""
    return unit * ((size - 2000) // len(unit.encode()))


LARGE = {
    "工作区 × 20000 (180 kB)": model_body("工作区" * 20000),
    "4 MiB message (English)": model_body(sized("rename it to x ", 4 * MIB)),
    "4 MiB message (Chinese)": model_body(sized("工作区", 4 * MIB)),
    "4 MiB, not JSON": b"{" + b"x" * (4 * MIB - 300),
    "over 4 MiB (413)": model_body("x" * (4 * MIB + 10)),
}


@dataclass
class Probe:
    """GET /api/workspace back to back; each wait, with when it started."""

    url: str
    waits: list[tuple[float, float]] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)

    def run(self) -> None:
        with httpx.Client(base_url=self.url, timeout=60) as client:
            while not self.stop.is_set():
                started = time.perf_counter()
                client.get("/api/workspace")
                self.waits.append((started, time.perf_counter() - started))

    def settle(self, after: float) -> None:
        """Wait until a probe request that started after `after` has come back, so every
        request in flight at `after` is counted (checked every millisecond)."""
        while not any(started > after for started, _ in self.waits[-3:]):
            time.sleep(0.001)

    def longest(self, since: float, until: float) -> float:
        """The longest wait of a probe request in flight at any moment in [since, until]."""
        return max((wait for started, wait in self.waits
                    if started <= until and started + wait >= since), default=0.0)


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for {pid}")


def serve(port: int, package: Path | None) -> tuple[subprocess.Popen[str], str]:
    """`pling-tutorial dev r-15` on `port`; with `package`, that checkout's code and files."""
    environ = dict(os.environ)
    if package is not None:
        environ["PYTHONPATH"] = str(package)
    command = [sys.executable, "-c", "from pling_harness.cli.main import run; run()",
               "dev", "r-15", "--port", str(port)]
    process = subprocess.Popen(command, cwd=package or PROJECT_ROOT, env=environ,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert process.stdout is not None
    for line in process.stdout:
        found = SERVING.search(line)
        if found:
            return process, found.group(1)
    raise RuntimeError("pling-tutorial dev did not start")


def holding(url: str, cases: list[str]) -> None:
    probe = Probe(url)
    thread = threading.Thread(target=probe.run, daemon=True)
    thread.start()
    with httpx.Client(base_url=url, timeout=120) as client:
        client.get("/api/workspace")
        print("the probe's longest wait per round, median of the rounds; took: median")
        print(f"{'request':<26} {'status':>6} {'took':>8} {'probe: alone':>13} "
              f"{'while it runs':>14} {'ratio':>6}")
        for name, body in LARGE.items():
            if cases and not any(case in name for case in cases):
                continue
            alone: list[float] = []
            loaded: list[float] = []
            took: list[float] = []
            status = 0
            for _ in range(ROUNDS):
                # A window with nothing else in flight, as long as the large request took.
                quiet_from = time.perf_counter()
                time.sleep(took[-1] if took else 0.1)
                quiet_until = time.perf_counter()
                probe.settle(quiet_until)
                alone.append(probe.longest(quiet_from, quiet_until))
                started = time.perf_counter()
                response = client.post("/api/model", content=body, headers=JSON)
                ended = time.perf_counter()
                status = response.status_code
                took.append(ended - started)
                probe.settle(ended)
                loaded.append(probe.longest(started, ended))
            # Medians over the rounds of each round's longest wait: a busy machine's stray
            # pause lands in one round, not in the figure.
            typical_alone, typical_loaded = statistics.median(alone), statistics.median(loaded)
            print(f"{name:<26} {status:>6} {statistics.median(took) * 1000:>6.0f}ms "
                  f"{typical_alone * 1000:>11.1f}ms {typical_loaded * 1000:>12.1f}ms "
                  f"{typical_loaded / max(typical_alone, 1e-6):>6.1f}")
    probe.stop.set()
    thread.join()


def mixed_requests(client: httpx.Client, count: int, big: int) -> int:
    """`count` requests, `big` of them 4 MiB model messages, the rest a mix; returns how
    many got no answer at all (a connection the server dropped) or a 5xx."""
    small = [
        lambda: client.post("/api/workspace/name", json={"name": "Acme"}),
        lambda: client.post("/api/workspace/reset", json={}),
        lambda: client.post("/api/testbed/run/bench", json={"blob": "x" * 60_000}),
        lambda: client.post("/api/model", content=model_body("archive the workspace"),
                            headers=JSON),
        lambda: client.post("/api/workspace/name", content=b'{"name": NaN}', headers=JSON),
        lambda: client.post("/api/model", content=b"[" * 5000, headers=JSON),
        lambda: client.post("/api/workspace/name", content=b"{}", headers={
            "Content-Type": "text/plain"}),
        lambda: client.get("/.env"),
    ]
    every = max(count // max(big, 1), 1)
    failed = 0
    for index in range(count):
        try:
            if big and index % every == 0:
                response = client.post("/api/model", content=LARGE["4 MiB message (English)"],
                                       headers=JSON)
            else:
                response = small[index % len(small)]()
            failed += response.status_code >= 500
        except httpx.HTTPError:
            failed += 1
    return failed


def memory(url: str, pid: int, requests: int, big: int) -> None:
    with httpx.Client(base_url=url, timeout=120) as client:
        mixed_requests(client, 100, 10)  # warm-up: every path taken once
        start = rss_mib(pid)
        began = time.perf_counter()
        failed = mixed_requests(client, requests, big)
        took = time.perf_counter() - began
        end = rss_mib(pid)
    print(f"memory: {start:.1f} MiB after warm-up, {end:.1f} MiB after {requests} requests "
          f"({big} of 4 MiB) in {took:.0f} s: {end - start:+.1f} MiB; {failed} answered 5xx "
          "or not at all")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=5460)
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--big", type=int, default=100)
    parser.add_argument("--package", type=Path, help="serve this checkout's code instead")
    parser.add_argument("--cases", nargs="*", default=[],
                        help="only the large requests whose name holds one of these")
    args = parser.parse_args(argv)
    process, url = serve(args.port, args.package)
    # Vite or anything else is not involved: the harness's own server, as `dev` runs it.
    drain = threading.Thread(target=lambda: [None for _ in process.stdout or ()], daemon=True)
    drain.start()
    try:
        print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; "
              f"server pid {process.pid} at {url}")
        holding(url, args.cases)
        memory(url, process.pid, args.requests, args.big)
        print(f"load average {os.getloadavg()[0]:.2f}")
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=30)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

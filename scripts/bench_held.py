"""Whether one large message holds another request, on every page's server: prints figures,
asserts nothing (issue 39 §3).

    .venv/bin/python scripts/bench_held.py                      # every page, 5 rounds each
    .venv/bin/python scripts/bench_held.py --pages ours ai-sdk --rounds 9

Each page is served as `pling-tutorial dev r-15 --page PAGE` serves it, in a process of its
own (ours: the fixture server alone; react: Vite's dev server; react-build: `vite preview`
of the build; ai-sdk and copilotkit: Vite's dev server with the page's own server inside).
While a probe sends `GET /api/workspace` to the page's address back to back (through Vite's
proxy on the Vite pages), one large request at a time goes to the page's agent endpoint
(ours and React: the model gateway `/api/model`; AI SDK: `/api/chat`; CopilotKit: its
runtime's run): a message just under the 4 MiB cap, then a 20 MB body sent chunked (no
Content-Length), which every page refuses 413. The probe's longest wait while each is in
flight is printed beside its longest wait with nothing else in flight, median of the
rounds (a stray pause of a busy machine lands in one round, not in the figure), with its
worst round, and the CPU time the page's servers spent while the large request was in flight
(median; the probe's requests meanwhile included): a wait grows when other processes hold
the cores, CPU time does not, so on a busy machine it tells roughly what the wait would be
on an idle one when the work is one block.

The machine's load average is printed with the figures: on a busy machine they are upper
bounds. The goal (no request held more than 100 ms) is read from this output, never
asserted in tests.
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
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
from bench_hostile_input import TOOLS, Probe, sized

PROJECT_ROOT = Path(__file__).resolve().parent.parent
SERVING = re.compile(r"at (http://127\.0\.0\.1:\d+)/")
MIB = 1024 * 1024
JSON = {"Content-Type": "application/json"}
PAGES = ("ours", "react", "react-build", "ai-sdk", "copilotkit")
# Each page's endpoint that starts an agent turn, and the body it takes around one message.
ENDPOINTS = {"ours": "/api/model", "react": "/api/model", "react-build": "/api/model",
             "ai-sdk": "/api/chat", "copilotkit": "/api/copilotkit/agent/default/run"}
# Vite's first start and a `vite build` on a loaded machine.
START_TIMEOUT_S = 300


def conversation(page: str, text: str) -> bytes:
    """The page's own request for a turn whose one message is `text`: a new conversation
    each time (CopilotKit's runner keeps a thread's messages and drops one it has seen, so
    the same ids twice would send the 4 MiB message once)."""
    body: dict[str, object]
    fresh = uuid.uuid4().hex
    if page == "ai-sdk":
        body = {"locale": "en", "messages": [
            {"id": fresh, "role": "user", "parts": [{"type": "text", "text": text}]}]}
    elif page == "copilotkit":
        body = {"threadId": f"t-{fresh}", "runId": f"r-{fresh}", "state": {}, "tools": [],
                "context": [], "forwardedProps": {},
                "messages": [{"id": f"m-{fresh}", "role": "user", "content": text}]}
    else:
        body = {"messages": [{"role": "user", "content": text}], "tools": TOOLS,
                "locale": "en"}
    return json.dumps(body, ensure_ascii=False).encode()


def chunked(body: bytes, size: int = 64 * 1024) -> Iterator[bytes]:
    """`body` sent in chunks: no Content-Length, `Transfer-Encoding: chunked`."""
    yield from (body[start:start + size] for start in range(0, len(body), size))


def cases(page: str) -> dict[str, Callable[[], bytes | Iterator[bytes]]]:
    """The large requests, built afresh each round (new ids; a generator is used up once
    sent)."""
    under_cap = sized("rename it to x ", 4 * MIB)
    over_cap = "x" * 20_000_000
    return {"4 MiB message": lambda: conversation(page, under_cap),
            "20 MB chunked (413)": lambda: chunked(conversation(page, over_cap))}


def serve(page: str) -> tuple[subprocess.Popen[str], str]:
    """`pling-tutorial dev r-15 [--page PAGE]` on a free port, and the page's address."""
    command = [sys.executable, "-c", "from pling_harness.cli.main import run; run()",
               "dev", "r-15", "--port", "0", "--locale", "en"]
    if page != "ours":
        command += ["--page", page]
    process = subprocess.Popen(command, cwd=PROJECT_ROOT, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, start_new_session=True)
    assert process.stdout is not None
    started = time.monotonic()
    for line in process.stdout:
        found = SERVING.search(line)
        if found:
            # Keep reading, or the server blocks on a full pipe.
            threading.Thread(target=process.stdout.read, daemon=True).start()
            return process, found.group(1)
        if time.monotonic() - started > START_TIMEOUT_S:
            break
    stop(process)
    raise RuntimeError(f"pling-tutorial dev --page {page} did not start")


def stop(process: subprocess.Popen[str]) -> None:
    os.killpg(process.pid, signal.SIGINT)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def cpu_seconds(root: int) -> float:
    """CPU time (user and system) spent so far by process `root` and its descendants: the
    page's servers (the fixture server, Vite in its own session, what runs inside Vite).
    Unlike a wait, it does not grow when other processes hold the machine's cores."""
    children: dict[int, list[int]] = {}
    ticks: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # a process that ended meanwhile
        pid = int(stat.parent.name)
        children.setdefault(int(fields[1]), []).append(pid)  # ppid
        ticks[pid] = int(fields[11]) + int(fields[12])  # utime, stime
    total, pending = 0, [root]
    while pending:
        pid = pending.pop()
        total += ticks.get(pid, 0)
        pending.extend(children.get(pid, []))
    return total / os.sysconf("SC_CLK_TCK")


def holding(page: str, url: str, rounds: int, root: int) -> None:
    probe = Probe(url)
    thread = threading.Thread(target=probe.run, daemon=True)
    thread.start()
    endpoint = ENDPOINTS[page]
    with httpx.Client(base_url=url, timeout=120) as client:
        client.get("/api/workspace")
        for name, body in cases(page).items():
            alone: list[float] = []
            loaded: list[float] = []
            took: list[float] = []
            cpu: list[float] = []
            status = 0
            for _ in range(rounds):
                # A window with nothing else in flight, as long as the large request took.
                quiet_from = time.perf_counter()
                time.sleep(took[-1] if took else 0.1)
                quiet_until = time.perf_counter()
                probe.settle(quiet_until)
                alone.append(probe.longest(quiet_from, quiet_until))
                started, cpu_before = time.perf_counter(), cpu_seconds(root)
                try:
                    # The whole answer read (a turn streams), as the page reads it.
                    status = client.post(endpoint, content=body(), headers=JSON).status_code
                except httpx.HTTPError as error:
                    status = -1
                    print(f"  {page} {name}: {type(error).__name__}: {error}")
                ended = time.perf_counter()
                cpu.append(cpu_seconds(root) - cpu_before)
                took.append(ended - started)
                probe.settle(ended)
                loaded.append(probe.longest(started, ended))
            typical_alone, typical_loaded = statistics.median(alone), statistics.median(loaded)
            print(f"{page:<12} {name:<20} {status:>6} {statistics.median(took) * 1000:>7.0f}ms "
                  f"{typical_alone * 1000:>11.1f}ms {typical_loaded * 1000:>12.1f}ms "
                  f"{max(loaded) * 1000:>9.1f}ms {statistics.median(cpu) * 1000:>8.0f}ms",
                  flush=True)
    probe.stop.set()
    thread.join()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", nargs="*", choices=PAGES, default=list(PAGES))
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; "
          f"{args.rounds} rounds; the probe's longest wait per round, median of the rounds")
    print(f"{'page':<12} {'request':<20} {'status':>6} {'took':>9} {'probe: alone':>13} "
          f"{'while in flight':>14} {'worst':>11} {'servers CPU':>11}")
    for page in args.pages:
        process, url = serve(page)
        try:
            holding(page, url, args.rounds, process.pid)
        finally:
            stop(process)
    print(f"load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

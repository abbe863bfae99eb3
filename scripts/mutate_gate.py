"""Mutation-test the release gate's own code (issue 31 §10) with cosmic-ray.

    .venv/bin/python scripts/mutate_gate.py                     # every module, 2 at a time
    .venv/bin/python scripts/mutate_gate.py --jobs 1            # one at a time (a busy machine)
    .venv/bin/python scripts/mutate_gate.py --module pling_harness/cli/merge.py   # one module

For each module in scripts/mutate_gate.toml: a copy of the project (the files git knows,
as they are now, so the checkout is never touched and runs do not meet each other), the
module's tests run once unmutated (they must pass; their time sets the timeout), then
cosmic-ray mutates the module in the copy, one mutant at a time, and runs those tests
against each with the copy first on PYTHONPATH (pytest subprocesses, pytester's and the
CLI's, see the mutant too). The report (`out/gate-mutation/report.md` and `.json`) gives
each module's counts, the score, and every survivor with file:line and its diff. Exit 0
when the score reaches the configured threshold, 1 when not, 2 on a bad configuration or
a module whose tests fail unmutated.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import date
from pathlib import Path

from gate_mutants import (
    ConfigError,
    GateConfig,
    ModuleSpec,
    Mutant,
    annotation_spans,
    definition_lines,
    in_annotation,
    mark_equivalents,
    read_dump,
    render,
    score,
)

PROJECT_ROOT = Path(__file__).resolve().parent.parent
CONFIG = PROJECT_ROOT / "scripts" / "mutate_gate.toml"
REPORT_DIR = PROJECT_ROOT / "out" / "gate-mutation"
BIN = Path(sys.executable).parent
MIN_TIMEOUT_S = 20.0
# -x: a mutant is killed at the first failure; no cache written into the copy.
PYTEST = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider"]
_running: set[subprocess.Popen[str]] = set()


class ModuleFailed(Exception):
    """A module could not be mutation-tested (its tests fail unmutated, cosmic-ray broke)."""


def copy_project(target: Path) -> None:
    """The files git knows (committed or not, ignored ones left out), as they are now."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                             "--exclude-standard"], cwd=PROJECT_ROOT, check=True,
                            capture_output=True, text=True).stdout
    for name in filter(None, listed.split("\0")):
        source = PROJECT_ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)


def run(command: Sequence[str], *, cwd: Path, timeout: float | None = None
        ) -> subprocess.CompletedProcess[str]:
    """Run a child we can stop: its own session, so a stop ends its children too."""
    process = subprocess.Popen(command, cwd=cwd, env=_environment(cwd), text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               start_new_session=True)
    _running.add(process)
    try:
        output, _ = process.communicate(timeout=timeout)
    finally:
        _running.discard(process)
    return subprocess.CompletedProcess(command, process.returncode, output, "")


def _environment(copy: Path) -> dict[str, str]:
    # The copy's package comes before the checkout's editable install, in every child.
    environ = dict(os.environ, PYTHONPATH=os.pathsep.join(
        filter(None, [str(copy), os.environ.get("PYTHONPATH")])))
    environ.pop("PYTEST_ADDOPTS", None)
    return environ


def mutate_module(spec: ModuleSpec, config: GateConfig, scratch: Path) -> list[Mutant]:
    copy = scratch / spec.path.replace("/", "_")
    copy.mkdir()
    copy_project(copy)
    started = time.monotonic()
    baseline = run([*PYTEST, *spec.tests], cwd=copy)
    if baseline.returncode != 0:
        raise ModuleFailed(f"{spec.path}: its tests fail without a mutant; fix them first:\n"
                           + baseline.stdout[-3000:])
    timeout = max(MIN_TIMEOUT_S, config.timeout_factor * (time.monotonic() - started))
    filters: dict[str, object] = {
        "operators-filter": {"exclude-operators": config.excluded_operators}}
    if spec.only:
        source = (copy / spec.path).read_text(encoding="utf-8")
        filters["line-filter"] = {"lines": {spec.path: definition_lines(
            source, spec.only, spec.path)}}
    cr_config = copy / "cosmic-ray.toml"
    cr_config.write_text(_toml({"cosmic-ray": {
        "module-path": spec.path, "timeout": timeout, "excluded-modules": [],
        "test-command": shlex.join([*PYTEST, *spec.tests]),
        "distributor": {"name": "local"}, "filters": filters}}), encoding="utf-8")
    session = copy / "session.sqlite"
    steps = [[str(BIN / "cosmic-ray"), "init", str(cr_config), str(session)],
             [str(BIN / "cr-filter-operators"), str(session), str(cr_config)]]
    if spec.only:
        steps.append([str(BIN / "cr-filter-lines"), str(session), "--config", str(cr_config)])
    steps += [[str(BIN / "cosmic-ray"), "exec", str(cr_config), str(session)],
              [str(BIN / "cosmic-ray"), "dump", str(session)]]
    for step in steps:
        if step[1] == "exec":
            skip_annotations(session, (copy / spec.path).read_text(encoding="utf-8"))
        result = run(step, cwd=copy)
        if result.returncode != 0:
            raise ModuleFailed(f"{spec.path}: {' '.join(step[:2])} failed:\n{result.stdout}")
    return read_dump(result.stdout.splitlines(), spec.path)


def skip_annotations(session: Path, source: str) -> None:
    """A filter of our own, as cosmic-ray's are: mutants inside annotations are skipped."""
    from cosmic_ray.work_db import WorkDB, use_db  # type: ignore[import-untyped]
    from cosmic_ray.work_item import WorkerOutcome, WorkResult  # type: ignore[import-untyped]

    spans = annotation_spans(source)
    with use_db(str(session), WorkDB.Mode.open) as database:
        inside = [item.job_id for item in database.pending_work_items
                  if any(in_annotation(tuple(m.start_pos), spans) for m in item.mutations)]
        if inside:
            database.set_multiple_results(inside, WorkResult(
                output="inside an annotation", worker_outcome=WorkerOutcome.SKIPPED))


def _toml(table: dict[str, object], prefix: str = "") -> str:
    """The few shapes cosmic-ray's configuration needs (strings, numbers, lists, tables)."""
    plain = {k: v for k, v in table.items() if not isinstance(v, dict)}
    lines = [f"[{prefix}]"] if prefix and plain else []
    lines += [f"{json.dumps(k)} = {json.dumps(v)}" for k, v in plain.items()]
    for key, value in table.items():
        if isinstance(value, dict):
            lines.append(_toml(value, f"{prefix}.{json.dumps(key)}" if prefix else
                               json.dumps(key)))
    return "\n".join(lines) + "\n"


def end_children() -> None:
    for process in list(_running):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)


def stop(number: int, frame: object) -> None:
    """A stop ends every child (each in its own session) and the run, with no report."""
    end_children()
    raise SystemExit(128 + number)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--module", action="append", default=[], metavar="PATH",
                        help="mutate only this module (as the configuration names it)")
    parser.add_argument("--jobs", type=int, default=2, help="modules mutated at once")
    parser.add_argument("--report", type=Path, default=REPORT_DIR, metavar="DIR")
    parser.add_argument("--config", type=Path, default=CONFIG)
    args = parser.parse_args(argv)
    try:
        config = GateConfig.read(args.config)
    except ConfigError as error:
        print(f"mutate_gate: {error}", file=sys.stderr)
        return 2
    known = {spec.path: spec for spec in config.modules}
    problems = [f"--module {path!r} is not in {args.config}; give one of {', '.join(known)}"
                for path in args.module if path not in known]
    problems += [f"{args.config} names {spec.path}, which does not exist; fix its path there"
                 for spec in config.modules if not (PROJECT_ROOT / spec.path).is_file()]
    if args.jobs < 1:
        problems.append(f"--jobs must be at least 1. Current input: {args.jobs}")
    if problems:
        print("\n".join(f"mutate_gate: {problem}" for problem in problems), file=sys.stderr)
        return 2
    chosen = [known[path] for path in args.module] or config.modules
    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, stop)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="pling-gate-mutation-") as scratch, \
            ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(mutate_module, spec, config, Path(scratch)) for spec in chosen]
        try:
            found = [mutant for future in futures for mutant in future.result()]
        except (ModuleFailed, ConfigError) as error:
            print(f"mutate_gate: {error}", file=sys.stderr)
            end_children()
            return 2
    mutants, stale = mark_equivalents(found, [e for e in config.equivalents
                                              if e.module in {s.path for s in chosen}])
    minutes = (time.monotonic() - started) / 60
    heading = (f"Gate mutation, {date.today().isoformat()}: {len(chosen)} modules, "
               f"{minutes:.0f} min with --jobs {args.jobs}")
    text = render(mutants, [spec.path for spec in chosen], threshold=config.threshold,
                  stale=stale, heading=heading)
    args.report.mkdir(parents=True, exist_ok=True)
    (args.report / "report.md").write_text(text, encoding="utf-8")
    (args.report / "report.json").write_text(json.dumps(
        [m.model_dump() for m in mutants], indent=1, ensure_ascii=False), encoding="utf-8")
    print(text.split("\n## ")[0])
    print(f"Report: {args.report / 'report.md'}")
    caught, total = score(mutants)
    return 0 if total and caught / total >= config.threshold else 1


if __name__ == "__main__":
    raise SystemExit(main())

"""Run StrykerJS over one plan group: install it, write its config, keep its incremental file.

Stryker runs from the project root. It copies `fixtures/` and `tutorials/` (without the
checks and the tutorials' mutation folders) into a sandbox under `.stryker-tmp/`, instruments
the group's files there with mutant switching, and runs the group's checks once per mutant
with its command runner; the checks' server serves the sandbox (`--pling-root .`), so the
browser loads the instrumented runtime, and `browser_mutant` hands the browser the active
mutant.

Incremental mode: Stryker reuses a mutant's result while its code is unchanged. The command
runner reports no per-test coverage, so Stryker cannot see the checks change; the file
therefore also records a fingerprint of everything else the result depends on (checks,
harness, pages, other runtime files). When that changed, undetected mutants are dropped from
the file before the run, so survivors are tested again; killed ones are kept (`force`
re-runs everything). The committed file is compacted: no machine paths, and for each
killed mutant only the line naming the check that killed it.
"""

from __future__ import annotations

import hashlib
import json
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pling_harness.mutation.runner import LAUNCHER
from pling_harness.mutation.stryker import browser_mutant
from pling_harness.mutation.stryker.plan import Group, Plan
from pling_harness.mutation.stryker.report import DETECTED
from pling_harness.project.paths import (
    FIXTURES_DIR_NAME,
    PACKAGE_DIR_NAME,
    TUTORIALS_DIR_NAME,
)
from pling_harness.project.tutorials import MUTATION_DIR_NAME

# StrykerJS and its committed state live in the harness's own checkout (the project root
# there), not in the wheel: `--generated` is how the harness's developers test its runtime.
TOOLS_DIR_PATH = Path("tools") / "stryker"
# Stryker's sandboxes; one folder per group so a finished run deletes only its own.
TEMP_DIR_NAME = ".stryker-tmp"
# Reports and generated configs (not committed).
BUILD_DIR_PATH = Path("build") / "stryker"
# Committed, so a fresh checkout re-tests only what changed.
INCREMENTAL_DIR_NAME = "incremental"
IGNORER_PLUGIN_NAME = "pling-ignorers.js"
FINGERPRINT_KEY = "plingFingerprint"
# A dry run is the group's whole check selection; on a busy 2-core machine that is minutes.
DRY_RUN_TIMEOUT_MINUTES = 30
# A mutant's run is timed out after factor x the dry run + the absolute margin (Stryker's
# rule). A survivor runs every check of its group, as the dry run did, and on a machine shared
# with other work that can take much longer than the dry run did: a tight limit would turn
# survivors into "Timeout", which counts as detected. Real hangs are rare (the checks bound
# their own waits), so the limit is generous.
TIMEOUT_FACTOR = 2.5
TIMEOUT_MS = 120_000
NODE_HELP = ("StrykerJS needs Node.js >= 20 and npm on PATH (e.g. `apt-get install nodejs npm`, "
             "or https://nodejs.org/); `node --version` must work")


class ToolchainError(RuntimeError):
    """Node.js, npm or Stryker is missing or could not be installed; the message says the fix."""


@dataclass(frozen=True, kw_only=True)
class Toolchain:
    """Node.js + npm, and Stryker installed from `tools/stryker/package-lock.json` under
    `root` (the harness's own checkout)."""

    root: Path

    @property
    def tools_dir(self) -> Path:
        return self.root / TOOLS_DIR_PATH

    @property
    def stryker(self) -> Path:
        return self.tools_dir / "node_modules" / ".bin" / "stryker"

    def ensure_installed(self) -> Path:
        """The stryker executable; `npm ci` first when node_modules is missing."""
        if not (self.tools_dir / "package-lock.json").is_file():
            raise ToolchainError(f"{self.tools_dir} is missing: --generated runs StrykerJS over "
                                 "the reference runtime from the harness's own checkout; run it "
                                 "there")
        for program in ("node", "npm"):
            if shutil.which(program) is None:
                raise ToolchainError(f"{program} is not on PATH. {NODE_HELP}")
        if self.stryker.exists():
            return self.stryker
        print(f"Installing StrykerJS into {self.tools_dir} (npm ci)...", flush=True)
        completed = subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=self.tools_dir,
                                   capture_output=True, text=True, check=False)
        if completed.returncode != 0 or not self.stryker.exists():
            tail = "\n".join((completed.stdout + completed.stderr).strip().splitlines()[-10:])
            raise ToolchainError(f"`npm ci` in {self.tools_dir} failed "
                                 f"(exit {completed.returncode}):\n{tail}")
        return self.stryker


@dataclass(frozen=True, kw_only=True)
class GroupPaths:
    """Where one group's config, reports, sandbox and incremental file live."""

    root: Path
    tutorial_id: str
    group: str

    @property
    def work_dir(self) -> Path:
        return self.root / BUILD_DIR_PATH / self.tutorial_id / self.group

    @property
    def config(self) -> Path:
        return self.work_dir / "stryker.config.json"

    @property
    def report(self) -> Path:
        return self.work_dir / "mutation.json"

    @property
    def html_report(self) -> Path:
        return self.work_dir / "mutation.html"

    @property
    def incremental(self) -> Path:
        return (self.root / TOOLS_DIR_PATH / INCREMENTAL_DIR_NAME / self.tutorial_id
                / f"{self.group}.json")

    @property
    def temp_dir(self) -> Path:
        return self.root / TEMP_DIR_NAME / self.group

    def relative(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()


def checks_dir(root: Path, tutorial_id: str) -> Path:
    return root / TUTORIALS_DIR_NAME / tutorial_id / "checks"


def check_command(*, check_files: Sequence[str], root: Path, locale: str,
                  python: str = sys.executable) -> str:
    """The shell command Stryker runs per mutant, from inside its sandbox (the cwd).

    The checks come from the project, the served files from the sandbox (`--pling-root .`),
    and so does `pling_harness` (its launcher imports the sandbox's copy, which serves the
    mutated runtime); `-x` stops at the first failing check, `-rf` names it in the output
    Stryker keeps.
    """
    arguments = [
        python, str(LAUNCHER), *check_files,
        "--rootdir", str(root),
        "--pling-root", ".",
        "--pling-locale", locale,
        "-p", browser_mutant.__name__,
        "-p", "no:cacheprovider",
        "-x", "-q", "--no-header", "-rf",
    ]
    return shlex.join(arguments)


def stryker_config(*, plan: Plan, group: Group, paths: GroupPaths, concurrency: int,
                   python: str = sys.executable) -> dict[str, Any]:
    """The Stryker options for one group (written to `paths.config`)."""
    root = paths.root
    command = check_command(check_files=group.check_files(checks_dir(root, plan.tutorial)),
                            root=root, locale=plan.locale, python=python)
    return {
        "testRunner": "command",
        "commandRunner": {"command": command},
        "coverageAnalysis": "off",
        "mutate": [spec.stryker_pattern(root) for spec in group.mutate],
        # Only what the fixture server serves goes into the sandbox; never the checks.
        "ignorePatterns": ["/*", f"!/{FIXTURES_DIR_NAME}", f"!/{TUTORIALS_DIR_NAME}",
                           f"!/{PACKAGE_DIR_NAME}",
                           f"/{TUTORIALS_DIR_NAME}/*/checks",
                           f"/{TUTORIALS_DIR_NAME}/*/{MUTATION_DIR_NAME}"],
        "symlinkNodeModules": False,
        "plugins": ["@stryker-mutator/*", str(root / TOOLS_DIR_PATH / IGNORER_PLUGIN_NAME)],
        "ignorers": ["pling"],
        # Read by the ignorer plugin: the plan's statements whose mutants are all equivalent.
        "pling": {"ignore": [entry.model_dump()
                             for entry in plan.ignored_lines(root, group.files)]},
        "concurrency": concurrency,
        "dryRunTimeoutMinutes": DRY_RUN_TIMEOUT_MINUTES,
        "timeoutFactor": TIMEOUT_FACTOR,
        "timeoutMS": TIMEOUT_MS,
        "tempDirName": paths.relative(paths.temp_dir),
        "cleanTempDir": True,
        "incremental": True,
        "incrementalFile": paths.relative(paths.incremental),
        "reporters": ["json", "html", "progress-append-only"],
        "jsonReporter": {"fileName": paths.relative(paths.report)},
        "htmlReporter": {"fileName": paths.relative(paths.html_report)},
    }


def fingerprint(root: Path, tutorial_id: str, mutated: Iterable[str],
                checks: Iterable[str] = ()) -> str:
    """A hash of everything a group's results depend on besides its own mutated files: the
    files below, and which checks the group runs (`checks`: the plan's patterns, locale)."""
    skip = set(mutated)
    digest = hashlib.sha256()
    digest.update("\0".join(checks).encode() + b"\0")
    for path in sorted(_fingerprinted_files(root, tutorial_id)):
        relative = path.relative_to(root).as_posix()
        if relative in skip:
            continue
        digest.update(relative.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _fingerprinted_files(root: Path, tutorial_id: str) -> Iterable[Path]:
    """Served files, the tutorial (checks included) and the harness the checks run on."""
    folders = [root / FIXTURES_DIR_NAME, root / TUTORIALS_DIR_NAME / tutorial_id,
               root / "pling_harness"]
    for folder in folders:
        for path in folder.rglob("*"):
            parts = path.relative_to(root).parts
            # The mutation tooling and the tutorial's catalogue and plan decide no result.
            tooling = parts[:2] == ("pling_harness", "mutation") or (
                parts[0] == TUTORIALS_DIR_NAME and parts[2:3] == (MUTATION_DIR_NAME,))
            if path.is_file() and "__pycache__" not in parts and not tooling:
                yield path


def prepare_incremental(path: Path, current: str) -> int:
    """Before a run: if the fingerprint changed, drop undetected mutants so they run again.

    Returns how many were dropped.
    """
    if not path.exists():
        return 0
    report = json.loads(path.read_text(encoding="utf-8"))
    if report.get(FINGERPRINT_KEY) == current:
        return 0
    dropped = 0
    for file in report.get("files", {}).values():
        kept = [m for m in file.get("mutants", []) if m.get("status") in DETECTED
                or m.get("status") == "Ignored"]
        dropped += len(file.get("mutants", [])) - len(kept)
        file["mutants"] = kept
    report[FINGERPRINT_KEY] = current
    path.write_text(dump_incremental(report), encoding="utf-8")
    return dropped


# What the incremental file keeps: what Stryker needs to match and reuse a result.
_KEPT_TOP = ("schemaVersion", "thresholds", FINGERPRINT_KEY, "testFiles", "files")
_KEPT_MUTANT = ("id", "mutatorName", "replacement", "location", "status", "statusReason",
                "static", "coveredBy", "killedBy")


def compact_incremental(path: Path, fingerprint_at_start: str) -> None:
    """After a run: strip Stryker's file to what reuse needs and stamp the fingerprint."""
    report = json.loads(path.read_text(encoding="utf-8"))
    report[FINGERPRINT_KEY] = fingerprint_at_start
    compact: dict[str, Any] = {key: report[key] for key in _KEPT_TOP if key in report}
    compact["files"] = {
        name: {"language": file.get("language", "javascript"), "source": file["source"],
               "mutants": [_compact_mutant(m) for m in file["mutants"]]}
        for name, file in sorted(report["files"].items())
    }
    path.write_text(dump_incremental(compact), encoding="utf-8")


def _compact_mutant(mutant: dict[str, Any]) -> dict[str, Any]:
    kept = {key: mutant[key] for key in _KEPT_MUTANT if key in mutant}
    reason = str(kept.get("statusReason") or "")
    if mutant.get("status") != "Ignored":
        # The command runner's reason is the whole pytest output; keep the failing check.
        failed = [line for line in reason.splitlines() if line.startswith("FAILED ")]
        kept["statusReason"] = failed[0] if failed else ""
    return kept


def dump_incremental(report: dict[str, Any]) -> str:
    """JSON with one mutant per line: small, and a re-run's diff shows what changed."""
    def one(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))

    lines = ["{"]
    top = [key for key in report if key != "files"]
    lines += [f"{one(key)}:{one(report[key])}," for key in top]
    lines.append('"files":{')
    names = list(report.get("files", {}))
    for index, name in enumerate(names):
        file = report["files"][name]
        head = "".join(f"{one(key)}:{one(value)}," for key, value in file.items()
                       if key != "mutants")
        lines.append(f"{one(name)}:{{{head}\"mutants\":[")
        mutants = file.get("mutants", [])
        lines += [one(m) + ("," if i < len(mutants) - 1 else "") for i, m in enumerate(mutants)]
        lines.append("]}" + ("," if index < len(names) - 1 else ""))
    lines.append("}}")
    return "\n".join(lines) + "\n"


def run_group(*, stryker: Path, plan: Plan, group: Group, root: Path, concurrency: int,
              force: bool) -> GroupPaths:
    """Run Stryker over one group (output streams to the console); its report path is in the
    returned paths. Raises subprocess.CalledProcessError if Stryker fails."""
    paths = GroupPaths(root=root, tutorial_id=plan.tutorial, group=group.name)
    paths.work_dir.mkdir(parents=True, exist_ok=True)
    paths.incremental.parent.mkdir(parents=True, exist_ok=True)
    config = stryker_config(plan=plan, group=group, paths=paths, concurrency=concurrency)
    paths.config.write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    current = fingerprint(root, plan.tutorial, group.files, (plan.locale, *group.checks))
    dropped = prepare_incremental(paths.incremental, current)
    if dropped:
        print(f"[{group.name}] checks or pages changed since the last run: "
              f"{dropped} undetected mutant(s) will be tested again.", flush=True)
    command = [str(stryker), "run", str(paths.config), *(["--force"] if force else [])]
    subprocess.run(command, cwd=root, check=True)
    if paths.incremental.exists():
        compact_incremental(paths.incremental, current)
    return paths

"""Run a tutorial's check suite against each mutant and judge who killed what."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol

from pling_harness.mutation import children, run_plugin
from pling_harness.mutation.catalogue import (
    Catalogue,
    Mutant,
    StaleMutant,
    check_fresh,
    materialise,
)
from pling_harness.mutation.served import ServedCopy
from pling_harness.plugin.choices import PAGE_OPTION
from pling_harness.plugin.report import SuiteReport, TestRecord
from pling_harness.plugin.tutorial_choice import TUTORIAL_OPTION
from pling_harness.project.action_table import check_paths
from pling_harness.project.pages_table import OURS
from pling_harness.project.paths import PACKAGE_DIR, PACKAGE_DIR_NAME, TUTORIALS_DIR_NAME
from pling_harness.project.tutorials import load_tutorial

# "n/a": run externally (`--external`), every check of the mutant's guarantees was n/a there.
Verdict = Literal["killed", "survived", "misattributed", "stale", "broken", "n/a"]

# A mutant run that outlives this is a hang the checks failed to bound: report it, don't wait.
MUTANT_RUN_TIMEOUT_S = 900


@dataclass(frozen=True, kw_only=True)
class MutantResult:
    """How the check suite fared against one mutant."""

    mutant: Mutant
    verdict: Verdict
    failed: tuple[TestRecord, ...] = ()
    detail: str = ""

    @property
    def killing_guarantees(self) -> tuple[str, ...]:
        """Guarantees whose checks failed on an assertion (not a crash) against this mutant."""
        names = {g for record in self.failed if record.outcome == "failed"
                 for g in record.guarantees}
        return tuple(sorted(names))


@dataclass(kw_only=True)
class MutationRun:
    """The whole run: one result per mutant, plus the guarantees the suite declares."""

    results: list[MutantResult] = field(default_factory=list)
    declared_guarantees: frozenset[str] = frozenset()

    @property
    def ok(self) -> bool:
        return all(result.verdict in ("killed", "n/a") for result in self.results) \
            and not self.unguarded

    @property
    def unguarded(self) -> tuple[str, ...]:
        """Declared guarantees that no mutant's expected list names and kills."""
        proven = {
            name
            for result in self.results
            if result.verdict == "killed"
            for name in set(result.mutant.expected) & set(result.killing_guarantees)
        }
        return tuple(sorted(self.declared_guarantees - proven))


def judge(mutant: Mutant, report: SuiteReport) -> MutantResult:
    """Killed only if a check of an expected guarantee failed on an assertion; "n/a" when
    no check of an expected guarantee could run (against a page served elsewhere)."""
    failed = tuple(t for t in report.tests if t.outcome in ("failed", "error"))
    assertion_failures = {g for t in failed if t.outcome == "failed" for g in t.guarantees}
    if set(mutant.expected) & assertion_failures:
        return MutantResult(mutant=mutant, verdict="killed", failed=failed)
    if report.collection_errors:
        # pytest runs nothing once a check file fails to import: name the file and the error.
        return MutantResult(mutant=mutant, verdict="broken", failed=failed,
                            detail="no check ran: pytest could not collect " + "; ".join(
                                f"{e.nodeid} ({e.error})" for e in report.collection_errors))
    if report.interrupted is not None:
        # The checks stopped before their end (a page the harness refused to check, a
        # signal): what did not run passed nothing.
        if mutant.refused_with is not None and mutant.refused_with in report.interrupted:
            return MutantResult(mutant=mutant, verdict="killed", failed=failed,
                                detail=f"refused: {report.interrupted}")
        return MutantResult(mutant=mutant, verdict="broken", failed=failed,
                            detail=f"the checks stopped before their end: {report.interrupted}")
    ran = {g for t in report.tests if t.outcome != "n/a" for g in t.guarantees}
    not_applicable = {g for t in report.tests if t.outcome == "n/a" for g in t.guarantees}
    if set(mutant.expected) <= not_applicable - ran:
        return MutantResult(mutant=mutant, verdict="n/a", failed=failed,
                            detail="every check of its guarantees is n/a (external)")
    if failed:
        return MutantResult(
            mutant=mutant,
            verdict="misattributed",
            failed=failed,
            detail="only checks of other guarantees (or crashes) failed",
        )
    if not any(t.outcome == "passed" for t in report.tests):
        return MutantResult(mutant=mutant, verdict="broken",
                            detail=f"no check ran: {why_no_check_ran(mutant, report)}")
    return MutantResult(mutant=mutant, verdict="survived", detail="every check passed")


def why_no_check_ran(mutant: Mutant, report: SuiteReport) -> str:
    """What a run that passed no check did instead: collected none of the mutant's
    guarantees, or how each collected check ended (with the first reason given)."""
    if not report.tests:
        return (f"no check of {', '.join(mutant.expected)} was collected (a check proves a "
                "guarantee by its @pytest.mark.guarantee mark)")
    outcomes = Counter(t.outcome for t in report.tests)
    counted = ", ".join(f"{count} {outcome}" for outcome, count in sorted(outcomes.items()))
    reasons = [t.reason or t.failure for t in report.tests if t.reason or t.failure]
    return f"of {len(report.tests)} checks collected, {counted}" + (
        f" (first: {reasons[0]})" if reasons else "")


# Runs pytest with `pling_harness` imported from the copy it sits in (a mutant's copy holds one).
LAUNCHER = Path(PACKAGE_DIR_NAME) / "mutation" / "launch.py"


@dataclass(frozen=True, kw_only=True)
class SuiteInvocation:
    """How to run one tutorial's check suite as a child pytest process."""

    tutorial_id: str
    source_root: Path
    extra_args: tuple[str, ...] = ()
    focused: bool = False
    """Run only the checks of each mutant's expected guarantees. Either way those run first,
    each guarantee's only until one of them fails (a kill); without `focused`, a mutant they
    do not kill then meets the rest of the suite, up to its first failure."""
    external: bool = False
    """Serve each mutant's copy of our page with its own `dev` process and check it with
    --base-url (a page served elsewhere)."""
    page: str = "ours"
    """A row of the pages table: a row other than `ours` is started from the mutant's copy
    (its `cwd` there) by the check run itself, over its own fixture server, as `check --page
    NAME` starts it (`--pling-page`)."""

    @property
    def launches_row(self) -> bool:
        return self.page != OURS

    @property
    def checks_dir(self) -> Path:
        return self.source_root / TUTORIALS_DIR_NAME / self.tutorial_id / "checks"

    def locales_of(self, mutant: Mutant) -> tuple[str, ...]:
        """The locales a mutant's checks run in: its own, else the tutorial's default one."""
        if mutant.locales:
            return mutant.locales
        return (load_tutorial(self.tutorial_id, self.source_root).default_locale,)

    def command(self, *, served_root: Path, report: Path, locales: Sequence[str],
                also_run: Sequence[str] = (), only_guarantees: Sequence[str] = (),
                skip_guarantees: Sequence[str] = (), stop_at_first: bool = False,
                base_url: str | None = None) -> list[str]:
        """pytest, importing `pling_harness` from `served_root` (a mutant's copy holds one too)."""
        launcher = served_root / LAUNCHER
        if not launcher.is_file():  # no copy of the package there: the installed one's
            launcher = PACKAGE_DIR.parent / LAUNCHER
        command = [
            sys.executable, str(launcher),
            *(str(path) for path in check_paths(self.checks_dir.parent)),
            *(str(self.source_root / path) for path in also_run),
            # The user's pytest settings, found from their checks as pytest finds them.
            TUTORIAL_OPTION, self.tutorial_id,
            "--pling-root", str(served_root),
            "--pling-report", str(report),
            "-p", "no:cacheprovider",
            "-p", run_plugin.PLUGIN,  # --pling-skip-guarantee, --pling-stop-at-kill
            "-q", "--no-header", "-rN",
        ]
        if len(locales) == 1:
            command += ["--pling-locale", locales[0]]
        for guarantee in only_guarantees:
            command += ["--pling-guarantee", guarantee]
        for guarantee in skip_guarantees:
            command += ["--pling-skip-guarantee", guarantee]
        if stop_at_first:
            # With guarantees named: stop at each one's first failing check (a kill), crashes
            # aside; without: at the first failure of any kind (`-x`).
            command += ["--pling-stop-at-kill"] if only_guarantees else ["-x"]
        if base_url is not None:
            command += ["--base-url", base_url]
        if self.launches_row:
            # `--pling-root` is the copy: the row's cwd names the copy's page folder.
            command += [PAGE_OPTION, self.page]
        return command + list(self.extra_args)


def run_suite(invocation: SuiteInvocation, *, served_root: Path, locales: Sequence[str],
              workdir: Path, also_run: Sequence[str] = (),
              only_guarantees: Sequence[str] = (), skip_guarantees: Sequence[str] = (),
              stop_at_first: bool = False, base_url: str | None = None) -> SuiteReport:
    """Run the checks against `served_root` (served at `base_url` by another process, when
    given); the report says what each test did."""
    report_path = workdir / "report.json"
    report_path.unlink(missing_ok=True)
    command = invocation.command(served_root=served_root, report=report_path, locales=locales,
                                 also_run=also_run, only_guarantees=only_guarantees,
                                 skip_guarantees=skip_guarantees, stop_at_first=stop_at_first,
                                 base_url=base_url)
    completed = children.run(command, cwd=invocation.source_root,
                             env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
                             timeout=MUTANT_RUN_TIMEOUT_S)
    if not report_path.exists():
        tail = (completed.stdout + completed.stderr).strip().splitlines()[-15:]
        raise RuntimeError(
            f"check suite wrote no report (exit {completed.returncode}):\n" + "\n".join(tail)
        )
    return SuiteReport.read(report_path)


class SuiteRunner(Protocol):
    """`run_suite`'s signature (tests pass a fake to see the stages a mutant goes through)."""

    def __call__(self, invocation: SuiteInvocation, *, served_root: Path,
                 locales: Sequence[str], workdir: Path, also_run: Sequence[str] = (),
                 only_guarantees: Sequence[str] = (), skip_guarantees: Sequence[str] = (),
                 stop_at_first: bool = False, base_url: str | None = None) -> SuiteReport: ...


def run_mutant(mutant: Mutant, invocation: SuiteInvocation, *,
               run: SuiteRunner = run_suite) -> MutantResult:
    try:
        check_fresh(mutant, invocation.source_root)
    except StaleMutant as error:
        return MutantResult(mutant=mutant, verdict="stale", detail=str(error))
    with tempfile.TemporaryDirectory(prefix=f"pling-mutant-{mutant.name}-") as scratch:
        workdir = Path(scratch)
        served_root = materialise(mutant, source_root=invocation.source_root,
                                  dest_root=workdir / "root")
        def stages(base_url: str | None = None,
                   invocation: SuiteInvocation = invocation) -> MutantResult:
            # First the checks meant to catch it, each guarantee's until one fails: that is a
            # kill, and the rest of them would prove nothing more.
            own = run(
                invocation, served_root=served_root, locales=invocation.locales_of(mutant),
                workdir=workdir, also_run=mutant.also_run, only_guarantees=mutant.expected,
                stop_at_first=True,
                base_url=base_url)
            verdict = judge(mutant, own)
            if invocation.focused or verdict.verdict in ("killed", "n/a", "broken"):
                return verdict
            # Not killed by its own checks: the rest of the suite (none of them can make it a
            # kill) says whether anything else fails: misattributed, or survived.
            rest = run(
                invocation, served_root=served_root, locales=invocation.locales_of(mutant),
                workdir=workdir, also_run=mutant.also_run, skip_guarantees=mutant.expected,
                stop_at_first=True,
                base_url=base_url)
            return judge(mutant, SuiteReport(tests=[*own.tests, *rest.tests],
                                             interrupted=rest.interrupted,
                                             collection_errors=rest.collection_errors))

        try:
            if invocation.external and not invocation.launches_row:
                with ServedCopy(root=served_root, tutorial_id=invocation.tutorial_id) as served:
                    return stages(served.url)
            return stages()
        except (RuntimeError, subprocess.TimeoutExpired) as error:
            children.raise_if_stopped()  # a dev server stopped by the signal broke nothing
            return MutantResult(mutant=mutant, verdict="broken", detail=str(error))


def run_catalogue(
    catalogue: Catalogue,
    invocation: SuiteInvocation,
    *,
    jobs: int,
    declared_guarantees: frozenset[str],
    on_result: Callable[[MutantResult], None] | None = None,
) -> MutationRun:
    """Run every mutant, `jobs` at a time; results keep the catalogue's order."""
    run = MutationRun(declared_guarantees=declared_guarantees)

    def one(mutant: Mutant) -> MutantResult:
        result = run_mutant(mutant, invocation)
        if on_result is not None:
            on_result(result)
        return result

    pool = ThreadPoolExecutor(max_workers=max(1, jobs))
    try:
        run.results = list(pool.map(one, catalogue.mutants))
    finally:
        # Stopped: the mutants not started yet never start; the running ones are stopping.
        pool.shutdown(wait=True, cancel_futures=True)
    return run


def collect_guarantees(invocation: SuiteInvocation,
                       also_run: Sequence[str] = ()) -> frozenset[str]:
    """Every guarantee name the check suite declares, from a collect-only run's report."""
    with tempfile.TemporaryDirectory(prefix="pling-collect-") as scratch:
        report_path = Path(scratch) / "report.json"
        command = invocation.command(served_root=invocation.source_root, report=report_path,
                                     locales=(), also_run=also_run)
        completed = children.run([*command, "--collect-only"], cwd=invocation.source_root,
                                 timeout=300)
        if not report_path.exists():
            tail = (completed.stdout + completed.stderr).strip().splitlines()[-15:]
            raise RuntimeError(f"collecting {invocation.checks_dir} wrote no report (exit "
                               f"{completed.returncode}):\n" + "\n".join(tail))
        report = SuiteReport.read(report_path)
    return frozenset(g for test in report.tests for g in test.guarantees)

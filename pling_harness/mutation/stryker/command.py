"""`pling-tutorial mutate <tutorial> --generated`: run the plan's Stryker groups and judge them."""

from __future__ import annotations

import datetime as dt
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from pling_harness.mutation.stryker.plan import Plan, load_plan, plan_path
from pling_harness.mutation.stryker.render import render_markdown, render_text
from pling_harness.mutation.stryker.report import (
    GroupOutcome,
    Judgement,
    MutantRecord,
    judge,
    read_report,
)
from pling_harness.mutation.stryker.run import BUILD_DIR_PATH, GroupPaths, Toolchain, run_group


def run_generated(*, tutorial_id: str, command: str, groups: Sequence[str] = (),
                  concurrency: int = 1, force: bool = False, root: Path,
                  toolchain: Toolchain | None = None,
                  emit: Callable[[str], None] | None = None) -> int:
    """Run the chosen groups (default: all), then judge every group's latest report.

    Exit 0 only if every group has a report and the plan's goal is met.
    """
    emit = emit or _say
    plan = load_plan(plan_path(tutorial_id, root))
    chosen = [plan.group(name) for name in groups] if groups else list(plan.groups)
    stryker = (toolchain or Toolchain(root=root)).ensure_installed()
    outcomes: dict[str, GroupOutcome] = {}
    for group in chosen:
        emit(f"== {group.name}: {', '.join(group.files)} ==")
        started = time.monotonic()
        try:
            paths = run_group(stryker=stryker, plan=plan, group=group, root=root,
                              concurrency=concurrency, force=force)
        except subprocess.CalledProcessError as error:
            outcomes[group.name] = GroupOutcome(
                name=group.name, report=None, seconds=time.monotonic() - started,
                error=f"Stryker exited with {error.returncode} (see its output above)")
            continue
        outcomes[group.name] = GroupOutcome(name=group.name, report=paths.report,
                                            seconds=time.monotonic() - started)
    for group in plan.groups:
        if group.name not in outcomes:
            report = GroupPaths(root=root, tutorial_id=plan.tutorial, group=group.name).report
            outcomes[group.name] = GroupOutcome(name=group.name,
                                                report=report if report.exists() else None)
    ordered = [outcomes[group.name] for group in plan.groups]
    judgement = judge_outcomes(plan, ordered, root=root)
    when = dt.datetime.now(dt.UTC)
    emit("")
    emit(render_text(judgement, plan=plan, outcomes=ordered))
    summary = root / BUILD_DIR_PATH / plan.tutorial / "summary.md"
    summary.parent.mkdir(parents=True, exist_ok=True)
    summary.write_text(render_markdown(judgement, plan=plan, outcomes=ordered, when=when,
                                       command=command),
                       encoding="utf-8")
    emit(f"\nSummary for docs/generated-mutants.md: {summary}")
    complete = all(outcome.report is not None and outcome.error is None for outcome in ordered)
    return 0 if complete and judgement.meets(plan.goal) else 1


def _say(text: str) -> None:
    print(text, flush=True)


def judge_outcomes(plan: Plan, outcomes: Sequence[GroupOutcome], *, root: Path) -> Judgement:
    """Judge every available report together, with the plan's equivalence list."""
    records: list[MutantRecord] = []
    for outcome in outcomes:
        if outcome.report is not None and outcome.report.exists():
            records += read_report(outcome.report)
    records.sort(key=lambda r: (r.file, r.line, r.column, r.mutator, r.replacement))

    def equivalence(record: MutantRecord) -> str | None:
        return plan.equivalence(file=record.file, mutator=record.mutator,
                                replacement=record.replacement, line=record.line_text)

    return judge(records, equivalence)


"""Print a mutation run as a table a maintainer can read at a glance."""

from __future__ import annotations

from pling_harness.mutation.runner import MutantResult, MutationRun

VERDICT_LABEL = {
    "killed": "killed",
    "survived": "SURVIVED",
    "misattributed": "MISATTRIBUTED",
    "stale": "STALE",
    "broken": "BROKEN",
    "n/a": "n/a (external)",
}


def _killed_by(result: MutantResult) -> str:
    if result.verdict == "killed":
        # Refused by the harness (`refused_with`): no check failed, the refusal is the kill.
        return ", ".join(result.killing_guarantees) or result.detail.splitlines()[0]
    if result.verdict == "misattributed":
        others = ", ".join(result.killing_guarantees) or "crashes only"
        return f"{others} (expected {', '.join(result.mutant.expected)})"
    return result.detail.splitlines()[0] if result.detail else ""


def render_result_line(result: MutantResult) -> str:
    return f"{result.mutant.name:<40} {VERDICT_LABEL[result.verdict]:<13} {_killed_by(result)}"


def render_failures(result: MutantResult) -> list[str]:
    """Which checks failed and why, so a kill by the wrong check is visible."""
    lines = []
    for record in result.failed:
        why = (record.failure or "").splitlines()[0][:160] if record.failure else ""
        lines.append(f"    {record.outcome:<6} {record.nodeid}  {why}")
    return lines


def render_run(run: MutationRun, *, verbose: bool = False) -> str:
    lines = [f"{'mutant':<40} {'verdict':<13} killed by (guarantees whose checks failed)"]
    lines.append("-" * 100)
    for result in run.results:
        lines.append(render_result_line(result))
        if verbose or result.verdict != "killed":
            lines.extend(render_failures(result))
    killed = sum(1 for r in run.results if r.verdict == "killed")
    not_applicable = sum(1 for r in run.results if r.verdict == "n/a")
    lines.append("-" * 100)
    lines.append(f"score: {killed}/{len(run.results) - not_applicable} mutants killed "
                 "by the checks meant to catch them"
                 + (f" ({not_applicable} more n/a (external): every check of their guarantees "
                    "needs the fixture server)" if not_applicable else ""))
    if run.unguarded:
        lines.append("guarantees with no mutant that they kill: " + ", ".join(run.unguarded))
    else:
        lines.append(f"every declared guarantee ({len(run.declared_guarantees)}) "
                     "kills at least one mutant")
    return "\n".join(lines)

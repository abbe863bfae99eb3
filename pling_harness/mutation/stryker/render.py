"""The generated-mutant figures as console text and as Markdown for docs/generated-mutants.md."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from pling_harness.mutation.stryker.plan import Plan
from pling_harness.mutation.stryker.report import GroupOutcome, Judgement, Survivor, Tally

# Long originals (a whole block) are cut for the table; the report has them whole.
SNIPPET_WIDTH = 60


def percent(score: float | None) -> str:
    return "n/a" if score is None else f"{score * 100:.1f}%"


def snippet(text: str, width: int = SNIPPET_WIDTH) -> str:
    """One line of code for a table cell: whitespace collapsed, cut with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[:width - 1] + "…"


def _seconds(outcome: GroupOutcome) -> str:
    if outcome.error is not None:
        return f"FAILED: {outcome.error}"
    if outcome.report is None:
        return "never run"
    if outcome.seconds is None:
        return "earlier report"
    minutes, seconds = divmod(round(outcome.seconds), 60)
    return f"{minutes}m{seconds:02d}s"


def _figures(tally: Tally) -> tuple[str, ...]:
    return (str(tally.killed), str(tally.timeout), str(tally.survived + tally.no_coverage),
            str(tally.equivalent), str(tally.ignored), str(tally.errors),
            f"{tally.detected}/{tally.non_equivalent}", percent(tally.score))


FIGURE_HEADERS = ("killed", "timeout", "survived", "equivalent", "ignored", "errors",
                  "detected/non-equivalent", "score")


def _coverage(outcomes: Sequence[GroupOutcome]) -> str:
    """'' when every group has a report, else which part of the plan the figure covers."""
    missing = [outcome.name for outcome in outcomes if outcome.report is None]
    if not missing:
        return ""
    return (f" (only {len(outcomes) - len(missing)} of {len(outcomes)} groups measured; "
            f"not yet: {', '.join(missing)})")


def _classification(survivor: Survivor) -> str:
    if survivor.equivalent_reason is not None:
        return f"equivalent: {survivor.equivalent_reason}"
    return "OPEN"


def render_text(judgement: Judgement, *, plan: Plan, outcomes: Sequence[GroupOutcome]) -> str:
    """The console summary: groups, per-file figures, the score against the goal, survivors."""
    lines = ["Groups:"]
    width = max((len(outcome.name) for outcome in outcomes), default=0)
    lines += [f"  {outcome.name:<{width}}  {_seconds(outcome)}" for outcome in outcomes]
    rows: list[tuple[str, ...]] = [("file", *FIGURE_HEADERS)]
    rows += [(name, *_figures(tally)) for name, tally in sorted(judgement.per_file.items())]
    rows.append(("all", *_figures(judgement.total)))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines.append("")
    lines += ["  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True))
              .rstrip() for row in rows]
    verdict = "meets" if judgement.meets(plan.goal) else "DOES NOT meet"
    lines.append("")
    lines.append(f"Score: {percent(judgement.total.score)} of the non-equivalent mutants "
                 f"detected (timeouts count as detected); {verdict} the goal of "
                 f"{percent(plan.goal)}{_coverage(outcomes)}.")
    if judgement.survivors:
        lines.append("")
        lines.append(f"Survivors ({len(judgement.open_survivors)} open):")
        for survivor in judgement.survivors:
            record = survivor.record
            lines.append(f"  {record.where}  {record.mutator}  {snippet(record.original)!r} -> "
                         f"{snippet(record.replacement)!r}  [{_classification(survivor)}]")
    if judgement.ignored_reasons:
        lines.append("")
        lines.append("Ignored (not counted):")
        lines += [f"  {count:>4}  {reason}"
                  for reason, count in sorted(judgement.ignored_reasons.items())]
    return "\n".join(lines)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _code(text: str) -> str:
    flat = snippet(text)
    return f"`` {_cell(flat)} ``" if flat else "(empty)"


def render_markdown(judgement: Judgement, *, plan: Plan, outcomes: Sequence[GroupOutcome],
                    when: dt.datetime, command: str) -> str:
    """Tables for the doc page: the figure with its date, per-file figures, every survivor."""
    lines = [
        f"Measured {when:%Y-%m-%d} with `{command}` "
        f"(StrykerJS, checks in {plan.locale}): **{judgement.total.detected} of "
        f"{judgement.total.non_equivalent} non-equivalent mutants detected "
        f"({percent(judgement.total.score)})**, goal {percent(plan.goal)}"
        f"{_coverage(outcomes)}.",
        "",
        "| group | Stryker time |",
        "|---|---|",
    ]
    lines += [f"| {outcome.name} | {_seconds(outcome)} |" for outcome in outcomes]
    lines += ["", "| file | " + " | ".join(FIGURE_HEADERS) + " |",
              "|---" * (len(FIGURE_HEADERS) + 1) + "|"]
    lines += [f"| `{name}` | " + " | ".join(_figures(tally)) + " |"
              for name, tally in sorted(judgement.per_file.items())]
    lines.append("| **all** | " + " | ".join(_figures(judgement.total)) + " |")
    lines += ["", "| where | mutator | original | replacement | classification |",
              "|---|---|---|---|---|"]
    for survivor in judgement.survivors:
        record = survivor.record
        lines.append(f"| `{record.where}` | {record.mutator} | {_code(record.original)} | "
                     f"{_code(record.replacement)} | {_cell(_classification(survivor))} |")
    if judgement.ignored_reasons:
        lines += ["", "| ignored (not counted) | reason |", "|---|---|"]
        lines += [f"| {count} | {_cell(reason)} |"
                  for reason, count in sorted(judgement.ignored_reasons.items())]
    return "\n".join(lines) + "\n"

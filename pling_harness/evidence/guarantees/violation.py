"""`GuaranteeViolation`, and the few helpers every guarantee uses to look and to report."""

from __future__ import annotations

from collections.abc import Sequence

from pling_harness.evidence.records import Mark
from pling_harness.evidence.timeline import Timeline
from pling_harness.server.model.conversation import ToolResultSeen


class GuaranteeViolation(AssertionError):
    """A guarantee did not hold; the message carries the evidence (the timeline)."""

    def __init__(self, guarantee: str, problem: str, timeline: Timeline) -> None:
        self.guarantee = guarantee
        self.problem = problem
        super().__init__(f"guarantee {guarantee!r} violated: {problem}\n\n{timeline.render()}")


def fail(guarantee: str, problem: str, timeline: Timeline) -> GuaranteeViolation:
    """The violation to raise: `raise fail(name, "what was wrong", timeline)`."""
    return GuaranteeViolation(guarantee, problem, timeline)


def since_or_ready(timeline: Timeline, since: Mark | None) -> Mark | None:
    """An explicit mark, else the moment the page became ready (page load is no side effect)."""
    return since if since is not None else timeline.ready_mark


def results_for(timeline: Timeline, action: str, since: Mark | None) -> list[ToolResultSeen]:
    """The tool results for `action` the model received after `since`."""
    return [r for r in timeline.tool_results(since) if r.action == action]


def listed(items: Sequence[object]) -> str:
    """Items for a failure message: "a; b", or "none"."""
    return "; ".join(str(item) for item in items) or "none"

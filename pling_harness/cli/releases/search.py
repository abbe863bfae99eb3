"""Which release of a range breaks each guarantee, and which keeps it again: every release
checked (`each`), or a bisection per guarantee (`bisect`), each release tried at most once
and judged per guarantee from its checks' reports.

On one release, a guarantee is:
- "breaks": a check proving it FAILED with that guarantee's own violation, and no check of
  it errored;
- "keeps": every check of it that ran passed;
- "error": something could not be judged (the release did not install, the page did not
  start, a check errored or failed otherwise, e.g. a wait that ran out): never a break;
- "n/a": no check of it ran (every one n/a on this page).

A bisection assumes one change between the range's ends: from "keeps" at `--from` to
"breaks" at `--to` it finds the first release that breaks; from "breaks" to "keeps", the
first that keeps it again (and the last that breaks). A release that errors is set aside
and the search goes on over the others; the answer then says which releases lie between.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from pling_harness.cli.releases.verdict import CheckRun, first_line, violation_of

State = Literal["breaks", "keeps", "error", "n/a"]
NONE_YET = "none yet"


def guarantee_states(runs: Sequence[CheckRun],
                     guarantees: Sequence[str]) -> dict[str, tuple[State, str]]:
    """Each guarantee's state on one release, and a line saying why."""
    broken_runs = [run for run in runs if run.report is None or run.problem is not None
                   or run.report.interrupted is not None]
    states: dict[str, tuple[State, str]] = {}
    for guarantee in guarantees:
        if broken_runs:
            run = broken_runs[0]
            why = first_line(run.problem) if run.problem else "interrupted"
            states[guarantee] = ("error", f"{run.check}: {why}")
            continue
        records = [record for run in runs if run.report is not None
                   for record in run.report.tests if guarantee in record.guarantees]
        errored = [r for r in records if r.outcome in ("error", "not run")]
        broke = [r for r in records if r.outcome == "failed"
                 and (violation_of(r) or ("", ""))[0] == guarantee]
        other = [r for r in records if r.outcome == "failed" and r not in broke]
        passed = [r for r in records if r.outcome == "passed"]
        if errored or other:
            bad = (errored or other)[0]
            states[guarantee] = ("error", f"{bad.nodeid}: {bad.outcome}: "
                                 f"{first_line(bad.message or bad.failure)}")
        elif broke:
            states[guarantee] = ("breaks", first_line(broke[0].message))
        elif passed:
            states[guarantee] = ("keeps", f"{len(passed)} check{'s' * (len(passed) != 1)} "
                                 "passed")
        else:
            states[guarantee] = ("n/a", "no check of it ran")
    return states


# Tries one release: its check runs (each check in a seat of its own).
Try = Callable[[str], Sequence[CheckRun]]


@dataclass
class Tried:
    """Every release tried so far, in the order tried, and its runs."""

    attempt: Try
    runs: dict[str, Sequence[CheckRun]] = field(default_factory=dict)

    def __call__(self, version: str) -> Sequence[CheckRun]:
        if version not in self.runs:
            self.runs[version] = self.attempt(version)
        return self.runs[version]


@dataclass(frozen=True)
class Finding:
    """One guarantee over the range."""

    guarantee: str
    first_breaks: str | None
    """The first release of the range that breaks it (None: none tried does)."""
    last_breaks: str | None
    first_keeps_again: str | None
    """The first release after a breaking one that keeps it (None: none yet)."""
    states: dict[str, tuple[State, str]]
    """Every tried release's state, in version order."""
    note: str = ""
    """What the search could not settle (errors between, a range that never changes)."""

    @property
    def breaks_newest(self) -> bool:
        return self.first_breaks is not None and self.first_keeps_again is None

    @property
    def has_errors(self) -> bool:
        return any(state == "error" for state, _ in self.states.values())


def discovered_guarantees(runs: Sequence[CheckRun]) -> list[str]:
    """The guarantees the checks that ran carry, in first-seen order."""
    found: list[str] = []
    for run in runs:
        for record in run.report.tests if run.report is not None else ():
            for guarantee in record.guarantees:
                if guarantee not in found:
                    found.append(guarantee)
    return found


def each(versions: Sequence[str], tried: Tried,
         guarantees: Sequence[str]) -> list[Finding]:
    """Every release checked; per guarantee, its changes read in version order."""
    for version in versions:
        tried(version)
    return [finding_from(guarantee, versions, tried) for guarantee in guarantees]


def finding_from(guarantee: str, versions: Sequence[str], tried: Tried,
                 note: str = "") -> Finding:
    states = {version: guarantee_states(tried.runs[version], [guarantee])[guarantee]
              for version in versions if version in tried.runs}
    first_breaks = last_breaks = first_keeps = None
    for version, (state, _) in states.items():
        if state == "breaks":
            if first_breaks is None or first_keeps is not None:
                first_breaks, first_keeps = (first_breaks or version), None
            last_breaks = version
        elif state == "keeps" and first_breaks is not None and first_keeps is None:
            first_keeps = version
    return Finding(guarantee, first_breaks, last_breaks, first_keeps, states, note)


def bisect(versions: Sequence[str], tried: Tried,
           guarantees: Sequence[str]) -> list[Finding]:
    """Per guarantee, the release where its state changes between the range's ends."""
    findings = []
    for guarantee in guarantees:
        def state(version: str, guarantee: str = guarantee) -> State:
            return guarantee_states(tried(version), [guarantee])[guarantee][0]

        low, high = versions[0], versions[-1]
        start, end = state(low), state(high)
        note = ""
        if start == end or "error" in (start, end) or "n/a" in (start, end):
            note = (f"{start} at {low} and {end} at {high}: no change to bisect "
                    "(--each checks every release)")
            findings.append(finding_from(guarantee, versions, tried, note))
            continue
        lo, hi = 0, len(versions) - 1
        between = list(range(lo + 1, hi))
        set_aside: list[str] = []
        while between:
            middle = between[len(between) // 2]
            found = state(versions[middle])
            if found == start:
                lo = middle
            elif found == end:
                hi = middle
            else:
                set_aside.append(versions[middle])
            between = [i for i in range(lo + 1, hi) if versions[i] not in set_aside]
        if set_aside:
            inside = [v for v in set_aside if versions.index(v) in range(lo + 1, hi)]
            if inside:
                note = (f"{', '.join(inside)} between {versions[lo]} and {versions[hi]} "
                        "could not be judged: the change is in one of them or at "
                        f"{versions[hi]}")
        findings.append(finding_from(guarantee, versions, tried, note))
    return findings

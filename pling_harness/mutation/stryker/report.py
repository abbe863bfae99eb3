"""Read Stryker's JSON mutation report and judge it: per-file figures, the score, the survivors.

The report is Stryker's format (mutation-testing-report-schema), not ours, so it is read
leniently: only the fields used here are required and anything else is ignored.
Statuses count as Stryker counts them: Killed and Timeout are detected; Survived and
NoCoverage are undetected; Ignored, CompileError and RuntimeError are left out. On top of
Stryker's score, survivors the plan lists as equivalent are left out of the total too.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from pling_harness.project.datafile import describe_validation_error

Status = Literal["Killed", "Survived", "NoCoverage", "Timeout", "Ignored", "CompileError",
                 "RuntimeError", "Pending"]
DETECTED: frozenset[str] = frozenset({"Killed", "Timeout"})
UNDETECTED: frozenset[str] = frozenset({"Survived", "NoCoverage"})
# The command runner's failure output is pytest's; with -rf it names the failing check.
_FAILED_LINE = re.compile(r"^FAILED (\S+)", re.MULTILINE)


class ReportError(ValueError):
    """The report file is unreadable or not a Stryker mutation report."""


class _Position(BaseModel):
    model_config = ConfigDict(extra="ignore")
    line: int
    column: int


class _Location(BaseModel):
    model_config = ConfigDict(extra="ignore")
    start: _Position
    end: _Position


class _Mutant(BaseModel):
    model_config = ConfigDict(extra="ignore")
    id: str
    mutatorName: str  # Stryker's field name
    replacement: str | None = None
    location: _Location
    status: Status
    statusReason: str | None = None  # Stryker's field name


class _File(BaseModel):
    model_config = ConfigDict(extra="ignore")
    source: str
    mutants: list[_Mutant]


class _Report(BaseModel):
    model_config = ConfigDict(extra="ignore")
    files: dict[str, _File]


@dataclass(frozen=True, kw_only=True)
class MutantRecord:
    """One mutant as the report describes it, with the code it replaced."""

    file: str
    id: str
    mutator: str
    replacement: str
    line: int
    """1-based line the mutated code starts on."""
    column: int
    status: Status
    status_reason: str
    original: str
    """The source text the mutant replaced."""
    line_text: str
    """The whole (stripped) line the mutant starts on."""

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"

    @property
    def killed_by(self) -> str | None:
        """The check whose failure killed it, as pytest named it (None if not known)."""
        match = _FAILED_LINE.search(self.status_reason)
        if match is None:
            return None
        # pytest names it relative to the sandbox it ran in; the project path is what matters.
        nodeid = match.group(1)
        while nodeid.startswith("../"):
            nodeid = nodeid[3:]
        return nodeid


def read_report(path: Path) -> list[MutantRecord]:
    """Every mutant of a Stryker JSON report, in file order, then by position."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ReportError(f"{path}: cannot be read ({error.strerror})") from error
    except json.JSONDecodeError as error:
        raise ReportError(f"{path}: not valid JSON ({error.msg})") from error
    try:
        report = _Report.model_validate(data)
    except ValidationError as error:
        raise ReportError(f"{path}: not a Stryker mutation report: "
                          f"{describe_validation_error(error)}") from error
    records = [_record(name, file, mutant)
               for name, file in sorted(report.files.items()) for mutant in file.mutants]
    return sorted(records, key=lambda r: (r.file, r.line, r.column, r.mutator, r.replacement))


def _record(name: str, file: _File, mutant: _Mutant) -> MutantRecord:
    lines = file.source.splitlines()
    start, end = mutant.location.start, mutant.location.end
    return MutantRecord(
        file=name,
        id=mutant.id,
        mutator=mutant.mutatorName,
        replacement=mutant.replacement if mutant.replacement is not None else "",
        line=start.line,
        column=start.column,
        status=mutant.status,
        status_reason=mutant.statusReason or "",
        original=_span(lines, start, end),
        line_text=lines[start.line - 1].strip() if 0 < start.line <= len(lines) else "",
    )


def _span(lines: Sequence[str], start: _Position, end: _Position) -> str:
    """Source text from start to end (report positions are 1-based, end exclusive)."""
    if not (0 < start.line <= end.line <= len(lines)):
        return ""
    if start.line == end.line:
        return lines[start.line - 1][start.column - 1:end.column - 1]
    middle = lines[start.line:end.line - 1]
    return "\n".join([lines[start.line - 1][start.column - 1:], *middle,
                      lines[end.line - 1][:end.column - 1]])


@dataclass(frozen=True, kw_only=True)
class GroupOutcome:
    """What became of one plan group in this invocation."""

    name: str
    report: Path | None
    """Its latest report, from this run or an earlier one; None if it never ran."""
    seconds: float | None = None
    """How long Stryker took this time (None: not run this time)."""
    error: str | None = None


# An equivalence judge: (record) → the reason it is equivalent, or None.
EquivalenceJudge = Callable[[MutantRecord], "str | None"]


@dataclass(frozen=True, kw_only=True)
class Survivor:
    """An undetected mutant and, if the plan says so, why it is equivalent."""

    record: MutantRecord
    equivalent_reason: str | None

    @property
    def open(self) -> bool:
        return self.equivalent_reason is None


@dataclass(kw_only=True)
class Tally:
    """The figures of one file (or of all files together)."""

    killed: int = 0
    timeout: int = 0
    survived: int = 0
    no_coverage: int = 0
    ignored: int = 0
    errors: int = 0
    equivalent: int = 0

    @property
    def detected(self) -> int:
        return self.killed + self.timeout

    @property
    def non_equivalent(self) -> int:
        """Mutants that count: detected or undetected, minus undetected ones judged equivalent."""
        return self.detected + self.survived + self.no_coverage - self.equivalent

    @property
    def score(self) -> float | None:
        """Share of the non-equivalent mutants detected (None when there are none)."""
        return self.detected / self.non_equivalent if self.non_equivalent else None

    def add(self, status: Status, *, equivalent: bool) -> None:
        if status == "Killed":
            self.killed += 1
        elif status == "Timeout":
            self.timeout += 1
        elif status == "Survived":
            self.survived += 1
        elif status == "NoCoverage":
            self.no_coverage += 1
        elif status == "Ignored":
            self.ignored += 1
        else:
            self.errors += 1
        if equivalent:
            self.equivalent += 1


@dataclass(kw_only=True)
class Judgement:
    """A whole report judged: figures per file and in total, survivors, ignored reasons."""

    per_file: dict[str, Tally] = field(default_factory=dict)
    total: Tally = field(default_factory=Tally)
    survivors: list[Survivor] = field(default_factory=list)
    ignored_reasons: dict[str, int] = field(default_factory=dict)

    @property
    def open_survivors(self) -> list[Survivor]:
        return [survivor for survivor in self.survivors if survivor.open]

    def meets(self, goal: float) -> bool:
        score = self.total.score
        return score is not None and score >= goal


def judge(records: Iterable[MutantRecord], equivalence: EquivalenceJudge) -> Judgement:
    """Count every mutant; survivors carry the plan's equivalence reason, if any."""
    judgement = Judgement()
    for record in records:
        reason = equivalence(record) if record.status in UNDETECTED else None
        judgement.per_file.setdefault(record.file, Tally()).add(
            record.status, equivalent=reason is not None)
        judgement.total.add(record.status, equivalent=reason is not None)
        if record.status in UNDETECTED:
            judgement.survivors.append(Survivor(record=record, equivalent_reason=reason))
        if record.status == "Ignored":
            key = record.status_reason or "(no reason given)"
            judgement.ignored_reasons[key] = judgement.ignored_reasons.get(key, 0) + 1
    return judgement

"""The generated-mutant plan file: which runtime code Stryker mutates, with which checks.

One plan per tutorial (`tutorials/<id>/mutation/stryker-plan.json`). Each group is one
Stryker run with its own incremental file: the code it mutates (whole files, or a part
between two anchor lines, so the range follows edits) and the check files that concern that
code, in the order they run (`-x` stops at the first failure, so broad, quick checks go first).

Equivalent mutants, each with its reason, come in two lists: `ignore` names statements whose
every mutant is equivalent (Stryker's ignorer skips them: not run, not counted), and
`equivalent` names single survivors after a run, matched by file, mutator, replacement and
the text of the line they start on (never by line number, which drifts).
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from pling_harness.project.action_table import ACTION_TABLE_FILE_NAME
from pling_harness.project.datafile import load_json_model
from pling_harness.project.paths import RUNTIME_PATH
from pling_harness.project.tutorials import load_tutorial

# Only the runtime is mutated: what the page runs on, never the harness or the checks.
MUTABLE_PREFIX = RUNTIME_PATH


def plan_path(tutorial_id: str, root: Path) -> Path:
    return load_tutorial(tutorial_id, root).stryker_plan_path(root)


class PlanError(ValueError):
    """The plan file is unreadable, invalid or stale; the message names the file and field."""


class MutateSpec(BaseModel):
    """A runtime file to mutate: whole, or the code from the text `start` through the text `end`.

    The range is exact to the character (Stryker's `file:line:column-line:column`), so it can
    take the decision attributes of a button and leave its CSS classes out. Stryker mutates
    only code that lies wholly inside it.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    file: str
    start: str | None = Field(default=None, min_length=1)
    """Text found exactly once in the file: the range begins with its first character."""
    end: str | None = Field(default=None, min_length=1)
    """Text found exactly once from `start` on: the range ends with its last character."""

    @field_validator("file")
    @classmethod
    def _file_is_runtime_js(cls, value: str) -> str:
        path = PurePosixPath(value)
        if (path.is_absolute() or ".." in path.parts or not value.startswith(MUTABLE_PREFIX)
                or path.suffix != ".js"):
            raise ValueError(f"must be a .js file under {MUTABLE_PREFIX}. Current input: {value!r}")
        return value

    @model_validator(mode="after")
    def _start_and_end_together(self) -> MutateSpec:
        if (self.start is None) != (self.end is None):
            raise ValueError(f"{self.file}: give both start and end, or neither")
        return self

    def stryker_pattern(self, root: Path) -> str:
        """Stryker's `mutate` entry: the path, or `path:line:column-line:column` (lines
        1-based, columns 0-based; the end is the column after `end`'s last character)."""
        if self.start is None or self.end is None:
            if not (root / self.file).is_file():
                raise PlanError(f"mutate: {self.file} does not exist")
            return self.file
        text = (root / self.file).read_text(encoding="utf-8")
        begin = _offset_of(text, self.start, self.file, after=0)
        # Stryker compares the range with Babel's node locations, whose end column is the one
        # after the last character: so is ours.
        finish = _offset_of(text, self.end, self.file, after=begin) + len(self.end)
        (first_line, first_column), (last_line, last_column) = (
            _position(text, begin), _position(text, finish))
        return f"{self.file}:{first_line}:{first_column}-{last_line}:{last_column}"


class Equivalent(BaseModel):
    """A surviving mutant that changes no behaviour anyone can rely on, and why."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    file: str
    mutator: str = Field(min_length=1)
    replacement: str
    line: str = Field(min_length=1)
    """The stripped text of the line the mutant starts on."""
    reason: str = Field(min_length=1)


class IgnoredLine(BaseModel):
    """A statement whose every mutant is equivalent, so Stryker need not run them.

    Stryker reports them as Ignored with `equivalent: <reason>` (not counted). Only for
    plain cases, e.g. a value that only ever feeds debug events.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    file: str
    line: str = Field(min_length=1)
    """The trimmed text of the line the statement starts on."""
    reason: str = Field(min_length=1)


class Group(BaseModel):
    """One Stryker run: the code it mutates and the checks that concern it, in running order."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    mutate: tuple[MutateSpec, ...] = Field(min_length=1)
    checks: tuple[str, ...] = Field(min_length=1)
    """Glob patterns of check files (relative to the checks folder), each matching at least
    one; `file.py::test_name` selects one test function of one file, and
    `actions.json::test_declared[<id>]` one check generated from the tutorial's action table."""

    @field_validator("checks")
    @classmethod
    def _checks_are_plain_names(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for pattern in value:
            if "/" in pattern or pattern.startswith("."):
                raise ValueError(f"must be file patterns inside the checks folder. "
                                 f"Current input: {pattern!r}")
        return value

    def check_files(self, checks_dir: Path) -> tuple[str, ...]:
        """The group's checks as pytest arguments, in running order, each once; a pattern
        matching no file is stale."""
        found: list[str] = []
        for pattern in self.checks:
            files, _, test = pattern.partition("::")
            # The generated checks sit in the action table beside the checks folder.
            folder = checks_dir.parent if files == ACTION_TABLE_FILE_NAME else checks_dir
            matches = sorted(folder.glob(files))
            if not matches:
                raise PlanError(f"group {self.name!r}: check pattern {pattern!r} matches no file "
                                f"in {checks_dir}")
            arguments = [f"{path}::{test}" if test else str(path) for path in matches]
            found += [argument for argument in arguments if argument not in found]
        return tuple(found)

    @property
    def files(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(spec.file for spec in self.mutate))


class Plan(BaseModel):
    """A tutorial's generated-mutant plan."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tutorial: str
    locale: str = "en"
    """The one locale the checks run in per mutant (the runtime's logic is the same in both)."""
    goal: float = Field(default=0.9, gt=0, le=1)
    """Share of the non-equivalent mutants that must be killed."""
    groups: tuple[Group, ...] = Field(min_length=1)
    ignore: tuple[IgnoredLine, ...] = ()
    """Statements left to Stryker's ignorer (not run, not counted), each with its reason."""
    equivalent: tuple[Equivalent, ...] = ()
    """Survivors judged equivalent after a run (counted as such), each with its reason."""

    @field_validator("groups")
    @classmethod
    def _group_names_unique(cls, groups: tuple[Group, ...]) -> tuple[Group, ...]:
        names = [group.name for group in groups]
        duplicates = sorted({name for name in names if names.count(name) > 1})
        if duplicates:
            raise ValueError(f"duplicate group name(s): {', '.join(duplicates)}")
        return groups

    def group(self, name: str) -> Group:
        for group in self.groups:
            if group.name == name:
                return group
        raise PlanError(f"no group named {name!r}; the plan has: "
                        f"{', '.join(g.name for g in self.groups)}")

    def ignored_lines(self, root: Path, files: tuple[str, ...]) -> list[IgnoredLine]:
        """The `ignore` entries for `files`, each checked to still name a line there."""
        entries = [entry for entry in self.ignore if entry.file in files]
        for entry in entries:
            if entry.line not in (line.strip() for line in read_lines(root, entry.file)):
                raise PlanError(f"ignore: {entry.line!r} is no longer a line of {entry.file}; "
                                "update the plan to match the current source")
        return entries

    def equivalence(self, *, file: str, mutator: str, replacement: str, line: str) -> str | None:
        """The reason a survivor is equivalent, or None if the plan does not say it is."""
        for entry in self.equivalent:
            if (entry.file, entry.mutator, entry.replacement, entry.line) == (
                    file, mutator, replacement, line.strip()):
                return entry.reason
        return None


def load_plan(path: Path) -> Plan:
    """Read and validate a plan; errors name the file and field."""
    return load_json_model(path, Plan, PlanError)


def read_lines(root: Path, file: str) -> list[str]:
    return (root / file).read_text(encoding="utf-8").splitlines()


def _offset_of(text: str, anchor: str, file: str, *, after: int) -> int:
    """Where the one occurrence of `anchor` at or after offset `after` begins."""
    count = text.count(anchor, after)
    if count != 1:
        what = "is no longer found" if count == 0 else f"occurs {count} times"
        where = f" after line {_position(text, after)[0]}" if after else ""
        raise PlanError(f"mutate range of {file}: {anchor!r} {what}{where}; update the plan "
                        "to match the current source")
    return text.index(anchor, after)


def _position(text: str, offset: int) -> tuple[int, int]:
    """(1-based line, 0-based column) of a character offset."""
    line_start = text.rfind("\n", 0, offset) + 1
    return text.count("\n", 0, offset) + 1, offset - line_start

"""What scripts/mutate_gate.py reads and writes: its configuration, cosmic-ray's results,
and the score and report made of them."""

from __future__ import annotations

import ast
import json
import tomllib
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

Outcome = Literal["killed", "timeout", "survived", "equivalent", "incompetent", "skipped"]
# What counts against the score: the tests missed these.
MISSED: tuple[Outcome, ...] = ("survived",)
# What counts for it: a test failed, or the run hung past its time (cosmic-ray's kill).
CAUGHT: tuple[Outcome, ...] = ("killed", "timeout")


class ConfigError(Exception):
    """The configuration file is not as described; the message names the file and field."""


class ModuleSpec(BaseModel):
    """One module of the gate and the tests that judge its mutants."""

    model_config = ConfigDict(extra="forbid")

    path: str
    tests: list[str] = Field(min_length=1)
    only: list[str] = Field(default_factory=list)
    """Top-level names (functions, classes, assignments) to mutate; empty: the whole module."""


class Equivalent(BaseModel):
    """A mutant no test can tell from the original, and why (found by its changed line)."""

    model_config = ConfigDict(extra="forbid")

    module: str
    line: str
    """The original line, stripped."""
    mutant: str
    """The mutated line, stripped."""
    reason: str


class GateConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    threshold: float = Field(gt=0, le=1)
    timeout_factor: float = Field(gt=1)
    excluded_operators: list[str] = Field(default_factory=list)
    modules: list[ModuleSpec] = Field(min_length=1)
    equivalents: list[Equivalent] = Field(default_factory=list)

    @classmethod
    def read(cls, path: Path) -> GateConfig:
        try:
            return cls.model_validate(tomllib.loads(path.read_text(encoding="utf-8")))
        except (OSError, tomllib.TOMLDecodeError) as error:
            raise ConfigError(f"{path}: {error}") from None
        except ValidationError as error:
            fields = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}"
                               for e in error.errors())
            raise ConfigError(f"{path}: {fields}") from None


class Mutant(BaseModel):
    """One mutant and how the tests met it."""

    model_config = ConfigDict(extra="forbid")

    module: str
    line: int
    operator: str
    outcome: Outcome
    diff: str = ""
    before: str = ""
    after: str = ""
    reason: str = ""
    """Why an equivalent mutant is one (from the configuration)."""


def definition_lines(source: str, names: Sequence[str], where: str) -> list[str]:
    """cosmic-ray line ranges ("12-40") of the top-level definitions called `names`."""
    ranges: dict[str, str] = {}
    for node in ast.parse(source).body:
        targets = ([node.name] if isinstance(node, ast.FunctionDef | ast.ClassDef)
                   else [t.id for t in getattr(node, "targets", [getattr(node, "target", None)])
                         if isinstance(t, ast.Name)])
        for name in targets:
            if name in names:
                ranges[name] = f"{node.lineno}-{node.end_lineno}"
    missing = [name for name in names if name not in ranges]
    if missing:
        raise ConfigError(f"{where} defines no {', '.join(missing)} at its top level; fix "
                          "`only` in the configuration")
    return [ranges[name] for name in names]


Position = tuple[int, int]
"""(line, column), as cosmic-ray counts them: lines from 1, columns from 0."""


def annotation_spans(source: str) -> list[tuple[Position, Position]]:
    """Where the annotations no one evaluates are: a function's parameters and return, and
    variables outside a class body (pydantic and dataclasses read a class's). Under `from
    __future__ import annotations` a mutant there (`str | None` → `str & None`) changes
    nothing."""
    tree = ast.parse(source)
    in_classes = {id(node) for cls in ast.walk(tree) if isinstance(cls, ast.ClassDef)
                  for node in cls.body}
    found: list[ast.expr | None] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.arg):
            found.append(node.annotation)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found.append(node.returns)
        elif isinstance(node, ast.AnnAssign) and id(node) not in in_classes:
            found.append(node.annotation)
    return [((a.lineno, a.col_offset), (a.end_lineno or a.lineno, a.end_col_offset or 0))
            for a in found if a is not None]


def in_annotation(start: Position, spans: Sequence[tuple[Position, Position]]) -> bool:
    return any(begin <= start < end for begin, end in spans)


def changed_lines(diff: str) -> tuple[str, str]:
    """The first removed and added line of a unified diff that hold code, stripped (a
    removed decorator takes the blank lines and comments around it along)."""
    body = [line for line in diff.splitlines() if not line.startswith(("---", "+++"))]

    def first(sign: str) -> str:
        return next((code for line in body if line.startswith(sign)
                     if (code := line[1:].strip()) and not code.startswith("#")), "")

    return first("-"), first("+")


def read_dump(lines: Iterable[str], module: str) -> list[Mutant]:
    """The mutants of one `cosmic-ray dump` (a JSON pair per line: work item, result)."""
    mutants: list[Mutant] = []
    for line in lines:
        if not line.strip():
            continue
        item, result = json.loads(line)
        [mutation] = item["mutations"]
        diff = (result or {}).get("diff") or ""
        before, after = changed_lines(diff)
        mutants.append(Mutant(module=module, line=int(mutation["start_pos"][0]),
                              operator=mutation["operator_name"], outcome=_outcome(result),
                              diff=diff, before=before, after=after))
    return mutants


def _outcome(result: dict[str, object] | None) -> Outcome:
    if result is None:
        raise ConfigError("cosmic-ray left a mutant without a result (the run was stopped)")
    worker, test = result.get("worker_outcome"), result.get("test_outcome")
    if worker in ("skipped", "no-test"):
        return "skipped"
    if worker != "normal" or test == "incompetent":
        return "incompetent"
    if test == "survived":
        return "survived"
    return "timeout" if result.get("output") == "timeout" else "killed"


def mark_equivalents(mutants: list[Mutant], equivalents: Sequence[Equivalent]
                     ) -> tuple[list[Mutant], list[Equivalent]]:
    """Survivors the configuration names as equivalent get that outcome and its reason;
    also returns the listed equivalents no survivor matched (stale, or killed now)."""
    by_key = {(e.module, e.line, e.mutant): e for e in equivalents}
    used: set[tuple[str, str, str]] = set()
    marked = []
    for mutant in mutants:
        key = (mutant.module, mutant.before, mutant.after)
        if mutant.outcome == "survived" and key in by_key:
            used.add(key)
            mutant = mutant.model_copy(update={"outcome": "equivalent",
                                               "reason": by_key[key].reason})
        marked.append(mutant)
    return marked, [e for key, e in by_key.items() if key not in used]


def score(mutants: Sequence[Mutant]) -> tuple[int, int]:
    """(caught, non-equivalent mutants that ran)."""
    counts = Counter(m.outcome for m in mutants)
    caught = sum(counts[o] for o in CAUGHT)
    return caught, caught + sum(counts[o] for o in MISSED)


def render(mutants: Sequence[Mutant], modules: Sequence[str], *, threshold: float,
           stale: Sequence[Equivalent], heading: str) -> str:
    """The report in Markdown: a row per module, the score, then each survivor's diff."""
    lines = [f"# {heading}", "",
             "| module | mutants | killed | timeout | survived | equivalent | not run | score |",
             "|---|---|---|---|---|---|---|---|"]
    for module in [*modules, "all"]:
        mine = [m for m in mutants if module in ("all", m.module)]
        counts = Counter(m.outcome for m in mine)
        caught, total = score(mine)
        share = f"{100 * caught / total:.1f} %" if total else "-"
        ran = len(mine) - counts["skipped"]
        lines.append(f"| {module} | {ran} | {counts['killed']} | {counts['timeout']} | "
                     f"{counts['survived']} | {counts['equivalent']} | "
                     f"{counts['incompetent']} | {share} |")
    caught, total = score(mutants)
    verdict = "met" if total and caught / total >= threshold else "NOT met"
    lines += ["", f"Score {caught}/{total}; the threshold of {threshold:.0%} is {verdict}. "
              "Excluded operators and lines outside `only` are not counted."]
    for title, outcome in (("Survivors", "survived"), ("Equivalent", "equivalent")):
        found = [m for m in mutants if m.outcome == outcome]
        lines += ["", f"## {title} ({len(found)})"]
        for m in found:
            lines += ["", f"{m.module}:{m.line} ({m.operator})"
                      + (f": {m.reason}" if m.reason else ""), "", "```diff",
                      m.diff.strip(), "```"]
    if stale:
        lines += ["", "## Listed as equivalent, but no survivor matches",
                  *(f"- {e.module}: `{e.line}` → `{e.mutant}`" for e in stale)]
    return "\n".join(lines) + "\n"

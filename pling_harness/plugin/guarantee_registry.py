"""A guarantee of the harness is one unit: one `Guarantee`, declared with `declare(...)` in a
module of `pling_harness/plugin/guarantees/`, says all of it. Its name and what it means in a
user's words (and what a user of any assistant sees or loses when it breaks), the evidence
its proof reads (which decides whether a page served elsewhere can prove it), the named
assertions that prove it, the checks it generates from a tutorial's action table (per action
and locale, or once per locale) and the dock driver's parts each needs (a part the driver
declares absent makes the check n/a with the driver's reason).

Nothing keeps a list of them: the declarations are found by importing every module of that
package (`pkgutil`), as pluggy finds a hook by its mark. Everything that needs the harness's
guarantees asks this module: the guarantee names a check may give `@pytest.mark.guarantee`
(`guarantee_sources`), the generated checks (`plugin/declared/matrix.py`), the function each
runs (`plugin/declared/collect.py`), and `docs/guarantees.md` (`scripts/guarantees_page.py`).

Why in the plugin layer: a declaration names the function its generated check runs, which
works on a `DeclaredRun` (the plugin's fixtures), so the declarations cannot sit below the
plugin. The evidence layer keeps what a run has (`evidence/sources.py`: the sources and why
one is missing) and is handed the guarantees it judges; it never needs the list itself.
This module imports no declaration and not `DeclaredRun` (a `Generates` is generic in the
run its check takes): the declarations import it, it finds them at run time, so the plugin's
modules that need the guarantees' names (the external gate, the marker's names) ask it
without an import circle through the checks.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, Generic, Literal, TypeVar

from pling_harness.evidence.sources import EXTERNAL_SOURCES
from pling_harness.project.action_table import ActionRow
from pling_harness.project.dock_driver import Absent, DriverSpec
from pling_harness.project.guarantee_families import EvidenceSource
from pling_harness.project.tutorials import TUTORIAL_FILE_NAME, Tutorial, TutorialError

# The package whose modules hold the declarations.
DECLARATIONS_PACKAGE = "pling_harness.plugin.guarantees"
# What a page served elsewhere still offers: most guarantees' proof reads only that.
BROWSER_EVIDENCE = EXTERNAL_SOURCES
# Where a generated check runs: once per action of the table and locale, once per table and
# locale, or per row of a testbed table (`declared/testbed_run.py` decides which rows).
Per = Literal["action", "table", "testbed"]
# The run a check takes (`pling_harness.plugin.declared.context.DeclaredRun`).
Run = TypeVar("Run")
RowRule = Callable[[ActionRow], bool]
AlsoProves = tuple[str, ...] | Callable[[ActionRow], tuple[str, ...]]
# Where a table-wide check goes: before the actions' checks (negative), or after them.
LAST = 1_000


def every_row(_: ActionRow) -> bool:
    return True


@dataclass(frozen=True)
class Generates(Generic[Run]):
    """One kind of check a guarantee generates from a tutorial's action table.

    `name` is its id's middle (`<action>-<name>-<locale>`, `table-<name>-<locale>` once per
    table); `run` the check; `rows` which declaration it comes from, in the table's words;
    `when` the rows the table must yield it for (an action's row yields it, or the run fails
    naming the row; `per="table"` ignores it); `also` the other guarantees it proves (or the
    function of the row that says which); `needs` the dock driver's parts it cannot do
    without, by their path (`"page_hooks"`, `"handoff.timer"`); `order` where among the
    row's (or the table's) checks it runs, so ids keep the order shards and durations key on.
    """

    name: str
    run: Callable[[Run], None]
    rows: str
    per: Per = "action"
    when: RowRule = every_row
    also: AlsoProves = ()
    needs: tuple[str, ...] = ()
    order: int = 500

    def also_proves(self, row: ActionRow | None) -> tuple[str, ...]:
        if callable(self.also):
            assert row is not None, f"{self.name}: `also` of a row, for no row"
            return self.also(row)
        return self.also


@dataclass(frozen=True)
class Guarantee:
    """One promise the checks prove: its name, what it `means`, what a user sees or loses
    when it `breaks`, the `evidence` its proof reads, the named assertions that prove it
    (`proven_by`, from `pling_harness.guarantees` or its own module), and the checks it
    generates (`checks`; none where only hand-written checks prove it)."""

    name: str
    means: str
    breaks: str
    evidence: frozenset[EvidenceSource] = BROWSER_EVIDENCE
    proven_by: tuple[Callable[..., object], ...] = ()
    checks: tuple[Generates[Any], ...] = ()


class DeclarationError(Exception):
    """Two declarations clash, or one names a guarantee nobody declares."""


_DECLARED: list[Guarantee] = []


def declare(*guarantees: Guarantee) -> None:
    """Register `guarantees` (called at the top level of a module in DECLARATIONS_PACKAGE)."""
    _DECLARED.extend(guarantees)


@dataclass(frozen=True)
class Registry:
    """The harness's guarantees by name, and every generated check's kind by name with the
    guarantee that declares it."""

    guarantees: Mapping[str, Guarantee]
    kinds: Mapping[str, tuple[Guarantee, Generates[Any]]]

    def kind(self, name: str) -> Generates[Any]:
        return self.kinds[name][1]

    def proves(self, name: str, row: ActionRow | None) -> tuple[str, ...]:
        """The guarantees a check of kind `name` proves on `row`: its declarer's, then its
        `also`."""
        owner, kind = self.kinds[name]
        return (owner.name, *kind.also_proves(row))

    def of(self, per: Per) -> list[Generates[Any]]:
        """The kinds generated `per` action, table or testbed row, in their order."""
        found = [kind for _, kind in self.kinds.values() if kind.per == per]
        return sorted(found, key=lambda kind: kind.order)

    def sources(self) -> dict[str, frozenset[EvidenceSource]]:
        return {name: guarantee.evidence for name, guarantee in self.guarantees.items()}


def build(declared: Iterable[Guarantee]) -> Registry:
    """The registry of `declared`, refusing a name declared twice (a guarantee or a kind)
    and an `also` naming a guarantee nobody declares."""
    guarantees: dict[str, Guarantee] = {}
    kinds: dict[str, tuple[Guarantee, Generates[Any]]] = {}
    for guarantee in declared:
        if guarantee.name in guarantees:
            raise DeclarationError(f"guarantee {guarantee.name!r} is declared twice")
        guarantees[guarantee.name] = guarantee
        for kind in guarantee.checks:
            if kind.name in kinds:
                raise DeclarationError(
                    f"check {kind.name!r} is generated by {kinds[kind.name][0].name!r} and "
                    f"{guarantee.name!r}; a kind belongs to one guarantee (name it in the "
                    "other's `also`)")
            kinds[kind.name] = (guarantee, kind)
    for owner, kind in kinds.values():
        named = kind.also if isinstance(kind.also, tuple) else ()
        unknown = [name for name in named if name not in guarantees]
        if unknown:
            raise DeclarationError(f"check {kind.name!r} of {owner.name!r} also proves "
                                   f"{unknown}, which no module declares")
    return Registry(guarantees=guarantees, kinds=kinds)


@cache
def registry() -> Registry:
    """Every declaration in DECLARATIONS_PACKAGE, found by importing its modules."""
    package = importlib.import_module(DECLARATIONS_PACKAGE)
    for module in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"{DECLARATIONS_PACKAGE}.{module.name}")
    return build(_DECLARED)


def require_parts(spec: DriverSpec, parts: Iterable[str]) -> None:
    """NotObservable (the check is n/a with the driver's reason) for the first of `parts`,
    paths of the driver's fields, that it declares absent."""
    for path in parts:
        value: object = spec
        for step, attribute in enumerate(path.split(".")):
            value = getattr(value, attribute)
            if isinstance(value, Absent):
                spec.require(value, ".".join(path.split(".")[:step + 1]))


def guarantee_sources(tutorial: Tutorial | None) -> dict[str, frozenset[EvidenceSource]]:
    """Every guarantee a check of `tutorial` may name: the harness's and the tutorial's own
    (its tutorial.json `guarantees`), with the sources each proof reads. A tutorial may not
    redefine one of the harness's."""
    harness = registry().sources()
    if tutorial is None:
        return harness
    own = tutorial_guarantees(tutorial)
    taken = sorted(own.keys() & harness.keys())
    if taken:
        raise TutorialError(
            f"tutorial {tutorial.id!r} declares {taken} under guarantees in its "
            f"{TUTORIAL_FILE_NAME}, but the harness has guarantees of those names; name the "
            "tutorial's own differently, or drop them and use the harness's")
    return {**harness, **{name: own[name].evidence for name in own}}


def tutorial_guarantees(tutorial: Tutorial) -> dict[str, Guarantee]:
    """A tutorial's own guarantees (its tutorial.json `guarantees`), as the same unit as the
    harness's: proven by the hand-written checks in its `checks/` that name it in
    `@pytest.mark.guarantee`, so they generate nothing from the action table."""
    return {name: Guarantee(name=name, means=family.means, breaks=family.breaks or family.means,
                            evidence=frozenset(family.evidence))
            for name, family in tutorial.guarantees.items()}

"""Which generated checks a tutorial's action table implies, each with the guarantees it
proves: what the guarantees' declarations (`pling_harness/plugin/guarantees/`) generate for
its rows, and what the table must therefore yield (`unaccounted`)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from pling_harness.plugin.guarantee_registry import Registry, registry
from pling_harness.project.action_table import ActionTable

# The attribute of `test_declared` holding its cases, which collection.py parametrizes first
# (the check's id leads, the browser's follows, as the locale leads in a hand-written one).
DECLARED_CASES = "pling_declared_cases"
# The "action" of the checks generated once per table and locale.
TABLE_ROW = "table"


@dataclass(frozen=True)
class DeclaredCheck:
    """One generated check: `check` (the name of a kind a guarantee declares) for `action`,
    proving `guarantees`."""

    action: str
    check: str
    guarantees: tuple[str, ...]

    @property
    def id(self) -> str:
        return f"{self.action}-{self.check}"


def declared_checks(table: ActionTable, known: Registry | None = None) -> list[DeclaredCheck]:
    """Every check the table implies: the table-wide checks that come first (the tutorial's
    words: the files, then the page in every dock state find most copy faults, so a mutant
    meets them first), then action by action in the table's order each kind whose rows
    include it, then the rest of the table-wide checks (its comparison with the page's
    projection, the server's guards, the isolation between tests)."""
    known = known or registry()
    once = known.of("table")
    found = [DeclaredCheck(TABLE_ROW, kind.name, known.proves(kind.name, None))
             for kind in once if kind.order < 0]
    for action, row in table.actions.items():
        found += [DeclaredCheck(action, kind.name, known.proves(kind.name, row))
                  for kind in known.of("action") if kind.when(row)]
    return found + [DeclaredCheck(TABLE_ROW, kind.name, known.proves(kind.name, None))
                    for kind in once if kind.order >= 0]


def unaccounted(table: ActionTable, produced: Iterable[tuple[str, str, str]],
                locales: Iterable[str], known: Registry | None = None) -> list[str]:
    """Each action (or the table) × guarantee × locale the declarations say the table must
    yield a check for, that `produced` ((action, check, locale) triples: the run's collected
    checks, each of which then passes, fails or is n/a with its reason) lacks."""
    known = known or registry()
    have = set(produced)
    expected = [(TABLE_ROW, kind.name) for kind in known.of("table")]
    expected += [(action, kind.name) for action, row in table.actions.items()
                 for kind in known.of("action") if kind.when(row)]
    return [f"{action} × {known.kinds[check][0].name} × {locale} (its check {check!r})"
            for locale in locales for action, check in expected
            if (action, check, locale) not in have]

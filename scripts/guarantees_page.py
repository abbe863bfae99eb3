"""Write the generated parts of docs/guarantees.md from the guarantees' declarations
(`pling_harness/plugin/guarantees/`, found by the registry) and r-15's own (its tutorial.json):
the table of guarantees (what each means, what a user sees or loses when it breaks, the
evidence its proof reads, what proves it) and the table of checks generated from an action
table (from which declaration, which guarantees).

    .venv/bin/python scripts/guarantees_page.py          # rewrite them
    .venv/bin/python scripts/guarantees_page.py --check  # exit 1 if they are out of date

Only what lies between each pair of markers is written; the hand-written text around them
is kept.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from pling_harness.plugin.guarantee_registry import (
    Generates,
    Guarantee,
    Registry,
    registry,
    tutorial_guarantees,
)
from pling_harness.project.tutorials import load_tutorial

PAGE = Path(__file__).resolve().parents[1] / "docs" / "guarantees.md"
TUTORIAL = "r-15"
END = "<!-- generated: end -->"


def begin(part: str) -> str:
    return (f"<!-- generated: {part}. scripts/guarantees_page.py writes what lies between "
            "these markers from the declarations in pling_harness/plugin/guarantees/ (and "
            "the tutorial's tutorial.json); edit them there -->")


def cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def proven_by(guarantee: Guarantee, known: Registry) -> str:
    """Its generated checks, those of other guarantees that also prove it (by every row),
    and its named assertions."""
    checks = [f"`{kind.name}`" for kind in guarantee.checks if kind.per != "testbed"]
    also = [f"`{name}`" for name, (_, kind) in known.kinds.items()
            if kind.per != "testbed" and isinstance(kind.also, tuple)
            and guarantee.name in kind.also]
    assertions = [f"`guarantees.{name_of(function)}`" for function in guarantee.proven_by]
    parts = ([f"generated: {', '.join(checks)}"] if checks else []) \
        + ([f"also: {', '.join(also)}"] if also else []) + assertions
    return "; ".join(parts) or "hand-written checks"


def name_of(function: Callable[..., object]) -> str:
    return getattr(function, "__name__", repr(function))


def guarantee_table(known: Registry) -> str:
    own = tutorial_guarantees(load_tutorial(TUTORIAL))
    rows = ["| guarantee | what it means | when it breaks, a user | its proof reads | proven by |",
            "|---|---|---|---|---|"]
    for guarantee in [*known.guarantees.values(), *own.values()]:
        whose = f" ({TUTORIAL}'s own)" if guarantee.name in own else ""
        rows.append(f"| `{guarantee.name}`{whose} | {cell(guarantee.means)} | "
                    f"{cell(guarantee.breaks)} | {', '.join(sorted(guarantee.evidence))} | "
                    f"{proven_by(guarantee, known) if not whose else 'its hand-written checks'} |")
    return "\n".join(rows) + "\n"


def check_name(kind: Generates[object]) -> str:
    return f"`table-{kind.name}`" if kind.per == "table" else f"`{kind.name}`"


def check_table(known: Registry) -> str:
    """Each generated kind: the actions' in their order, then the table's (once per locale);
    kinds of one declaration with the same words share a row (the three lifecycles)."""
    rows = ["| generated check | from which declaration | guarantees |", "|---|---|---|"]
    kinds = [*known.of("action"), *known.of("table")]
    merged: list[tuple[list[Generates[object]], str]] = []
    for kind in kinds:
        owner = known.kinds[kind.name][0].name
        also = kind.also if isinstance(kind.also, tuple) else ()
        guarantees = ", ".join(f"`{name}`" for name in (owner, *also))
        if merged and merged[-1][0][-1].rows == kind.rows and merged[-1][1] == guarantees:
            merged[-1][0].append(kind)
        else:
            merged.append(([kind], guarantees))
    for group, guarantees in merged:
        once = " (once per locale)" if group[0].per == "table" else ""
        parts = f"; needs the driver's {', '.join(f'`{p}`' for p in group[-1].needs)}" \
            if group[-1].needs else ""
        rows.append(f"| {', '.join(check_name(kind) for kind in group)}{once} | "
                    f"{cell(group[0].rows)}{parts} | {guarantees} |")
    return "\n".join(rows) + "\n"


def rendered() -> dict[str, str]:
    known = registry()
    return {"guarantees": guarantee_table(known), "generated checks": check_table(known)}


def rewritten(page: str, parts: dict[str, str]) -> str:
    for part, text in parts.items():
        marker = begin(part)
        if page.count(marker) != 1:
            raise ValueError(f"{PAGE} must hold the marker {marker!r} once")
        before, rest = page.split(marker)
        if END not in rest:
            raise ValueError(f"{PAGE}: no {END!r} after {marker!r}")
        _, after = rest.split(END, 1)
        page = f"{before}{marker}\n\n{text}\n{END}{after}"
    return page


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 if the page is not what would be written")
    args = parser.parse_args(argv)
    page = PAGE.read_text(encoding="utf-8")
    try:
        wanted = rewritten(page, rendered())
    except ValueError as error:
        print(f"guarantees_page: {error}", file=sys.stderr)
        return 2
    if args.check:
        if wanted != page:
            print(f"{PAGE} is out of date: run scripts/guarantees_page.py", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(wanted, encoding="utf-8")
    print(f"wrote {PAGE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""A tutorial's pages table: its tutorial.json's `pages` and the project's own (`pages` in
`[tool.pling]` or pling.toml), one row per name (`pling_harness.project.page_rows`)."""

from __future__ import annotations

from pathlib import Path

from pling_harness.project.page_rows import PageRow, PageRowError, merged_rows
from pling_harness.project.root import find_settings
from pling_harness.project.tutorials import TUTORIAL_FILE_NAME, Tutorial

# The page a tutorial always has: its fixture, served by the fixture server itself.
OURS = "ours"


def pages_table(tutorial: Tutorial, root: Path) -> dict[str, PageRow]:
    """Every page `tutorial` can be checked on, by name: `ours` (unless a row names it),
    the tutorial's rows, then the project's. A name in two tables is a PageRowError."""
    found = find_settings(root.resolve())
    project_rows = found[1].pages if found is not None else ()
    where = str(found[0]) if found is not None else "the project's settings"
    rows = merged_rows((f"tutorials/{tutorial.id}/{TUTORIAL_FILE_NAME}", tutorial.pages),
                       (where, project_rows))
    return {OURS: PageRow(name=OURS), **rows} if OURS not in rows else rows


def page_row(tutorial: Tutorial, root: Path, name: str) -> PageRow:
    """The row named `name`; a PageRowError listing the names there are otherwise."""
    table = pages_table(tutorial, root)
    if name not in table:
        raise PageRowError(f"{tutorial.short_id} has no page {name!r}; its pages: "
                           f"{', '.join(table)} (rows under `pages` in its "
                           f"{TUTORIAL_FILE_NAME} or in [tool.pling]: docs/adding-a-page.md)")
    return table[name]


def row_directory(row: PageRow, root: Path) -> Path:
    return (root / row.cwd).resolve()


def row_driver(row: PageRow, tutorial: Tutorial, root: Path) -> Path | None:
    """The row's dock driver file, absolute; None: the tutorial's own choice."""
    return None if row.driver is None else (tutorial.directory(root) / row.driver).resolve()

"""How a page is served on a framework release: from its row of the pages table.

A copy of the page's folder (the row's `cwd`; the copy `.<folder>-replay-<process id>`
beside it, so its relative imports resolve; one per run, so two runs in one checkout never
share one) gets the release's `node_modules` linked in, its Vite bundle cache kept with the
install, and the bug's `page_swaps` laid over it. `serve_page` is then the page's own row with
its `cwd` pointed at the copy: the check run starts it over its own fixture server, exactly as
`pling-tutorial check <tutorial> --page <page>` starts the page itself. So a page served on
releases is any row whose folder has a package.json (`served_pages`), and nothing here knows
a page kind.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from pling_harness.mutation.releases import PageSwap, ReleasePins, installed_release
from pling_harness.project.page_rows import PageRow, PageRowError
from pling_harness.project.pages_table import page_row, pages_table, row_directory
from pling_harness.project.tutorials import Tutorial

# Vite's folder of bundled packages in a page (its vite.config.ts's cacheDir).
VITE_CACHE = ".vite-cache"
# What a copy of the page never takes from its folder: its packages (the release's are
# linked in), its bundle cache (kept with the install) and its builds.
NOT_COPIED = ("node_modules", VITE_CACHE, "dist")


class ServingError(RuntimeError):
    """The page cannot be served on a release (no such page, or a page swap that no longer
    applies); the message says which."""


def served_pages(tutorial: Tutorial, root: Path) -> tuple[str, ...]:
    """The rows a release can be served under: those with a command whose folder has a
    package.json (its lock says what a release replaces)."""
    return tuple(name for name, row in pages_table(tutorial, root).items()
                 if row.command is not None
                 and (row_directory(row, root) / "package.json").is_file())


@dataclass(frozen=True)
class Place:
    """Where a replay runs: the project root, its tutorial, the page and the locale."""

    root: Path
    tutorial: Tutorial
    page: str
    locale: str = "en"

    @property
    def row(self) -> PageRow:
        """The page's row; a ServingError when the page is not one served on releases."""
        try:
            row = page_row(self.tutorial, self.root, self.page)
        except PageRowError as error:
            raise ServingError(str(error)) from None
        if self.page not in served_pages(self.tutorial, self.root):
            raise ServingError(
                f"no way to serve page {self.page!r} on a release (its row has no command, "
                "or its folder no package.json); pages served on releases: "
                f"{', '.join(served_pages(self.tutorial, self.root))}")
        return row

    @property
    def directory(self) -> Path:
        """The page's own folder (its row's `cwd`)."""
        return row_directory(self.row, self.root)

    @property
    def copy(self) -> Path:
        directory = self.directory
        return directory.parent / f".{directory.name}-replay-{os.getpid()}"


def serve_page(place: Place, copy: Path) -> PageRow:
    """The page's row serving `copy` (a copy of its folder on a release): its `cwd` pointed
    at the copy, everything else as the row says."""
    cwd = copy.resolve().relative_to(place.root.resolve()).as_posix()
    return place.row.model_copy(update={"cwd": cwd})


def copy_page(directory: Path, copy: Path, node_modules: Path) -> None:
    """`directory`'s page copied to `copy` (a sibling, so its relative imports resolve) with
    `node_modules` linked in: a release under replay. Vite holds one lock per page folder,
    so a copy is served beside a running `dev`."""
    shutil.rmtree(copy, ignore_errors=True)
    # Everything else, dotfiles too: Vite reads a page's `.env` files.
    shutil.copytree(directory, copy, symlinks=True,
                    ignore=lambda _, names: [name for name in names if name in NOT_COPIED])
    (copy / "node_modules").symlink_to(node_modules.resolve(), target_is_directory=True)


@contextmanager
def page_on(place: Place, pins: ReleasePins,
            swaps: tuple[PageSwap, ...] = ()) -> Iterator[Path]:
    """A copy of the page with `pins` installed under it and `swaps` laid over it; removed
    on leaving."""
    directory = place.directory  # a ServingError first, for a page not served on releases
    copy = place.copy
    node_modules = installed_release(directory, pins)
    copy_page(directory, copy, node_modules)
    # Vite's bundle of the release's packages, kept with the install: a minute or more to
    # build for CopilotKit, once per release rather than once per seat.
    bundles = node_modules.parent / f"vite-cache-{place.page}"
    bundles.mkdir(exist_ok=True)
    (copy / VITE_CACHE).symlink_to(bundles, target_is_directory=True)
    try:
        for swap in swaps:
            target = copy / swap.file
            text = target.read_text(encoding="utf-8")
            if text.count(swap.old) != 1:
                raise ServingError(f"{swap.file} no longer holds exactly one {swap.old!r}; "
                                   f"update the bug's page_swaps in {place.page}'s releases "
                                   "file")
            target.write_text(text.replace(swap.old, swap.new), encoding="utf-8")
        yield copy
    finally:
        shutil.rmtree(copy, ignore_errors=True)

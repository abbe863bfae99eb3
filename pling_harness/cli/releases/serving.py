"""How a page is served on a framework release: the one place that knows it.

A copy of the page (`fixtures/.<short id>-<page>-replay-<process id>/`, beside it so its
relative imports resolve; one per run, so two runs in one checkout never share one) gets the
release's `node_modules` linked in, its Vite bundle cache kept with the install, and the
bug's `page_swaps` laid over it; `serve_page` then starts it as
`pling-tutorial dev <tutorial> --page <page>` does (the AI SDK page under the release's own
Node.js; CopilotKit's runtime inside Vite). When pages become data rows of the tutorial
(a command with `{port}`, `{api_origin}`, `{model_url}`), `serve_page` is the function that
switches to them; nothing else here knows a page kind.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from pling_harness.cli.ai_sdk_page import ai_sdk_vite, copy_page
from pling_harness.cli.copilotkit_page import copilotkit_vite
from pling_harness.cli.react_page import ViteServer
from pling_harness.mutation.releases import PageSwap, ReleasePins, installed_release
from pling_harness.project.paths import FIXTURES_DIR_NAME
from pling_harness.project.tutorials import Tutorial

# Vite's folder of bundled packages in a page (its vite.config.ts's cacheDir).
VITE_CACHE = ".vite-cache"
# Each page kind's Vite, as `dev <tutorial> --page <page>` starts it.
_VITES: dict[str, Callable[..., ViteServer]] = {"ai-sdk": ai_sdk_vite,
                                                "copilotkit": copilotkit_vite}
SERVED_PAGES = tuple(_VITES)


class ServingError(RuntimeError):
    """The page cannot be served on a release (no such page, or a page swap that no longer
    applies); the message says which."""


@dataclass(frozen=True)
class Place:
    """Where a replay runs: the project root, its tutorial, the page and the locale."""

    root: Path
    tutorial: Tutorial
    page: str
    locale: str = "en"

    @property
    def directory(self) -> Path:
        return self.root / FIXTURES_DIR_NAME / f"{self.tutorial.short_id}-{self.page}"

    @property
    def copy(self) -> Path:
        return (self.root / FIXTURES_DIR_NAME /
                f".{self.tutorial.short_id}-{self.page}-replay-{os.getpid()}")


def serve_page(place: Place, directory: Path, api_origin: str, model_url: str) -> ViteServer:
    """The page in `directory` (a copy on a release), not started: its business API at
    `api_origin`, its server's model at `model_url`, on a free port."""
    vite = _VITES.get(place.page)
    if vite is None:
        raise ServingError(f"no way to serve page {place.page!r} on a release; pages served "
                           f"on releases: {', '.join(SERVED_PAGES)}")
    return vite(directory, api_origin=api_origin, model_base_url=model_url, port=0)


@contextmanager
def page_on(place: Place, pins: ReleasePins,
            swaps: tuple[PageSwap, ...] = ()) -> Iterator[Path]:
    """A copy of the page with `pins` installed under it and `swaps` laid over it; removed
    on leaving."""
    if place.page not in _VITES:
        raise ServingError(f"no way to serve page {place.page!r} on a release; pages served "
                           f"on releases: {', '.join(SERVED_PAGES)}")
    copy = place.copy
    node_modules = installed_release(place.directory, pins)
    copy_page(place.directory, copy, node_modules)
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

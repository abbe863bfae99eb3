"""Which tutorial a test checks, and so in which locales it runs.

In this order: the tutorial of `--pling-choices FILE` (what `pling-tutorial check <id>`
resolved), or `--pling-tutorial ID`; else the
tutorial whose checks folder holds the test (`.../tutorials/<id>/checks/...`); else the only
tutorial under `--pling-root`. Anything else is a usage error that names the fix. The
tutorial itself is always read from `--pling-root` (the mutation runner's copy), whatever
folder its checks were collected from.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest

from pling_harness.plugin import choices
from pling_harness.plugin.choices import LOCALE_OPTION as LOCALE_OPTION
from pling_harness.plugin.choices import TUTORIAL_OPTION as TUTORIAL_OPTION
from pling_harness.plugin.guarantee_registry import guarantee_sources
from pling_harness.project.action_table import ACTION_TABLE_FILE_NAME
from pling_harness.project.guarantee_families import EvidenceSource
from pling_harness.project.paths import TUTORIALS_DIR_NAME
from pling_harness.project.run_choices import Chosen, RunChoices, default, option
from pling_harness.project.tutorials import Tutorial, TutorialError, list_tutorials, load_tutorial

CHECKS_DIR_NAME = "checks"
_LOADED_KEY = pytest.StashKey[dict[str, Tutorial]]()


def _checks_at(path: Path) -> int | None:
    """Where `tutorials` is among the parts of a path inside `tutorials/<id>/checks/` or of a
    tutorial's action table (`tutorials/<id>/actions.json`), else None."""
    parts = path.parts
    for index in range(len(parts) - 2):
        if parts[index] == TUTORIALS_DIR_NAME and (
                parts[index + 2] == CHECKS_DIR_NAME
                or (parts[index + 2] == ACTION_TABLE_FILE_NAME and index + 3 == len(parts))):
            return index
    return None


def root_of_checks(path: Path) -> Path | None:
    """The folder above `tutorials/<id>/checks/` (or `tutorials/<id>/actions.json`) when
    `path` is inside one, else None."""
    index = _checks_at(path)
    return Path(*path.parts[:index]) if index is not None else None


def tutorial_named_by_path(path: Path) -> str | None:
    """`<id>` of a path inside `tutorials/<id>/checks/`, or of `tutorials/<id>/actions.json`,
    else None."""
    index = _checks_at(path)
    return path.parts[index + 1] if index is not None else None


def tutorial_name(config: pytest.Config, path: Path | None, root: Path) -> str:
    """The id (or short id) of the tutorial a test at `path` checks (see the module)."""
    settled = choices.of_run(config)
    if settled is not None:
        return settled.tutorial.value
    given = config.getoption(TUTORIAL_OPTION)
    return str(given) if given else default_tutorial_name(path, root)


def default_tutorial_name(path: Path | None, root: Path) -> str:
    """Without --pling-tutorial: the tutorial whose checks folder holds `path`, else the
    only tutorial under `root`; else a UsageError naming the option."""
    named = tutorial_named_by_path(path) if path is not None else None
    if named is not None:
        return named
    try:
        tutorials = list_tutorials(root)
    except TutorialError as error:
        raise pytest.UsageError(str(error)) from None
    if len(tutorials) == 1:
        return tutorials[0].id
    known = ", ".join(t.short_id for t in tutorials) or "none"
    raise pytest.UsageError(
        f"{path or 'this run'} is not in a tutorial's checks folder and {root} holds "
        f"{len(tutorials)} tutorials ({known}); say which with {TUTORIAL_OPTION} ID")


def chosen_tutorial(config: pytest.Config, path: Path | None, root: Path) -> Tutorial:
    """The tutorial a test at `path` checks, read once per run from `root`."""
    name = tutorial_name(config, path, root)
    loaded = config.stash.setdefault(_LOADED_KEY, {})
    if name not in loaded:
        try:
            loaded[name] = load_tutorial(name, root)
        except TutorialError as error:
            raise pytest.UsageError(f"{TUTORIAL_OPTION} {name}: {error}") from None
    return loaded[name]


def run_locales(config: pytest.Config, tutorial: Tutorial) -> list[str]:
    """The locales a test of `tutorial` runs in: the run's choice (choices.py), else its
    `locales` in their declared order, or the one `--pling-locale` names (which the tutorial
    must offer)."""
    settled = choices.of_run(config)
    if settled is not None and settled.tutorial.value == tutorial.id:
        return list(settled.locales.value)
    only = config.getoption(LOCALE_OPTION)
    if only is None:
        return list(tutorial.locales)
    if only not in tutorial.locales:
        raise pytest.UsageError(
            f"{LOCALE_OPTION} {only}: {tutorial.short_id} offers {', '.join(tutorial.locales)} "
            f"(its tutorial.json `locales`); use one of them. Current input: {only!r}")
    return [str(only)]


def run_choices(config: pytest.Config, root: Chosen[str]) -> RunChoices | None:
    """The run's choices (choices.py) when its tutorial is known before collection: from
    --pling-choices, --pling-tutorial, or the only tutorial under `root`, checked with its
    --pling-locale; else None (each test's tutorial comes from its checks folder)."""
    given = choices.of_run(config)
    if given is not None:
        return given
    named = config.getoption(TUTORIAL_OPTION)
    if not named:
        try:
            if len(list_tutorials(Path(root.value))) != 1:
                return None
        except TutorialError as error:
            raise pytest.UsageError(str(error)) from None
    tutorial = chosen_tutorial(config, None, Path(root.value))
    run_locales(config, tutorial)
    source = (option(TUTORIAL_OPTION) if named
              else default(f"the only tutorial under {root.value}"))
    return choices.settle(config, tutorial, root, source)


def known_guarantees(config: pytest.Config, path: Path,
                     root: Path | None) -> Mapping[str, frozenset[EvidenceSource]]:
    """The guarantees a check at `path` may name, with the evidence each proof reads: the
    harness's and its tutorial's own (only the harness's when no tutorial can be told, or
    the project has no tutorials: `root` None)."""
    if root is None:
        return guarantee_sources(None)
    try:
        tutorial = chosen_tutorial(config, path, root)
    except pytest.UsageError:
        return guarantee_sources(None)
    return guarantee_sources(tutorial)

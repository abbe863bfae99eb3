"""The mutant catalogue file format and how a mutant is applied to a copy of the served files."""

from __future__ import annotations

import shutil
from pathlib import Path, PurePosixPath
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from pling_harness.project.datafile import load_json_model
from pling_harness.project.page_rows import PageName
from pling_harness.project.paths import (
    FIXTURES_DIR_NAME,
    PACKAGE_DIR,
    TUTORIALS_DIR_NAME,
    WEB_PATH,
)
from pling_harness.project.tutorials import MUTATION_DIR_NAME, load_tutorial

# The system under test may be mutated: what the fixture server serves, and the server and
# model gateway themselves. The checks and the harness's assertions never are.
MUTABLE_PREFIXES = (
    f"{FIXTURES_DIR_NAME}/",
    f"{TUTORIALS_DIR_NAME}/",
    "pling_harness/server/",
    WEB_PATH,  # the reference runtime and the testbed the server serves from the package
)
# Copied into every mutant's root (the harness too, so a server mutant is what gets imported);
# check suites and caches stay behind.
COPIED_TOP_DIRS = (FIXTURES_DIR_NAME, TUTORIALS_DIR_NAME, "pling_harness")
# A project that is not the harness's own checkout has no pling_harness/ of its own: its copy
# takes the installed package's, which serves the runtime and runs the checks
# (pling_harness/mutation/launch.py).
HARNESS_DIR_NAME = "pling_harness"
# A React page's installed packages and build output stay behind too: node_modules is linked
# into the copy instead (`link_installed_packages`), and each copy builds its own.
_IGNORED_NAMES = shutil.ignore_patterns("__pycache__", "checks", "*.pyc", "node_modules", "dist",
                                        ".vite-cache")


def copy_ignore(directory: str, names: list[str]) -> set[str]:
    """What `shutil.copytree` leaves out of a mutant's copy: the names above anywhere, and a
    tutorial's own mutation folder (its catalogue and plan are not served). Only the one
    right under `tutorials/<id>/`: the copy's `pling_harness/mutation/` is what runs its checks."""
    ignored = set(_IGNORED_NAMES(directory, names))
    if Path(directory).parent.name == TUTORIALS_DIR_NAME and MUTATION_DIR_NAME in names:
        ignored.add(MUTATION_DIR_NAME)
    return ignored

# Which page a mutant is checked on: ours (no-build ES modules), or the React page
# (fixtures/<short id>-react, served by Vite: `mutate --external --page react`).
# A row of the tutorial's pages table (pling_harness/project/page_rows.py), by its name.
MutantPage = PageName


def catalogue_path(tutorial_id: str, root: Path) -> Path:
    """The tutorial's catalogue: its folder `tutorials/<id>/mutation/catalogue/`, one JSON
    file per area (confirmation, handoff, server, ...), so one area's mutants read together."""
    return load_tutorial(tutorial_id, root).catalogue_directory(root)


class CatalogueError(ValueError):
    """The catalogue file is unreadable or invalid; the message names the file and field."""


class StaleMutant(RuntimeError):
    """A mutant's original text is not found exactly once in its file."""


class Mutant(BaseModel):
    """One realistic bug: replace `original` (found exactly once) in `file` by `replacement`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    description: str = Field(min_length=1)
    file: str = Field(min_length=1)
    original: str = Field(min_length=1)
    replacement: str
    expected: tuple[str, ...] = Field(min_length=1)
    """Guarantee names (as in @pytest.mark.guarantee) that must catch this mutant."""
    locales: tuple[str, ...] = ()
    """Locales to run the checks in; one is enough unless the bug is locale-specific. None
    given: the tutorial's `default_locale`."""
    also_run: tuple[str, ...] = ()
    """Test files of the harness's own suite (tests/...) to run beside the check suite."""
    page: MutantPage = "ours"
    """The page whose bug it is; "react", "ai-sdk" and "copilotkit" mutants run only with
    `--external --page <page>`."""
    refused_with: str | None = Field(default=None, min_length=1)
    """For a bug that leaves the page uncheckable (it throws while loading, so no dock): text
    that the harness's refusal of the page must contain (external mode's preflight names the
    error the page threw). A run stopped by that refusal kills the mutant; a run stopped by
    any other reason is broken, never survived."""

    @field_validator("also_run")
    @classmethod
    def _also_run_is_under_tests(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for entry in value:
            path = PurePosixPath(entry)
            if path.is_absolute() or ".." in path.parts or path.parts[0] != "tests":
                raise ValueError(f"must be test files under tests/. Current input: {entry!r}")
        return value

    @field_validator("file")
    @classmethod
    def _file_is_served_content(cls, value: str) -> str:
        path = PurePosixPath(value)
        if path.is_absolute() or ".." in path.parts or not value.startswith(MUTABLE_PREFIXES):
            raise ValueError(
                f"must be a relative path under {', '.join(MUTABLE_PREFIXES)}. "
                f"Current input: {value!r}"
            )
        return value


class Catalogue(BaseModel):
    """A tutorial's mutants."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tutorial: str
    locales: tuple[str, ...] = ()
    """The locales its mutants' checks run in where a mutant names none of its own (none
    here either: the tutorial's `default_locale`)."""
    mutants: tuple[Mutant, ...] = Field(min_length=1)

    @model_validator(mode="before")
    @classmethod
    def _mutants_take_the_catalogues_locales(cls, data: Any) -> Any:
        if not isinstance(data, dict) or not data.get("locales"):
            return data
        mutants = [{**mutant, "locales": data["locales"]}
                   if isinstance(mutant, dict) and "locales" not in mutant else mutant
                   for mutant in data.get("mutants", [])]
        return {**data, "mutants": mutants}

    @field_validator("mutants")
    @classmethod
    def _names_unique(cls, mutants: tuple[Mutant, ...]) -> tuple[Mutant, ...]:
        seen: set[str] = set()
        for mutant in mutants:
            if mutant.name in seen:
                raise ValueError(f"duplicate mutant name {mutant.name!r}")
            if mutant.original == mutant.replacement:
                raise ValueError(f"mutant {mutant.name!r} replaces its text by itself")
            seen.add(mutant.name)
        return mutants


def covering(catalogue: Catalogue) -> Catalogue:
    """One mutant per guarantee the catalogue expects: the first that expects it alone, else the
    first that expects it at all; in catalogue order. Proves every guarantee can fail at a
    fraction of the whole catalogue's cost (CI runs this; `mutate` runs everything)."""
    chosen: set[str] = set()
    for guarantee in sorted({g for mutant in catalogue.mutants for g in mutant.expected}):
        candidates = [m for m in catalogue.mutants if guarantee in m.expected]
        alone = [m for m in candidates if m.expected == (guarantee,)]
        chosen.add((alone or candidates)[0].name)
    return catalogue.model_copy(
        update={"mutants": tuple(m for m in catalogue.mutants if m.name in chosen)})


def load_catalogue(path: Path) -> Catalogue:
    """Read and validate a catalogue: one file, or a folder of area files merged in name order.

    Errors name the file and field; a mutant name used in two area files is an error too.
    """
    if not path.is_dir():
        return load_json_model(path, Catalogue, CatalogueError)
    files = sorted(path.glob("*.json"))
    if not files:
        raise CatalogueError(f"{path}: no *.json catalogue files in this folder")
    parts = [load_json_model(file, Catalogue, CatalogueError) for file in files]
    for file, part in zip(files, parts, strict=True):
        if part.tutorial != parts[0].tutorial:
            raise CatalogueError(f"{file}: field tutorial: {part.tutorial!r} differs from "
                                 f"{parts[0].tutorial!r} in {files[0].name}")
    mutants = [mutant for part in parts for mutant in part.mutants]
    try:
        return Catalogue(tutorial=parts[0].tutorial, mutants=tuple(mutants))
    except ValueError as error:
        raise CatalogueError(f"{path}: {error}") from error


def check_fresh(mutant: Mutant, source_root: Path) -> None:
    """Raise StaleMutant unless the mutant's original text occurs exactly once in its file."""
    target = served_file(mutant.file, source_root)
    if not target.is_file():
        raise StaleMutant(f"mutant {mutant.name!r}: file {mutant.file} does not exist")
    count = target.read_text(encoding="utf-8").count(mutant.original)
    if count != 1:
        found = "is no longer found" if count == 0 else f"occurs {count} times"
        raise StaleMutant(
            f"mutant {mutant.name!r}: its original text {found} in {mutant.file}; "
            "update the catalogue to match the current source"
        )


def served_file(path: str, source_root: Path) -> Path:
    """Where `path` (relative to a root) is read from: the root's own file, or, for the
    package's files in a root without a copy of it (a tutorial made by `new`), the installed
    package that materialise copies there: its runtime is what such a page is served."""
    top = Path(path).parts[0]
    if top == HARNESS_DIR_NAME and not (source_root / HARNESS_DIR_NAME).is_dir():
        return PACKAGE_DIR.parent / path
    return source_root / path


def materialise(mutant: Mutant | None, *, source_root: Path, dest_root: Path) -> Path:
    """Copy the served files to `dest_root` and apply `mutant` there (None: a clean copy).

    The source tree is only read: mutants never touch the real files.
    """
    for top in COPIED_TOP_DIRS:
        source = source_root / top
        if top == HARNESS_DIR_NAME and not source.is_dir():
            source = PACKAGE_DIR
        shutil.copytree(source, dest_root / top, ignore=copy_ignore)
    link_installed_packages(source_root, dest_root)
    copy_optimized_dependencies(source_root, dest_root)
    if mutant is not None:
        check_fresh(mutant, source_root)
        target = dest_root / mutant.file
        text = target.read_text(encoding="utf-8")
        target.write_text(text.replace(mutant.original, mutant.replacement, 1), encoding="utf-8")
    return dest_root


def copy_optimized_dependencies(source_root: Path, dest_root: Path) -> None:
    """Each Vite page's optimized dependencies (its `.vite-cache/deps`), copied when the
    page has built them: CopilotKit's take Vite a minute or more to bundle, longer than a
    check waits for a page; with the same lock the copy's Vite uses them as they are. A copy
    (not a link): a Vite that decides to bundle again writes into its own copy only."""
    for deps in sorted((source_root / FIXTURES_DIR_NAME).glob("*/.vite-cache/deps")):
        if deps.parents[1].name.startswith("."):
            continue  # a copy of a page on another release (`releases`, scripts/copilotkit_replay)
        target = dest_root / deps.relative_to(source_root)
        if target.parent.parent.is_dir() and not target.exists():
            shutil.copytree(deps, target)


def link_installed_packages(source_root: Path, dest_root: Path) -> None:
    """Each page's node_modules, linked (not copied) into the copy: read only, never mutated."""
    for installed in sorted((source_root / FIXTURES_DIR_NAME).glob("*/node_modules")):
        link = dest_root / installed.relative_to(source_root)
        if link.parent.is_dir() and not link.exists():
            link.symlink_to(installed.resolve(), target_is_directory=True)


def for_page(catalogue: Catalogue, page: MutantPage) -> Catalogue:
    """Only the mutants of `page`: a React page's bugs are not in our page, and back."""
    return catalogue.model_copy(
        update={"mutants": tuple(m for m in catalogue.mutants if m.page == page)})

"""A framework's real releases installed for a page: the version-installing part of the bug
replay (a fixed bug of the framework, checked on its last buggy release and its first
fixed one), and the files that name those bugs and releases, one per framework page
(`releases.json` and `releases-<page>.json` in a tutorial's mutation folder,
`load_release_bugs`, `load_pages_release_bugs`).

`installed_release(page, pins)` gives a `node_modules` with the page's own lock, except the
pinned packages, each at exactly the pinned version from the npm registry (npm resolves
their dependencies, which a framework pins exactly itself). Installs are cached by the
page's lock and the pins, so a replay installs a release once per machine; the cache lives
in `$PLING_RELEASES_CACHE`, else `$XDG_CACHE_HOME/pling-harness/releases`, else
`~/.cache/pling-harness/releases`. `link_release` puts one into a copy of the page, as the
mutation runner links a page's own packages into a mutant's copy.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Self

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, HttpUrl, model_validator

from pling_harness.project.datafile import load_json_model
from pling_harness.project.tutorials import Tutorial

CACHE_ENV = "PLING_RELEASES_CACHE"
# A tutorial's replayed framework bugs: tutorials/<id>/mutation/<this>, one page's; another
# page's are in releases-<page>.json beside it (each file says its page).
RELEASES_FILE_NAME = "releases.json"
PAGE_RELEASES_FILE = re.compile(r"^releases-([a-z0-9][a-z0-9-]*)\.json$")
# What an install leaves beside node_modules: the pins and what npm really installed.
RECORD_NAME = "pling-release.json"
INSTALL_TIMEOUT_S = 900
# An exact version: 7.0.30, 6.0.0-beta.5. Never a range or a tag (^7, latest), whose
# meaning changes with the registry, so a replay would no longer replay the same release.
EXACT_VERSION = re.compile(r"^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$")
PACKAGE_NAME = re.compile(r"^(?:@[a-z0-9][a-z0-9._-]*/)?[a-z0-9][a-z0-9._-]*$")


class ReleaseError(RuntimeError):
    """A release cannot be installed; the message names the packages and what npm said."""


def _exact(version: str) -> str:
    if not EXACT_VERSION.match(version):
        raise ValueError(f"must be an exact version such as 7.0.30 (no range or tag). "
                         f"Current input: {version!r}")
    return version


def _package(name: str) -> str:
    if not PACKAGE_NAME.match(name):
        raise ValueError(f"must be an npm package name such as ai or @ai-sdk/react. "
                         f"Current input: {name!r}")
    return name


ExactVersion = Annotated[str, AfterValidator(_exact)]
PackageName = Annotated[str, AfterValidator(_package)]


class ReleasePins(BaseModel):
    """Packages at exact versions: one release of a framework, as a page installs it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    packages: dict[PackageName, ExactVersion] = Field(min_length=1)

    def specs(self) -> list[str]:
        """`name@version` for npm, in a stable order."""
        return [f"{name}@{version}" for name, version in sorted(self.packages.items())]


class PageSwap(BaseModel):
    """One edit laid over the page's copy for a replay: `old`, found exactly once in `file`
    (relative to the page), replaced by `new` (e.g. the page written as the bug's reporter
    wrote theirs)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    file: str = Field(pattern=r"^[A-Za-z0-9_./-]+$")
    old: str = Field(min_length=1)
    new: str
    why: str = Field(min_length=1)


class ReleaseBug(BaseModel):
    """A bug of a framework that breaks a promise the harness proves, with the last
    release that has it and the first that does not (each with the packages released with
    it: `@ai-sdk/react` pins one exact `ai`); an open bug, with no fixed release yet, names
    the newest release it was confirmed on. Either the checks that catch it, or why it is
    not replayed."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    report: HttpUrl
    """The issue (or release note) that describes it."""
    fix: str = Field(min_length=1)
    """The fixing commit or pull request, and the release note's words."""
    promise: str = Field(min_length=1)
    """The promise it breaks, in the words of docs/guarantees.md."""
    expected: tuple[str, ...] = Field(min_length=1)
    """Guarantee names that must fail on the buggy release and pass on the fixed one."""
    buggy: ReleasePins
    """The last release with the bug; for an open bug, the newest release it shows on."""
    fixed: ReleasePins | None
    """The first release without it; null (said explicitly): no fixed release yet, the
    bug is open."""
    shows: str = Field(min_length=1)
    """How the bug shows in the browser on the tutorial's page, as reproduced."""
    needs: str | None = None
    """What the replay needs beyond the page as it is (None: nothing)."""
    page_swaps: tuple[PageSwap, ...] = ()
    """Edits laid over the page's copy on both releases (none: the page as it is)."""
    checks: str | None = None
    """The checks that catch it, as a pytest `-k` expression over r-15's checks (None: not
    replayed; `not_replayed` says why)."""
    not_replayed: str | None = Field(default=None, min_length=1)
    """Why the bug is not replayed (required exactly when `checks` is None): a replay table
    never shows "not replayed" without its reason."""

    @model_validator(mode="after")
    def _replayed_or_why_not(self) -> Self:
        if self.checks is None and self.not_replayed is None:
            raise ValueError("a bug without checks must say why it is not replayed "
                             "(not_replayed)")
        if self.checks is not None and self.not_replayed is not None:
            raise ValueError("a bug with checks is replayed: drop not_replayed, or checks")
        if self.fixed is not None and self.fixed == self.buggy:
            raise ValueError("fixed names the same release as buggy")
        return self

    @property
    def is_open(self) -> bool:
        """No fixed release yet."""
        return self.fixed is None


class ReleaseBugs(BaseModel):
    """`releases.json` (or `releases-<page>.json`): the framework bugs one page of a
    tutorial is replayed against."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tutorial: str
    page: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    """The page the releases are installed for: `fixtures/<short id>-<page>/`."""
    bugs: tuple[ReleaseBug, ...] = Field(min_length=1)


class ReleasesFileError(ValueError):
    """`releases.json` is unreadable or invalid; the message names the file and field."""


def load_release_bugs(tutorial: Tutorial, root: Path,
                      file_name: str = RELEASES_FILE_NAME) -> ReleaseBugs:
    path = tutorial.mutation_directory(root) / file_name
    bugs = load_json_model(path, ReleaseBugs, ReleasesFileError)
    if bugs.tutorial not in (tutorial.id, tutorial.short_id):
        raise ReleasesFileError(f"{path}: field tutorial: names {bugs.tutorial!r}, not this "
                                f"tutorial ({tutorial.short_id})")
    named = PAGE_RELEASES_FILE.match(file_name)
    if named is not None and named.group(1) != bugs.page:
        raise ReleasesFileError(f"{path}: field page: names {bugs.page!r}, but the file is "
                                f"{named.group(1)!r}'s (releases-<page>.json)")
    return bugs


def load_pages_release_bugs(tutorial: Tutorial, root: Path) -> dict[str, ReleaseBugs]:
    """Every page's replayed bugs, by page: `releases.json` and each `releases-<page>.json`
    of the tutorial's mutation folder (none: an empty dict). Two files of one page, or one
    bug name on two pages, are refused: a replay names a bug alone."""
    folder = tutorial.mutation_directory(root)
    names = sorted(path.name for path in folder.glob("releases*.json")
                   if path.name == RELEASES_FILE_NAME or PAGE_RELEASES_FILE.match(path.name))
    pages: dict[str, ReleaseBugs] = {}
    seen: dict[str, str] = {}
    for name in names:
        bugs = load_release_bugs(tutorial, root, name)
        if bugs.page in pages:
            raise ReleasesFileError(f"{folder / name}: field page: {bugs.page!r} already has "
                                    f"its bugs in another releases file of {folder}")
        for bug in bugs.bugs:
            if bug.name in seen:
                raise ReleasesFileError(f"{folder / name}: field bugs: {bug.name!r} is also "
                                        f"a bug of page {seen[bug.name]!r}")
            seen[bug.name] = bugs.page
        pages[bugs.page] = bugs
    return pages


def releases_cache() -> Path:
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "pling-harness" / "releases"


def release_key(page: Path, pins: ReleasePins) -> str:
    """Names one install: the page's manifest and lock, and the pins."""
    digest = hashlib.sha256()
    for name in ("package.json", "package-lock.json"):
        digest.update((page / name).read_bytes())
    digest.update(json.dumps(pins.specs()).encode())
    return digest.hexdigest()[:16]


def installed_release(page: Path, pins: ReleasePins | Mapping[str, str], *,
                      cache: Path | None = None, npm: str = "npm") -> Path:
    """`node_modules` with `page`'s locked packages and `pins` at their exact versions,
    installed from the registry on first use and taken from the cache after."""
    pins = pins if isinstance(pins, ReleasePins) else ReleasePins(packages=dict(pins))
    cache = cache if cache is not None else releases_cache()
    done = cache / f"{page.name}-{release_key(page, pins)}"
    if (done / RECORD_NAME).is_file():
        return done / "node_modules"
    cache.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f"{done.name}.", dir=cache))
    try:
        for name in ("package.json", "package-lock.json"):
            shutil.copy2(page / name, work / name)
        _npm_install(work, pins, npm=npm)
        record = {"pins": pins.packages, "installed": _installed_versions(work, pins)}
        (work / RECORD_NAME).write_text(json.dumps(record, indent=2) + "\n")
        try:
            work.rename(done)  # atomic: a concurrent install of the same release won first
        except OSError:
            if not (done / RECORD_NAME).is_file():
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return done / "node_modules"


def _npm_install(work: Path, pins: ReleasePins, *, npm: str) -> None:
    # --engine-strict=false: a release may declare a Node.js the npm running here is not;
    # the page runs it under its own (the registry's `node` package, pinned in its lock).
    command = [npm, "install", "--save-exact", "--no-audit", "--no-fund", "--loglevel=error",
               "--engine-strict=false", *pins.specs()]
    try:
        result = subprocess.run(command, cwd=work, capture_output=True, text=True,
                                timeout=INSTALL_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise ReleaseError(f"npm install {' '.join(pins.specs())} did not finish: {error}") \
            from error
    if result.returncode != 0:
        said = (result.stdout + result.stderr).strip()[-800:]
        raise ReleaseError(f"npm install {' '.join(pins.specs())} failed: {said}")


def _installed_versions(work: Path, pins: ReleasePins) -> dict[str, str]:
    """The version of each pinned package at the top of node_modules; must be the pin."""
    found: dict[str, str] = {}
    for name, version in pins.packages.items():
        manifest = work / "node_modules" / name / "package.json"
        installed = json.loads(manifest.read_text())["version"] if manifest.is_file() else None
        if installed != version:
            raise ReleaseError(f"npm installed {name} {installed or 'nothing'}, not the pinned "
                               f"{version}; another pinned package may require another {name}")
        found[name] = installed
    return found


def link_release(page_copy: Path, node_modules: Path) -> None:
    """Point `page_copy`'s node_modules at an installed release (replacing any link)."""
    link = page_copy / "node_modules"
    if link.is_symlink():
        link.unlink()
    elif link.exists():
        raise ReleaseError(f"{link} is a real folder; link a release only into a copy of "
                           "the page")
    link.symlink_to(node_modules.resolve(), target_is_directory=True)

"""Which folder is the user's project root: the folder whose `tutorials/` (and `fixtures/`)
the harness reads.

Found the way pytest finds its rootdir, from a starting folder (the current folder for the
CLI, pytest's rootdir for the plugin) and its parents: the first folder with a `pling.toml`,
or a `pyproject.toml` with a `[tool.pling]` table, says where the root is (`root`, relative
to that file; default: its own folder); else the first folder with a pytest configuration
file (`pytest.ini`, `pyproject.toml`, `tox.ini`, `setup.cfg`) is the root; else the
starting folder. The harness's own checkout is one such project: its `pyproject.toml` sits
beside `tutorials/` and `fixtures/`.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from pling_harness.project.page_rows import PageRow, unique_names
from pling_harness.project.paths import TUTORIALS_DIR_NAME

SETTINGS_FILE_NAME = "pling.toml"
PYPROJECT_FILE_NAME = "pyproject.toml"
SETTINGS_TABLE = ("tool", "pling")
# The files that make a folder pytest's rootdir (pytest >= 8.1 takes any pyproject.toml).
PYTEST_CONFIG_FILE_NAMES = ("pytest.ini", ".pytest.ini", PYPROJECT_FILE_NAME, "tox.ini",
                            "setup.cfg")


class RootError(ValueError):
    """A settings file that cannot be read; the message names the file, the value and the fix."""


class PlingSettings(BaseModel):
    """`[tool.pling]` in pyproject.toml, or the whole of pling.toml."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    root: str = "."
    """The folder holding `tutorials/` (and `fixtures/`), relative to the settings file."""
    pages: tuple[PageRow, ...] = ()
    """The project's own pages, rows of the pages table as a tutorial.json's `pages`
    (`pling_harness.project.page_rows`); `cwd` is relative to the root."""

    @field_validator("pages")
    @classmethod
    def _unique_pages(cls, value: tuple[PageRow, ...]) -> tuple[PageRow, ...]:
        unique_names(value)
        return value


def read_settings(folder: Path) -> tuple[Path, PlingSettings] | None:
    """The settings file in `folder` (pling.toml first) and what it says; None without one."""
    settings_file = folder / SETTINGS_FILE_NAME
    if settings_file.is_file():
        return settings_file, _validated(settings_file, _toml(settings_file))
    pyproject = folder / PYPROJECT_FILE_NAME
    if pyproject.is_file():
        table: object = _toml(pyproject)
        for key in SETTINGS_TABLE:
            table = table.get(key) if isinstance(table, dict) else None
        if table is not None:
            return pyproject, _validated(pyproject, table)
    return None


def _toml(path: Path) -> dict[str, object]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise RootError(f"{path}: not readable TOML ({error}); fix or remove it") from None


def _validated(path: Path, table: object) -> PlingSettings:
    where = "[tool.pling]" if path.name == PYPROJECT_FILE_NAME else "the file"
    try:
        return PlingSettings.model_validate(table)
    except ValidationError as error:
        problems = "; ".join(f"{'.'.join(str(p) for p in issue['loc']) or where}: "
                             f"{issue['msg']}" for issue in error.errors())
        raise RootError(f"{path} {where}: {problems} (the settings are `root = \"DIR\"`, "
                        "the folder holding tutorials/, and `pages`, the pages table: "
                        "docs/adding-a-page.md)") from None


def find_settings(start: Path) -> tuple[Path, PlingSettings] | None:
    """The first settings file in `start` or a parent, and what it says; None without one."""
    for folder in (start, *start.parents):
        found = read_settings(folder)
        if found is not None:
            return found
    return None


def settings_source(settings_file: Path) -> str:
    """Where a settings file's `root` was read, as a run's report shows it."""
    if settings_file.name == PYPROJECT_FILE_NAME:
        return f"`root` under [tool.pling] in {settings_file}"
    return f"`root` in {settings_file}"


def configured_root(start: Path) -> Path | None:
    """The root a settings file in `start` or a parent names; None without one."""
    found = find_settings(start)
    if found is None:
        return None
    settings_file, settings = found
    return (settings_file.parent / settings.root).resolve()


def project_root(start: Path) -> Path:
    """The user's project root, found from `start` (see the module)."""
    start = start.resolve()
    configured = configured_root(start)
    if configured is not None:
        return configured
    for folder in (start, *start.parents):
        if any((folder / name).is_file() for name in PYTEST_CONFIG_FILE_NAMES):
            return folder
    return start


def current_project_root() -> Path:
    """The project of the current folder: the default root of the harness's functions."""
    return project_root(Path.cwd())


def has_tutorials(root: Path) -> bool:
    """Whether `root` holds a `tutorials/` folder: the harness has something to check."""
    return (root / TUTORIALS_DIR_NAME).is_dir()

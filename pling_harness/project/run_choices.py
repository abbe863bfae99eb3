"""A run's choices: the root, tutorial, page, dock driver, locales and model port it checks
with, each with where it came from (an option, `[tool.pling]` or pling.toml, the
tutorial's tutorial.json, or a default).

Resolved once: `pling-tutorial check` resolves them from its options and hands the result to
the pytest it starts as one file (`--pling-choices FILE`); a user who runs pytest directly
gets the same object, resolved by the plugin from pytest's options. The driver travels
inside it, read once, so the child run never finds or reads the driver file again. The
report header and the HTML report show it (`RunChoices.header_line`, `RunChoices.shown`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Generic, Literal, Self, TypeVar

from pydantic import BaseModel, ConfigDict, Field, model_validator

from pling_harness.project.datafile import load_json_model
from pling_harness.project.dock_driver import DriverSpec, default_driver, find_driver, load_driver
from pling_harness.project.locales import Locale
from pling_harness.project.page_rows import PageRow
from pling_harness.project.root import find_settings, settings_source
from pling_harness.project.tutorials import TUTORIAL_FILE_NAME, Slug, Tutorial

# Where a value came from, as pytest-django's report header says it (option|env|ini).
SourceKind = Literal["option", "settings", "tutorial.json", "environment", "ini", "default"]
Value = TypeVar("Value")
BaseUrl = Annotated[str, Field(pattern=r"^https?://\S+$", max_length=2000)]
Port = Annotated[int, Field(ge=1, le=65535)]


class RunChoicesError(Exception):
    """A choices file that cannot be read or is invalid; the message names file and field."""


class Source(BaseModel):
    """Where one choice came from."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: SourceKind
    detail: str = Field(min_length=1, max_length=2000)
    """Exactly where, for a person: the option (`--driver: tutorials/r-15/drivers/x.json`),
    the settings file, the tutorial.json field; for a default, what it is."""

    def __str__(self) -> str:
        return self.detail if self.kind == "default" else f"from {self.detail}"


class Chosen(BaseModel, Generic[Value]):
    """One choice and its source."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    value: Value
    source: Source


class ChosenDriver(BaseModel):
    """The dock driver, read once where it was chosen, and the file it was read from."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    spec: DriverSpec
    file: str | None
    """Its driver file, absolute; None for the page contract's (inside the harness)."""
    source: Source


class ShownChoice(BaseModel):
    """One line of what a report shows: the choice, its value as text, and its source."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    value: str
    source: str


class RunChoices(BaseModel):
    """Everything a check run chose before its first check (see the module)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    root: Chosen[str]
    """The folder holding tutorials/ and fixtures/, absolute; also pytest's rootdir."""
    tutorial: Chosen[Slug]
    """The tutorial's id."""
    page: Chosen[BaseUrl | None]
    """The base URL of the page served elsewhere; None: the harness serves the fixture."""
    driver: ChosenDriver
    locales: Chosen[tuple[Locale, ...]]
    """The locales the checks run in, in order."""
    model_port: Chosen[Port | None]
    """With a page served elsewhere: the port its own server calls the model at."""
    launch: Chosen[PageRow] | None = None
    """A row of the pages table the run starts itself (`check --page NAME`), served over
    the run's own fixture server; None: the fixture, or the page at `page`."""

    @model_validator(mode="after")
    def _model_port_needs_a_page_served_elsewhere(self) -> Self:
        if self.model_port.value is not None and self.page.value is None:
            raise ValueError("model_port is for a page served elsewhere; set page too")
        if self.launch is not None and self.page.value is not None:
            raise ValueError("launch starts a page over the run's fixture server; a page "
                             "served elsewhere (page) is the other way, not both")
        if not self.locales.value:
            raise ValueError("locales: name at least one")
        return self

    @property
    def root_path(self) -> Path:
        return Path(self.root.value)

    def shown(self) -> list[ShownChoice]:
        """Each choice as a report shows it, in the order of the header line."""
        values = [
            ("root", self.root.value, self.root.source),
            ("tutorial", self.tutorial.value, self.tutorial.source),
            ("page", self.page_shown(), self.launch.source if self.launch is not None
             else self.page.source),
            ("driver", self.driver.spec.name, self.driver.source),
            ("locales", ", ".join(self.locales.value), self.locales.source),
            ("model port", str(self.model_port.value or "none"), self.model_port.source),
        ]
        return [ShownChoice(name=name, value=value, source=str(source))
                for name, value, source in values]

    def page_shown(self) -> str:
        """The page as a person reads it: the URL served elsewhere, the row started here
        (name and command), or "served here"."""
        if self.launch is not None:
            row = self.launch.value
            return f"{row.name}, started: {' '.join(row.command or ())}"
        return self.page.value or "served here"

    def header_line(self) -> str:
        """`pling: root /x (from --root), tutorial r-15-… (from …), …`: one line."""
        return "pling: " + ", ".join(f"{c.name} {c.value} ({c.source})" for c in self.shown())

    def write(self, path: Path) -> None:
        path.write_text(self.model_dump_json(indent=2), encoding="utf-8")

    @classmethod
    def read(cls, path: Path) -> RunChoices:
        return load_json_model(path, cls, RunChoicesError)


def option(name: str) -> Source:
    return Source(kind="option", detail=name)


def default(what: str) -> Source:
    return Source(kind="default", detail=f"default: {what}")


def tutorial_file_source(tutorial: Tutorial, field: str) -> Source:
    return Source(kind="tutorial.json",
                  detail=f"`{field}` in tutorials/{tutorial.id}/{TUTORIAL_FILE_NAME}")


def root_from_settings(start: Path) -> Chosen[str] | None:
    """The root a settings file at or above `start` names, with that file; None without one
    (pling_harness/project/root.py)."""
    found = find_settings(start.resolve())
    if found is None:
        return None
    settings_file, settings = found
    return Chosen[str](value=str((settings_file.parent / settings.root).resolve()),
                       source=Source(kind="settings", detail=settings_source(settings_file)))


def driver_choice(tutorial: Tutorial, root: Path, choice: str | None,
                  option_name: str) -> ChosenDriver:
    """The driver the run reads the page with, read here once: `choice` (the run's
    `option_name`: a name in the tutorial's drivers/ folder or a path), else the tutorial's
    `driver`, else the page contract's. A DriverError names what cannot be read."""
    if choice:
        path = find_driver(choice, tutorial.directory(root)).resolve()
        return ChosenDriver(spec=load_driver(path), file=str(path),
                            source=option(f"{option_name}: {shown_path(path, root)}"))
    if tutorial.driver is not None:
        path = (tutorial.directory(root) / tutorial.driver).resolve()
        return ChosenDriver(spec=load_driver(path), file=str(path),
                            source=tutorial_file_source(tutorial, "driver"))
    return ChosenDriver(spec=default_driver(), file=None,
                        source=default("the page contract's test ids"))


def locales_choice(tutorial: Tutorial, only: str | None,
                   option_name: str) -> Chosen[tuple[str, ...]]:
    """`only` (already checked to be offered) from `option_name`, else all the tutorial's."""
    if only is not None:
        return Chosen[tuple[str, ...]](value=(only,), source=option(option_name))
    return Chosen[tuple[str, ...]](value=tutorial.locales,
                                   source=tutorial_file_source(tutorial, "locales"))


def served_here(tutorial: Tutorial) -> Chosen[str | None]:
    """The page when no base URL is given: the tutorial's fixture, served by the harness."""
    return Chosen[str | None](value=None, source=default(
        f"the harness serves fixtures/{tutorial.fixture} (`fixture` in its tutorial.json)"))


def no_model_port(page: Chosen[str | None]) -> Chosen[int | None]:
    """The model port when none is given, and who answers the model instead."""
    who = ("the harness's own server" if page.value is None
           else "the browser, on the page's model endpoint")
    return Chosen[int | None](value=None, source=default(f"{who} answers the model"))


def shown_path(path: Path, root: Path) -> str:
    """`path` relative to `root` when inside it (shorter in a header), else absolute."""
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)

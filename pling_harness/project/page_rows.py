"""The pages table: each page a tutorial can be checked on, as data (Playwright Test's
`webServer`, for our pages).

A row names the page, the command that serves it, the folder it runs in, the URL it answers
on once ready, how long it may take, whether a server already answering there is reused, its
dock driver and the environment it gets. A tutorial lists its rows under `pages` in its
tutorial.json; a project adds its own under `pages` in `[tool.pling]` (pyproject.toml) or
pling.toml, same shape. A row without `command` is the page the check's fixture server
serves itself (r-15's `ours`). A row with a `column` is a column of the frameworks page
(`pling-tutorial frameworks`). `docs/adding-a-page.md` has a worked example.

Placeholders, filled by the harness in `command`, `build_command`, `url` and `env` values:

- `{port}`: a free port the harness picked for the page (`dev --port` names one);
- `{api_origin}`: the check's own fixture server (business API, model gateway, testbed),
  which the page's server proxies `/api/` to;
- `{model_url}`: that server's scripted model on OpenAI's wire, `{api_origin}/v1`, for a
  page whose own server calls the model.

`{{` and `}}` are literal braces.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable, Mapping, Sequence
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

PLACEHOLDERS = ("port", "api_origin", "model_url")
PageName = Annotated[str, Field(pattern=r"^[a-z0-9]+(?:-[a-z0-9]+)*$", max_length=64)]
Argument = Annotated[str, Field(min_length=1, max_length=4000)]
EnvName = Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$", max_length=200)]
# Where the row's own folder is: relative, inside the root (no `..`, no absolute path).
_RELATIVE = re.compile(r"^(?!/)(?!.*(?:^|/)\.\.(?:/|$))[^\0]+$")
DEFAULT_READY_TIMEOUT_S = 60.0


class PageRowError(ValueError):
    """A pages table that cannot be used; the message names the row and what to fix."""


def placeholders_in(template: str) -> list[str]:
    """The placeholder names `template` uses; a malformed brace is a ValueError."""
    return [name for _, name, _, _ in string.Formatter().parse(template) if name is not None]


def _checked_template(template: str) -> str:
    unknown = [name for name in placeholders_in(template) if name not in PLACEHOLDERS]
    if unknown:
        raise ValueError(f"{template!r} names {{{unknown[0]}}}; the placeholders are "
                         + ", ".join(f"{{{name}}}" for name in PLACEHOLDERS)
                         + " ({{ and }} for a literal brace)")
    return template


def fill(template: str, values: Mapping[str, str]) -> str:
    """`template` with its placeholders replaced by `values` (all of PLACEHOLDERS)."""
    return template.format_map(dict(values))


class FrameworkColumn(BaseModel):
    """A row's column on the frameworks page (`pling-tutorial frameworks`): what the page is
    built on, in a reader's words, and the packages whose pinned versions the page shows."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    title: str = Field(min_length=1, max_length=80)
    """The column's head: the framework's name (`Vercel AI SDK`)."""
    about: str = Field(min_length=1, max_length=300)
    """What of it the page uses (`useChat, tool approvals, streamText on the page's server`)."""
    packages: tuple[Annotated[str, Field(min_length=1, max_length=214)], ...] = ()
    """The npm packages whose versions the page shows, read from the row's package.json
    (none: the harness's own runtime)."""
    judged: str | None = Field(default=None, pattern=r"^[a-z0-9-]+$", max_length=100)
    """Its section's anchor in docs/frameworks-judged.md, where each fail and n/a cell is
    judged by hand: every n/a cell links it."""


class PageRow(BaseModel):
    """One page of the pages table (see the module)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: PageName
    """Kebab-case, unique in the table: `check --page NAME`, `dev --page NAME`."""
    command: tuple[Argument, ...] | None = Field(default=None, min_length=1)
    """The program and its arguments, run in `cwd` in a process group of its own; a relative
    program path (`node_modules/.bin/vite`) is taken from `cwd`. None: the page the fixture
    server serves itself, nothing is started."""
    build_command: tuple[Argument, ...] | None = Field(default=None, min_length=1)
    """Run to its end before `command` (same folder, environment and placeholders), within
    `ready_timeout_s`; a build that fails is the page not starting. E.g. `vite build`
    before `vite preview`."""
    cwd: str = Field(default=".", max_length=1000)
    """The folder the commands run in, relative to the project root."""
    url: str = Field(default="http://127.0.0.1:{port}/", max_length=2000)
    """Where the page answers once ready (a status below 400, or 401-403, as Playwright
    Test's `webServer.url`); the checks open the tutorial's page at its origin."""
    ready_timeout_s: float = Field(default=DEFAULT_READY_TIMEOUT_S, gt=0, le=3600)
    reuse_existing_server: bool = False
    """When `url` already answers before the command starts: use that server and start
    nothing (it must already be wired to the check's fixture server: give `url` no
    `{port}`, and the harness's ports are others each run, so this suits `dev` best)."""
    driver: str | None = Field(default=None, max_length=1000)
    """The dock driver file, relative to the tutorial's folder (`drivers/ai-sdk.json`);
    None: the tutorial's own `driver`, else the page contract's test ids."""
    env: dict[EnvName, Annotated[str, Field(max_length=4000)]] = Field(default_factory=dict)
    """Added to the environment the commands run in; values are templates too."""
    column: FrameworkColumn | None = None
    """Its column on the frameworks page; None: the page is not shown there."""

    @field_validator("command", "build_command")
    @classmethod
    def _arguments_are_templates(cls, value: tuple[str, ...] | None) -> tuple[str, ...] | None:
        for argument in value or ():
            _checked_template(argument)
        return value

    @field_validator("url")
    @classmethod
    def _url_is_a_template(cls, value: str) -> str:
        _checked_template(value)
        if not re.match(r"^https?://", value):
            raise ValueError(f"url {value!r} must start with http:// or https://")
        return value

    @field_validator("env")
    @classmethod
    def _env_values_are_templates(cls, value: dict[str, str]) -> dict[str, str]:
        for item in value.values():
            _checked_template(item)
        return value

    @field_validator("cwd", "driver")
    @classmethod
    def _relative_inside(cls, value: str | None) -> str | None:
        if value is not None and not _RELATIVE.match(value):
            raise ValueError(f"{value!r} must be a relative path inside its folder (no "
                             "leading / and no ..)")
        return value

    @model_validator(mode="after")
    def _served_by_us_has_nothing_to_run(self) -> PageRow:
        if self.command is None and self.build_command is not None:
            raise ValueError("build_command needs a command (a row without one is the page "
                             "the fixture server serves itself)")
        return self

    @property
    def served_by_fixture_server(self) -> bool:
        return self.command is None

    def filled_command(self, values: Mapping[str, str]) -> list[str]:
        return [fill(argument, values) for argument in self.command or ()]

    def filled_build_command(self, values: Mapping[str, str]) -> list[str] | None:
        if self.build_command is None:
            return None
        return [fill(argument, values) for argument in self.build_command]

    def filled_url(self, values: Mapping[str, str]) -> str:
        return fill(self.url, values)

    def filled_env(self, values: Mapping[str, str]) -> dict[str, str]:
        return {name: fill(value, values) for name, value in self.env.items()}

    def uses(self, placeholder: str) -> bool:
        """Whether any of the row's templates names `placeholder`."""
        every = [self.url, *(self.command or ()), *(self.build_command or ()),
                 *self.env.values()]
        return any(placeholder in placeholders_in(template) for template in every)


def origin_of(url: str) -> str:
    """`http://127.0.0.1:5301/` -> `http://127.0.0.1:5301`: where the page's paths hang."""
    found = re.match(r"^(https?://[^/?#]+)", url)
    return found.group(1) if found else url.rstrip("/")


def placeholder_values(*, port: int, api_origin: str) -> dict[str, str]:
    """The placeholders' values for a page on `port` behind the fixture server at
    `api_origin`."""
    api_origin = api_origin.rstrip("/")
    return {"port": str(port), "api_origin": api_origin, "model_url": f"{api_origin}/v1"}


def merged_rows(*tables: tuple[str, Sequence[PageRow]]) -> dict[str, PageRow]:
    """The rows of each (where, rows) table by name; a name in two rows is a PageRowError
    naming both places."""
    rows: dict[str, PageRow] = {}
    where_from: dict[str, str] = {}
    for where, table in tables:
        for row in table:
            if row.name in rows:
                raise PageRowError(f"page {row.name!r} is in {where_from[row.name]} and in "
                                   f"{where}; give one of them another name")
            rows[row.name] = row
            where_from[row.name] = where
    return rows


def unique_names(rows: Iterable[PageRow]) -> None:
    """A table that names one page twice is refused (in tutorial.json's validation)."""
    seen: set[str] = set()
    for row in rows:
        if row.name in seen:
            raise ValueError(f"pages names {row.name!r} twice")
        seen.add(row.name)

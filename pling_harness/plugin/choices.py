"""The run's choices in the plugin (pling_harness/project/run_choices.py): root, tutorial,
page, driver, locales and model port, each with its source, shown in the report header.

`pling-tutorial check` resolves them and hands them over as one file, `--pling-choices
FILE`: the run takes every choice from it and reads no driver file itself. Without it (pytest
run directly) the plugin resolves the same object from pytest's options once the run's
tutorial is known (`settle`). The fixtures, collection and the reports read it through
`of_run`; a run with no single tutorial (each check's from its own checks folder) has none.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pling_harness.project.dock_driver import DriverError
from pling_harness.project.page_rows import PageRow, PageRowError
from pling_harness.project.pages_table import page_row, row_driver
from pling_harness.project.run_choices import (
    Chosen,
    RunChoices,
    RunChoicesError,
    Source,
    driver_choice,
    locales_choice,
    no_model_port,
    option,
    served_here,
)
from pling_harness.project.tutorials import Tutorial

CHOICES_OPTION = "--pling-choices"
TUTORIAL_OPTION = "--pling-tutorial"
LOCALE_OPTION = "--pling-locale"
ROOT_OPTION = "--pling-root"
# The dock driver the checks read the page's assistant with (pling_harness/plugin/driver.py).
DRIVER_OPTION = "--pling-driver"
# The port of the checks' model for a page whose own server calls it (model_port.py declares
# it; external.py routes no model endpoint in the browser when it is given).
MODEL_PORT_OPTION = "--pling-model-port"
# A row of the pages table the run starts over its own fixture server (launched_page.py).
PAGE_OPTION = "--pling-page"
BASE_URL_OPTION = "--base-url"
BASE_URL_ENV = "PYTEST_BASE_URL"  # pytest-base-url's (and pytest-playwright's) default
_CHOICES_KEY = pytest.StashKey[RunChoices]()
# The per-choice options a choices file stands for, by their `config.option` names.
_REPLACED = {ROOT_OPTION: "pling_root", TUTORIAL_OPTION: "pling_tutorial",
             LOCALE_OPTION: "pling_locale", DRIVER_OPTION: "pling_driver",
             PAGE_OPTION: "pling_page"}


def addoption(group: pytest.OptionGroup) -> None:
    group.addoption(
        CHOICES_OPTION, metavar="FILE", default=None,
        help="take the run's root, tutorial, page, driver, locales and model port from FILE, "
             "as `pling-tutorial check` resolved them (instead of --pling-root, "
             "--pling-tutorial, --pling-locale, --pling-driver, --base-url, "
             "--pling-model-port, --pling-page)")
    group.addoption(
        PAGE_OPTION, metavar="NAME", default=None,
        help="start the page of this name in the pages table (the tutorial's `pages`, or "
             "`pages` in [tool.pling]) over the run's own fixture server, check it with the "
             "row's driver, and stop it at the end; `pling-tutorial check --page NAME` "
             "(default: the tutorial's own page)")


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """Read `--pling-choices FILE` before any other plugin reads an option it decides: the
    page and the model port go back into pytest's options, where pytest-playwright's
    `base_url` fixture and the model port read them."""
    path = config.getoption(CHOICES_OPTION)
    if not path:
        return
    file = config.invocation_params.dir / str(path)
    try:
        choices = RunChoices.read(file)
    except RunChoicesError as error:
        raise pytest.UsageError(f"{CHOICES_OPTION}: {error}") from None
    # An option the file stands for would be a second answer; the model port and base URL
    # a controller wrote back (pytest-xdist workers get its options) are the file's own.
    given = [flag for flag, name in _REPLACED.items()
             if getattr(config.option, name, None) is not None]
    port = getattr(config.option, "pling_model_port", None)
    given += [MODEL_PORT_OPTION] if port not in (None, choices.model_port.value) else []
    given += [BASE_URL_OPTION] if _given_on_command_line(config, BASE_URL_OPTION) and \
        config.getoption("base_url", None) != choices.page.value else []
    if given:
        raise pytest.UsageError(f"{CHOICES_OPTION} {file} holds the run's choices; drop "
                                f"{', '.join(given)} (or {CHOICES_OPTION})")
    config.option.base_url = choices.page.value
    config.option.pling_model_port = choices.model_port.value
    config.stash[_CHOICES_KEY] = choices


def of_run(config: pytest.Config) -> RunChoices | None:
    """The run's choices: the file's, or those `settle` resolved; None before that, or in a
    run without one tutorial."""
    return config.stash.get(_CHOICES_KEY, None)


def settle(config: pytest.Config, tutorial: Tutorial, root: Chosen[str],
           tutorial_source: Source) -> RunChoices:
    """The run's choices once its tutorial is known: the file's, else resolved here from
    pytest's options (reading the driver once). A driver that cannot be read is a usage
    error naming the option."""
    known = of_run(config)
    if known is not None:
        return known
    page = base_url_choice(config, tutorial)
    port = config.getoption(MODEL_PORT_OPTION)
    launch = page_choice(config, tutorial, Path(root.value), page)
    driver_name = config.getoption(DRIVER_OPTION)
    if driver_name is None and launch is not None:
        row_file = row_driver(launch.value, tutorial, Path(root.value))
        driver_name = str(row_file) if row_file is not None else None
    try:
        driver = driver_choice(tutorial, Path(root.value), driver_name, DRIVER_OPTION)
    except DriverError as error:
        raise pytest.UsageError(f"{DRIVER_OPTION}: {error}") from None
    choices = RunChoices(
        root=root,
        tutorial=Chosen[str](value=tutorial.id, source=tutorial_source),
        page=page,
        driver=driver,
        locales=locales_choice(tutorial, config.getoption(LOCALE_OPTION), LOCALE_OPTION),
        model_port=(no_model_port(page) if port is None
                    else Chosen[int | None](value=port, source=option(MODEL_PORT_OPTION))),
        launch=launch)
    config.stash[_CHOICES_KEY] = choices
    return choices


def page_choice(config: pytest.Config, tutorial: Tutorial, root: Path,
                page: Chosen[str | None]) -> Chosen[PageRow] | None:
    """`--pling-page NAME`'s row when the run starts it; None for the fixture's own page
    (`ours`) or without the option. With a base URL too it is a usage error."""
    name = config.getoption(PAGE_OPTION)
    if name is None:
        return None
    if page.value is not None:
        raise pytest.UsageError(f"{PAGE_OPTION} {name} starts that page over the run's own "
                                f"fixture server; --base-url {page.value} is a page served "
                                "elsewhere: give one or the other")
    try:
        row = page_row(tutorial, root, name)
    except PageRowError as error:
        raise pytest.UsageError(f"{PAGE_OPTION}: {error}") from None
    if row.served_by_fixture_server:
        return None
    return Chosen[PageRow](value=row, source=option(f"{PAGE_OPTION} {name}"))


def base_url_choice(config: pytest.Config, tutorial: Tutorial) -> Chosen[str | None]:
    """--base-url (or PYTEST_BASE_URL, or the `base_url` ini value) without its trailing
    slash; else the page the harness serves."""
    value = config.getoption("base_url", None)
    if value:
        from_env = not _given_on_command_line(config, BASE_URL_OPTION) \
            and os.environ.get(BASE_URL_ENV) == value
        source = (Source(kind="environment", detail=BASE_URL_ENV) if from_env
                  else option(BASE_URL_OPTION))
        return Chosen[str | None](value=str(value).rstrip("/"), source=source)
    ini = ini_base_url(config)
    if ini:
        return Chosen[str | None](value=ini.rstrip("/"),
                                  source=Source(kind="ini", detail="`base_url` in pytest's ini"))
    return served_here(tutorial)


def _given_on_command_line(config: pytest.Config, flag: str) -> bool:
    return any(arg == flag or arg.startswith(flag + "=") for arg in config.invocation_params.args)


def ini_base_url(config: pytest.Config) -> str | None:
    try:
        value = config.getini("base_url")
    except ValueError:  # no plugin declared the ini value
        return None
    return str(value) if value else None


def pytest_report_header(config: pytest.Config) -> list[str]:
    """The run's choices and their sources, one line (as pytest-django shows its settings)."""
    choices = of_run(config)
    return [choices.header_line()] if choices is not None else []

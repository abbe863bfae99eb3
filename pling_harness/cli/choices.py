"""`pling-tutorial check`'s choices, resolved once from its options: the root, tutorial,
page, driver, locales and model port the run checks with, each with its source
(pling_harness/project/run_choices.py). A bad one is a usage line before anything runs; the
child pytest gets the result as one file and resolves nothing again."""

from __future__ import annotations

import argparse
from pathlib import Path

from pling_harness.cli.usage import UsageError, holding_tutorials, offered_locale, project_root_of
from pling_harness.project.dock_driver import DriverError
from pling_harness.project.page_rows import PageRow, PageRowError
from pling_harness.project.pages_table import page_row, row_driver
from pling_harness.project.run_choices import (
    Chosen,
    RunChoices,
    default,
    driver_choice,
    locales_choice,
    no_model_port,
    option,
    root_from_settings,
    served_here,
)
from pling_harness.project.tutorials import Tutorial, load_tutorial


def check_choices(args: argparse.Namespace) -> tuple[RunChoices, Tutorial]:
    """The run's choices from `check`'s arguments, and its tutorial (already read)."""
    chosen_root = root_choice(args)
    root = holding_tutorials(Path(chosen_root.value), args)
    tutorial = load_tutorial(args.tutorial, root)
    if args.locale is not None:
        offered_locale(tutorial, args.locale)
    page = (Chosen[str | None](value=args.base_url.rstrip("/"), source=option("--base-url"))
            if args.base_url else served_here(tutorial))
    if args.model_port is not None and page.value is None:
        raise UsageError("--model-port is for a page served elsewhere whose own server "
                         "calls the model; give its address with --base-url URL too")
    launch = launch_choice(args, tutorial, root)
    driver_name = args.driver
    if driver_name is None and launch is not None:
        row_file = row_driver(launch.value, tutorial, root)
        driver_name = str(row_file) if row_file is not None else None
    try:
        driver = driver_choice(tutorial, root, driver_name,
                               "--driver" if args.driver is not None else
                               f"`driver` of page {args.page}")
    except DriverError as error:
        raise UsageError(f"--driver {driver_name}: {error}") from None
    choices = RunChoices(
        root=chosen_root,
        tutorial=Chosen[str](value=tutorial.id, source=option(
            f"the command line: check {args.tutorial}")),
        page=page,
        driver=driver,
        locales=locales_choice(tutorial, args.locale, "--locale"),
        model_port=(no_model_port(page) if args.model_port is None
                    else Chosen[int | None](value=args.model_port,
                                            source=option("--model-port"))),
        launch=launch)
    return choices, tutorial


def launch_choice(args: argparse.Namespace, tutorial: Tutorial,
                  root: Path) -> Chosen[PageRow] | None:
    """`--page NAME`'s row, when the run starts it (a row with a command); None for the
    page the fixture server serves itself, or without --page."""
    if args.page is None:
        return None
    if args.base_url or args.model_port is not None:
        raise UsageError(f"--page {args.page} starts that page over this run's own fixture "
                         "server; --base-url and --model-port are for a page served "
                         "elsewhere: give one or the other")
    try:
        row = page_row(tutorial, root, args.page)
    except PageRowError as error:
        raise UsageError(str(error)) from None
    if row.served_by_fixture_server:
        return None
    return Chosen[PageRow](value=row, source=option(f"--page {args.page}"))


def root_choice(args: argparse.Namespace) -> Chosen[str]:
    """The project root with its source: --root, else a settings file at or above the
    current folder, else the current folder's project (`project_root_of`)."""
    if args.root is not None:
        return Chosen[str](value=str(project_root_of(args)), source=option("--root"))
    configured = root_from_settings(Path.cwd())
    if configured is not None:
        return configured
    return Chosen[str](value=str(project_root_of(args)), source=default(
        "the project of the current folder (its first folder with pytest's settings)"))

"""`pytest_configure` of the pling plugin: the marker, the plugins it registers after every
entry point (overrides, remote browser, signals), and the reports."""

from __future__ import annotations

import os
import shlex
from pathlib import Path

import pytest

from pling_harness.plugin import external, interrupt, launched_page, remote, shards
from pling_harness.plugin import overrides as pytest_overrides
from pling_harness.plugin.gallery import Gallery
from pling_harness.plugin.html_report import GALLERY_DIR_NAME
from pling_harness.plugin.options import GALLERY_OPTION, chosen_root
from pling_harness.plugin.report_writer import REPORT_PLUGIN_NAME, ReportWriter, clear_html_report
from pling_harness.plugin.retry import RETRY_OPTION
from pling_harness.plugin.stash_keys import GALLERY_KEY
from pling_harness.plugin.tutorial_choice import run_choices

OVERRIDES_PLUGIN_NAME = "pling-overrides"
# With --pling-html and no --output, pytest-playwright keeps its traces inside the report.
TRACES_DIR_NAME = "traces"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "guarantee(name): the executor guarantee this check proves (summary, "
                   "mutation report)")
    config.addinivalue_line(
        "markers", "pling_on_testbed: a generated check of a testbed row, read with the page "
                   "contract's driver (the testbed runs the reference runtime)")
    root = chosen_root(config)  # fail fast on a bad --pling-root or [tool.pling]
    if root is None:
        # No tutorials here: options, the marker and fixtures only, so an unrelated suite
        # runs exactly as it does without the plugin (as pytest-playwright's does).
        return
    # pytest-playwright's fallback `base_url` fixture is an instance method, which pytest 9
    # deprecates; with warnings as errors that would break every browser test. (Older pytest
    # has neither the warning nor its class.)
    if hasattr(pytest, "PytestRemovedIn10Warning"):
        config.addinivalue_line(
            "filterwarnings",
            "ignore:Session-scoped fixtures defined as instance methods:"
            "pytest.PytestRemovedIn10Warning")
    # Registered now, after every entry point, so these override pytest-playwright's.
    if not config.pluginmanager.is_registered(pytest_overrides):
        config.pluginmanager.register(pytest_overrides, OVERRIDES_PLUGIN_NAME)
    if not config.pluginmanager.is_registered(remote):
        config.pluginmanager.register(remote, remote.PLUGIN_NAME)
    remote.endpoint_of(config)  # fail fast on a bad --pling-connect
    # ... and on an unknown --pling-tutorial, a locale it does not offer or a driver file
    # that cannot be read; its locales order the reports' columns.
    choices = run_choices(config, root)
    locales = choices.locales.value if choices is not None else ()
    if not hasattr(config, "workerinput") and not config.pluginmanager.has_plugin(
            interrupt.PLUGIN_NAME):
        # SIGINT/SIGTERM stop the run the way Ctrl-C does, reports kept (plugin/interrupt.py);
        # pytest-xdist workers keep their own handling, the controller stops them.
        config.pluginmanager.register(interrupt.StopOnSignal(), interrupt.PLUGIN_NAME)
    shards.configure(config)
    external.configure(config)  # --base-url: a page served elsewhere (plugin/external.py)
    launched_page.configure(config)  # check --page NAME: a page the run starts
    is_worker = hasattr(config, "workerinput")
    html = config.getoption("--pling-html")
    if html and not _given(config, "--tracing"):
        # Failures are traced by running them again (plugin/retry.py); decided here on
        # pytest-xdist's workers too, which parse the same command line.
        setattr(config.option, RETRY_OPTION, True)
    if html and not is_worker:
        html = _prepare_html_report(config, html)
    html_folder = Path(html) if html else None
    pictured = bool(config.getoption(GALLERY_OPTION))
    if pictured and html_folder is None:
        raise pytest.UsageError(f"{GALLERY_OPTION} pictures states for the HTML report; "
                                "give --pling-html DIR too")
    worker = config.workerinput["workerid"] if is_worker else None  # type: ignore[attr-defined]
    config.stash[GALLERY_KEY] = Gallery(
        html_folder / GALLERY_DIR_NAME if html_folder and pictured else None,
        file_suffix=f"-{worker}" if worker else "")
    report = config.getoption("--pling-report")
    # Under pytest-xdist only the controller writes; workers send it their reports.
    if (report or html_folder) and not is_worker:
        config.pluginmanager.register(
            ReportWriter(json_path=Path(report) if report else None, html_folder=html_folder,
                         gallery_taken=pictured,
                         locales=locales, base_dir=config.invocation_params.dir,
                         choices=choices.shown() if choices is not None else ()),
            REPORT_PLUGIN_NAME)


def _prepare_html_report(config: pytest.Config, option: str) -> str:
    """Make --pling-html absolute (pytest-xdist workers get the controller's options),
    clear the last run's report there, and keep traces there unless the user chose."""
    folder = (config.invocation_params.dir / option).resolve()
    config.option.pling_html = str(folder)
    clear_html_report(folder)
    if not _given(config, "--output"):
        config.option.output = str(folder / TRACES_DIR_NAME)
    return str(folder)


def _given(config: pytest.Config, flag: str) -> bool:
    """Whether the user passed `flag`: on the command line, in PYTEST_ADDOPTS or addopts."""
    args = [*config.invocation_params.args, *shlex.split(os.environ.get("PYTEST_ADDOPTS", "")),
            *config.getini("addopts")]
    return any(arg == flag or arg.startswith(flag + "=") for arg in args)

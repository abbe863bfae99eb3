"""The run's dock driver: what the checks read and drive the assistant with, and the checks
it cannot serve reported `n/a (<driver>: <part>: <why>)`.

The driver is the one the run's choices hold (`pling-tutorial check --driver`, handed over
in `--pling-choices`), or `--pling-driver NAME|FILE` (a NAME is
`tutorials/<id>/drivers/NAME.json`), else the tutorial's own (`driver` in its
tutorial.json), else the page contract's test ids (pling_harness/project/dock_driver.py).
The harness's testbed page is built on the reference runtime, so it is always read with the
page contract's driver.

A check that asks the driver for a part it declares absent (an "always allow" the framework
does not offer, a handoff timer it does not show) raises `NotObservable`; the hooks here
turn it into a skip whose reason starts `n/a (`, which the reports count as n/a, never as a
pass.
"""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path

import pytest

from pling_harness.plugin import choices
from pling_harness.plugin.choices import DRIVER_OPTION
from pling_harness.plugin.report import not_applicable
from pling_harness.project.dock_driver import (
    DriverError,
    DriverSpec,
    NotObservable,
    default_driver,
)
from pling_harness.project.tutorials import Tutorial

_DRIVERS_KEY = pytest.StashKey[dict[tuple[str, Path], DriverSpec]]()
# A test that uses this fixture is on the harness's testbed page (the reference runtime).
TESTBED_FIXTURE = "testbed_page"
# A generated check of a testbed row asks for the page only once it runs, so its case
# carries this marker instead (pling_harness/plugin/declared/collect.py).
ON_TESTBED_MARK = "pling_on_testbed"


def run_driver(config: pytest.Config, tutorial: Tutorial, root: Path) -> DriverSpec:
    """The run's driver for `tutorial`: the one the run's choices hold (read once, where
    they were resolved: pling_harness/plugin/choices.py), else read once per run here."""
    settled = choices.of_run(config)
    if settled is not None and settled.tutorial.value == tutorial.id \
            and settled.root_path == root:
        return settled.driver.spec
    known = config.stash.setdefault(_DRIVERS_KEY, {})
    key = (tutorial.id, root)
    if key not in known:
        known[key] = tutorial.dock_driver(root, config.getoption(DRIVER_OPTION))
    return known[key]


@pytest.fixture
def dock_driver(request: pytest.FixtureRequest, tutorial: Tutorial,
                tutorial_root: Path) -> DriverSpec:
    """The dock driver the test reads the assistant with (`dock`, `timeline`, the
    guarantees): the run's choice (`check --driver`, --pling-driver), else the tutorial's
    `driver`, else the page contract's; on the testbed page always the page contract's (it
    runs the reference runtime)."""
    if TESTBED_FIXTURE in request.fixturenames \
            or request.node.get_closest_marker(ON_TESTBED_MARK) is not None:
        return default_driver()
    try:
        return run_driver(request.config, tutorial, tutorial_root)
    except DriverError as error:
        pytest.fail(str(error), pytrace=False)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, None, None]:
    return (yield from _not_observable_is_not_applicable())


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    return (yield from _not_observable_is_not_applicable())


def _not_observable_is_not_applicable() -> Generator[None, None, None]:
    try:
        return (yield)
    except NotObservable as error:
        pytest.skip(not_applicable(error.driver, f"{error.part}: {error.why}"))

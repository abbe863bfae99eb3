"""The pytest plugin only the mutation runner loads (`-p pling_harness.mutation.run_plugin`): the
options of its stages, which no user of `pytest` or `pling-tutorial check` is offered.

A mutant meets the checks of its own guarantees first (the pling plugin's
`--pling-guarantee`, with `--pling-stop-at-kill`: each guarantee's only until one fails,
pling_harness/mutation/stopping.py), and the rest of the suite only if they did not kill it
(`--pling-skip-guarantee` for what already ran).
"""

from __future__ import annotations

import pytest

from pling_harness.mutation import stopping
from pling_harness.plugin.report_writer import guarantees_of

PLUGIN = __name__


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("pling-mutation", "pling mutation runner (pling-tutorial mutate)")
    group.addoption(
        "--pling-skip-guarantee", metavar="NAME", action="append", default=None,
        help="leave out the checks marked with this guarantee (repeatable): the rest of the "
             "suite, once a mutant's own checks ran",
    )
    group.addoption(
        "--pling-stop-at-kill", action="store_true", default=False,
        help="with --pling-guarantee: skip a check once a check of each of its named "
             "guarantees has failed, and stop once every named guarantee has one "
             "(pling_harness/mutation/stopping.py; the runner's first stage)",
    )


def pytest_configure(config: pytest.Config) -> None:
    stop_at = config.getoption("--pling-guarantee") if config.getoption(
        "--pling-stop-at-kill") else None
    if stop_at and not config.pluginmanager.has_plugin(stopping.PLUGIN_NAME):
        config.pluginmanager.register(stopping.StopAtKill(frozenset(stop_at)),
                                      stopping.PLUGIN_NAME)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    unwanted = config.getoption("--pling-skip-guarantee")
    if unwanted:
        keep = [item for item in items if not set(guarantees_of(item)) & set(unwanted)]
        config.hook.pytest_deselected(items=[item for item in items if item not in keep])
        items[:] = keep

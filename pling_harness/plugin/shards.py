"""--pling-shard K/N: run the K-th of N parts of the check suite, balanced by recorded durations.

The cut is pytest-split's `least_duration` (the longest check first, each to the part with
the least time so far), over the suite as selected by everything else (-k, -m, --pling-locale,
--pling-guarantee): deterministic for a given durations file and suite, and every check in
exactly one part. Checks the file does not know count as its average. The durations come
from each tutorial's `checks/.test_durations` (pytest-split's format: node id → seconds),
refreshed by `pling-tutorial check <id> --store-durations`, or from `--durations-path`
when given. pytest-split's own `--splits N --group K` mean the same and are taken as such.

The report of a shard records the part and the whole suite it was cut from (`ShardRecord`),
so `pling-tutorial merge-reports` can tell a check that ran in no shard, or in two, from a
pass. Under pytest-xdist each worker cuts the same suite the same way; the controller, which
never collects, gets the record from the first worker that reports one.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from pytest_split.algorithms import Algorithms

from pling_harness.plugin.report import CollectedCheck, ShardRecord
from pling_harness.plugin.report_writer import (
    REPORT_PLUGIN_NAME,
    ReportWriter,
    guarantees_of,
    locale_of,
)
from pling_harness.project.action_table import ACTION_TABLE_FILE_NAME

PLUGIN_NAME = "pling-shards"
SHARD_OPTION = "--pling-shard"
DURATIONS_FILE_NAME = ".test_durations"
CHECKS_DIR_NAME = "checks"
ALGORITHM = "least_duration"
SHARD_KEY = pytest.StashKey[ShardRecord]()
# What a pytest-xdist worker sends its controller (config.workeroutput).
WORKER_OUTPUT_KEY = "pling_shard"
_SHARD = re.compile(r"^(\d+)/(\d+)$")


def parse_shard(text: str) -> tuple[int, int]:
    """"2/4" → (2, 4); anything else is a UsageError naming the value and the form."""
    match = _SHARD.match(text.strip())
    if match is None or not 1 <= int(match[1]) <= int(match[2]):
        raise pytest.UsageError(
            f"{SHARD_OPTION} {text!r}: give K/N with 1 <= K <= N, e.g. {SHARD_OPTION} 2/4")
    return int(match[1]), int(match[2])


def addoption(group: pytest.OptionGroup) -> None:
    group.addoption(
        SHARD_OPTION, metavar="K/N", default=None,
        help="run only the K-th of N parts of the suite, balanced by each tutorial's "
             "checks/.test_durations (pytest-split's least_duration); the report records "
             "the part, for pling-tutorial merge-reports")


def configure(config: pytest.Config) -> None:
    """Register the shard cutter when --pling-shard (or pytest-split's --splits/--group)
    asks for a part; pytest-split's own plugin is then kept out, so the suite is cut once."""
    option = config.getoption(SHARD_OPTION)
    splits = getattr(config.option, "splits", None)
    group = getattr(config.option, "group", None)
    if option is None and not (splits and group):
        return
    assert option is not None or (splits is not None and group is not None)
    if option is not None and (splits or group):
        raise pytest.UsageError(
            f"give either {SHARD_OPTION} K/N or pytest-split's --splits N --group K, not both")
    index, count = parse_shard(option) if option is not None else (int(str(group)),
                                                                    int(str(splits)))
    # One spelling from here on: pytest-xdist workers get these options, and pytest-split
    # must not cut the suite a second time.
    config.option.pling_shard = f"{index}/{count}"
    config.option.splits = config.option.group = None
    if config.pluginmanager.has_plugin("pytestsplitplugin"):
        config.pluginmanager.unregister(name="pytestsplitplugin")
    if not config.pluginmanager.has_plugin(PLUGIN_NAME):
        config.pluginmanager.register(ShardCutter(index, count, config), PLUGIN_NAME)


def durations_for(config: pytest.Config, items: list[pytest.Item]) -> dict[str, float]:
    """--durations-path when the user named one, else every `checks/.test_durations` of
    the tutorials the items come from."""
    given = getattr(config.option, "durations_path", None)
    if given and Path(given) != Path(os.getcwd(), DURATIONS_FILE_NAME):
        return _read(Path(given))
    durations: dict[str, float] = {}
    for folder in sorted({checks_folder(item.path) for item in items} - {None}, key=str):
        assert folder is not None
        durations.update(_read(folder / DURATIONS_FILE_NAME))
    return durations


def checks_folder(path: Path) -> Path | None:
    """The `checks/` folder a check file lives in, if any (a generated check's: the one
    beside its action table)."""
    if path.name == ACTION_TABLE_FILE_NAME:
        return path.parent / CHECKS_DIR_NAME
    for parent in path.parents:
        if parent.name == CHECKS_DIR_NAME:
            return parent
    return None


def _read(path: Path) -> dict[str, float]:
    if not path.is_file():
        return {}
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise pytest.UsageError(
            f"{path} is not a durations file ({error}); refresh it with "
            "pling-tutorial check <id> --store-durations") from None
    if not isinstance(raw, dict) or not all(
            isinstance(v, int | float) for v in raw.values()):
        raise pytest.UsageError(
            f"{path} is not a durations file (node id → seconds); refresh it with "
            "pling-tutorial check <id> --store-durations")
    return {str(k): float(v) for k, v in raw.items()}


class ShardCutter:
    """A pytest plugin object: keeps the K-th of N parts of the collected suite."""

    def __init__(self, index: int, count: int, config: pytest.Config) -> None:
        self.index = index
        self.count = count
        self.config = config

    # Last, so the part is cut from the suite as every other option selected it.
    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config: pytest.Config,
                                      items: list[pytest.Item]) -> None:
        collected = [CollectedCheck(nodeid=item.nodeid, locale=locale_of(item),
                                    guarantees=tuple(guarantees_of(item))) for item in items]
        self._publish(ShardRecord(index=self.index, count=self.count, collected=collected))
        algorithm = Algorithms[_algorithm(config)].value
        durations = durations_for(config, items)
        part = algorithm(self.count, items, durations)[self.index - 1]
        items[:] = part.selected
        config.hook.pytest_deselected(items=part.deselected)
        known = sum(1 for check in collected if check.nodeid in durations)
        self._say(f"pling: shard {self.index}/{self.count}: {len(part.selected)} of "
                  f"{len(collected)} checks, about {part.duration:.0f} s by the recorded "
                  f"durations ({known} of {len(collected)} checks recorded"
                  + ("; refresh them with pling-tutorial check <id> --store-durations)"
                     if known < len(collected) else ")"))

    def _say(self, line: str) -> None:
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None and not hasattr(self.config, "workerinput"):
            reporter.write_line(line)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        record = session.config.stash.get(SHARD_KEY, None)
        worker_output = getattr(session.config, "workeroutput", None)
        if record is not None and worker_output is not None:
            worker_output[WORKER_OUTPUT_KEY] = record.model_dump_json()

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: object, error: object) -> None:
        """pytest-xdist's controller: take the record a worker sent."""
        output = getattr(node, "workeroutput", None) or {}
        raw = output.get(WORKER_OUTPUT_KEY)
        if raw is not None and SHARD_KEY not in self.config.stash:
            self._publish(ShardRecord.model_validate_json(raw))

    def _publish(self, record: ShardRecord) -> None:
        """Keep the record, and hand it to the report writer (the controller's) if any."""
        self.config.stash[SHARD_KEY] = record
        writer = self.config.pluginmanager.get_plugin(REPORT_PLUGIN_NAME)
        if isinstance(writer, ReportWriter):
            writer.shard = record


def _algorithm(config: pytest.Config) -> str:
    """pytest-split's --splitting-algorithm when given on the command line, else ours."""
    given = [arg for arg in config.invocation_params.args
             if str(arg).startswith("--splitting-algorithm")]
    chosen = getattr(config.option, "splitting_algorithm", None)
    return str(chosen) if given and chosen else ALGORITHM

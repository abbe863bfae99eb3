"""Collecting the generated checks: pytest finds a tutorial's `actions.json` (running the
tutorial's folder, as `pling-tutorial check` does, or the file itself) and collects it as a
module holding one test, `test_declared`, parametrized over every check the table implies
in every locale of the tutorial: `actions.json::test_declared[<action>-<check>-<locale>]`.
The ids are stable (the table's order, the tutorial's locales), so shards, durations, the
merged report and the mutation suite treat them as any other check."""

from __future__ import annotations

import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pling_harness.browser.dock import Dock
from pling_harness.evidence.timeline import Timeline
from pling_harness.plugin.declared.context import DeclaredRun
from pling_harness.plugin.declared.examples import add_options
from pling_harness.plugin.declared.matrix import (
    DECLARED_CASES,
    DeclaredCheck,
    declared_checks,
    unaccounted,
)
from pling_harness.plugin.declared.testbed_run import checks_of_testbed_rows, run_of_testbed_row
from pling_harness.plugin.driver import ON_TESTBED_MARK
from pling_harness.plugin.external import ServedTutorial
from pling_harness.plugin.factories import OpenTutorialPage
from pling_harness.plugin.guarantee_registry import registry, require_parts
from pling_harness.plugin.options import pling_root
from pling_harness.plugin.tutorial_choice import chosen_tutorial, run_locales
from pling_harness.project.action_table import (
    ACTION_TABLE_FILE_NAME,
    ActionTable,
    TableError,
    load_action_table,
)
from pling_harness.project.paths import TUTORIALS_DIR_NAME
from pling_harness.project.testbed_table import (
    TestbedTable,
    load_testbed_table,
    path_of_testbed_table,
)
from pling_harness.project.texts import Say, Words
from pling_harness.project.tutorials import TUTORIAL_FILE_NAME, TutorialError
from pling_harness.server.model.handle import ModelHandle


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


def is_action_table(path: Path) -> bool:
    """`tutorials/<id>/actions.json` beside a tutorial.json."""
    return (path.name == ACTION_TABLE_FILE_NAME and path.parent.parent.name == TUTORIALS_DIR_NAME
            and (path.parent / TUTORIAL_FILE_NAME).is_file())


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if not is_action_table(file_path) or pling_root(parent.config) is None:
        return None
    table: ActionTableFile = ActionTableFile.from_parent(parent, path=file_path)
    return table


class ActionTableFile(pytest.Module):
    """A tutorial's action table, collected as a module of generated checks."""

    def _getobj(self) -> types.ModuleType:
        root = pling_root(self.config)
        assert root is not None
        try:
            tutorial = chosen_tutorial(self.config, self.path, root)
            table = load_action_table(self.path)
            table.check_against(path=self.path, user_requests=list(tutorial.user_requests),
                                initial_state=tutorial.api.initial_state,
                                business_view=list(tutorial.page.business_view))
            testbed = _testbed_table(self.path.parent, list(tutorial.user_requests))
        except (TableError, TutorialError, pytest.UsageError) as error:
            raise self.CollectError(str(error)) from None
        module = types.ModuleType(f"pling_declared_{tutorial.id.replace('-', '_')}")
        module.__file__ = str(self.path)
        on_testbed = [getattr(pytest.mark, ON_TESTBED_MARK)]
        locales = run_locales(self.config, tutorial)
        generated = declared_checks(table)
        cases = [pytest.param(check, locale, id=f"{check.id}-{locale}",
                              marks=[*(pytest.mark.guarantee(g) for g in check.guarantees),
                                     *(on_testbed if testbed_row else [])])
                 for check, testbed_row in [
                     *((check, False) for check in generated),
                     *((check, True) for check in
                       (checks_of_testbed_rows(testbed) if testbed else []))]
                 for locale in locales]
        missing = unaccounted(table, [(check.action, check.check, locale)
                                      for check in generated for locale in locales], locales)
        if missing:
            raise self.CollectError(
                f"{self.path}: the guarantees' declarations say the table must yield a check "
                "(passing, failing or n/a with its reason) for each of these, and none was "
                "generated: " + "; ".join(missing))
        test = _declared_test(table, testbed)
        setattr(test, DECLARED_CASES, cases)
        module.__dict__["test_declared"] = test
        return module


def _testbed_table(directory: Path, user_requests: list[str]) -> TestbedTable | None:
    """The tutorial's testbed table, if it has one (the runtime's own rules, shown on the
    testbed page)."""
    path = path_of_testbed_table(directory)
    if not path.exists():
        return None
    testbed = load_testbed_table(path)
    testbed.check_against(path=path, user_requests=user_requests)
    return testbed


def _declared_test(table: ActionTable, testbed: TestbedTable | None) -> Callable[..., None]:
    def test_declared(declared: DeclaredCheck, locale: str, open_tutorial_page: OpenTutorialPage,
                      dock: Dock, timeline: Timeline, model: ModelHandle, words: Words,
                      say: Say, tutorial_server: ServedTutorial,
                      request: pytest.FixtureRequest) -> None:
        """A check generated from the tutorial's action table (its id says which)."""
        action = declared.action if declared.action in table.actions else next(iter(table.actions))
        fixtures: dict[str, Any] = dict(open_tutorial_page=open_tutorial_page, dock=dock,
                                        timeline=timeline, model=model, words=words, say=say,
                                        locale=locale, served=tutorial_server)
        run = run_of_testbed_row(declared, testbed, lambda: request.getfixturevalue("testbed"),
                                 request=request, **fixtures) \
            or DeclaredRun(action=action, row=table.actions[action], table=table,
                           request=request, **fixtures)
        kind = registry().kind(declared.check)
        require_parts(run.dock.spec, kind.needs)  # n/a before the page opens, with the reason
        kind.run(run)

    return test_declared

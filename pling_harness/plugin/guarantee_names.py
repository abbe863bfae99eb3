"""Which guarantee names a check may give `@pytest.mark.guarantee(...)`: the harness's and
its tutorial's own (`pling_harness.evidence.sources.guarantee_sources`). Checked as each file
is collected, in every run: a misspelled name is a collection error naming the file, the
name and the closest known one, never a check that counts for no guarantee."""

from __future__ import annotations

from collections.abc import Generator

import pytest

from pling_harness.evidence.sources import UndeclaredGuarantee
from pling_harness.plugin.options import pling_root
from pling_harness.plugin.report_writer import guarantees_of
from pling_harness.plugin.tutorial_choice import known_guarantees
from pling_harness.project.tutorials import TutorialError


def unknown_guarantee(config: pytest.Config, collector: pytest.Collector,
                      collected: list[pytest.Item | pytest.Collector]) -> str | None:
    """What is wrong with the guarantee names of the tests `collector` collected, or None."""
    items = [node for node in collected if isinstance(node, pytest.Item)]
    if not items:
        return None
    try:
        known = known_guarantees(config, collector.path, pling_root(config))
    except TutorialError as error:
        return f"{collector.path}: {error}"
    for item in items:
        for name in guarantees_of(item):
            if name not in known:
                return (f"{collector.path}: @pytest.mark.guarantee({name!r}) on {item.name}: "
                        f"{UndeclaredGuarantee(name, known)}")
    return None


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(
    collector: pytest.Collector,
) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
    report = yield
    if report.passed and isinstance(collector, pytest.Module | pytest.Class):
        problem = unknown_guarantee(collector.config, collector, report.result)
        if problem is not None:
            report.outcome = "failed"
            report.longrepr = problem
            report.result = []
    return report

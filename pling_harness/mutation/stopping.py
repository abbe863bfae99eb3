"""--pling-stop-at-kill: run each named guarantee's checks only until one of them fails.

The mutation runner asks this of the checks of a mutant's expected guarantees: a mutant is
killed once a check of each of them has failed (in its call, as the runner's judge counts
it), so what would run after that proves nothing more. A later check whose every named
guarantee has already failed is skipped, and the run stops once all of them have. Crashes
(setup or teardown errors) do not count: the run goes on, so the guarantee still gets its
chance.
"""

from __future__ import annotations

import pytest

from pling_harness.plugin.report_writer import guarantees_of

PLUGIN_NAME = "pling-stop-at-kill"


class StopAtKill:
    """Tracks which of `guarantees` have had a check fail and stops the session once all have."""

    def __init__(self, guarantees: frozenset[str]) -> None:
        self.guarantees = guarantees
        self.failed: set[str] = set()
        self._session: pytest.Session | None = None
        self._named_by: dict[str, frozenset[str]] = {}

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        self._session = session

    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        self._named_by = {item.nodeid: frozenset(guarantees_of(item)) & self.guarantees
                          for item in items}

    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        named = self._named_by.get(item.nodeid, frozenset())
        if named and named <= self.failed:
            pytest.skip(f"--pling-stop-at-kill: a check of {', '.join(sorted(named))} "
                        "has failed already")

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "call" or not report.failed:
            return
        self.failed |= self._named_by.get(report.nodeid, frozenset())
        if self._session is not None and self.guarantees <= self.failed:
            self._session.shouldstop = (f"--pling-stop-at-kill: a check of each of "
                                        f"{', '.join(sorted(self.guarantees))} has failed")

"""The JSON report a check run writes (--pling-report): which test proved which guarantee."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Outcome = Literal["passed", "failed", "error", "skipped"]


class TestRecord(BaseModel):
    """One collected check and how it ended."""

    __test__ = False  # not a pytest test class, despite the name
    model_config = ConfigDict(extra="forbid")

    nodeid: str
    locale: str | None = None
    guarantees: tuple[str, ...] = ()
    outcome: Outcome
    # "failed" means an assertion in the test body failed; "error" means setup or teardown broke.
    failure: str | None = None
    """First line of the failure, e.g. the guarantee's message; None when it passed."""


class SuiteReport(BaseModel):
    """Everything one pytest run of a check suite reports."""

    model_config = ConfigDict(extra="forbid")

    tests: list[TestRecord] = Field(default_factory=list)

    def write(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.model_dump_json(indent=2), encoding="utf-8")

    @classmethod
    def read(cls, path: Path) -> SuiteReport:
        return cls.model_validate_json(path.read_text(encoding="utf-8"))

    def guarantee_outcomes(self) -> dict[tuple[str, str], Outcome]:
        """(guarantee, locale) → worst outcome over the tests that prove it."""
        rank: dict[Outcome, int] = {"passed": 0, "skipped": 1, "failed": 2, "error": 3}
        table: dict[tuple[str, str], Outcome] = {}
        for test in self.tests:
            for guarantee in test.guarantees:
                key = (guarantee, test.locale or "-")
                if key not in table or rank[test.outcome] > rank[table[key]]:
                    table[key] = test.outcome
        return table

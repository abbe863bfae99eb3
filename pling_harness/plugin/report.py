"""The JSON report a check run writes (--pling-report): which test proved which guarantee.

The same `SuiteReport` feeds the HTML report (--pling-html): per test its duration and, on
failure, its message, timeline and Playwright traces; and the gallery of user-facing states.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from pling_harness.project.run_choices import ShownChoice

Outcome = Literal["passed", "failed", "error", "skipped", "n/a", "not run", "flaky"]
# "flaky": with --pling-html a failing check is run again once, traced (plugin/retry.py);
# one that passes only then is flaky, never a pass.
# A check skipped with a reason `n/a (<who>: <why>)` could not be proven on this run: against
# a page served elsewhere (`n/a (external: ...)`, `--base-url`) or with a dock driver that
# cannot observe what it needs (`n/a (<driver>: <part>: <why>)`). Its outcome is "n/a",
# never a pass; its reason is what the brackets hold.
NOT_APPLICABLE_OPENING = "n/a ("
NOT_APPLICABLE_CLOSING = ")"


def not_applicable(who: str, why: str) -> str:
    """The skip reason of a check `who` cannot prove (`external`, a driver's name), and why."""
    return f"{NOT_APPLICABLE_OPENING}{who}: {why}{NOT_APPLICABLE_CLOSING}"


def not_applicable_reason_of(text: str) -> str | None:
    """What `n/a (<who>: <why>)` says between its brackets, or None for any other text."""
    if text.startswith(NOT_APPLICABLE_OPENING) and text.endswith(NOT_APPLICABLE_CLOSING):
        return text[len(NOT_APPLICABLE_OPENING):-len(NOT_APPLICABLE_CLOSING)]
    return None
# The locale of a check that has none (not parametrized by locale), in the summary's tables.
NO_LOCALE = "-"


class FirstTry(BaseModel):
    """How a check's first, untraced run failed, when the HTML report ran it again, traced
    (pling_harness/plugin/retry.py)."""

    model_config = ConfigDict(extra="forbid")

    outcome: Literal["failed", "error"]
    failure: str | None = None
    message: str | None = None
    timeline: str | None = None
    details: str | None = None
    duration: float = 0.0


class TestRecord(BaseModel):
    """One collected check and how it ended."""

    __test__ = False  # not a pytest test class, despite the name
    model_config = ConfigDict(extra="forbid")

    nodeid: str
    locale: str | None = None
    guarantees: tuple[str, ...] = ()
    outcome: Outcome
    # "failed" means an assertion in the test body failed; "error" means setup or teardown broke;
    # "not run" means the run was interrupted before the check's body ended.
    failure: str | None = None
    """First line of the failure, e.g. the guarantee's message; None when it passed."""
    reason: str | None = None
    """Why a check is "n/a" (`<who>: <why>`): what its proof needs that the run does not
    have, e.g. "external: needs the fixture server's log" or "ai-sdk: approval.always: the
    AI SDK approves one call at a time"."""
    duration: float = 0.0
    """Seconds spent in setup, call and teardown."""
    message: str | None = None
    """The whole failure message, without the timeline (a guarantee's problem may span lines)."""
    timeline: str | None = None
    """The rendered timeline (page, network, server, runtime) of a failing browser check."""
    details: str | None = None
    """pytest's full failure report (traceback and captured output), for people."""
    traces: tuple[str, ...] = ()
    """Absolute paths of the Playwright traces kept for this test (`--tracing`)."""
    first_try: FirstTry | None = None
    """The first run's failure of a check run again, traced (the outcome is the retry's:
    "failed" or "error" when it failed again, "flaky" when it passed)."""


class GalleryCapture(BaseModel):
    """One screenshot of a state a user meets, taken by a check at the moment it was on screen."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    state: str
    """What the user sees, e.g. "approval-ask", "handoff-step-2", "notice-PERMISSION_DENIED"."""
    title: str
    """The state for a reader of the report, in English."""
    locale: str
    image: str
    """File name inside the report's gallery folder."""
    detail: str = ""
    """What the page showed with it: the action, the step's target, the code, the time left."""
    nodeid: str
    """The check that met the state."""


class ReportExtras(BaseModel):
    """What the plugin adds to one pytest phase report; pytest-xdist carries it to the
    controller as a plain attribute of the report (a dict)."""

    model_config = ConfigDict(extra="forbid")

    message: str | None = None
    timeline: str | None = None
    gallery: list[GalleryCapture] = Field(default_factory=list)
    gallery_notes: list[str] = Field(default_factory=list)
    """Pictures that could not be taken, and why."""


class CollectionError(BaseModel):
    """A file of checks pytest could not collect (a check that fails to import): pytest then
    runs no check at all, so the report says which file and why."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    nodeid: str
    """The file (or folder) pytest could not collect, as pytest names it."""
    error: str
    """The error's own line, e.g. "NameError: name 'pytest' is not defined"."""


def collection_error_line(longrepr: str) -> str:
    """The line of pytest's collection report that names the error: its last `E   ` line
    (the exception), else its last line."""
    lines = [line.rstrip() for line in longrepr.splitlines() if line.strip()]
    errors = [line[1:].strip() for line in lines if line.startswith("E ")]
    return errors[-1] if errors else (lines[-1].strip() if lines else "unknown error")


class CollectedCheck(BaseModel):
    """One check of the whole suite a shard was cut from (run there or not)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    nodeid: str
    locale: str | None = None
    guarantees: tuple[str, ...] = ()


class ShardRecord(BaseModel):
    """Which part of the suite a `--pling-shard K/N` run was (pling_harness/plugin/shards.py):
    what the whole suite held, so a merge can tell a lost or doubled check from a pass."""

    model_config = ConfigDict(extra="forbid")

    index: int = Field(ge=1)
    """K, counted from 1."""
    count: int = Field(ge=1)
    """N."""
    collected: list[CollectedCheck]
    """Every check of the suite before it was cut, in collection order."""
    folder: str | None = None
    """The HTML report's folder as the shard wrote it, so a merge can find the traces
    (recorded as absolute paths) in the folder it was copied to."""


class SuiteReport(BaseModel):
    """Everything one pytest run of a check suite reports."""

    model_config = ConfigDict(extra="forbid")

    tests: list[TestRecord] = Field(default_factory=list)
    shard: ShardRecord | None = None
    """Set by a sharded run (`--pling-shard K/N`)."""
    gallery: list[GalleryCapture] = Field(default_factory=list)
    """The first capture of each (state, locale), when the HTML report was asked for."""
    gallery_notes: list[str] = Field(default_factory=list)
    gallery_taken: bool = False
    """Whether the run pictured the gallery's states (`--pling-gallery`, `check --gallery`):
    off, a report has no pictures however many states its checks met."""
    interrupted: str | None = None
    """Why the run stopped before its end (e.g. "interrupted by SIGTERM"); None when it ran
    to the end. The checks it did not get to are "not run"."""
    collection_errors: list[CollectionError] = Field(default_factory=list)
    """The files of checks pytest could not collect; with any, it ran no check."""
    page_stopped: str | None = None
    """A page the run started (`--page NAME`) that had exited before the run stopped it:
    how it ended. The checks it served are not to be trusted as verdicts on it."""
    choices: list[ShownChoice] = Field(default_factory=list)
    """The run's root, tutorial, page, driver, locales and model port, each with its source
    (pling_harness/project/run_choices.py); empty for a run without one tutorial."""

    def write(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.model_dump_json(indent=2), encoding="utf-8")

    @classmethod
    def read(cls, path: Path) -> SuiteReport:
        return cls.model_validate_json(path.read_text(encoding="utf-8"))

    def guarantee_outcomes(self) -> dict[tuple[str, str], Outcome]:
        """(guarantee, locale) → worst outcome over the tests that prove it; "n/a" only when
        none of them could run (checks that ran decide, the others are counted apart)."""
        rank: dict[Outcome, int] = {"n/a": 0, "passed": 1, "skipped": 2, "not run": 3,
                                    "flaky": 4, "failed": 5, "error": 6}
        table: dict[tuple[str, str], Outcome] = {}
        for test in self.tests:
            for guarantee in test.guarantees:
                key = (guarantee, test.locale or NO_LOCALE)
                if key not in table or rank[test.outcome] > rank[table[key]]:
                    table[key] = test.outcome
        return table

    def count_guarantees(self, locales: Sequence[str], outcome: Outcome) -> int:
        """How many guarantees have `outcome` wherever they were checked in `locales` (a
        check without a locale counts in each), and were checked there at all."""
        table = self.guarantee_outcomes()
        columns = [*locales, NO_LOCALE]
        found = [[table[(g, loc)] for loc in columns if (g, loc) in table]
                 for g in dict.fromkeys(g for g, _ in table)]
        return sum(1 for outcomes in found if outcomes and set(outcomes) == {outcome})

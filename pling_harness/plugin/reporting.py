"""The pling plugin's report hook: a failure's message and timeline, and the gallery's
pictures, travel with each test's report (pling_harness/plugin/report_writer.py writes them)."""

from __future__ import annotations

from collections.abc import Generator

import pytest

from pling_harness.evidence.guarantees import GuaranteeViolation
from pling_harness.plugin.report import ReportExtras
from pling_harness.plugin.report_writer import attach_extras
from pling_harness.plugin.stash_keys import GALLERY_KEY, TIMELINE_KEY


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if GALLERY_KEY not in item.config.stash:
        return report  # no tutorials in this run (configure.py): not ours to report on
    extras = ReportExtras()
    timeline = item.stash.get(TIMELINE_KEY, None)
    failure = call.excinfo.value if call.excinfo is not None and report.failed else None
    if isinstance(failure, GuaranteeViolation):
        extras.message, extras.timeline = violation_parts(failure)
    elif failure is not None and call.excinfo is not None:
        extras.message = call.excinfo.exconly()
        # A guarantee's message already carries the timeline; any other failure gets it here.
        if timeline is not None and report.when == "call":
            extras.timeline = timeline.render()
            report.sections.append(("pling timeline", extras.timeline))
    gallery = item.config.stash[GALLERY_KEY]
    extras.gallery = gallery.take_captures()
    extras.gallery_notes = gallery.take_problems()
    attach_extras(report, extras)
    return report


def violation_parts(violation: GuaranteeViolation) -> tuple[str, str | None]:
    """(message, timeline) of a broken guarantee: its text is the message, a blank line,
    then the rendered timeline."""
    message = f"guarantee {violation.guarantee!r} violated: {violation.problem}"
    text = str(violation)
    rest = text.removeprefix(message)
    return message, (rest.strip("\n") or None) if rest != text else None

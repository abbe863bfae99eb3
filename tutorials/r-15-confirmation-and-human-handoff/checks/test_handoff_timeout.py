"""Handoff timeouts (SPEC §4): nothing happens until the deadline, `HANDOFF_TIMEOUT` at it,
for any `handoff.timeout`; the timer shows the time left. (r-15's publish at its declared
default of 5 minutes: `publish_changes-handoff-timeout`, generated from actions.json.)

Time moves only with Playwright's clock (`page.clock.fast_forward`), which the harness
pauses once the page is ready. The timer is read as the page contract words it: its text
contains the time left as `m:ss`, `mm:ss` or `h:mm:ss`, exact at whole seconds."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect
from testbed_actions import REQUESTS

from pling_harness import Dock, ModelHandle, Testbed, Timeline, guarantees, time_left

ONE_SECOND_MS = 1000
# `handoff.timeout` values from a few seconds to an hour: under a minute, minutes and seconds,
# over the default, and long enough that an `m:ss` display needs 60+ minutes or an hour field.
CUSTOM_TIMEOUTS_MS = {
    "3s": 3 * ONE_SECOND_MS,
    "90s": 90 * ONE_SECOND_MS,
    "10min": 10 * 60 * ONE_SECOND_MS,
    "1h": 60 * 60 * ONE_SECOND_MS,
}
# What the user types to start the testbed handoff (matched by `when_user`).
TESTBED_REQUEST = REQUESTS["timed_step"]
TESTBED_PATTERN = r"timed|限时"
TESTBED_ACTION = "timed_step"


def start_timed_handoff(testbed: Testbed, dock: Dock, model: ModelHandle, locale: str,
                        timeout_ms: int) -> None:
    """Declare a testbed handoff with `handoff.timeout = timeout_ms` and have the model call it."""
    testbed.declare({"id": TESTBED_ACTION, "desc": TESTBED_ACTION, "kind": "danger",
                     "handoff": {"timeout": timeout_ms}})
    model.when_user(TESTBED_PATTERN, TESTBED_ACTION)
    dock.ask(TESTBED_REQUEST[locale])
    expect(dock.handoff_for(TESTBED_ACTION)).to_be_visible()


# ---- the default: five minutes ---------------------------------------------------------


# ---- handoff.timeout, whatever its size -----------------------------------------------


@pytest.mark.guarantee("handoff-custom-timeout")
@pytest.mark.parametrize("timeout", list(CUSTOM_TIMEOUTS_MS))
def test_custom_timeout_counts_down_from_its_value_and_ends_the_handoff_there_not_before(
    testbed: Testbed, dock: Dock, timeline: Timeline, model: ModelHandle, locale: str,
    timeout: str,
) -> None:
    timeout_ms = CUSTOM_TIMEOUTS_MS[timeout]
    total_s = timeout_ms // ONE_SECOND_MS
    start_timed_handoff(testbed, dock, model, locale, timeout_ms)
    before = timeline.mark()
    expect(dock.handoff_timer).to_have_text(time_left(total_s))
    testbed.page.clock.fast_forward(ONE_SECOND_MS)
    expect(dock.handoff_timer).to_have_text(time_left(total_s - 1))

    testbed.page.clock.fast_forward(timeout_ms - 2 * ONE_SECOND_MS)
    expect(dock.handoff_timer).to_have_text(time_left(1))
    expect(dock.handoff).to_be_visible()
    guarantees.no_model_request(timeline, since=before,
                                why=f"the {timeout} handoff has a second left")

    testbed.page.clock.fast_forward(ONE_SECOND_MS)
    dock.wait_until_handoff_ends()

    guarantees.model_received(timeline, action=TESTBED_ACTION, code="HANDOFF_TIMEOUT",
                              since=before)
    guarantees.no_silent_retry(timeline, since=before)

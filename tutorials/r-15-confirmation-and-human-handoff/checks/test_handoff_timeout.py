"""Handoff timeouts (SPEC §4): nothing happens until the deadline, `HANDOFF_TIMEOUT` at it,
for the default 5 minutes and for any `handoff.timeout`; the timer shows the time left.

Time moves only with Playwright's clock (`page.clock.fast_forward`), which the harness
pauses once the page is ready. The timer is read as the page contract words it: its text
contains the time left as `m:ss`, `mm:ss` or `h:mm:ss`, exact at whole seconds."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from playwright.sync_api import Page, expect

from harness import Dock, ModelHandle, Say, Testbed, Timeline, Words, guarantees, time_left

if TYPE_CHECKING:  # the checks' conftest.py; pytest imports it, tests only name its types
    from conftest import Workspace

PUBLISH = "publish_changes"
ONE_SECOND_MS = 1000
# SPEC §4: the default time a user has to finish a handoff.
DEFAULT_TIMEOUT_MS = 5 * 60 * 1000
# `handoff.timeout` values from a few seconds to an hour: under a minute, minutes and seconds,
# over the default, and long enough that an `m:ss` display needs 60+ minutes or an hour field.
CUSTOM_TIMEOUTS_MS = {
    "3s": 3 * ONE_SECOND_MS,
    "90s": 90 * ONE_SECOND_MS,
    "10min": 10 * 60 * ONE_SECOND_MS,
    "1h": 60 * 60 * ONE_SECOND_MS,
}
# What the user types to start the testbed handoff (matched by `when_user`).
TESTBED_REQUEST = {"en": "do the timed step", "zh": "完成限时步骤"}
TESTBED_PATTERN = r"timed|限时"
TESTBED_ACTION = "timed_step"


def start_timed_handoff(testbed: Testbed, dock: Dock, model: ModelHandle, locale: str,
                        timeout_ms: int) -> None:
    """Declare a testbed handoff with `handoff.timeout = timeout_ms` and have the model call it."""
    testbed.declare({"id": TESTBED_ACTION, "desc": TESTBED_ACTION, "kind": "danger",
                     "handoff": {"timeout": timeout_ms}})
    model.when_user(TESTBED_PATTERN, TESTBED_ACTION)
    dock.ask(TESTBED_REQUEST[locale])
    expect(dock.handoff).to_have_attribute("data-action", TESTBED_ACTION)


def start_publish_handoff(dock: Dock, say: Say) -> None:
    dock.ask(say("publish"))
    expect(dock.handoff).to_have_attribute("data-action", PUBLISH)


# ---- the default: five minutes ---------------------------------------------------------


@pytest.mark.guarantee("handoff-timeout")
def test_default_timeout_counts_down_from_five_minutes_and_ends_the_handoff_there_not_before(
    tutorial_page: Page, dock: Dock, timeline: Timeline, model: ModelHandle,
    workspace: Workspace, words: Words, say: Say, locale: str,
) -> None:
    start_publish_handoff(dock, say)
    before = timeline.mark()
    total_s = DEFAULT_TIMEOUT_MS // ONE_SECOND_MS
    expect(dock.handoff_timer).to_have_text(time_left(total_s))
    tutorial_page.clock.fast_forward(ONE_SECOND_MS)
    expect(dock.handoff_timer).to_have_text(time_left(total_s - 1))

    tutorial_page.clock.fast_forward(DEFAULT_TIMEOUT_MS - 2 * ONE_SECOND_MS)
    expect(dock.handoff_timer).to_have_text(time_left(1))
    expect(dock.handoff).to_be_visible()
    guarantees.no_model_request(timeline, since=before, why="the handoff has a second left")

    tutorial_page.clock.fast_forward(ONE_SECOND_MS)
    dock.wait_until_handoff_ends()

    guarantees.model_received(timeline, action=PUBLISH, code="HANDOFF_TIMEOUT", since=before)
    guarantees.no_silent_retry(timeline, since=before)
    workspace.expect_unpublished()
    notice = dock.messages("notice").last
    expect(notice).to_have_attribute("data-code", "HANDOFF_TIMEOUT")
    expect(notice).to_contain_text(words.desc(PUBLISH))
    guarantees.no_success_claim(timeline, success_phrases=model.success_phrases(PUBLISH, locale))
    guarantees.highlights_removed(timeline)


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

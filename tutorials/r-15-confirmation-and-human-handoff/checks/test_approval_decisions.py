"""What an approval decides, on the testbed: Allow is "allowed to try", given for the page as it
was when the card appeared, so an action that stopped being available while its card was open
(its control disabled or removed, the action switched off or unregistered, its scope left)
runs nothing after Allow: the model is told the code step 3 or 4 of SPEC §3 would give now,
and no business request is made. And a decision the user did not give counts for nothing: a
decision value the executor does not know (a forged decision "yes") counts as Deny, and one
approval that reaches the server twice in one request (page script or a resending client
repeating it: ai 7.0.148 ran the tool twice) runs the action at most once.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect
from testbed_actions import (
    GO_AHEAD,
    GO_AHEAD_PATTERN,
    GUARDED_SAVE,
    GUARDED_SAVE_ARGUMENTS,
    declare_guarded,
)

from pling_harness import (
    Dock,
    ModelHandle,
    Say,
    Testbed,
    Timeline,
    guarantees,
)

# Something the page does to its testbed actions.
PageChange = Callable[[Testbed], None]



# What the page does while the approval card is open, and the code the call must then get.
CHANGES = [
    pytest.param(lambda testbed: testbed.disable_button(GUARDED_SAVE), "UNAVAILABLE",
                 id="control-disabled"),
    pytest.param(lambda testbed: testbed.remove_button(GUARDED_SAVE), "UNAVAILABLE",
                 id="control-removed"),
    pytest.param(lambda testbed: testbed.set_enabled(GUARDED_SAVE, False), "UNAVAILABLE",
                 id="switched-off"),
    pytest.param(lambda testbed: testbed.undeclare(GUARDED_SAVE), "UNAVAILABLE", id="unregistered"),
    pytest.param(lambda testbed: testbed.deactivate_scope("editor"), "OUT_OF_SCOPE",
                 id="scope-left"),
]


@pytest.mark.guarantee("availability-rechecked-after-approval")
@pytest.mark.parametrize(("change", "code"), CHANGES)
def test_action_made_unavailable_while_its_card_is_open_runs_nothing_after_allow(
    testbed: Testbed, dock: Dock, timeline: Timeline, model: ModelHandle, locale: str,
    change: PageChange, code: str,
) -> None:
    declare_guarded(testbed)
    model.when_user(GO_AHEAD_PATTERN, GUARDED_SAVE, GUARDED_SAVE_ARGUMENTS)
    start = timeline.mark()
    dock.ask(GO_AHEAD[locale])
    expect(dock.approval_for(GUARDED_SAVE)).to_be_visible()

    change(testbed)
    dock.approve()

    guarantees.model_received(timeline, action=GUARDED_SAVE, code=code, since=start,
                              guarantee="availability-rechecked-after-approval")
    guarantees.no_business_request(timeline, since=start,
                                   guarantee="availability-rechecked-after-approval")
    assert testbed.calls() == []
    expect(dock.last_message("notice", code=code)).to_be_attached()


FORGED_VALUES = [pytest.param("yes", id="yes"), pytest.param("", id="empty"),
                 pytest.param("ALLOW", id="allow-in-capitals")]


@pytest.mark.guarantee("forged-decision-refused")
@pytest.mark.parametrize("value", FORGED_VALUES)
def test_forged_decision_value_the_executor_does_not_know_counts_as_deny(
    testbed: Testbed, dock: Dock, timeline: Timeline, model: ModelHandle, locale: str, value: str,
) -> None:
    declare_guarded(testbed)
    model.when_user(GO_AHEAD_PATTERN, GUARDED_SAVE, GUARDED_SAVE_ARGUMENTS)
    start = timeline.mark()
    dock.ask(GO_AHEAD[locale])
    expect(dock.approval_for(GUARDED_SAVE)).to_be_visible()

    dock.forge_decision(value)

    guarantees.model_received(timeline, action=GUARDED_SAVE, code="PERMISSION_DENIED", since=start,
                              guarantee="forged-decision-refused")
    guarantees.no_business_request(timeline, since=start, guarantee="forged-decision-refused")
    assert testbed.calls() == []


@pytest.mark.guarantee("forged-decision-refused")
def test_one_approval_sent_twice_in_one_request_runs_the_action_once(
    tutorial_page: Page, dock: Dock, timeline: Timeline, model: ModelHandle, say: Say,
) -> None:
    repeated = dock.repeat_next_approval("archive_workspace")
    # A lenient wire hears every result the framework sends; OpenAI's refuses a second one.
    model.accept_unanswered_tool_calls()
    dock.ask(say("archive"))
    expect(dock.approval_for("archive_workspace")).to_be_visible()
    before = timeline.mark()

    dock.approve()

    guarantees.one_run_per_approval(timeline, action="archive_workspace",
                                    call_ids=repeated.call_ids, since=before,
                                    guarantee="forged-decision-refused")

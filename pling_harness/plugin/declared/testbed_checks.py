"""Generated checks of what a testbed row's `page` moves leave (its switches, scope and
button, SPEC §3 steps 1 to 4): a call refused before any prompt with the row's code, or an
action whose switches were undone asking and running again."""

from __future__ import annotations

from playwright.sync_api import expect

from pling_harness.evidence import guarantees
from pling_harness.evidence.guarantees import GuaranteeViolation
from pling_harness.plugin.declared.context import DeclaredRun
from pling_harness.plugin.declared.testbed_run import TestbedRun

NAME = "rejected-before-prompt"


def _testbed_run(run: DeclaredRun) -> TestbedRun:
    assert isinstance(run, TestbedRun) and run.testbed_table is not None
    return run


def refused_before_prompt(run: DeclaredRun) -> None:
    """The row's call answers its `refused` code: to the model exactly `{ok: false, code,
    message}` with a message, to the user one notice meaning the code and naming the action
    by its desc (even where the page never offered it); no card or handoff, no run, nothing
    written into a target, the state unchanged."""
    testbed_run = _testbed_run(run)
    assert testbed_run.testbed_table is not None
    code = testbed_run.testbed_row().refused
    assert code is not None
    run.open()
    before = run.call(testbed_run.testbed_table.call_arguments(testbed_run.row_name))
    received = [r for r in run.timeline.tool_results(before) if r.call_id == run.last_call_id]
    if not received:
        raise GuaranteeViolation(NAME, f"the model should receive a {code} failure envelope "
                                 f"for {run.last_call_id}; it received no result for it",
                                 run.timeline)
    run.expect_failure_envelope(received[0], code, NAME)
    expect(run.dock.messages("notice", code=code)).to_have_count(1)
    desc = str(testbed_run.testbed_table.declaration(testbed_run.row_name)["desc"])
    guarantees.notice_means(run.timeline, run.words, code=code, action=run.action, naming=desc,
                            guarantee=NAME)
    guarantees.rejected_without_prompt(run.timeline, action=run.action, code=code, since=before)
    run.expect_nothing_asked(before, guarantee=NAME, after="for a refused call")
    guarantees.no_business_request(run.timeline, since=before, guarantee=NAME)
    guarantees.no_writes_into_targets(run.timeline, since=before)
    assert testbed_run.testbed is not None
    if testbed_run.testbed.calls():
        raise GuaranteeViolation(NAME, f"a refused call ran: {testbed_run.testbed.calls()}",
                                 run.timeline)


def asks_and_runs_again(run: DeclaredRun) -> None:
    """The page's moves undone, the action is available again: asked for, it shows its card,
    and allowed it runs once with the call's arguments."""
    testbed_run = _testbed_run(run)
    run.open()
    assert testbed_run.testbed_table is not None and testbed_run.testbed is not None
    before = run.ask()
    expect(run.dock.approval_for(run.action)).to_be_visible()
    run.dock.approve()
    guarantees.model_received(run.timeline, action=run.action, code="OK", since=before,
                              guarantee=NAME)
    ran = [call.body for call in testbed_run.testbed.calls(run.action)]
    wanted = testbed_run.testbed_table.call_arguments(testbed_run.row_name)
    if ran != [wanted]:
        raise GuaranteeViolation(NAME, f"{run.action} should run once with {wanted}; its "
                                 f"runs sent {ran}", run.timeline)

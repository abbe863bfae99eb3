"""Generated checks of "registered once, whatever the lifecycle" (issue 28 §2): a page whose
framework registers its actions from components (CopilotKit's `useHumanInTheLoop`, a React
binding's `usePlingTool`) must keep each registered once as served (React StrictMode in
development), after the component re-renders and after it is unmounted and mounted again.

For each action and lifecycle: every model request offers each table action exactly once;
one call shows one card (one handoff for a handoff, none for `none`); a denied call runs
nothing; an approved or unasked call sends its business request once (CopilotKit#2310 ran a
handler several times for one call). The re-render and the remount are the page's own
hooks, named by the dock driver (`page_hooks`): the harness triggers them and proves the
rest from the model's requests, the DOM and the browser's requests. Without hooks those two
cases are n/a with the driver's reason; "as served" runs on every page. One check per
lifecycle, not one looping over them, so a page without hooks still proves "as served" and
reports the other two n/a instead of hiding them inside a pass."""

from __future__ import annotations

from typing import Literal, get_args

from pling_harness.evidence import guarantees
from pling_harness.evidence.guarantees import GuaranteeViolation
from pling_harness.evidence.records import Mark
from pling_harness.plugin.declared.context import DeclaredRun
from pling_harness.project.action_table import ActionRow

# The lifecycles a page's registrations go through, one check each.
Lifecycle = Literal["as-served", "rerender", "remount"]
LIFECYCLES: tuple[Lifecycle, ...] = get_args(Lifecycle)
LIFECYCLE_CHECK = "registered-once"


def lifecycle_guarantees(row: ActionRow) -> tuple[str, ...]:
    """What a row's registered-once checks prove: the projection always; one card, and
    nothing run before it or after a Deny (an asking row); one handoff (a handoff); one
    run of an unasked call's handler (a `none` row with `calls`)."""
    if row.policy == "handoff":
        return ("projection-complete", "handoff-no-stacking")
    if row.asks:
        return ("projection-complete", "approval-before-side-effects", "denial-respected")
    if row.calls is not None:
        return ("projection-complete", "calls-one-after-another")
    return ("projection-complete",)


def registered_once(run: DeclaredRun, lifecycle: Lifecycle) -> None:
    """The page put through `lifecycle`, then the action called as its policy has it: one
    card each for a denied and an allowed call, one handoff, or none; every model request
    since offering each table action exactly once. (The re-render and the remount need the
    driver's `page_hooks`: their declarations say so, and are n/a before the page opens
    without them.)"""
    run.open()
    if lifecycle != "as-served":
        run.dock.run_page_hook(lifecycle)
    start = run.timeline.mark()
    if run.row.policy == "handoff":
        _one_handoff(run)
    elif run.row.asks:
        _one_card_each(run)
    else:
        ran = lifecycle_guarantees(run.row)[-1]  # a handler run once, or the projection
        asked = _asked(run)
        run.expect_nothing_shown(asked, guarantee=ran,
                                 after=f"for a call to {run.action}, which asks nothing")
        run.expect_ran_once(asked, run.call_arguments(asked), ran)
    # Every request of the check, the decisions' follow-ups included.
    guarantees.projection_exactly(run.timeline, tools=run.table.names(), since=start)


def _asked(run: DeclaredRun) -> Mark:
    """Ask for the action; the projection of that turn's requests is checked first, so a
    registration lost or doubled fails as such, before any card is counted."""
    asked = run.ask()
    guarantees.projection_exactly(run.timeline, tools=run.table.names(), since=asked)
    return asked


def _one_card_each(run: DeclaredRun) -> None:
    """One card for a call that is denied (nothing runs), one for the next, approved (its
    business request goes out once)."""
    denied = _asked(run)
    run.expect_cards(denied, "approval-before-side-effects", 1)
    run.expect_nothing_yet(denied, "approval-before-side-effects")
    run.dock.deny()
    guarantees.denial_respected(run.timeline, action=run.action, since=denied,
                                success_phrases=run.model.success_phrases(run.action,
                                                                          run.locale))
    approved = _asked(run)
    run.expect_cards(approved, "approval-before-side-effects", 1)
    run.expect_nothing_yet(approved, "approval-before-side-effects")
    run.dock.approve()
    guarantees.approval_before_side_effects(run.timeline, action=run.action, since=approved)
    run.expect_ran_once(approved, run.call_arguments(approved), "approval-before-side-effects")


def _one_handoff(run: DeclaredRun) -> None:
    """One handoff panel for one call, no card beside it; cancelled, it ends."""
    asked = _asked(run)
    panels = run.timeline.shown("handoff", asked, action=run.action)
    if len(panels) != 1:
        raise GuaranteeViolation("handoff-no-stacking", f"one call to {run.action} should "
                                 f"show one handoff, {len(panels)} appeared", run.timeline)
    guarantees.handoff_without_approval(run.timeline, action=run.action, since=asked)
    run.dock.handoff_cancel()

"""Named guarantee assertions, proven from what the page and the server really did.

Each function checks one promise of SPEC §2 to §4 and raises `GuaranteeViolation` (an
AssertionError) whose message names the guarantee, says precisely what was wrong, and
ends with the rendered timeline. The evidence is the harness's own in-page probe (DOM
and requests, in causal page order), the network as Playwright saw it, and the fixture
server's log and state; the runtime's `pling:event`s are never used as proof.

Two kinds, in two modules: `record` proves from what the timeline recorded (page log,
network, server log and state) and can be asked after the fact; `live_page` also looks at
the page as it is now (the card on screen, a highlight's box, the assistant's last words),
so ask it while the page is open. Both are re-exported here: a check imports
``from pling_harness import guarantees`` and calls ``guarantees.denial_respected(...)``.

Most take `since=mark` (from `timeline.mark()`) to look only at what happened after a
point; without it they look at everything since the page became ready (the fixtures set
`timeline.ready_mark`), as loading the page is not a side effect of any action. E.g. with
a mark taken just before clicking Deny::

    dock.ask("cancel the order")
    before = timeline.mark()
    dock.deny()
    guarantees.denial_respected(timeline, action="cancel_order", since=before,
                                success_phrases=["cancelled"])
    guarantees.no_silent_retry(timeline, since=before)
"""

from pling_harness.evidence.guarantees.decided_calls import (
    approval_honoured,
    decided_call_never_unanswered,
    one_run_per_approval,
    results_in_call_order,
)
from pling_harness.evidence.guarantees.live_page import (
    UI_TIMEOUT_MS,
    always_allow_offered,
    approval_shows_arguments,
    approval_shows_whole_values,
    approval_still_open,
    denial_respected,
    handoff_shows_reason_and_steps,
    highlight_covers_target,
    highlights_removed,
    no_success_claim,
    notice_means,
)
from pling_harness.evidence.guarantees.record import (
    always_allow_never_offered,
    approval_before_side_effects,
    handoff_without_approval,
    model_received,
    no_business_request,
    no_model_request,
    no_silent_retry,
    no_writes_into_targets,
    one_call_at_a_time,
    probe_saw_every_business_request,
    projection_exactly,
    prompted_for_every_call,
    ran_without_prompt,
    rejected_without_prompt,
    state_unchanged,
    success_after_business_answer,
    success_after_business_state,
    success_only_after_published,
)
from pling_harness.evidence.guarantees.violation import GuaranteeViolation

__all__ = [
    "UI_TIMEOUT_MS",
    "GuaranteeViolation",
    "always_allow_never_offered",
    "always_allow_offered",
    "approval_before_side_effects",
    "approval_honoured",
    "approval_shows_arguments",
    "approval_shows_whole_values",
    "approval_still_open",
    "decided_call_never_unanswered",
    "denial_respected",
    "handoff_shows_reason_and_steps",
    "handoff_without_approval",
    "highlight_covers_target",
    "highlights_removed",
    "model_received",
    "no_business_request",
    "no_model_request",
    "no_silent_retry",
    "no_success_claim",
    "no_writes_into_targets",
    "notice_means",
    "one_call_at_a_time",
    "one_run_per_approval",
    "probe_saw_every_business_request",
    "projection_exactly",
    "prompted_for_every_call",
    "ran_without_prompt",
    "rejected_without_prompt",
    "results_in_call_order",
    "state_unchanged",
    "success_after_business_answer",
    "success_after_business_state",
    "success_only_after_published",
]

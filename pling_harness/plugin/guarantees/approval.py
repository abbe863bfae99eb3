"""The approval card: nothing runs before it, only the user's click answers it, it shows
what will run, and a decision counts once and as given."""

from __future__ import annotations

from pling_harness.evidence import guarantees as proofs
from pling_harness.plugin.declared import run_checks
from pling_harness.plugin.declared.context import DeclaredRun
from pling_harness.plugin.declared.rows import asks, runs
from pling_harness.plugin.guarantee_registry import Generates, Guarantee, declare

ASKS = "`policy` `ask` or `ask-always`"


# These two read the run's options (examples to replay) and name the check in what they keep.
def _exact_arguments(run: DeclaredRun) -> None:
    request = run.pytest_request()
    run_checks.approval_shows_exact_arguments(run, request.config, request.node.nodeid)


def _whole_values(run: DeclaredRun) -> None:
    request = run.pytest_request()
    run_checks.approval_shows_whole_values(run, request.config, request.node.nodeid)


declare(
    Guarantee(
        name="policy-table",
        means="every row of SPEC §2, proven by what the page did (card or not, \"always "
              "allow\" or not, asks again or not), on r-15 and the testbed",
        breaks="an action runs without the card its declaration promises, or asks where it "
               "should run at once",
        checks=(Generates("policy-table", run_checks.policy_table, order=10, when=runs,
                          rows="every action without a handoff: its `policy`"),),
    ),
    Guarantee(
        name="approval-before-side-effects",
        means="the approval card is visible before any business request or state change of "
              "that action",
        breaks="the action has already happened by the time the user is asked",
        proven_by=(proofs.approval_before_side_effects,),
        checks=(Generates("approval-before-side-effects", run_checks.approval_before_side_effects,
                          order=20, when=asks, rows=ASKS),),
    ),
    Guarantee(
        name="denial-respected",
        means="after Deny: `PERMISSION_DENIED` to the model, no business request, server and "
              "page unchanged, the denial shown as the call's outcome (a notice reporting "
              "`PERMISSION_DENIED`), no success claim; a message the user sends next never "
              "carries the denied call to the model without its result",
        breaks="the user says no and the action happens anyway, or is told it happened",
        proven_by=(proofs.denial_respected, proofs.decided_call_never_unanswered,
                   proofs.no_business_request),
        checks=(Generates("denial-respected", run_checks.denial_respected, order=30, when=asks,
                          also=("no-silent-retry",), rows="`ask`, `ask-always`"),),
    ),
    Guarantee(
        name="session-grant-for-ask",
        means="a plain Allow is for that one call (the next asks again); only \"always allow\" "
              "grants, for the dock session, ended by reload or \"new conversation\"",
        breaks="one Allow silently becomes permission for every later call",
        proven_by=(proofs.always_allow_offered, proofs.ran_without_prompt),
        checks=(Generates("session-grant-for-ask", run_checks.session_grant_for_ask, order=40,
                          when=lambda row: row.policy == "ask", rows="`ask`"),),
    ),
    Guarantee(
        name="ask-always-never-granted",
        means="`ask-always` never offers \"always allow\", asks every call, and refuses a "
              "forged \"always\" whichever way the page sends it (injected button, script "
              "click, dispatched event)",
        breaks="an action meant to ask every time stops asking",
        proven_by=(proofs.always_allow_never_offered, proofs.prompted_for_every_call),
        checks=(Generates("ask-always-never-granted", run_checks.ask_always_never_granted,
                          order=41, when=lambda row: row.policy == "ask-always",
                          rows="`ask-always` (forged \"always\" too; after an Allow only when "
                               "its `effect` does not disable it)"),),
    ),
    Guarantee(
        name="approval-shows-exact-arguments",
        means="the card shows the arguments whole (an 80-character name, spaces kept, nothing "
              "cut or hidden by overflow) and `run` sends exactly what was shown; a character "
              "that hides or reorders text (bidi controls, zero-width, control, separator, "
              "odd-space and default-ignorable characters) is shown as `\\u202E`, marked in "
              "the page's language, inside its own bidi-isolated value",
        breaks="the user approves one value and another one is sent",
        proven_by=(proofs.approval_shows_arguments, proofs.approval_shows_whole_values),
        checks=(
            Generates("approval-shows-exact-arguments", _exact_arguments, order=50, when=asks,
                      rows="`ask`, `ask-always`: the projected `params` (every class of "
                           "hidden character shown as codes, then edge and drawn values "
                           "allowed and sent exactly)"),
            # The same promise for plain values, needing no hidden-characters marker.
            Generates("approval-shows-whole-values", _whole_values, order=60, when=asks,
                      rows="`ask`, `ask-always`: the projected `params`; needs only the "
                           "driver's `approval.value`, no hidden-characters marker (edge and "
                           "drawn values shown whole: text and rendered text the value "
                           "itself, spaces kept, nothing hidden by overflow; Allow runs with "
                           "exactly the value shown: the request's body where the harness "
                           "sees it, else the state the run left equals the state the row's "
                           "own request with that value leaves)"),
        ),
    ),
    Guarantee(
        name="approval-only-by-click",
        means="the card is answered only by a click on Allow / Always allow / Deny: Escape, "
              "Enter outside the buttons, any key but a button's own activation pressed on a "
              "card button reached with Tab, focus changes, clicks elsewhere (or on a "
              "decision-looking element around the dock) answer nothing. The gestures need "
              "only Allow and Deny; keys and focus on \"always allow\" are a check of their "
              "own, n/a where the driver has no `approval.always`",
        breaks="a stray key or click approves an action the user never chose",
        proven_by=(proofs.approval_still_open, proofs.always_allow_offered),
    ),
    Guarantee(
        name="approval-honoured",
        means="after Allow, however the conversation goes on (the user writes again at once), "
              "the outcome told is the outcome that happened at the business API (the state "
              "the harness reads itself): an action that ran is never told failed to the "
              "model, and if the model received no result for it, the page shows its effect "
              "in its business view; one that did not run is never told done, and the user is "
              "told it did not (an error or a notice). Never is the call sent on to the model "
              "unanswered. Wording-independent: no notice code says \"it ran\" or \"the "
              "outcome is unknown\" (each code's notice in the glossary says not run or "
              "failed), so an error such as \"the assistant could not answer\" after an "
              "action that ran is read as \"not run\" and fails. Seen with the scripted model "
              "lenient on OpenAI's wire (`ModelHandle.accept_unanswered_tool_calls`), as "
              "lenient OpenAI-compatible servers are",
        breaks="the user is told an approved action failed when it ran (and may do it twice), "
               "or that it ran when it did not",
        proven_by=(proofs.approval_honoured,),
    ),
    Guarantee(
        name="availability-rechecked-after-approval",
        means="an action that became unavailable while its card was open runs nothing after "
              "Allow",
        breaks="an Allow given to a stale card runs an action the page no longer offers",
        proven_by=(proofs.no_business_request, proofs.model_received),
    ),
    Guarantee(
        name="forged-decision-refused",
        means="a decision the user did not give counts for nothing: a decision value the "
              "executor does not know counts as Deny; one approval that reaches the server "
              "twice in one request (page script or a resending client repeating it in the "
              "page's own request, through the driver's `decision_wire`) runs the action at "
              "most once: the model never hears two results for the one call (ai 7.0.148 ran "
              "it twice)",
        breaks="one approval runs the action twice, or a decision the user never gave runs it",
        proven_by=(proofs.one_run_per_approval, proofs.no_business_request),
    ),
    Guarantee(
        name="no-silent-retry",
        means="after a denial, cancel or timeout: one model request reporting it, no further "
              "business request",
        breaks="the assistant quietly tries again what the user refused or let lapse",
        proven_by=(proofs.no_silent_retry,),
    ),
)

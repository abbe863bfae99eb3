"""What an action's run leaves and tells: the state its row declares, success only after the
business answer, a failure told as one, calls one after another."""

from __future__ import annotations

from pling_harness.evidence import guarantees as proofs
from pling_harness.plugin.declared import run_checks
from pling_harness.plugin.declared.rows import has_calls, runs, writes
from pling_harness.plugin.guarantee_registry import Generates, Guarantee, declare

declare(
    Guarantee(
        name="declared-effect",
        means="an action allowed (or run at once) runs once and leaves exactly the business "
              "state its action table row declares, every other field as it was, and the page "
              "shows it (generated from `actions.json`); where the page's server makes the "
              "request out of sight, the model hears OK and the state is read all the same",
        breaks="the action does more, less or something else than it says, or the page does "
               "not show what it did",
        checks=(Generates("declared-effect", run_checks.declared_effect, order=70, when=has_calls,
                          rows="`calls`, `effect`, `shows`, `starts_from`: one run, exactly "
                               "the declared state, every other field left alone, the page "
                               "showing it"),),
    ),
    Guarantee(
        name="success-after-business-answer",
        means="success reaches the model only after the business request answered, for every "
              "action with a `run` (save, archive, reset, each held with Playwright routing). "
              "Where the page's server runs the approved call (the AI SDK's chat route), the "
              "check reads the business state itself: a value the business API refuses (the "
              "row's `refused` blank) must reach the model as `RUN_FAILED` with a `RUN_FAILED` "
              "notice and nothing changed, and the model's success must arrive once the state "
              "holds the run's change; n/a for an action the API refuses no value of, citing "
              "where the framework runs the call (the driver's `approved_calls_run`)",
        breaks="the assistant says \"done\" before anything is done, or when it failed",
        proven_by=(proofs.success_after_business_answer,),
        checks=(Generates("success-after-business-answer", run_checks.success_after_business_answer,
                          order=80, when=writes, also=("run-failure-reported",),
                          rows="`calls` with a method other than GET: held, failed (503 → "
                               "`RUN_FAILED`, nothing changed), answered"),),
    ),
    Guarantee(
        name="run-failure-reported",
        means="a business failure after approval reaches the model as `RUN_FAILED`, and the "
              "page says so",
        breaks="an action that failed is reported to the user as done",
        proven_by=(proofs.no_success_claim, proofs.state_unchanged),
    ),
    Guarantee(
        name="run-result-reaches-the-model",
        means="a `run` that returns nothing reaches the model as success with `data: null`",
        breaks="the assistant never hears that an action ran, and asks again or guesses",
        proven_by=(proofs.model_received,),
    ),
    Guarantee(
        name="hidden-characters-refused",
        means="a workspace name holding a control or format character is refused by the page "
              "before any request (`RUN_FAILED` and a page message naming `U+XXXX` and its "
              "position) and by the server (400 naming it), state unchanged",
        breaks="a name that reads one way and is stored another gets saved",
        checks=(Generates("hidden-characters-refused", run_checks.hidden_characters_refused,
                          order=90,
                          when=lambda row: runs(row) and any(
                              "hidden-characters" in argument.refused
                              for argument in row.arguments.values()),
                          rows="`arguments.<name>.refused` holding `hidden-characters`"),),
    ),
    Guarantee(
        name="calls-one-after-another",
        means="calls of one model reply are checked, prompted, run and answered one after "
              "another, in order",
        breaks="two actions race, or a result reaches the model for the wrong call",
        proven_by=(proofs.one_call_at_a_time, proofs.results_in_call_order),
    ),
    Guarantee(
        name="one-turn-at-a-time",
        means="one message sent in the page's own dock starts one turn and shows each reply "
              "once; a page calling `agent.send()` with blank text, or while a turn runs, "
              "starts nothing",
        breaks="a message is answered twice, or a second turn starts beside the first and "
               "their actions interleave",
    ),
    Guarantee(
        name="model-received",
        means="what the model is told is what the page did: each result, denial and notice "
              "reaches it as the harness saw it happen",
        breaks="the assistant works from an account of the page that is not what happened",
        proven_by=(proofs.model_received,),
    ),
)

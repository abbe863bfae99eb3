"""What the model is offered, and what it may call: exactly the registered actions, each
once; a call that breaks a declaration refused before anyone is asked."""

from __future__ import annotations

from functools import partial

from pling_harness.evidence import guarantees as proofs
from pling_harness.plugin.declared import rejection_checks, testbed_checks
from pling_harness.plugin.declared.lifecycle_checks import (
    LIFECYCLE_CHECK,
    LIFECYCLES,
    lifecycle_guarantees,
    registered_once,
)
from pling_harness.plugin.guarantee_registry import LAST, Generates, Guarantee, declare

REGISTERED_ONCE = (
    "every action, once per lifecycle: the page as served (React StrictMode in development), "
    "after the component holding the assistant's registrations re-renders, after it is "
    "unmounted and mounted again (the driver's `page_hooks`; without them those two are n/a "
    "with its reason): every model request offers each table action exactly once; one call "
    "shows one card (`ask`, `ask-always`: denied, nothing runs; the next call, allowed, sends "
    "its `calls` once), one handoff and no card (`handoff`, cancelled), nothing (`none`: its "
    "`calls` sent once, one run of its handler); also proves "
    "`approval-before-side-effects`, `denial-respected` (`ask`, `ask-always`), "
    "`handoff-no-stacking` (`handoff`), `calls-one-after-another` (`none` with `calls`)")

declare(
    Guarantee(
        name="projection-complete",
        means="every request offers the model exactly the registered in-scope actions, hidden "
              "or disabled buttons included; a disabled one answers `UNAVAILABLE`",
        breaks="the assistant cannot do what the page offers, or is offered an action twice "
               "and runs it twice",
        proven_by=(proofs.projection_exactly,),
        checks=(
            *(Generates(f"{LIFECYCLE_CHECK}-{lifecycle}",
                        partial(registered_once, lifecycle=lifecycle),
                        order=200 + index, also=lambda row: lifecycle_guarantees(row)[1:],
                        # Triggering a re-render or a remount takes the page's own hooks.
                        needs=() if lifecycle == "as-served" else ("page_hooks",),
                        rows=REGISTERED_ONCE)
              for index, lifecycle in enumerate(LIFECYCLES)),
            Generates("projection-complete", rejection_checks.projection_complete,
                      per="table", order=LAST,
                      rows="the whole table against the page's projection: a stale table "
                           "fails naming both lists"),
        ),
    ),
    Guarantee(
        name="rejected-before-prompt",
        means="invalid arguments (empty or blank arguments too), unknown (ids match exactly: "
              "no case or separator folding), out-of-scope and unavailable actions get their "
              "codes and no prompt",
        breaks="the user is asked to approve a call that could never run as asked",
        proven_by=(proofs.rejected_without_prompt,),
        checks=(
            Generates("rejected-before-prompt", rejection_checks.rejected_before_prompt,
                      order=220, also=("hostile-model-output",),
                      rows="every action: each way of breaking its projected `params`, each "
                           "near miss of its id"),
            Generates("rejected-when-unavailable", rejection_checks.rejected_when_unavailable,
                      order=230, when=lambda row: bool(row.unavailable_when),
                      also=("projection-complete",), rows="`unavailable_when`"),
            # A testbed row the page moves (declared/testbed_run.py says which).
            Generates("refused-before-prompt", testbed_checks.refused_before_prompt,
                      per="testbed", rows="a testbed row with `page` and `refused`"),
            Generates("asks-and-runs-again", testbed_checks.asks_and_runs_again, per="testbed",
                      rows="a testbed row with `page` and no `refused`"),
        ),
    ),
    Guarantee(
        name="schema-enforced",
        means="every JSON-Schema keyword the runtime supports is enforced before any prompt, "
              "edge values pass",
        breaks="a value the action's schema forbids reaches the card, or the business API",
        proven_by=(proofs.rejected_without_prompt,),
    ),
    Guarantee(
        name="invalid-params-names-the-argument",
        means="the notice of a call with invalid arguments names the argument that broke it",
        breaks="the user (and the model) cannot tell which value was wrong",
        proven_by=(proofs.rejected_without_prompt,),
    ),
    Guarantee(
        name="bad-declaration-refused",
        means="a declaration the runtime cannot honour (unknown kind or confirm, blank desc, "
              "bad id, unenforced keyword, unrunnable handoff, a `run` that is not a function, "
              "both or neither of `run` and `handoff`) never becomes a callable action",
        breaks="an action the page declared wrongly runs without the protection it asked for",
        proven_by=(proofs.rejected_without_prompt,),
    ),
)

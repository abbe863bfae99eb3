"""The human handoff: the human does the step, guided and highlighted; the assistant never
writes into it, and only the page's own check says it is done."""

from __future__ import annotations

from pling_harness.evidence import guarantees as proofs
from pling_harness.plugin.declared import handoff_checks, highlight_checks
from pling_harness.plugin.declared.rows import is_handoff
from pling_harness.plugin.guarantee_registry import Generates, Guarantee, declare
from pling_harness.project.action_table import ActionRow

STEPS = "`handoff.steps`"


def _steps_before_the_last(row: ActionRow) -> bool:
    """Steps move on only where one comes before the last (whose action completes it)."""
    return row.handoff is not None and len(row.handoff.steps) > 1


declare(
    Guarantee(
        name="handoff-no-stacking",
        means="a handoff never shows an approval card, whatever its kind or `confirm`; one "
              "handoff at a time: a second one (another agent on the page) is answered "
              "`HANDOFF_BUSY` and the first goes on",
        breaks="a card appears over the step the human is doing, or two handoffs fight for "
               "the same fields",
        proven_by=(proofs.handoff_without_approval,),
        checks=(Generates("handoff-no-stacking", handoff_checks.handoff_no_stacking, order=110,
                          when=is_handoff, also=("handoff-guidance",),
                          rows=f"{STEPS}: each step's target highlighted alone as Next goes "
                               "through them and Back returns to the first"),),
    ),
    Guarantee(
        name="handoff-guidance",
        means="reason and steps shown; a step on a field advances on input, not on focus or a "
              "click, and a step on anything else (a button, a link, a checkbox, a range) on "
              "its click, even when the page stops the event; a later step's target may not "
              "be rendered yet; each highlight covers its target and follows it on scroll, "
              "resize and layout changes; highlights gone when it ends",
        breaks="the human is not shown what to do or where, or the highlight points at the "
               "wrong place",
        proven_by=(proofs.handoff_shows_reason_and_steps, proofs.highlight_covers_target,
                   proofs.highlights_removed),
        checks=(
            Generates("handoff-steps-advance", handoff_checks.handoff_steps_advance, order=120,
                      when=_steps_before_the_last,
                      rows=f"{STEPS} with a step before the last: a `fill` step stays after a "
                           "click into its field and keys that type nothing, and moves on "
                           "once it has input (focus still in it); a `click` step moves on on "
                           "the click"),
            Generates("highlight-brings-target-into-view",
                       highlight_checks.highlight_brings_target_into_view, order=170,
                      when=is_handoff,
                       rows=f"{STEPS}: before each step is shown (the handoff's start, then "
                            "Next) its target is made off-screen, the document scrolled to "
                            "its top or bottom and, if that is not enough, the window made as "
                            "tall as leaves it below the fold (from its measured place; not "
                            "under 320 px); its highlight brings it into view and covers it"),
            Generates("highlight-follows-scroll", highlight_checks.highlight_follows_scroll,
                       order=171, when=is_handoff,
                       rows=f"{STEPS}: at each step the document scrolls down and back up, by "
                            "at most 120 px and half the way out of view (the window made "
                            "short enough to scroll from the content's height, if need be); "
                            "each scroll the target really moved counts, and its highlight "
                            "covers it after each"),
            Generates("highlight-follows-resize", highlight_checks.highlight_follows_resize,
                       order=172, when=is_handoff,
                       rows=f"{STEPS}: at each step the window narrows by 100 px at a time "
                            "(to 480 px), then widens (3 × 100 px), until the target's box "
                            "changes while in view, then goes back; its highlight covers it "
                            "at every width it stays in view"),
            Generates("highlight-follows-layout", highlight_checks.highlight_follows_layout,
                       order=173, when=is_handoff,
                       rows=f"{STEPS}: at each step a block (48 px at most, less where the "
                            "target sits low) is added before the target's nearest layout "
                            "ancestor that it pushes down, then grows to twice that, scroll "
                            "anchoring off; each time the target moved down at least half the "
                            "block and the document did not scroll, and its highlight covers "
                            "it"),
        ),
    ),
    Guarantee(
        name="handoff-cancel",
        means="Cancel ends the handoff: the model hears `HANDOFF_CANCELLED`, nothing is sent "
              "or changed, and the fields keep what the human typed",
        breaks="cancelling does not stop the step, or wipes what the human typed",
        checks=(Generates("handoff-cancel", handoff_checks.handoff_cancel, order=130,
                          when=is_handoff,
                          also=("no-silent-retry", "handoff-never-writes-target"),
                          rows="`handoff`: Cancel once the fields before the last step are "
                               "typed (they keep what was typed)"),),
    ),
    Guarantee(
        name="handoff-timeout",
        means="the handoff's time runs out at its declared value: 4:59 nothing, 5:00 "
              "`HANDOFF_TIMEOUT`, nothing sent or changed",
        breaks="a forgotten handoff waits for ever, or ends before its time",
        checks=(Generates("handoff-timeout", handoff_checks.handoff_timeout, order=140,
                          when=is_handoff, also=("handoff-never-writes-target",),
                          rows="`handoff.timeout_ms` (driven by Playwright's clock)"),),
    ),
    Guarantee(
        name="handoff-custom-timeout",
        means="the timer shows the action's own `handoff.timeout` and any value (3 s to 1 h) "
              "fires at its boundary",
        breaks="the human is shown a time that is not the one that ends the step",
    ),
    Guarantee(
        name="handoff-done-requires-expect",
        means="Done while unpublished (also after an earlier success message) is refused: "
              "only the page's `expect.check()` says the step is done",
        breaks="the assistant says the human's step is done when it is not",
        checks=(Generates("handoff-done-requires-expect",
                          handoff_checks.handoff_done_requires_expect,
                          order=150, when=is_handoff,
                          also=("handoff-guidance", "handoff-never-writes-target"),
                          rows=f"{STEPS}: Done at once and before the last step (the "
                               "highlights go with it; the fields keep what was typed)"),),
    ),
    Guarantee(
        name="success-only-after-published",
        means="success reaches the model only after the server published and the page shows "
              "it",
        breaks="the assistant tells the user it is published before it is",
        proven_by=(proofs.success_only_after_published,),
        checks=(Generates("success-only-after-published",
                          handoff_checks.success_only_after_published,
                          order=160, when=is_handoff,
                          also=("handoff-receipt", "handoff-never-writes-target"),
                          rows=f"{STEPS}, `handoff.done`"),),
    ),
    Guarantee(
        name="handoff-receipt",
        means="a completed handoff reaches the model as `{ok: true, receipt}` naming the "
              "action, never as a `run` result's `data`",
        breaks="the assistant takes the human's step for something it did itself",
    ),
    Guarantee(
        name="handoff-never-writes-target",
        means="nothing programmatic ever writes into a handoff target (an init script records "
              "every write), and after every outcome (a wrong code, cancel, timeout, Done too "
              "early, success) each field holds exactly what the person typed",
        breaks="the assistant fills in (or changes) what only the human was to type",
        proven_by=(proofs.no_writes_into_targets,),
    ),
    Guarantee(
        name="expect-check-follows-page-changes",
        means="`expect.check()` is re-run when the page changes (also in the same moment as the "
              "runtime's own redraw), never for the runtime's own DOM alone (countdown, "
              "highlight, panel)",
        breaks="the human finishes the step and the handoff never notices",
    ),
)

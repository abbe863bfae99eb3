"""What the model may send: bad output, too many calls, markup and links, a failing
provider; none of it makes the page act or lie."""

from __future__ import annotations

from pling_harness.plugin.declared import (
    fault_checks,
    gateway_checks,
    model_output_checks,
    model_text_checks,
)
from pling_harness.plugin.guarantee_registry import LAST, Generates, Guarantee, declare

STAGE = "the stage"  # declared/stage.py: a harmless call and one that must be refused
EXISTENCE = "the table's existence"

declare(
    Guarantee(
        name="hostile-model-output",
        means="bad model output changes nothing: arguments that are not JSON, wrong types, "
              "unknown actions, the same call id twice, a reply with neither text nor calls "
              "each get their code, ask nobody and run nothing, and the user is told",
        breaks="a model's mistake (or an injected reply) runs an action, or leaves the user "
               "with a card nothing can answer and no word of what went wrong",
        checks=(
            Generates("repeated-call-id-refused", model_output_checks.repeated_call_id_refused,
                      per="table", order=LAST + 50,
                      also=("rejected-before-prompt", "invalid-params-names-the-argument"),
                      needs=("repeated_call_id_refused",),
                      rows=f"{STAGE}: a second call under the first's id (to an asking action) "
                           "refused `INVALID_PARAMS` naming the id, never run; n/a where the "
                           "driver says `repeated_call_id_refused` is absent; a page that "
                           "answers otherwise fails saying what the model received"),
            Generates("repeated-call-id-runs-nothing-unasked",
                      model_output_checks.repeated_call_id_runs_nothing_unasked, per="table",
                      order=LAST + 60,
                      rows=f"{STAGE}, on every page whatever it does with a repeated id: two "
                           "calls to an asking action under one id; each call the page keeps "
                           "asks on a card of its own (CopilotKit renames the second: two; the "
                           "AI SDK merges them, and our runtime refuses the second: one), each "
                           "card denied reaches the model as `PERMISSION_DENIED`, no call is "
                           "answered as run, nothing changes"),
            Generates("reply-without-text-or-calls",
                      model_output_checks.reply_without_text_or_calls, per="table",
                      order=LAST + 70,
                      rows=f"{EXISTENCE}: four unusable replies, each `MODEL_BAD_REPLY` saying "
                           "so, not resent; then the conversation goes on"),
            Generates("unknown-action-told", fault_checks.unknown_action_told, per="table",
                      order=LAST + 80,
                      rows=f"{STAGE}: a call to an action the page does not have, then a near "
                           "miss of one that asks (its id in capitals), each told in the "
                           "page's language (a notice or error reporting `UNKNOWN_ACTION` and "
                           "meaning it, or an error saying the assistant could not answer), no "
                           "card left with nothing to press, nothing asked or run (an answer "
                           "in the same turn is not required: the model may hear the fault "
                           "with the next message); then the next ordinary request is "
                           "answered. A page that shows nothing fails saying what its user "
                           "sees (no answer, no error; whether the next message gets one)"),
            Generates("invalid-arguments-told", fault_checks.invalid_arguments_told,
                      per="table", order=LAST + 90,
                      rows=f"{STAGE}: a call to an action that asks, with arguments that are "
                           "not JSON: told as above (`INVALID_PARAMS`), no **dead card** (a "
                           "card shown with no enabled Allow or Deny and no outcome: the "
                           "driver's `approval.shown`, `approval.outcome`), nothing run; then "
                           "the next ordinary request is answered"),
            Generates("whitespace-text-adds-no-message",
                      model_output_checks.whitespace_text_adds_no_message, per="table",
                      order=LAST + 100,
                      rows=f"{STAGE}: whitespace text beside a call adds no blank message"),
        ),
    ),
    Guarantee(
        name="loop-limit",
        means="a model that keeps calling stops by itself at the bound the assistant declares "
              "(ours: 8 model requests a turn, 10 calls a reply, each told as `LOOP_LIMIT`), "
              "and a call that asks still asks however many calls came before it",
        breaks="a runaway model calls for ever, or slips an action past the card among many "
               "harmless calls",
        checks=(
            Generates("fifty-calls-in-one-reply", model_output_checks.fifty_calls_in_one_reply,
                      per="table", order=LAST + 30, also=("hostile-model-output",),
                      rows=f"{STAGE}, held to the reply cap the driver declares "
                           "(`loop_caps.calls_per_reply`; the page contract's 10): the calls "
                           "within it harmless and handled, the rest (to an asking action) "
                           "refused, none asked, each `LOOP_LIMIT` and told where the driver "
                           "says the stop is told (`loop_caps.stop_told`); where the framework "
                           "declares no cap a reply (CopilotKit), 47 harmless calls handled, "
                           "then 3 calls to an asking action each still ask on a card of their "
                           "own, denied, nothing changed, the model hearing every result in "
                           "order"),
            Generates("model-calls-per-turn-capped",
                      model_output_checks.model_calls_per_turn_capped, per="table",
                      order=LAST + 40, also=("hostile-model-output",),
                      needs=("loop_caps.model_requests_per_turn",),
                      rows=f"{STAGE}: a model calling again after every result (one reply "
                           "more than the cap) ends by itself at the model requests a turn the "
                           "driver declares (`loop_caps.model_requests_per_turn`; ours 8, "
                           "CopilotKit 100), no request more, nothing asked; where the stop is "
                           "told, the last reply's call `LOOP_LIMIT`, a notice, and the refusal "
                           "reaching the model with the next message; where it is silent, no "
                           "request for 3 s after the cap's; n/a where the driver declares no "
                           "cap a turn"),
        ),
    ),
    Guarantee(
        name="model-text-is-text",
        means="markup in the model's text (and in a tool name, or an argument on a card) is "
              "shown as the literal characters: our runtime's rule, checked where the driver "
              "says `model_text` is `\"text\"`",
        breaks="the model's words turn into page elements the page never chose",
        checks=(
            Generates("markup-shown-as-text", model_output_checks.assistant_text_with_markup,
                      per="table", order=LAST + 110, also=("hostile-model-output",),
                      rows=f"{EXISTENCE}: markup in the model's text and in a tool name shown "
                           "as text, no element, no handler, nothing fetched; n/a where the "
                           "driver's `model_text` says the assistant renders markdown"),
            Generates("markup-in-arguments-shown-as-text",
                      model_output_checks.markup_in_arguments_shown_as_text, per="table",
                      order=LAST + 120,
                      rows="the first asking action with a string argument: markup in it shown "
                           "as text on its card"),
        ),
    ),
    Guarantee(
        name="model-text-inert",
        means="what the model writes never makes the page act or leak: in a reply or in an "
              "argument on a card, raw HTML or markdown, nothing of it runs script, no element "
              "of it carries an event handler or a `javascript:` link, and the browser "
              "requests nothing from an origin the page did not choose (images, `srcset`, "
              "`<picture>`, prefetch, stylesheets, `@import`, CSS backgrounds and fonts, "
              "frames, posters, SVG images; absolute URLs, each to a host of its own, recorded "
              "at the network). How the page renders the text is its own (safe markdown is "
              "fine)",
        breaks="a reply under prompt injection carries what the page shows to any site",
        checks=(
            Generates("model-text-never-acts", model_text_checks.model_text_never_acts,
                      per="table", order=LAST + 130,
                      rows=f"{EXISTENCE}: one reply of 19 pieces of raw HTML and markdown "
                           "(`model_text_checks.py`), each URL absolute to a host of its own "
                           "under `leak.example`; every request to another origin recorded and "
                           "those hosts answered at the network, once the page's images and "
                           "fonts have finished; a fail names each URL fetched and the model's "
                           "text that asked for it"),
            Generates("card-arguments-never-act", model_text_checks.card_arguments_never_act,
                      per="table", order=LAST + 140,
                      rows="the first asking action with a string argument: four one-line "
                           "pieces of markup (an image, a markdown image, a CSS background, an "
                           "`onerror`) in that argument, each on its card, then denied; "
                           "nothing fetched from another origin, no handler on the card, "
                           "nothing run or changed"),
        ),
    ),
    Guarantee(
        name="gateway-faults",
        means="provider failures show a localised error, run nothing, and the next request "
              "works",
        breaks="the assistant goes silent (or acts) when its model fails, and the user cannot "
               "tell",
        evidence=frozenset({"page", "model", "provider"}),
        checks=(
            Generates("provider-faults", gateway_checks.provider_faults, per="table",
                      order=LAST + 10,
                      rows=f"{EXISTENCE}: the provider unavailable, too slow, a reply it "
                           "cannot use (scripted at the provider boundary: the fixture "
                           "server's, or with `--model-port` the model the check hosts for a "
                           "page served elsewhere), each its code's error saying what went "
                           "wrong (where the driver says `provider_fault_codes` is absent: an "
                           "error saying the assistant could not answer), asked once, nothing "
                           "run, the user's words kept, then the next request answered; a page "
                           "that shows no error fails saying what its user sees"),
            Generates("model-request-fails", gateway_checks.model_request_fails, per="table",
                      order=LAST + 20,
                      rows=f"{EXISTENCE}: the page's own model request refused by the "
                           "network, or answered with a code the dock has no words for "
                           "(placeholders filled); n/a on a page that talks to its "
                           "framework's chat route (`assistant_endpoints`)"),
        ),
    ),
)

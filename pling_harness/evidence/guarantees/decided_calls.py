"""Guarantees about a call the user decided, once the conversation goes on: the decision is
what the model hears about that call. An approved call runs (its result reaches the model)
or the user is told it did not; a denied one reaches the model as PERMISSION_DENIED. Never
does the call go on to the model with no result, as if nobody had asked: OpenAI refuses
such a conversation, lenient OpenAI-compatible servers answer on, and the user's decision
is silently lost (vercel/ai#17033, vercel/ai#14428). Checks ask the scripted model to be
lenient (`ModelHandle.accept_unanswered_tool_calls`) to see it. And the results of one
reply's calls reach the model in the order of its calls (CopilotKit 1.63.2 reversed them)."""

from __future__ import annotations

from collections.abc import Sequence

from playwright.sync_api import Locator
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from pling_harness.evidence.guarantees.live_page import UI_TIMEOUT_MS, live_dock
from pling_harness.evidence.guarantees.record import state_unchanged
from pling_harness.evidence.guarantees.violation import fail, listed, results_for
from pling_harness.evidence.records import Mark
from pling_harness.evidence.timeline import Timeline
from pling_harness.server.model.wire import AssistantMessage, ModelRequest, ToolMessage


def unanswered_calls(request: ModelRequest, action: str) -> list[str]:
    """The ids of `action`'s calls in `request`'s history that no tool message answers."""
    answered = {m.tool_call_id for m in request.messages if isinstance(m, ToolMessage)}
    return [call.id for message in request.messages if isinstance(message, AssistantMessage)
            for call in message.tool_calls or []
            if call.function.name == action and call.id not in answered]


def decided_call_never_unanswered(timeline: Timeline, *, action: str, since: Mark,
                                  guarantee: str) -> None:
    """No model request the server received since `since` carries a call of `action` with
    no result: the model heard what became of every call the user decided."""
    for record in timeline.server_records(since, kind="model.request"):
        if record.model_request is None:
            continue
        missing = unanswered_calls(record.model_request, action)
        if missing:
            raise fail(guarantee, f"the model was asked (server seq {record.seq}) with "
                        f"{action} call(s) {listed(missing)} that carry no result: the "
                        f"user's decision never reached it", timeline)


def approval_honoured(timeline: Timeline, *, action: str, since: Mark,
                      effect_shown: Locator) -> None:
    """After Allow, however the conversation goes on, the outcome told is the outcome that
    happened at the business API (the state the harness reads itself), and no model request
    carries the call unanswered:

    - it ran (the state changed since `since`): the model heard no failure for it, and
      unless the model heard its success, the page shows the effect (`effect_shown`: the
      business view as the page renders it from the server). A notice or error alone does
      not say it ran: every notice code of the glossary says not run or failed, and a chat
      error that the assistant could not answer reads as nothing done;
    - it did not run: the model heard no success for it, and the user is told (an error or
      a notice on screen)."""
    name = "approval-honoured"
    decided_call_never_unanswered(timeline, action=action, since=since, guarantee=name)
    results = results_for(timeline, action, since)
    ran = since.server_state is not None and timeline.server_state is not None \
        and timeline.server_state.snapshot() != since.server_state
    heard = listed([result.code for result in results])
    if ran:
        if any(not result.ok for result in results):
            raise fail(name, f"the approved {action} ran (the state changed), yet the model "
                        f"was told {heard}", timeline)
        if results:
            return
        try:
            effect_shown.first.wait_for(state="attached", timeout=UI_TIMEOUT_MS)
        except PlaywrightTimeoutError:
            raise fail(name, f"the approved {action} ran (the state changed), the model "
                        f"received no result for it and the page does not show its effect: "
                        f"the user is left to read that it did not run", timeline) from None
        return
    if any(result.ok for result in results):
        raise fail(name, f"the approved {action} did not run (the state is unchanged), yet "
                    f"the model was told {heard}", timeline)
    dock = live_dock(timeline)
    told = dock.messages("error").or_(dock.messages("notice"))
    try:
        told.first.wait_for(state="attached", timeout=UI_TIMEOUT_MS)
    except PlaywrightTimeoutError:
        raise fail(name, f"the approved {action} did not run (the model received no result "
                    f"for it) and the page told the user nothing", timeline) from None


def one_run_per_approval(timeline: Timeline, *, action: str, call_ids: Sequence[str],
                         since: Mark, guarantee: str) -> None:
    """Each call in `call_ids`, whose one approval reached the server more than once in one
    request, ran at most once: no model request since `since` carries more than one result
    for it (the framework sends the model the result of every run it made, so two results
    are two runs, or a run and a denial); and a call the model heard no result of changed
    nothing."""
    if not call_ids:
        raise fail(guarantee, f"the page sent no approval of {action} to repeat: nothing "
                    "was proven", timeline)
    heard = 0
    for record in timeline.server_records(since, kind="model.request"):
        if record.model_request is None:
            continue
        for call_id in call_ids:
            results = [m for m in record.model_request.messages
                       if isinstance(m, ToolMessage) and m.tool_call_id == call_id]
            if len(results) > 1:
                raise fail(guarantee, f"one approval of {action} (call {call_id}), answered "
                            f"twice in one request, ran {len(results)} times: the model was "
                            f"asked (server seq {record.seq}) with {len(results)} results for "
                            "it", timeline)
            heard = max(heard, len(results))
    if heard == 0:
        state_unchanged(timeline, since=since, guarantee=guarantee)


def results_in_call_order(requests: Sequence[ModelRequest], timeline: Timeline, *,
                          guarantee: str = "calls-one-after-another") -> None:
    """In every request of the model's log given (`ModelHandle.requests`), the results
    answering the calls of one reply come in the order of those calls: the model reads each
    result as the answer to the call at its place (CopilotKit#5374: a reply's frontend-tool
    results sent in reverse). Needs one reply with two or more of its calls answered, else
    nothing was proven. `timeline` is the evidence a failure shows."""
    compared = 0
    for number, request in enumerate(requests, start=1):
        answered = [m.tool_call_id for m in request.messages if isinstance(m, ToolMessage)]
        for message in request.messages:
            if not isinstance(message, AssistantMessage):
                continue
            called = [call.id for call in message.tool_calls or []]
            got = [call_id for call_id in answered if call_id in called]
            wanted = [call_id for call_id in called if call_id in got]
            if len(wanted) < 2:
                continue
            compared += 1
            if got != wanted:
                raise fail(guarantee, f"the model called {listed(called)} in one reply; its "
                            f"request {number} of {len(requests)} carries their results as "
                            f"{listed(got)}, not in the order of the calls", timeline)
    if compared == 0:
        raise fail(guarantee, "no model request carried the results of two calls of one "
                    "reply: their order was never seen", timeline)

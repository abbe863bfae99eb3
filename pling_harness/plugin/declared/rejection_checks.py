"""Generated checks of what the page refuses before any prompt: every way of breaking an action's
`params` and every near miss of its id, an action called while unavailable, and the table
held to the projection."""

from __future__ import annotations

import json

from pling_harness.evidence import guarantees
from pling_harness.evidence.arguments import (
    InvalidCall,
    Params,
    invalid_calls,
    minimal_arguments,
    near_miss_ids,
)
from pling_harness.evidence.guarantees import GuaranteeViolation
from pling_harness.evidence.records import Mark
from pling_harness.plugin.declared.context import DeclaredRun
from pling_harness.project.dock_driver import Absent
from pling_harness.server.model.handle import calling, tool_call

# At most this many calls a reply and replies a turn, within the driver's caps (the page
# contract's are 10 and 8, the 8th reply's calls refused).
CALLS_PER_REPLY = 10
REPLIES_PER_TURN = 7
NAME = "rejected-before-prompt"


def _refused(run: DeclaredRun, since: Mark, wanted: dict[str, tuple[str, str]]) -> None:
    """Each call id in `wanted` got its code (the action it named, the code), with no card, no
    handoff, no business request and nothing changed."""
    got = {r.call_id: (r.action, r.code) for r in run.timeline.tool_results(since)}
    wrong = {call: got.get(call) for call, expected in wanted.items()
             if got.get(call) != expected}
    if wrong:
        raise GuaranteeViolation(NAME, f"calls that break {run.action}'s declaration should "
                                 f"be refused; these got something else: "
                                 f"{ {c: (wanted[c], g) for c, g in wrong.items()} }",
                                 run.timeline)
    run.expect_nothing_asked(since, guarantee=NAME, after="for a refused call")
    guarantees.no_business_request(run.timeline, since=since, guarantee=NAME)
    guarantees.no_writes_into_targets(run.timeline, since=since)


def rejected_before_prompt(run: DeclaredRun) -> None:
    """Every invalid argument object its `params` implies is INVALID_PARAMS, every near miss
    of its id (and an unknown id with arguments that are not JSON) UNKNOWN_ACTION: all in one
    turn, none prompting. Where the driver says the framework reads blank arguments as `{}`,
    a blank call to a read that takes none is held to a call with none first."""
    run.open()
    params = run.params()
    cases = invalid_calls(params)
    invalid = [case for case in cases if _refusable(run, params, case)]
    _blank_reads_run_as_calls_with_none(run, [c for c in cases if c not in invalid])
    calls = [(f"call_{case.case}", run.action, case.arguments, "INVALID_PARAMS")
             for case in invalid]
    calls += [(f"call_near_miss_{n}", miss, "{}", "UNKNOWN_ACTION")
              for n, miss in enumerate(near_miss_ids(run.action))]
    # An id no page declares, with arguments that are not even JSON: the id is checked first.
    unknown = f"not_{run.action}"
    if unknown not in run.table.actions:
        calls.append(("call_unknown_before_arguments", unknown, "{oops", "UNKNOWN_ACTION"))
    per_reply, per_turn = _within_the_caps(run)
    replies = [calling(*(tool_call(call, action, arguments)
                         for call, action, arguments, _ in calls[start:start + per_reply]))
               for start in range(0, len(calls), per_reply)]
    if len(replies) > per_turn:
        raise ValueError(f"{run.action}'s params imply {len(calls)} invalid calls, more than "
                         "one turn can carry")
    run.model.script(*replies)
    before = run.ask()
    _refused(run, before, {call: (action, code) for call, action, _, code in calls})
    notices = run.dock.messages("notice", code="INVALID_PARAMS")
    if notices.count() < len(invalid):
        raise GuaranteeViolation(NAME, f"each refused call should be told to the user; "
                                 f"{notices.count()} INVALID_PARAMS notices for "
                                 f"{len(invalid)} calls", run.timeline)


def _within_the_caps(run: DeclaredRun) -> tuple[int, int]:
    """Calls a reply and replies a turn that stay within the driver's loop caps (a reply at
    the turn's cap may be refused whole, so one fewer)."""
    caps = run.dock.spec.loop_caps
    per_reply = CALLS_PER_REPLY if isinstance(caps.calls_per_reply, Absent) \
        else min(CALLS_PER_REPLY, caps.calls_per_reply.limit)
    per_turn = REPLIES_PER_TURN if isinstance(caps.model_requests_per_turn, Absent) \
        else min(REPLIES_PER_TURN, caps.model_requests_per_turn.limit - 1)
    return per_reply, max(per_turn, 1)


def _refusable(run: DeclaredRun, params: Params, case: InvalidCall) -> bool:
    """Whether the page must refuse `case`: every case, except where the driver says the
    framework reads blank arguments as `{}` (the empty text; whitespace too where it says
    so) and `params` takes `{}` (a call with none)."""
    spec = run.dock.spec
    if not isinstance(spec.blank_arguments_refused, Absent) or params.get("required"):
        return True
    read_as_none = case.arguments.strip() if spec.whitespace_arguments_read_as_none \
        else case.arguments
    return read_as_none != ""


def _blank_reads_run_as_calls_with_none(run: DeclaredRun, blank: list[InvalidCall]) -> None:
    """Each blank call the framework reads as `{}`, to an action that runs at once and
    changes nothing (a read), is answered as the call with none is: run, no card (an action
    that asks is left to its own checks: its blank call would ask, as its call with none)."""
    if not blank or run.row.policy != "none" or run.row.effect:
        return
    calls = [(f"call_{case.case}", case.arguments) for case in blank]
    run.model.script(calling(*(tool_call(call, run.action, arguments)
                               for call, arguments in calls)),
                     {"role": "assistant", "content": "…"})
    before = run.ask()
    got = {r.call_id: r.code for r in run.timeline.tool_results(before)}
    if got != {call: "OK" for call, _ in calls}:
        raise GuaranteeViolation(NAME, f"a blank call to {run.action} is a call with none, "
                                 f"as its framework reads it; the model received {got}",
                                 run.timeline)
    run.expect_nothing_asked(before, guarantee=NAME, after="for a blank call")


def rejected_when_unavailable(run: DeclaredRun) -> None:
    """On the state that disables it: still projected, a call answers UNAVAILABLE (bad
    arguments INVALID_PARAMS first), no prompt."""
    run.open(run.row.unavailable_when[0])
    params = run.params()
    guarantees.projection_exactly(run.timeline, tools=run.table.names(),
                                  since=run.timeline.ready_mark or run.timeline.mark())
    run.model.script(calling(
        tool_call("call_unavailable", run.action, json.dumps(minimal_arguments(params))),
        tool_call("call_unavailable_bad", run.action, '{"unexpected_arg": true}')))
    before = run.ask()
    _refused(run, before, {"call_unavailable": (run.action, "UNAVAILABLE"),
                           "call_unavailable_bad": (run.action, "INVALID_PARAMS")})


def projection_complete(run: DeclaredRun) -> None:
    """Every model request offers exactly the table's actions, as the page declares them."""
    run.open()
    before = run.timeline.mark()
    run.projection()
    guarantees.projection_exactly(run.timeline, tools=run.table.names(), since=before)

"""Generated checks that each safety notice an action can bring up means its code and names the
action, in the page's locale (SPEC §6): held to the reviewed glossary, never to the copy's
own sentence. A denial says "not allowed" and claims no permission; a cancel, a timeout or a
Done without the effect says "not completed" and claims no success. Also the moves that bring
each notice up, which the walk through every dock state (copy_walk.py) makes too."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Route, expect

from pling_harness.evidence import guarantees
from pling_harness.plugin.declared.context import DeclaredRun
from pling_harness.server.model.handle import calling, tool_call

NAME = "bilingual-copy"
# What a business API says when it is down: the page must report RUN_FAILED.
UNAVAILABLE = {"ok": False, "code": "UNAVAILABLE", "message": "try again later"}


def _means(run: DeclaredRun, code: str) -> None:
    guarantees.notice_means(run.timeline, run.words, code=code, action=run.action,
                            guarantee=NAME)


# ---- the moves: each brings up one notice about `run.action` on the open page -------------


def deny(run: DeclaredRun) -> str:
    run.ask()
    expect(run.dock.approval_for(run.action)).to_be_visible()
    run.dock.deny()
    return "PERMISSION_DENIED"


def cancel_handoff(run: DeclaredRun) -> str:
    run.ask()
    expect(run.dock.handoff_for(run.action)).to_be_visible()
    run.dock.handoff_cancel()
    return "HANDOFF_CANCELLED"


def done_without_effect(run: DeclaredRun) -> str:
    run.ask()
    expect(run.dock.handoff_for(run.action)).to_be_visible()
    run.dock.handoff_done()
    return "HANDOFF_FAILED"


def let_handoff_time_out(run: DeclaredRun) -> str:
    """n/a (NotObservable) where the driver shows no timer: a step with no deadline."""
    assert run.page is not None and run.row.handoff is not None
    handoff = run.dock.spec.require(run.dock.spec.handoff, "handoff")
    run.dock.spec.require(handoff.timer, "handoff.timer")
    run.ask()
    expect(run.dock.handoff_timer).to_be_visible()
    run.page.clock.fast_forward(run.row.handoff.timeout_ms)
    run.dock.wait_until_handoff_ends()
    return "HANDOFF_TIMEOUT"


def fail_business_answer(run: DeclaredRun) -> str:
    """The business API answers the run's request 503 (held at the network: n/a where the
    page's server runs an approved call itself)."""
    assert run.page is not None and run.row.calls is not None
    run.dock.spec.require_business_requests_in_browser()
    method, path = run.row.calls.method, run.row.calls.path
    failed: list[str] = []

    def fail_once(route: Route) -> None:
        if route.request.method != method or failed:
            route.continue_()
            return
        failed.append(route.request.url)
        route.fulfill(status=503, json=UNAVAILABLE)

    run.page.route(f"**{path}", fail_once)
    run.ask()
    if run.row.asks:
        expect(run.dock.approval_for(run.action)).to_be_visible()
        run.dock.approve()
    run.dock.wait_until_settled()
    run.page.unroute(f"**{path}")
    return "RUN_FAILED"


def keep_calling(run: DeclaredRun) -> str:
    """The model calls the action reply after reply until the turn's cap stops it, and the
    stop is told (n/a, NotObservable, where the driver declares no cap a turn or a stop that
    tells nothing: then there is no notice to read)."""
    run.dock.spec.require(run.dock.spec.loop_caps.stop_told, "loop_caps.stop_told")
    run_into_the_cap(run)
    return "LOOP_LIMIT"


def run_into_the_cap(run: DeclaredRun) -> None:
    """The model calls the action reply after reply, one reply more than the turn's cap (the
    driver's) lets it make, so the turn ends at the cap (n/a, NotObservable, without one)."""
    cap = run.dock.spec.require(run.dock.spec.loop_caps.model_requests_per_turn,
                                "loop_caps.model_requests_per_turn")
    run.model.script(*[calling(tool_call(f"call_runaway_{reply}", run.action))
                       for reply in range(cap.limit + 1)])
    with run.patient(cap.limit):
        run.asked_at_least(run.ask(), cap.limit)
    run.model.reset_overrides()  # the reply the capped turn never asked for


# ---- the generated checks -----------------------------------------------------------------


def notices_mean_their_codes(run: DeclaredRun) -> None:
    """The notices the row's policy brings up: a denial (ask, ask-always), a cancel and a
    Done without the effect (handoff), the turn's cap (none, which runs unasked)."""
    run.open()
    if run.row.policy == "handoff":
        moves: tuple[Callable[[DeclaredRun], str], ...] = (cancel_handoff,
                                                           done_without_effect)
    elif run.row.asks:
        moves = (deny,)
    else:
        moves = (keep_calling,)
    for move in moves:
        _means(run, move(run))


def timeout_notice_means_its_code(run: DeclaredRun) -> None:
    run.open()
    _means(run, let_handoff_time_out(run))


def run_failure_notice_means_its_code(run: DeclaredRun) -> None:
    run.open()
    _means(run, fail_business_answer(run))

"""Guarantees proven from the record alone: the probe's page log, the network and the server's
log and state, as the timeline holds them (nothing here looks at the page as it is now, so
each can be asked after the fact, e.g. for a page that has gone).

For a page served elsewhere (`--base-url`) the timeline has no fixture server log: what
the server saw is then what the browser's network view saw answered, and the model's side
is the browser's model route (see `pling_harness.evidence.sources`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from pling_harness.evidence.guarantees.violation import fail, listed, results_for, since_or_ready
from pling_harness.evidence.probe import PageEvent, WatchedPart
from pling_harness.evidence.records import BrowserRequest, Mark
from pling_harness.evidence.timeline import Timeline
from pling_harness.project.business_state import BusinessState
from pling_harness.project.contract import PublishedRule
from pling_harness.project.dock_driver import Reading
from pling_harness.server.model.conversation import parse_sent_request, results_carried
from pling_harness.server.model.framework_results import agui_tool_result, ui_messages_carry_output
from pling_harness.server.model.wire import ModelRequest, ToolDefinition


def probe_saw_every_business_request(timeline: Timeline, *, since: Mark | None = None) -> None:
    """Every business call the server and the network saw was also seen by the in-page probe.

    Without this, a page that sent a request around `window.fetch` could slip past the
    order checks, which read the probe's log. Where the dock driver says the page's server
    runs approved calls itself (`approved_calls_run`, the AI SDK's chat route), the server's
    log also holds the business requests that server made, which no browser sees: the
    network's are then held to the probe's, and the server's are the page server's (what
    they did is judged from the business state).
    """
    since = since_or_ready(timeline, since)
    name = "probe-saw-every-business-request"
    page = [f"{r.method} {r.path}" for r in timeline.page_business_requests(since)]
    browser = [f"{r.method} {r.path}" for r in timeline.browser_business_requests(since)]
    server = ([f"{r.method} {r.path}" for r in timeline.server_business_records(since)]
              if timeline.driver.business_requests_in_browser else [])
    if len(browser) > len(page) or len(server) > len(page):
        raise fail(name, f"the page's probe saw {len(page)} business request(s) ({listed(page)})"
                    f" but the network saw {len(browser)} ({listed(browser)}) and the server "
                    f"{len(server)} ({listed(server)}): a request bypassed window.fetch/XHR",
                    timeline)


def no_business_request(timeline: Timeline, *, since: Mark | None = None,
                        guarantee: str = "no-business-request") -> None:
    """No business call at all: not started by the page, not on the network, not at the server."""
    since = since_or_ready(timeline, since)
    seen = {
        "page": [f"{r.method} {r.path}" for r in timeline.page_business_requests(since)],
        "network": [f"{r.method} {r.path}" for r in timeline.browser_business_requests(since)],
        "server": [f"{r.method} {r.path} → {r.status}"
                   for r in timeline.server_business_records(since)],
    }
    if any(seen.values()):
        found = ", ".join(f"{where}: {listed(items)}" for where, items in seen.items() if items)
        raise fail(guarantee, f"expected no business request, but {found}", timeline)


def no_model_request(timeline: Timeline, *, since: Mark, why: str,
                     guarantee: str = "no-model-request") -> None:
    """Nothing went to the model since `since`: not sent by the page, not received by the
    server (e.g. while a handoff is still open, nothing may be reported yet). `why` says
    why none was due, for the failure message."""
    sent = timeline.page_model_requests(since)
    received = timeline.server_records(since, kind="model.request")
    if sent or received:
        raise fail(guarantee, f"{why}, yet the page sent {len(sent)} model request(s) and the "
                    f"server received {len(received)}", timeline)


def state_unchanged(timeline: Timeline, *, since: Mark,
                    guarantee: str = "state-unchanged") -> None:
    """Server state equals its state at `since`, and the page showed no business-state change."""
    if timeline.server_state is not None and since.server_state is not None:
        now = timeline.server_state.snapshot()
        if now != since.server_state:
            raise fail(guarantee, f"server state changed from {since.server_state.fields()} "
                                  f"to {now.fields()}",
                        timeline)
    changes = timeline.page_states(since)
    if changes:
        raise fail(guarantee, f"the page's shown state changed to {changes[-1]!r} "
                    f"(it showed {since.page_state!r})", timeline)


def approval_before_side_effects(timeline: Timeline, *, action: str,
                                 since: Mark | None = None) -> None:
    """The approval card for `action` was on screen before any business request or state change.

    Proven from the probe's causal page log (DOM observer + request wrapper), cross-checked
    against the network and the server log so no request can go unseen.
    """
    since = since_or_ready(timeline, since)
    name = "approval-before-side-effects"
    probe_saw_every_business_request(timeline, since=since)
    for event in timeline.page_events(since):
        if event.kind == "appear" and event.data.part == "approval" \
                and event.data.action == action:
            return
        if event.kind == "request" and timeline.is_business(event.data.method,
                                                                         event.data.path):
            raise fail(name, f"the page sent {event.data.method} {event.data.path} before "
                        f"any approval for {action} was on screen", timeline)
        if event.kind == "state":
            raise fail(name, f"the page's business state changed ({event.data!r}) before "
                        f"any approval for {action} was on screen", timeline)
    raise fail(name, f"no approval card for {action} was ever on screen", timeline)


def always_allow_never_offered(timeline: Timeline, *, action: str,
                               since: Mark | None = None) -> None:
    """Every card shown for `action` had no "always allow" and, where the card says its
    policy, policy `ask-always`. n/a on an assistant that never offers "always allow"."""
    since = since_or_ready(timeline, since)
    name = "always-allow-never-offered"
    approval = timeline.driver.approval
    timeline.driver.require(approval.always, "approval.always")
    cards = timeline.shown("approval", since, action=action)
    if not cards:
        raise fail(name, f"no approval card for {action} was shown", timeline)
    says_policy = isinstance(approval.policy, Reading)
    for card in cards:
        if card.always or (says_policy and card.policy != "ask-always"):
            raise fail(name, f"a card for {action} showed policy {card.policy!r} "
                        f"{'with' if card.always else 'without'} 'always allow'", timeline)


def prompted_for_every_call(timeline: Timeline, *, action: str,
                            since: Mark | None = None) -> None:
    """As many approval cards for `action` were shown as the model made calls to it."""
    since = since_or_ready(timeline, since)
    name = "prompted-for-every-call"
    calls = [c for c in timeline.tool_calls(since) if c.action == action]
    cards = timeline.shown("approval", since, action=action)
    if not calls or len(cards) != len(calls):
        raise fail(name, f"the model called {action} {len(calls)} time(s) but "
                    f"{len(cards)} approval card(s) for it were shown", timeline)


def ran_without_prompt(timeline: Timeline, *, action: str, since: Mark) -> None:
    """`action` succeeded with a business request and no approval card on screen."""
    name = "ran-without-prompt"
    cards = timeline.shown("approval", since)
    if cards:
        raise fail(name, f"expected no prompt, but {len(cards)} approval card(s) were shown "
                    f"({listed([c.action for c in cards])})", timeline)
    if not timeline.page_business_requests(since):
        raise fail(name, f"{action} made no business request", timeline)
    model_received(timeline, action=action, code="OK", since=since, guarantee=name)


def model_received(timeline: Timeline, *, action: str, code: str, since: Mark | None = None,
                   guarantee: str = "model-received") -> None:
    """The latest result the model received for `action` has `code` ("OK" for a success)."""
    since = since_or_ready(timeline, since)
    results = results_for(timeline, action, since)
    if not results or results[-1].code != code:
        raise fail(guarantee, f"expected the model to receive {code} for {action}, it "
                    f"received: {listed([r.describe() for r in results])}", timeline)


def rejected_without_prompt(timeline: Timeline, *, action: str, code: str,
                            since: Mark | None = None) -> None:
    """A call failing the pipeline's checks (§3 steps 1 to 4) answers `code`, with no prompt,
    no handoff and no business request."""
    since = since_or_ready(timeline, since)
    name = "rejected-without-prompt"
    model_received(timeline, action=action, code=code, since=since, guarantee=name)
    parts: tuple[WatchedPart, ...] = ("approval", "handoff")
    for part in parts:
        if timeline.shown(part, since):
            raise fail(name, f"{action} was rejected with {code}, but a {part} was shown "
                        f"first", timeline)
    no_business_request(timeline, since=since, guarantee=name)


def no_silent_retry(timeline: Timeline, *, since: Mark) -> None:
    """After a denial, cancel or timeout: exactly one more model request — the one reporting
    the (failed) result — and no business request."""
    name = "no-silent-retry"
    no_business_request(timeline, since=since, guarantee=name)
    page_sent = timeline.page_model_requests(since)
    server_saw = timeline.server_records(since, kind="model.request")
    if len(page_sent) != 1 or len(server_saw) != 1:
        raise fail(name, f"expected exactly one model request after the decision, the page "
                    f"sent {len(page_sent)} and the server received {len(server_saw)}", timeline)
    results = timeline.tool_results(since)
    if not results or any(r.ok for r in results):
        raise fail(name, "the one model request after the decision should report the failed "
                    f"result, it carried: {listed([r.describe() for r in results])}", timeline)


def projection_exactly(timeline: Timeline, *, tools: Sequence[str], since: Mark,
                       guarantee: str = "projection-complete") -> list[ToolDefinition]:
    """Every model request the server received since `since` offered exactly `tools` (as a
    multiset of names, order free; one offer of each of the driver's `framework_tools` left
    out), and there was at least one. Returns the last request's
    `tools`, for checks that also compare descriptions and parameters."""
    requests = [r for r in timeline.server_records(since, kind="model.request")
                if r.model_request is not None]
    if not requests:
        raise fail(guarantee, "the server received no model request", timeline)
    wanted = sorted(tools)
    last: list[ToolDefinition] = []
    for index, record in enumerate(requests, start=1):
        assert record.model_request is not None
        names = list(record.model_request.tool_names())
        for own in timeline.driver.framework_tools:  # the framework's, not the page's
            if own in names and own not in wanted:
                names.remove(own)
        if sorted(names) != wanted:
            missing = sorted(set(wanted) - set(names))
            extra = sorted(set(names) - set(wanted))
            raise fail(guarantee, f"model request {index} (server seq {record.seq}) offered "
                        f"{names}; want exactly {wanted} (missing: {listed(missing)}; "
                        f"not expected: {listed(extra)})", timeline)
        last = list(record.model_request.tools)
    return last


def handoff_without_approval(timeline: Timeline, *, action: str,
                             since: Mark | None = None) -> None:
    """The handoff for `action` was shown and no approval card ever was (no stacking)."""
    since = since_or_ready(timeline, since)
    name = "handoff-without-approval"
    if not timeline.shown("handoff", since, action=action):
        raise fail(name, f"no handoff panel for {action} was shown", timeline)
    cards = timeline.shown("approval", since)
    if cards:
        raise fail(name, f"an approval card was shown for a handoff "
                    f"({listed([c.action for c in cards])})", timeline)


def no_writes_into_targets(timeline: Timeline, *, targets: Sequence[str] | None = None,
                           since: Mark | None = None) -> None:
    """No script wrote a value into a handoff target (value setter, setAttribute("value"),
    setRangeText, execCommand). `targets`: target ids or testids; None means any handoff
    target the dock driver names. The user's typing (input events) is not a write."""
    since = since_or_ready(timeline, since)
    name = "no-writes-into-targets"
    timeline.driver.require(timeline.driver.targets, "targets")
    writes = [
        w for w in timeline.writes(since)
        if (w.target is not None if targets is None else (w.target in targets
                                                          or w.testid in targets))
    ]
    if writes:
        said = [f"{w.value!r} into {w.target or w.testid} via {w.via}" for w in writes]
        raise fail(name, f"the page wrote into a handoff target: {listed(said)}", timeline)


def success_only_after_published(timeline: Timeline, *, action: str,
                                 since: Mark | None = None,
                                 rule: PublishedRule | None = None) -> None:
    """The success of handoff `action` reached the model only after the server had really
    published and the page showed it, by the tutorial's `published` rule (e.g. `POST
    /api/orders/ship` answered with success, the state `shipped: true`, the status region
    showing "shipped").

    Server: the declared request was answered with success, leaving the declared state,
    before the model request that first carried the success receipt, and the state was the
    declared one when that request arrived (no earlier request carried a receipt). For a
    page served elsewhere the answer is the one the browser received before it sent the
    receipt, and the state is read through the tutorial's state request. Page: when the
    request carrying the receipt left, the business view showed the declared values.
    `rule`: another "done" than the tutorial's `published` (an action table's handoff row).
    """
    since = since_or_ready(timeline, since)
    name = "success-only-after-published"
    rule = rule if rule is not None else timeline.contract.published
    if rule is None:
        raise fail(name, "the tutorial's tutorial.json declares no `published` rule", timeline)
    successes = [r for r in results_for(timeline, action, since) if r.ok]
    if len(successes) != 1:
        raise fail(name, f"expected one success for {action} reported to the model, found "
                    f"{len(successes)}", timeline)
    asked = timeline.conversation().exchanges[successes[0].request_index].seq
    [carrying] = [r for r in timeline.server_records(kind="model.request") if r.seq == asked]
    if not rule.state_matches(carrying.state.model_dump()):
        raise fail(name, f"the model request carrying the receipt arrived while the state was "
                    f"{carrying.state.model_dump()}, not {rule.state}", timeline)
    wanted = rule.request.describe()
    if timeline.sees_server:
        published = [r for r in timeline.server_business_records(since)
                     if f"{r.method} {r.path}" == wanted and _succeeded(r.status)
                     and rule.state_matches(r.state.model_dump())]
        if not published or published[0].seq > carrying.seq:
            raise fail(name, f"the model request carrying the receipt (server seq "
                        f"{carrying.seq}) did not come after a successful {wanted} (records: "
                        f"{listed([f'seq {r.seq} → {r.status}' for r in published])})",
                        timeline)
    elif timeline.driver.assistant_endpoints:
        _receipt_after_answer_via_framework(timeline, since, name=name, asked=asked,
                                            answered=wanted, view_matches=rule.view_matches)
        return
    else:
        _network_answered_before(
            timeline, since, name=name, answered=wanted, what="the receipt",
            sends=lambda r: _sends_success(r.body, successes[0].call_id))
    sent = [r for r in timeline.page_model_requests(since)
            if _sends_success(r.body, successes[0].call_id)]
    if not sent:
        raise fail(name, "the page's probe saw no model request carrying the receipt", timeline)
    if not rule.view_matches(sent[0].state):
        raise fail(name, f"the receipt left the page while it showed {sent[0].state}, not "
                    f"{rule.view}", timeline)


def _receipt_after_answer_via_framework(timeline: Timeline, since: Mark | None, *, name: str,
                                        asked: int | None, answered: str,
                                        view_matches: Callable[[Mapping[str, str | None]], bool]
                                        ) -> None:
    """A page whose assistant talks to its own server (the driver's assistant endpoints) sends
    the conversation in its framework's format, which the harness does not read; the model
    request itself is in the model's log. Before that request arrived, the browser had a
    successful answer to `answered`, and the page's last request to an assistant endpoint
    (the one its server turned into the model request) left while it showed the view."""
    if asked is None:
        raise fail(name, "the model's log has no record of the request carrying the receipt",
                   timeline)
    browser, page = timeline.reached_before(asked, since)
    if not any(kind == "finished" and _succeeded(request.status)
               and f"{request.method} {request.path.split('?', 1)[0]}" == answered
               for kind, request in browser):
        raise fail(name, f"the model received the receipt before the browser had any "
                    f"successful answer to {answered}", timeline)
    transport = [event.data for event in page if event.kind == "request"
                 and timeline.driver.is_assistant_endpoint(event.data.path)]
    if not transport:
        raise fail(name, "the page's probe saw no request to the assistant's endpoint before "
                    "the model received the receipt", timeline)
    if not view_matches(transport[-1].state):
        raise fail(name, f"the receipt left the page while it showed {transport[-1].state}",
                   timeline)


def success_after_business_state(timeline: Timeline, *, call_id: str, since: Mark,
                                 unchanged: BusinessState) -> None:
    """Where the page's server makes a run's business request out of the harness's sight: the
    first model request carrying `{"ok": true}` for `call_id` found the business state (as
    the harness read it when that request arrived) already changed from `unchanged`, and as
    it is now: the success was sent once the business API had answered and changed it."""
    name = "success-after-business-answer"
    carrying = [r for r in timeline.server_records(since, kind="model.request")
                if _carries_success(r.model_request, call_id)]
    if not carrying:
        raise fail(name, f"no model request carried a success for {call_id}", timeline)
    now = timeline.server_state.snapshot() if timeline.server_state is not None else None
    then = carrying[0].state
    if then == unchanged or then != now:
        raise fail(name, f"the success for {call_id} reached the model (seq {carrying[0].seq}) "
                    f"while the business state was {then.fields()}; the run left "
                    f"{now.fields() if now is not None else 'no state'} (before it: "
                    f"{unchanged.fields()})", timeline)


def _success_after_answer_via_framework(timeline: Timeline, since: Mark | None, *, name: str,
                                        call_id: str, path: str, asked: int) -> None:
    """A page whose assistant talks to its own server (the driver's assistant endpoints) sends
    the conversation in its framework's format, which the harness does not read; the model
    request `asked` that first carried the success is in the model's log. Before it arrived,
    the browser had a successful answer to `path`, and the page had it before it last sent
    the conversation to its assistant endpoint (the request its server turned into it)."""
    browser, page = timeline.reached_before(asked, since)
    if not any(kind == "finished" and _succeeded(request.status)
               and request.path.split("?", 1)[0] == path for kind, request in browser):
        raise fail(name, f"the model received the success for {call_id} before the browser "
                    f"had any successful answer to {path}", timeline)
    answer_at = _first_successful_answer(page, path)
    sent_at = max((index for index, e in enumerate(page) if e.kind == "request"
                   and timeline.driver.is_assistant_endpoint(e.data.path)), default=None)
    if sent_at is None:
        raise fail(name, f"the page's probe saw no request to the assistant's endpoint before "
                    f"the model received the success for {call_id}", timeline)
    if answer_at is None or sent_at < answer_at:
        raise fail(name, f"the page sent the success for {call_id} to its assistant endpoint "
                    f"before the answer to {path} had reached it", timeline)


def _first_successful_answer(events: Sequence[PageEvent], path: str) -> int | None:
    """Where in `events` the first 2xx answer to a request for `path` arrived."""
    asked = {e.data.id for e in events
             if e.kind == "request" and e.data.path.split("?", 1)[0] == path}
    return next((index for index, e in enumerate(events)
                 if e.kind == "response" and e.data.id in asked
                 and _succeeded(e.data.status)), None)


def _succeeded(status: int | None) -> bool:
    return status is not None and 200 <= status < 300


def _network_answered_before(timeline: Timeline, since: Mark | None, *, name: str,
                             answered: str, what: str,
                             sends: Callable[[BrowserRequest], bool]) -> None:
    """In the browser's network view, `answered` ("METHOD /path") got a 2xx answer before
    the first request for which `sends` holds left (a page served elsewhere: no server log)."""
    answer_at = sent_at = None
    for position, (kind, request) in enumerate(timeline.browser_events(since)):
        if kind == "finished" and answer_at is None and _succeeded(request.status) \
                and f"{request.method} {request.path.split('?', 1)[0]}" == answered:
            answer_at = position
        if kind == "sent" and sent_at is None and timeline.is_model_transport(request.path) \
                and sends(request):
            sent_at = position
    if sent_at is None:
        raise fail(name, f"the browser sent no model request carrying {what}", timeline)
    if answer_at is None or answer_at > sent_at:
        raise fail(name, f"the browser sent {what} to the model before any successful answer "
                    f"to {answered} had reached it", timeline)


def one_call_at_a_time(timeline: Timeline, *, since: Mark | None = None) -> None:
    """The tool calls were handled one after another: at no moment in the page's log were two
    in progress, counting each approval card on screen and each business request the page
    started whose answer had not reached it yet. So a call's card or business request came
    only after the previous call's card was decided and its business answer was in.
    (A user's own requests during a handoff would count too: use it where there is none.)"""
    driver = timeline.driver
    driver.require(driver.approval.one_at_a_time, "approval.one_at_a_time")
    since = since_or_ready(timeline, since)
    name = "calls-one-after-another"
    cards = 0
    waiting: dict[int, str] = {}  # business request id → "METHOD /path"
    for event in timeline.page_events(since):
        if event.kind in ("appear", "disappear") and event.data.part == "approval":
            cards += 1 if event.kind == "appear" else -1
        elif event.kind == "request" and timeline.is_business(event.data.method,
                                                                           event.data.path):
            waiting[event.data.id] = f"{event.data.method} {event.data.path}"
        elif event.kind == "response":
            waiting.pop(event.data.id, None)
        else:
            continue
        if cards + len(waiting) > 1:
            raise fail(name, f"two calls were in progress at once: {cards} approval card(s) on "
                        f"screen and business request(s) still unanswered: "
                        f"{listed(list(waiting.values()))}", timeline)


def success_after_business_answer(timeline: Timeline, *, call_id: str, path: str,
                                  since: Mark | None = None) -> None:
    """A `run`'s success reached the model only after its business request was answered with
    success: the server answered `path` with a 2xx before it received the first model request
    carrying `{"ok": true}` for `call_id` (a page served elsewhere: the browser received that
    answer before it sent the request), and in the page's log that request left only after
    the answer had reached the page."""
    since = since_or_ready(timeline, since)
    name = "success-after-business-answer"
    carrying = [r for r in timeline.server_records(since, kind="model.request")
                if _carries_success(r.model_request, call_id)]
    if not carrying:
        raise fail(name, f"no model request carried a success for {call_id}", timeline)
    if timeline.sees_server:
        answered = [r for r in timeline.server_business_records(since)
                    if r.path == path and _succeeded(r.status)]
        if not answered or answered[0].seq > carrying[0].seq:
            raise fail(name, f"the success for {call_id} reached the server (seq "
                        f"{carrying[0].seq}) before any successful answer to {path} (answers "
                        f"at: {listed([f'seq {r.seq}' for r in answered])})", timeline)
    elif timeline.driver.assistant_endpoints:
        _success_after_answer_via_framework(timeline, since, name=name, call_id=call_id,
                                            path=path, asked=carrying[0].seq)
        return
    else:
        business = [r for r in timeline.browser_business_requests(since)
                    if r.path.split("?", 1)[0] == path]
        _network_answered_before(
            timeline, since, name=name,
            answered=f"{business[0].method} {path}" if business else f"a request to {path}",
            what=f"the success for {call_id}",
            sends=lambda r: _sends_success(r.body, call_id))
    events = timeline.page_events(since)
    answer_at = _first_successful_answer(events, path)
    sent_at = next((index for index, e in enumerate(events)
                    if e.kind == "request" and timeline.is_model_transport(e.data.path)
                    and _sends_success(e.data.body, call_id)), None)
    if sent_at is None:
        raise fail(name, f"the page's probe saw no model request carrying the success for "
                    f"{call_id}", timeline)
    if answer_at is None or sent_at < answer_at:
        raise fail(name, f"the page sent the success for {call_id} before the answer to {path} "
                    f"had reached it", timeline)



def _sends_success(body: str | None, call_id: str) -> bool:
    """Whether a request the page sent towards the model carries an ok result for `call_id`:
    a model request of ours, or a chat request of a framework's (the AI SDK's UI messages,
    an AG-UI runtime's tool messages)."""
    agui = agui_tool_result(body, call_id)
    return (_carries_success(parse_sent_request(body), call_id)
            or ui_messages_carry_output(body, call_id)
            or (agui is not None and agui.get("ok") is True))


def _carries_success(request: ModelRequest | None, call_id: str) -> bool:
    """Whether a model request carries an ok result for `call_id`."""
    return request is not None and any(
        r.call_id == call_id and r.ok for r in results_carried(request))

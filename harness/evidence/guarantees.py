"""Named guarantee assertions, proven from what the page and the server really did.

Each function checks one promise of SPEC §2 to §4 and raises `GuaranteeViolation` (an
AssertionError) whose message names the guarantee, says precisely what was wrong, and
ends with the rendered timeline. The evidence is the harness's own in-page probe (DOM
and requests, in causal page order), the network as Playwright saw it, and the fixture
server's log and state; the runtime's `pling:event`s are never used as proof.

Most take `since=mark` (from `timeline.mark()`) to look only at what happened after a
point; without it they look at everything since the page became ready (the fixtures set
`timeline.ready_mark`), as loading the page is not a side effect of any action. E.g. with
a mark taken just before clicking Deny::

    dock.ask("archive the workspace")
    before = timeline.mark()
    dock.deny()
    guarantees.denial_respected(timeline, action="archive_workspace", since=before,
                                success_phrases=["archived"])
    guarantees.no_silent_retry(timeline, since=before)

Guarantees that look at the DOM as it is now (boxes, buttons) read `timeline.page`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from playwright.sync_api import Page, expect

from harness.browser.dock import Dock
from harness.evidence.probe import is_business_path, is_model_path
from harness.evidence.records import Mark
from harness.evidence.timeline import Timeline
from harness.project.texts import Words
from harness.server.model import conversation
from harness.server.model.conversation import ToolResultSeen

# How long a DOM-reading guarantee waits for the UI it inspects to be on screen.
UI_TIMEOUT_MS = 5_000
_NOT_BLANK = re.compile(r"\S")


class GuaranteeViolation(AssertionError):
    """A guarantee did not hold; the message carries the evidence (the timeline)."""

    def __init__(self, guarantee: str, problem: str, timeline: Timeline) -> None:
        self.guarantee = guarantee
        self.problem = problem
        super().__init__(f"guarantee {guarantee!r} violated: {problem}\n\n{timeline.render()}")


def _fail(guarantee: str, problem: str, timeline: Timeline) -> GuaranteeViolation:
    return GuaranteeViolation(guarantee, problem, timeline)


def _page(timeline: Timeline) -> Page:
    if timeline.page is None:
        raise RuntimeError("this guarantee reads the DOM: attach the Timeline to a page first")
    return timeline.page


def _since(timeline: Timeline, since: Mark | None) -> Mark | None:
    """An explicit mark, else the moment the page became ready (page load is no side effect)."""
    return since if since is not None else timeline.ready_mark


def _results_for(timeline: Timeline, action: str, since: Mark | None) -> list[ToolResultSeen]:
    return [r for r in timeline.tool_results(since) if r.action == action]


def _listed(items: Sequence[object]) -> str:
    return "; ".join(str(item) for item in items) or "none"


# ---- cross-checks shared by several guarantees ----------------------------------------


def probe_saw_every_business_request(timeline: Timeline, *, since: Mark | None = None) -> None:
    """Every business call the server and the network saw was also seen by the in-page probe.

    Without this, a page that sent a request around `window.fetch` could slip past the
    order checks, which read the probe's log.
    """
    since = _since(timeline, since)
    name = "probe-saw-every-business-request"
    page = [f"{r.method} {r.path}" for r in timeline.page_business_requests(since)]
    browser = [f"{r.method} {r.path}" for r in timeline.browser_business_requests(since)]
    server = [f"{r.method} {r.path}" for r in timeline.server_business_records(since)]
    if len(browser) > len(page) or len(server) > len(page):
        raise _fail(name, f"the page's probe saw {len(page)} business request(s) ({_listed(page)})"
                    f" but the network saw {len(browser)} ({_listed(browser)}) and the server "
                    f"{len(server)} ({_listed(server)}): a request bypassed window.fetch/XHR",
                    timeline)


def no_business_request(timeline: Timeline, *, since: Mark | None = None,
                        guarantee: str = "no-business-request") -> None:
    """No business call at all: not started by the page, not on the network, not at the server."""
    since = _since(timeline, since)
    seen = {
        "page": [f"{r.method} {r.path}" for r in timeline.page_business_requests(since)],
        "network": [f"{r.method} {r.path}" for r in timeline.browser_business_requests(since)],
        "server": [f"{r.method} {r.path} → {r.status}"
                   for r in timeline.server_business_records(since)],
    }
    if any(seen.values()):
        found = ", ".join(f"{where}: {_listed(items)}" for where, items in seen.items() if items)
        raise _fail(guarantee, f"expected no business request, but {found}", timeline)


def no_model_request(timeline: Timeline, *, since: Mark, why: str,
                     guarantee: str = "no-model-request") -> None:
    """Nothing went to the model since `since`: not sent by the page, not received by the
    server (e.g. while a handoff is still open, nothing may be reported yet). `why` says
    why none was due, for the failure message."""
    sent = timeline.page_model_requests(since)
    received = timeline.server_records(since, kind="model.request")
    if sent or received:
        raise _fail(guarantee, f"{why}, yet the page sent {len(sent)} model request(s) and the "
                    f"server received {len(received)}", timeline)


def state_unchanged(timeline: Timeline, *, since: Mark,
                    guarantee: str = "state-unchanged") -> None:
    """Server state equals its state at `since`, and the page showed no business-state change."""
    if timeline.workspace is not None and since.workspace is not None:
        now = timeline.workspace.snapshot()
        if now != since.workspace:
            raise _fail(guarantee, f"server state changed from {since.workspace!r} to {now!r}",
                        timeline)
    changes = timeline.page_states(since)
    if changes:
        raise _fail(guarantee, f"the page's shown state changed to {changes[-1]!r} "
                    f"(it showed {since.page_state!r})", timeline)


# ---- approval ---------------------------------------------------------------------------


def approval_before_side_effects(timeline: Timeline, *, action: str,
                                 since: Mark | None = None) -> None:
    """The approval card for `action` was on screen before any business request or state change.

    Proven from the probe's causal page log (DOM observer + request wrapper), cross-checked
    against the network and the server log so no request can go unseen.
    """
    since = _since(timeline, since)
    name = "approval-before-side-effects"
    probe_saw_every_business_request(timeline, since=since)
    for event in timeline.page_events(since):
        if event.kind == "appear" and event.data.testid == "pling-approval" \
                and event.data.attributes.get("data-action") == action:
            return
        if event.kind == "request" and is_business_path(event.data.method, event.data.path):
            raise _fail(name, f"the page sent {event.data.method} {event.data.path} before "
                        f"any approval for {action} was on screen", timeline)
        if event.kind == "state":
            raise _fail(name, f"the page's business state changed ({event.data!r}) before "
                        f"any approval for {action} was on screen", timeline)
    raise _fail(name, f"no approval card for {action} was ever on screen", timeline)


def denial_respected(timeline: Timeline, *, action: str, since: Mark,
                     success_phrases: Sequence[str]) -> None:
    """After Deny: the model got PERMISSION_DENIED, nothing was requested or changed, and the
    assistant does not claim success (its last text contains none of `success_phrases`)."""
    name = "denial-respected"
    results = _results_for(timeline, action, since)
    if not results or any(r.code != "PERMISSION_DENIED" for r in results):
        raise _fail(name, f"expected the model to receive PERMISSION_DENIED for {action}, "
                    f"it received: {_listed([r.describe() for r in results])}", timeline)
    no_business_request(timeline, since=since, guarantee=name)
    state_unchanged(timeline, since=since, guarantee=name)
    no_success_claim(timeline, success_phrases=success_phrases, guarantee=name)


def no_success_claim(timeline: Timeline, *, success_phrases: Sequence[str],
                     guarantee: str = "no-success-claim") -> None:
    """The assistant's last message contains none of the success phrases (case-insensitive)."""
    text = Dock(_page(timeline)).last_assistant_text()
    claimed = [p for p in success_phrases if p and p.casefold() in text.casefold()]
    if claimed:
        raise _fail(guarantee, f"the assistant claims success ({_listed(claimed)}) in "
                    f"{text!r}", timeline)


def always_allow_offered(timeline: Timeline, *, action: str) -> None:
    """The card on screen for `action` has policy `ask` and an "always allow" button."""
    name = "always-allow-offered"
    card = Dock(_page(timeline)).approval
    try:
        expect(card).to_have_attribute("data-action", action, timeout=UI_TIMEOUT_MS)
        expect(card).to_have_attribute("data-policy", "ask", timeout=UI_TIMEOUT_MS)
        expect(card.get_by_test_id("pling-approve-always")).to_be_visible(timeout=UI_TIMEOUT_MS)
    except AssertionError as error:
        raise _fail(name, f"the approval for {action} offers no 'always allow': "
                    f"{str(error).splitlines()[0]}", timeline) from None


def always_allow_never_offered(timeline: Timeline, *, action: str,
                               since: Mark | None = None) -> None:
    """Every card shown for `action` had policy `ask-always` and no "always allow" button."""
    since = _since(timeline, since)
    name = "always-allow-never-offered"
    cards = timeline.shown("pling-approval", since, action=action)
    if not cards:
        raise _fail(name, f"no approval card for {action} was shown", timeline)
    for card in cards:
        if card.attributes.get("data-policy") != "ask-always" \
                or "pling-approve-always" in (card.buttons or []):
            raise _fail(name, f"a card for {action} showed policy "
                        f"{card.attributes.get('data-policy')!r} with buttons {card.buttons}",
                        timeline)


def prompted_for_every_call(timeline: Timeline, *, action: str,
                            since: Mark | None = None) -> None:
    """As many approval cards for `action` were shown as the model made calls to it."""
    since = _since(timeline, since)
    name = "prompted-for-every-call"
    calls = [c for c in timeline.tool_calls(since) if c.action == action]
    cards = timeline.shown("pling-approval", since, action=action)
    if not calls or len(cards) != len(calls):
        raise _fail(name, f"the model called {action} {len(calls)} time(s) but "
                    f"{len(cards)} approval card(s) for it were shown", timeline)


# Page script: the parts of the card's argument text (the element and everything in it) whose
# content overflows a box that hides the rest, i.e. text the user cannot see or scroll to.
_CLIPPED_PARTS = """args => [args, ...args.querySelectorAll("*")].flatMap(element => {
  const style = getComputedStyle(element);
  const hides = value => value === "hidden" || value === "clip";
  const cut = [];
  if (hides(style.overflowX) && element.scrollWidth > element.clientWidth + 1) cut.push("width");
  if (hides(style.overflowY) && element.scrollHeight > element.clientHeight + 1) cut.push("height");
  return cut.map(side => `${element.tagName.toLowerCase()} cut in ${side}`);
})"""


def approval_shows_arguments(timeline: Timeline, *, action: str, values: Sequence[str],
                             guarantee: str = "approval-shows-exact-arguments") -> None:
    """The card on screen for `action` shows each of `values` whole in `pling-approval-args`:
    verbatim in its text (every character and space, nothing cut or "…"-shortened) and not
    hidden by a box too small for it (overflow hidden or clipped)."""
    dock = Dock(_page(timeline))
    try:
        expect(dock.approval).to_have_attribute("data-action", action, timeout=UI_TIMEOUT_MS)
        expect(dock.approval_args).to_be_visible(timeout=UI_TIMEOUT_MS)
    except AssertionError as error:
        raise _fail(guarantee, f"no approval card with arguments for {action}: "
                    f"{str(error).splitlines()[0]}", timeline) from None
    shown = dock.approval_args.text_content() or ""
    missing = [value for value in values if value not in shown]
    if missing:
        raise _fail(guarantee, f"the card for {action} does not show "
                    f"{_listed([repr(v) for v in missing])} whole; its arguments read "
                    f"{shown!r}", timeline)
    clipped: list[str] = dock.approval_args.evaluate(_CLIPPED_PARTS)
    if clipped:
        raise _fail(guarantee, f"the card for {action} hides part of its arguments: "
                    f"{_listed(clipped)}", timeline)


def approval_still_open(timeline: Timeline, *, action: str, since: Mark,
                        guarantee: str = "approval-only-by-click") -> None:
    """The card for `action` that was on screen at `since` is still there, undecided: it did
    not leave or get replaced, no result went to the model, nothing was requested or changed.
    Use it after gestures that are not a click on a decision button (keys, focus, clicks
    elsewhere), which must answer nothing."""
    card = Dock(_page(timeline)).approval
    try:
        expect(card).to_have_count(1, timeout=UI_TIMEOUT_MS)
        expect(card).to_have_attribute("data-action", action, timeout=UI_TIMEOUT_MS)
    except AssertionError as error:
        raise _fail(guarantee, f"the approval for {action} is no longer waiting: "
                    f"{str(error).splitlines()[0]}", timeline) from None
    changes = [f"{e.kind} {e.data.testid}" for e in timeline.page_events(since)
               if e.kind in ("appear", "disappear") and e.data.testid == "pling-approval"]
    if changes:
        raise _fail(guarantee, f"the approval card changed although no decision button was "
                    f"clicked: {_listed(changes)}", timeline)
    sent = timeline.page_model_requests(since)
    received = timeline.server_records(since, kind="model.request")
    if sent or received:
        raise _fail(guarantee, f"a result went to the model although the card was not answered "
                    f"(page sent {len(sent)}, server received {len(received)} model "
                    f"request(s))", timeline)
    no_business_request(timeline, since=since, guarantee=guarantee)
    state_unchanged(timeline, since=since, guarantee=guarantee)


def ran_without_prompt(timeline: Timeline, *, action: str, since: Mark) -> None:
    """`action` succeeded with a business request and no approval card on screen."""
    name = "ran-without-prompt"
    cards = timeline.shown("pling-approval", since)
    if cards:
        raise _fail(name, f"expected no prompt, but {len(cards)} approval card(s) were shown "
                    f"({_listed([c.attributes.get('data-action') for c in cards])})", timeline)
    if not timeline.page_business_requests(since):
        raise _fail(name, f"{action} made no business request", timeline)
    model_received(timeline, action=action, code="OK", since=since, guarantee=name)


def model_received(timeline: Timeline, *, action: str, code: str, since: Mark | None = None,
                   guarantee: str = "model-received") -> None:
    """The latest result the model received for `action` has `code` ("OK" for a success)."""
    since = _since(timeline, since)
    results = _results_for(timeline, action, since)
    if not results or results[-1].code != code:
        raise _fail(guarantee, f"expected the model to receive {code} for {action}, it "
                    f"received: {_listed([r.describe() for r in results])}", timeline)


def rejected_without_prompt(timeline: Timeline, *, action: str, code: str,
                            since: Mark | None = None) -> None:
    """A call failing the pipeline's checks (§3 steps 1 to 4) answers `code`, with no prompt,
    no handoff and no business request."""
    since = _since(timeline, since)
    name = "rejected-without-prompt"
    model_received(timeline, action=action, code=code, since=since, guarantee=name)
    for testid in ("pling-approval", "pling-handoff"):
        shown = timeline.shown(testid, since)
        if shown:
            raise _fail(name, f"{action} was rejected with {code}, but {testid} was shown "
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
        raise _fail(name, f"expected exactly one model request after the decision, the page "
                    f"sent {len(page_sent)} and the server received {len(server_saw)}", timeline)
    results = timeline.tool_results(since)
    if not results or any(r.ok for r in results):
        raise _fail(name, "the one model request after the decision should report the failed "
                    f"result, it carried: {_listed([r.describe() for r in results])}", timeline)


# ---- projection -------------------------------------------------------------------------


def projection_exactly(timeline: Timeline, *, tools: Sequence[str], since: Mark,
                       guarantee: str = "projection-complete") -> list[dict[str, object]]:
    """Every model request the server received since `since` offered exactly `tools` (as a
    multiset of names, order free), and there was at least one. Returns the last request's
    `tools` entries, for checks that also compare descriptions and parameters."""
    requests = timeline.server_records(since, kind="model.request")
    if not requests:
        raise _fail(guarantee, "the server received no model request", timeline)
    wanted = sorted(tools)
    last: list[dict[str, object]] = []
    for index, record in enumerate(requests, start=1):
        body = record.body if isinstance(record.body, dict) else {}
        names = conversation.tool_names(body)
        if sorted(names) != wanted:
            missing = sorted(set(wanted) - set(names))
            extra = sorted(set(names) - set(wanted))
            raise _fail(guarantee, f"model request {index} (server seq {record.seq}) offered "
                        f"{names}; want exactly {wanted} (missing: {_listed(missing)}; "
                        f"not expected: {_listed(extra)})", timeline)
        raw = body.get("tools")
        last = [t for t in raw if isinstance(t, dict)] if isinstance(raw, list) else []
    return last


# ---- handoff ----------------------------------------------------------------------------


def handoff_without_approval(timeline: Timeline, *, action: str,
                             since: Mark | None = None) -> None:
    """The handoff for `action` was shown and no approval card ever was (no stacking)."""
    since = _since(timeline, since)
    name = "handoff-without-approval"
    if not timeline.shown("pling-handoff", since, action=action):
        raise _fail(name, f"no handoff panel for {action} was shown", timeline)
    cards = timeline.shown("pling-approval", since)
    if cards:
        raise _fail(name, f"an approval card was shown for a handoff "
                    f"({_listed([c.attributes for c in cards])})", timeline)


def handoff_shows_reason_and_steps(timeline: Timeline, *, steps: int) -> None:
    """The handoff panel on screen shows a non-empty reason and exactly `steps` steps."""
    name = "handoff-shows-reason-and-steps"
    dock = Dock(_page(timeline))
    try:
        expect(dock.handoff_reason).to_have_text(_NOT_BLANK, timeout=UI_TIMEOUT_MS)
        expect(dock.handoff_steps).to_have_count(steps, timeout=UI_TIMEOUT_MS)
        for index in range(steps):
            expect(dock.handoff_steps.nth(index)).to_have_text(_NOT_BLANK)
    except AssertionError as error:
        raise _fail(name, str(error).splitlines()[0], timeline) from None


def highlight_covers_target(timeline: Timeline, *, target: str, tolerance: float = 1.0) -> None:
    """The highlight for `target` covers the target's box (±`tolerance` px), target in view and
    marked `data-pling-highlighted` (present, any value: the page contract asks no more)."""
    name = "highlight-covers-target"
    page = _page(timeline)
    overlay = Dock(page).highlight(target)
    element = page.locator(f"[data-pling-target='{target}']")
    try:
        expect(overlay).to_be_visible(timeout=UI_TIMEOUT_MS)
        expect(element).to_be_in_viewport(timeout=UI_TIMEOUT_MS)
        expect(element.and_(page.locator("[data-pling-highlighted]"))).to_have_count(
            1, timeout=UI_TIMEOUT_MS)
    except AssertionError as error:
        raise _fail(name, str(error).splitlines()[0], timeline) from None
    covering, covered = overlay.bounding_box(), element.bounding_box()
    if covering is None or covered is None:
        raise _fail(name, f"no box for the highlight ({covering}) or {target} ({covered})",
                    timeline)
    off = {k: round(covering[k] - covered[k], 2) for k in ("x", "y", "width", "height")}
    if any(abs(delta) > tolerance for delta in off.values()):
        raise _fail(name, f"the highlight for {target} is at {covering} but the target is at "
                    f"{covered} (off by {off})", timeline)


def highlights_removed(timeline: Timeline, *, since: Mark | None = None) -> None:
    """No highlight overlay and no highlighted element remain, and each shown one went away."""
    since = _since(timeline, since)
    name = "highlights-removed"
    page = _page(timeline)
    try:
        expect(page.get_by_test_id("pling-highlight")).to_have_count(0, timeout=UI_TIMEOUT_MS)
        expect(page.locator("[data-pling-highlighted]")).to_have_count(0, timeout=UI_TIMEOUT_MS)
    except AssertionError as error:
        raise _fail(name, str(error).splitlines()[0], timeline) from None
    events = timeline.page_events(since)
    shown = sum(1 for e in events if e.kind == "appear" and e.data.testid == "pling-highlight")
    gone = sum(1 for e in events if e.kind == "disappear" and e.data.testid == "pling-highlight")
    if shown != gone:
        raise _fail(name, f"{shown} highlight(s) appeared but {gone} went away", timeline)


def no_writes_into_targets(timeline: Timeline, *, targets: Sequence[str] | None = None,
                           since: Mark | None = None) -> None:
    """No script wrote a value into a handoff target (value setter, setAttribute("value"),
    setRangeText, execCommand). `targets`: target ids or testids; None means any element
    carrying data-pling-target. The user's typing (input events) is not a write."""
    since = _since(timeline, since)
    name = "no-writes-into-targets"
    writes = [
        w for w in timeline.writes(since)
        if (w.target is not None if targets is None else (w.target in targets
                                                          or w.testid in targets))
    ]
    if writes:
        said = [f"{w.value!r} into {w.target or w.testid} via {w.via}" for w in writes]
        raise _fail(name, f"the page wrote into a handoff target: {_listed(said)}", timeline)


def success_only_after_published(timeline: Timeline, *, action: str = "publish_changes",
                                 since: Mark | None = None) -> None:
    """The handoff's success reached the model only after the server had published and the
    page showed "published".

    Server: the publish call (200, state published) comes before the model request that
    first carries the success receipt, and no earlier request carried one. Page: when the
    request carrying the receipt left, the status region already showed "published".
    """
    since = _since(timeline, since)
    name = "success-only-after-published"
    successes = [r for r in _results_for(timeline, action, since) if r.ok]
    if len(successes) != 1:
        raise _fail(name, f"expected one success for {action} reported to the model, found "
                    f"{len(successes)}", timeline)
    model_requests = timeline.server_records(kind="model.request")
    carrying = model_requests[successes[0].request_index]
    published = [r for r in timeline.server_business_records(since)
                 if r.path == "/api/workspace/publish" and r.status == 200 and r.state.published]
    if not published or published[0].seq > carrying.seq or not carrying.state.published:
        raise _fail(name, f"the model request carrying the receipt (server seq {carrying.seq}) "
                    f"did not come after a successful publish (publish records: "
                    f"{_listed([f'seq {r.seq} → {r.status}' for r in published])})", timeline)
    sent = [r for r in timeline.page_model_requests(since)
            if _carries_success(r.body, successes[0].call_id)]
    if not sent:
        raise _fail(name, "the page's probe saw no model request carrying the receipt", timeline)
    if sent[0].state.status != "published":
        raise _fail(name, f"the receipt left the page while the status showed "
                    f"{sent[0].state.status!r}, not 'published'", timeline)


def _carries_success(body: str | None, call_id: str) -> bool:
    """Whether a model request body (as the page sent it) carries an ok result for `call_id`."""
    try:
        request = json.loads(body or "")
    except json.JSONDecodeError:
        return False
    if not isinstance(request, dict):
        return False
    return any(r.call_id == call_id and r.ok for r in conversation.tool_results([request]))


# ---- the agent loop ---------------------------------------------------------------------


def one_call_at_a_time(timeline: Timeline, *, since: Mark | None = None) -> None:
    """The tool calls were handled one after another: at no moment in the page's log were two
    in progress, counting each approval card on screen and each business request the page
    started whose answer had not reached it yet. So a call's card or business request came
    only after the previous call's card was decided and its business answer was in.
    (A user's own requests during a handoff would count too: use it where there is none.)"""
    since = _since(timeline, since)
    name = "calls-one-after-another"
    cards = 0
    waiting: dict[int, str] = {}  # business request id → "METHOD /path"
    for event in timeline.page_events(since):
        if event.kind in ("appear", "disappear") and event.data.testid == "pling-approval":
            cards += 1 if event.kind == "appear" else -1
        elif event.kind == "request" and is_business_path(event.data.method, event.data.path):
            waiting[event.data.id] = f"{event.data.method} {event.data.path}"
        elif event.kind == "response":
            waiting.pop(event.data.id, None)
        else:
            continue
        if cards + len(waiting) > 1:
            raise _fail(name, f"two calls were in progress at once: {cards} approval card(s) on "
                        f"screen and business request(s) still unanswered: "
                        f"{_listed(list(waiting.values()))}", timeline)


def success_after_business_answer(timeline: Timeline, *, call_id: str, path: str,
                                  since: Mark | None = None) -> None:
    """A `run`'s success reached the model only after its business request was answered with
    success: the server answered `path` with a 2xx before it received the first model request
    carrying `{"ok": true}` for `call_id`, and in the page's log that request left only after
    the answer had reached the page."""
    since = _since(timeline, since)
    name = "success-after-business-answer"
    carrying = [r for r in timeline.server_records(since, kind="model.request")
                if _carries_success(json.dumps(r.body), call_id)]
    if not carrying:
        raise _fail(name, f"no model request carried a success for {call_id}", timeline)
    answered = [r for r in timeline.server_business_records(since)
                if r.path == path and r.status is not None and 200 <= r.status < 300]
    if not answered or answered[0].seq > carrying[0].seq:
        raise _fail(name, f"the success for {call_id} reached the server (seq {carrying[0].seq}) "
                    f"before any successful answer to {path} (answers at: "
                    f"{_listed([f'seq {r.seq}' for r in answered])})", timeline)
    events = timeline.page_events(since)
    asked = {e.data.id for e in events
             if e.kind == "request" and e.data.path.split("?", 1)[0] == path}
    answer_at = next((index for index, e in enumerate(events)
                      if e.kind == "response" and e.data.id in asked
                      and e.data.status is not None and 200 <= e.data.status < 300), None)
    sent_at = next((index for index, e in enumerate(events)
                    if e.kind == "request" and is_model_path(e.data.path)
                    and _carries_success(e.data.body, call_id)), None)
    if sent_at is None:
        raise _fail(name, f"the page's probe saw no model request carrying the success for "
                    f"{call_id}", timeline)
    if answer_at is None or sent_at < answer_at:
        raise _fail(name, f"the page sent the success for {call_id} before the answer to {path} "
                    f"had reached it", timeline)


# ---- copy: what a notice means ------------------------------------------------------------


def notice_means(timeline: Timeline, words: Words, *, code: str, action: str,
                 guarantee: str = "notice-means") -> None:
    """The newest dock notice carrying `data-code=<code>` names `action` and says what the
    glossary says a `code` notice means in `words`' locale, with no claim it must not make.

    The action is named by the `description` the model received for it (its `desc`), or by
    its id if the page never offered it (an unknown action). Wording is never compared:
    "You did not allow X. It was not run." and "X was denied and not carried out." both pass;
    a notice saying "allowed and done" fails.
    """
    notice = Dock(_page(timeline)).messages("notice").and_(
        _page(timeline).locator(f"[data-code='{code}']")).last
    try:
        expect(notice).to_be_attached(timeout=UI_TIMEOUT_MS)
    except AssertionError:
        raise _fail(guarantee, f"no notice with data-code={code!r} is in the dock",
                    timeline) from None
    text = notice.inner_text()
    naming = _tool_description(timeline, action) or action
    problems = words.meaning_problems(text, code, naming=naming)
    if problems:
        raise _fail(guarantee, f"the {words.locale} notice for {code} ({text!r}) "
                    f"{'; '.join(problems)}", timeline)


def _tool_description(timeline: Timeline, action: str) -> str | None:
    """The `description` of `action` in the newest model request whose tools offered it."""
    for record in reversed(timeline.server_records(kind="model.request")):
        tools = record.body.get("tools") if isinstance(record.body, dict) else None
        for tool in tools if isinstance(tools, list) else []:
            function = tool.get("function") if isinstance(tool, dict) else None
            if isinstance(function, dict) and function.get("name") == action:
                description = function.get("description")
                return description if isinstance(description, str) else None
    return None

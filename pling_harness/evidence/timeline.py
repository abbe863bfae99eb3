"""Timeline: one ordered record of what really happened, from independent sources.

Sources, each labelled in every entry:

- ``page``: the harness's own init script (``page_probe.js``), in page order: requests the
  page started (with the business state shown at that instant), approval / handoff /
  highlight UI appearing and disappearing (as the tutorial's dock driver names them),
  business state shown on the page, clicks on the assistant's controls and input into
  handoff targets, and programmatic writes into inputs.
- ``browser``: requests and responses as Playwright saw the browser send and receive them.
- ``server``: the fixture server's log: model requests and replies and business API calls,
  each with the business state after it.
- ``model`` (instead of ``server``, for a page served elsewhere: ``--base-url``): the
  browser's model route, which answers the page's model endpoint and logs each exchange the
  way the gateway does; the business state comes from the tutorial's state request.
- ``runtime``: the runtime's own ``pling:event`` reports, kept for reading only; no
  guarantee is proven from them.

Usage without pytest::

    timeline = Timeline(server_log=server.log, server_state=server.state,
                        contract=server.tutorial.contract)
    timeline.attach(page)          # before the first navigation
    page.goto(server.url)
    ...
    mark = timeline.mark()         # "from here on"
    dock.deny()
    assert not timeline.page_business_requests(since=mark)
    print(timeline.render())

Every query first pulls in what the sources have so far (``sync``), so it reflects the
page as it is at the moment of the call. What counts as a business request, the business
view the probe reports and the model endpoint come from the tutorial (``contract``).
"""

from __future__ import annotations

import json
from collections import defaultdict, deque
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, Request, Response
from pydantic import ValidationError

from pling_harness.browser.pages import expect_dock, expect_ready, when_ready
from pling_harness.evidence.probe import (
    BINDING_NAME,
    READ_CURRENT_LOG,
    AppearData,
    BusinessView,
    PageEvent,
    RequestData,
    StateEvent,
    WatchedPart,
    WriteData,
    parse_page_event,
    probe_script,
)
from pling_harness.evidence.records import ApiCall, BrowserRequest, Mark, Source, TimelineEntry
from pling_harness.evidence.render import describe_browser, describe_page_event, describe_server
from pling_harness.project.business_state import BusinessState
from pling_harness.project.contract import PageContract
from pling_harness.project.dock_driver import DriverSpec, default_driver
from pling_harness.server.log import ServerLog, ServerRecord
from pling_harness.server.model.conversation import (
    Conversation,
    ModelExchange,
    ToolCallSeen,
    ToolResultSeen,
)


@dataclass(frozen=True)
class _BrowserEvent:
    request: BrowserRequest
    kind: Literal["sent", "finished"]


# Everything in the order it reached the harness.
_Arrival = PageEvent | _BrowserEvent | ServerRecord


class StateSource(Protocol):
    """The business state at this moment: the fixture server's own, or a page served
    elsewhere's, read through its declared state request."""

    def snapshot(self) -> BusinessState: ...


@dataclass(kw_only=True)
class Timeline:
    """Collects the four sources for one page and one server, and answers questions on them."""

    server_log: ServerLog | None = None
    server_state: StateSource | None = None
    """The tutorial's business state (`server.state`), read at every mark."""
    contract: PageContract = field(default_factory=PageContract)
    """The tutorial's page and API declarations (`tutorial.contract`)."""
    driver: DriverSpec = field(default_factory=default_driver)
    """Where the page's assistant shows its parts (the probe watches them)."""
    log_source: Source = "server"
    """How `server_log`'s records are labelled: "model" when it is the model route's log."""
    page: Page | None = field(default=None, init=False)
    ready_mark: Mark | None = field(default=None, init=False)
    """Where the page became ready; guarantees look from here when given no mark."""
    problems: list[str] = field(default_factory=list, init=False)
    _arrivals: list[_Arrival] = field(default_factory=list, init=False)
    _page_events: list[PageEvent] = field(default_factory=list, init=False)
    _seen_page_events: set[tuple[str, int]] = field(default_factory=set, init=False)
    _read_in_page: dict[str, int] = field(default_factory=dict, init=False)
    _browser: list[BrowserRequest] = field(default_factory=list, init=False)
    _browser_by_request: dict[int, BrowserRequest] = field(default_factory=dict, init=False)
    _server_seen: int = field(default=0, init=False)

    # ---- collecting ----------------------------------------------------------------------

    def attach(self, page: Page) -> None:
        """Install the probe and listeners on `page`, and the tutorial's ready condition;
        call before the first navigation."""
        if self.page is not None:
            raise RuntimeError("this Timeline is already attached to a page; use one per page")
        self.page = page
        # The binding first, so it exists when the probe's init script runs.
        page.expose_binding(BINDING_NAME, lambda _source, batch: self._take_page_entries(batch))
        page.add_init_script(script=probe_script(self.contract.page.business_view,
                                                 self.driver))
        page.on("request", self._on_request)
        page.on("response", self._on_response)
        page.on("requestfailed", self._on_request_failed)
        expect_ready(page, self.contract.page.ready)
        expect_dock(page, self.driver.dock.root)
        when_ready(page, self.mark_ready)

    def sync(self) -> None:
        """Pull in what the sources have now (the binding may still have entries in flight)."""
        if self.page is not None and not self.page.is_closed():
            try:
                current = self.page.evaluate(READ_CURRENT_LOG, self._read_in_page)
            except PlaywrightError:
                current = None  # navigating or closed: the binding has delivered the rest
            if isinstance(current, dict) and isinstance(current.get("entries"), list):
                # Counted by what this read returned, never by what the binding delivered:
                # page script can call the binding with anything, not shorten this read.
                doc = str(current.get("doc"))
                self._read_in_page[doc] = self._read_in_page.get(doc, 0) + len(current["entries"])
                for entry in current["entries"]:
                    self._take_page_entry(entry)
        self._drain_server()

    def _take_page_entries(self, batch: object) -> None:
        """What the probe's binding delivers: the entries one task of the page logged."""
        for raw in batch if isinstance(batch, list) else [batch]:
            self._take_page_entry(raw)

    def _take_page_entry(self, raw: object) -> None:
        try:
            event = parse_page_event(raw)
        except ValidationError as error:
            self.problems.append(f"malformed probe entry {raw!r:.200}: {error.errors()[0]['msg']}")
            return
        key = (event.doc, event.seq)
        if key in self._seen_page_events:
            return
        self._seen_page_events.add(key)
        self._page_events.append(event)
        self._arrivals.append(event)

    def _on_request(self, request: Request) -> None:
        path = _path_of(request.url)
        seen = BrowserRequest(index=len(self._browser), method=request.method, path=path,
                              body=request.post_data)
        self._browser.append(seen)
        self._browser_by_request[id(request)] = seen
        self._arrivals.append(_BrowserEvent(seen, "sent"))

    def _on_response(self, response: Response) -> None:
        seen = self._browser_by_request.get(id(response.request))
        if seen is not None:
            seen.status = response.status
            self._drain_server()
            self._arrivals.append(_BrowserEvent(seen, "finished"))

    def _on_request_failed(self, request: Request) -> None:
        seen = self._browser_by_request.get(id(request))
        if seen is not None:
            seen.failure = request.failure or "failed"
            self._drain_server()
            self._arrivals.append(_BrowserEvent(seen, "finished"))

    def _drain_server(self) -> None:
        if self.server_log is None:
            return
        for record in self.server_log.records(after=self._server_seen):
            self._arrivals.append(record)
            self._server_seen = record.seq

    # ---- marks and raw sources -----------------------------------------------------------

    def mark(self) -> Mark:
        """The current end of every source, plus the server and page state at this moment."""
        self.sync()
        states = [e.data for e in self._page_events if isinstance(e, StateEvent)]
        return Mark(
            page=len(self._page_events),
            server_seq=self.server_log.last_seq if self.server_log is not None else 0,
            browser=len(self._browser),
            server_state=(self.server_state.snapshot() if self.server_state is not None
                          else None),
            page_state=states[-1] if states else None,
        )

    def mark_ready(self) -> Mark:
        """Mark the moment the page is ready. Called by `pling_harness.browser.pages` each time it
        finds the attached page ready (first load, reloads); call it yourself only for a page
        you wait on some other way."""
        self.ready_mark = self.mark()
        return self.ready_mark

    def page_events(self, since: Mark | None = None) -> list[PageEvent]:
        self.sync()
        return list(self._page_events[since.page if since else 0:])

    def browser_requests(self, since: Mark | None = None) -> list[BrowserRequest]:
        self.sync()
        return list(self._browser[since.browser if since else 0:])

    def browser_events(
        self, since: Mark | None = None
    ) -> list[tuple[Literal["sent", "finished"], BrowserRequest]]:
        """Requests sent and answers received, in the order the browser reported them."""
        self.sync()
        first = since.browser if since else 0
        return [(item.kind, item.request) for item in self._arrivals
                if isinstance(item, _BrowserEvent) and item.request.index >= first]

    def reached_before(self, record_seq: int, since: Mark | None = None
                       ) -> tuple[list[tuple[Literal["sent", "finished"], BrowserRequest]],
                                  list[PageEvent]]:
        """The browser events and page events that reached the harness before the server (or
        model) record `record_seq`. A record is taken in at the next browser event, before
        it, so an event listed here happened before the record was logged, never after."""
        self.sync()
        first_browser = since.browser if since else 0
        first_page = since.page if since else 0
        browser: list[tuple[Literal["sent", "finished"], BrowserRequest]] = []
        page: list[PageEvent] = []
        for item in self._arrivals:
            if isinstance(item, ServerRecord):
                if item.seq == record_seq:
                    break
            elif isinstance(item, _BrowserEvent):
                if item.request.index >= first_browser:
                    browser.append((item.kind, item.request))
            else:
                page.append(item)
        return browser, [e for e in page if e in self._page_events[first_page:]]

    @property
    def sees_server(self) -> bool:
        """Whether the fixture server's log is in the timeline (not for a page served
        elsewhere, where the log holds only the model route's exchanges)."""
        return self.server_log is not None and self.log_source == "server"

    def require_business_requests_seen(self) -> None:
        """NotObservable unless the harness sees the business requests a call makes: in its
        own server's log, or in the browser when the page's tools run there (not those a
        framework's server makes, as the AI SDK's chat route runs an approved call)."""
        if not self.sees_server:
            self.driver.require_business_requests_in_browser()

    def server_records(
        self, since: Mark | None = None, *, kind: str | None = None
    ) -> list[ServerRecord]:
        if self.server_log is None:
            return []
        after = since.server_seq if since else 0
        return [r for r in self.server_log.records(after=after) if kind in (None, r.kind)]

    # ---- questions the guarantees ask ----------------------------------------------------

    def is_business(self, method: str, path: str) -> bool:
        """A request that can change business state (the tutorial's `business_prefixes`),
        other than one to the assistant's own endpoints (the dock driver's)."""
        return (self.contract.api.is_business(method, path)
                and not self.driver.is_assistant_endpoint(path))

    def page_requests(self, since: Mark | None = None) -> list[RequestData]:
        return [e.data for e in self.page_events(since) if e.kind == "request"]

    def page_business_requests(self, since: Mark | None = None) -> list[RequestData]:
        return [r for r in self.page_requests(since)
                if self.is_business(r.method, r.path)]

    def is_model_transport(self, path: str) -> bool:
        """A request carrying the conversation towards the model: to the tutorial's model
        endpoint, or to an assistant endpoint of the driver (whose server asks the model)."""
        return self.contract.api.is_model(path) or self.driver.is_assistant_endpoint(path)

    def page_model_requests(self, since: Mark | None = None) -> list[RequestData]:
        return [r for r in self.page_requests(since) if self.is_model_transport(r.path)]

    def browser_business_requests(self, since: Mark | None = None) -> list[BrowserRequest]:
        return [r for r in self.browser_requests(since)
                if self.is_business(r.method, r.path)]

    def server_business_records(self, since: Mark | None = None) -> list[ServerRecord]:
        return [r for r in self.server_records(since, kind="api")
                if self.is_business(r.method, r.path)]

    def api_calls(self, since: Mark | None = None) -> list[ApiCall]:
        """Requests to the page's API (the business prefixes, reads included, the model
        endpoint not) that were answered, in the order answered: from the fixture server's
        log when it is in the timeline, else from the browser's network view (a page served
        elsewhere)."""
        if self.sees_server:
            return [ApiCall(method=r.method, path=r.path, status=r.status, body=r.body)
                    for r in self.server_records(since, kind="api")]
        api = self.contract.api
        return [ApiCall(method=r.method, path=r.path.split("?", 1)[0], status=r.status,
                        body=_json_or_none(r.body))
                for kind, r in self.browser_events(since)
                if kind == "finished" and r.status is not None and not api.is_model(r.path)
                and not self.driver.is_assistant_endpoint(r.path)
                and r.path.startswith(api.business_prefixes)]

    def business_calls(self, since: Mark | None = None) -> list[ApiCall]:
        """The answered business requests (see `api_calls`), in the order answered."""
        return [call for call in self.api_calls(since)
                if self.is_business(call.method, call.path)]

    def shown(self, part: WatchedPart, since: Mark | None = None,
              action: str | None = None) -> list[AppearData]:
        """Each time an approval card, handoff panel or highlight (as the dock driver names
        them) appeared, e.g. shown("approval", action="delete_order")."""
        return [
            e.data for e in self.page_events(since)
            if e.kind == "appear" and e.data.part == part
            and (action is None or e.data.action == action)
        ]

    def writes(self, since: Mark | None = None) -> list[WriteData]:
        return [e.data for e in self.page_events(since) if e.kind == "write"]

    def page_states(self, since: Mark | None = None) -> list[BusinessView]:
        return [e.data for e in self.page_events(since) if isinstance(e, StateEvent)]

    def conversation(self) -> Conversation:
        """What the model was asked and answered, from the server's log (see
        `pling_harness.server.model.conversation`: one meaning of a request index)."""
        return Conversation(self.server_log.model_exchanges() if self.server_log else [])

    def tool_results(self, since: Mark | None = None) -> list[ToolResultSeen]:
        """Tool results the model received, as the server saw them (first delivery only),
        carried by requests after `since`."""
        conversation = self.conversation()
        return [result for result in conversation.tool_results()
                if _after(conversation.exchanges[result.request_index], since)]

    def tool_calls(self, since: Mark | None = None) -> list[ToolCallSeen]:
        """Tool calls the model made, in its replies to requests after `since`."""
        conversation = self.conversation()
        return [call for call in conversation.tool_calls()
                if _after(conversation.exchanges[call.request_index], since)]

    # ---- reading -------------------------------------------------------------------------

    def entries(self) -> list[TimelineEntry]:
        """The merged record: each server record right after the page request that caused it."""
        self.sync()
        api = self.contract.api
        followers = self._server_records_by_page_request()
        placed = {record.seq for records in followers.values() for record in records}
        lines: list[tuple[Source, str]] = []
        for item in self._arrivals:
            if isinstance(item, ServerRecord):
                if item.seq not in placed:
                    lines.append((self.log_source, describe_server(item)))
            elif isinstance(item, _BrowserEvent):
                if self._worth_showing(item.request.path):
                    lines.append(("browser", describe_browser(item.request, item.kind)))
            else:
                origin: Source = "runtime" if item.kind == "runtime" else "page"
                lines.append((origin, describe_page_event(item, model_path=api.model)))
                for record in followers.get((item.doc, item.seq), ()):
                    lines.append((self.log_source, describe_server(record)))
        lines.extend(("page", f"PROBE PROBLEM: {problem}") for problem in self.problems)
        return [TimelineEntry(seq=index, source=source, description=text)
                for index, (source, text) in enumerate(lines, start=1)]

    def render(self) -> str:
        """The whole timeline as readable text, one entry per line."""
        try:
            entries = self.entries()
        except PlaywrightError as error:  # the page died mid-test; show what we had
            entries = []
            self.problems.append(f"could not read the page: {error}")
        log = ("server = fixture server log" if self.log_source == "server" else
               "model = the harness's model route, answering the page's model endpoint")
        header = ("timeline (page = in-page probe, browser = network as Playwright saw it, "
                  f"{log}, runtime = the runtime's own report):")
        if not entries:
            return header + "\n  (nothing recorded)"
        return "\n".join([header, *(entry.render() for entry in entries)])

    def _worth_showing(self, path: str) -> bool:
        """Network entries shown: the API's (business prefixes) and the model endpoint's."""
        api = self.contract.api
        return (api.is_model(path) or self.driver.is_assistant_endpoint(path)
                or path.startswith(api.business_prefixes))

    def _server_records_by_page_request(self) -> dict[tuple[str, int], list[ServerRecord]]:
        """Match the k-th page request to (method, path) with the k-th server record of it."""
        records = [item for item in self._arrivals if isinstance(item, ServerRecord)]
        # The reply or error that answered each model request, by the request's seq: with two
        # requests in flight the next reply in the log may be the other one's.
        answer_to = {r.answers: r for r in records
                     if r.kind in ("model.reply", "model.error") and r.answers is not None}
        queues: dict[tuple[str, str], deque[list[ServerRecord]]] = defaultdict(deque)
        for record in records:
            if record.kind in ("api", "model.request"):
                group = [record]
                reply = answer_to.get(record.seq) if record.kind == "model.request" else None
                group += [reply] if reply is not None else []
                queues[(record.method.upper(), record.path)].append(group)
        matched: dict[tuple[str, int], list[ServerRecord]] = {}
        taken: set[int] = set()
        for event in self._page_events:
            if event.kind != "request":
                continue
            queue = queues.get((event.data.method, event.data.path.split("?", 1)[0]))
            if queue:
                group = [r for r in queue.popleft() if r.seq not in taken]
                taken.update(r.seq for r in group)
                matched[(event.doc, event.seq)] = group
        return matched


def _path_of(url: str) -> str:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def _json_or_none(text: str | None) -> Any:
    try:
        return json.loads(text) if text is not None else None
    except json.JSONDecodeError:
        return None


def _after(exchange: ModelExchange, since: Mark | None) -> bool:
    return since is None or (exchange.seq is not None and exchange.seq > since.server_seq)

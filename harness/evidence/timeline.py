"""Timeline: one ordered record of what really happened, from independent sources.

Sources, each labelled in every entry:

- ``page``: the harness's own init script (``page_probe.js``), in page order: requests the
  page started (with the business state shown at that instant), approval / handoff /
  highlight UI appearing and disappearing, business state shown on the page, clicks and
  input on decision buttons and bound elements, and programmatic writes into inputs.
- ``browser``: requests and responses as Playwright saw the browser send and receive them.
- ``server``: the fixture server's log: model requests and replies and business API calls,
  each with the workspace state after it.
- ``runtime``: the runtime's own ``pling:event`` reports, kept for reading only; no
  guarantee is proven from them.

Usage without pytest::

    timeline = Timeline(server_log=server.log, workspace=server.state)
    timeline.attach(page)          # before the first navigation
    page.goto(server.url)
    ...
    mark = timeline.mark()         # "from here on"
    dock.deny()
    assert not timeline.page_business_requests(since=mark)
    print(timeline.render())

Every query first pulls in what the sources have so far (``sync``), so it reflects the
page as it is at the moment of the call.
"""

from __future__ import annotations

from collections import defaultdict, deque
from dataclasses import dataclass, field
from typing import Literal

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, Request, Response
from pydantic import ValidationError

from harness.browser.pages import when_ready
from harness.evidence.probe import (
    BINDING_NAME,
    PROBE_SCRIPT,
    READ_CURRENT_LOG,
    AppearData,
    BusinessView,
    PageEvent,
    RequestData,
    StateEvent,
    WriteData,
    is_business_path,
    is_model_path,
    parse_page_event,
)
from harness.evidence.records import BrowserRequest, Mark, Source, TimelineEntry
from harness.evidence.render import describe_browser, describe_page_event, describe_server
from harness.server.log import ServerLog, ServerRecord
from harness.server.model.conversation import (
    Conversation,
    ModelExchange,
    ToolCallSeen,
    ToolResultSeen,
)
from harness.server.state import WorkspaceState


@dataclass(frozen=True)
class _BrowserEvent:
    request: BrowserRequest
    kind: Literal["sent", "finished"]


# Everything in the order it reached the harness.
_Arrival = PageEvent | _BrowserEvent | ServerRecord


@dataclass(kw_only=True)
class Timeline:
    """Collects the four sources for one page and one server, and answers questions on them."""

    server_log: ServerLog | None = None
    workspace: WorkspaceState | None = None
    page: Page | None = field(default=None, init=False)
    ready_mark: Mark | None = field(default=None, init=False)
    """Where the page became ready; guarantees look from here when given no mark."""
    problems: list[str] = field(default_factory=list, init=False)
    _arrivals: list[_Arrival] = field(default_factory=list, init=False)
    _page_events: list[PageEvent] = field(default_factory=list, init=False)
    _seen_page_events: set[tuple[str, int]] = field(default_factory=set, init=False)
    _browser: list[BrowserRequest] = field(default_factory=list, init=False)
    _browser_by_request: dict[int, BrowserRequest] = field(default_factory=dict, init=False)
    _server_seen: int = field(default=0, init=False)

    # ---- collecting ----------------------------------------------------------------------

    def attach(self, page: Page) -> None:
        """Install the probe and listeners on `page`; call before the first navigation."""
        if self.page is not None:
            raise RuntimeError("this Timeline is already attached to a page; use one per page")
        self.page = page
        # The binding first, so it exists when the probe's init script runs.
        page.expose_binding(BINDING_NAME, lambda _source, entry: self._take_page_entry(entry))
        page.add_init_script(path=PROBE_SCRIPT)
        page.on("request", self._on_request)
        page.on("response", self._on_response)
        page.on("requestfailed", self._on_request_failed)
        when_ready(page, self.mark_ready)

    def sync(self) -> None:
        """Pull in what the sources have now (the binding may still have entries in flight)."""
        if self.page is not None and not self.page.is_closed():
            try:
                current = self.page.evaluate(READ_CURRENT_LOG)
            except PlaywrightError:
                current = []  # navigating or closed: the binding has delivered the rest
            for entry in current if isinstance(current, list) else []:
                self._take_page_entry(entry)
        self._drain_server()

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
            workspace=self.workspace.snapshot() if self.workspace is not None else None,
            page_state=states[-1] if states else None,
        )

    def mark_ready(self) -> Mark:
        """Mark the moment the page is ready. Called by `harness.browser.pages` each time it
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

    def server_records(
        self, since: Mark | None = None, *, kind: str | None = None
    ) -> list[ServerRecord]:
        if self.server_log is None:
            return []
        after = since.server_seq if since else 0
        return [r for r in self.server_log.records(after=after) if kind in (None, r.kind)]

    # ---- questions the guarantees ask ----------------------------------------------------

    def page_requests(self, since: Mark | None = None) -> list[RequestData]:
        return [e.data for e in self.page_events(since) if e.kind == "request"]

    def page_business_requests(self, since: Mark | None = None) -> list[RequestData]:
        return [r for r in self.page_requests(since) if is_business_path(r.method, r.path)]

    def page_model_requests(self, since: Mark | None = None) -> list[RequestData]:
        return [r for r in self.page_requests(since) if is_model_path(r.path)]

    def browser_business_requests(self, since: Mark | None = None) -> list[BrowserRequest]:
        return [r for r in self.browser_requests(since) if r.is_business]

    def server_business_records(self, since: Mark | None = None) -> list[ServerRecord]:
        return [r for r in self.server_records(since, kind="api")
                if is_business_path(r.method, r.path)]

    def shown(self, testid: str, since: Mark | None = None, **attributes: str) -> list[AppearData]:
        """Each time an element with this data-testid appeared, e.g. shown("pling-approval",
        action="archive_workspace") (keyword `x_y` matches attribute `data-x-y`)."""
        wanted = {"data-" + key.replace("_", "-"): value for key, value in attributes.items()}
        return [
            e.data for e in self.page_events(since)
            if e.kind == "appear" and e.data.testid == testid
            and all(e.data.attributes.get(k) == v for k, v in wanted.items())
        ]

    def writes(self, since: Mark | None = None) -> list[WriteData]:
        return [e.data for e in self.page_events(since) if e.kind == "write"]

    def page_states(self, since: Mark | None = None) -> list[BusinessView]:
        return [e.data for e in self.page_events(since) if isinstance(e, StateEvent)]

    def conversation(self) -> Conversation:
        """What the model was asked and answered, from the server's log (see
        `harness.server.model.conversation`: one meaning of a request index)."""
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
        followers = self._server_records_by_page_request()
        placed = {record.seq for records in followers.values() for record in records}
        lines: list[tuple[Source, str]] = []
        for item in self._arrivals:
            if isinstance(item, ServerRecord):
                if item.seq not in placed:
                    lines.append(("server", describe_server(item)))
            elif isinstance(item, _BrowserEvent):
                if item.request.path.startswith("/api/"):
                    lines.append(("browser", describe_browser(item.request, item.kind)))
            else:
                origin: Source = "runtime" if item.kind == "runtime" else "page"
                lines.append((origin, describe_page_event(item)))
                for record in followers.get((item.doc, item.seq), ()):
                    lines.append(("server", describe_server(record)))
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
        header = ("timeline (page = in-page probe, browser = network as Playwright saw it, "
                  "server = fixture server log, runtime = the runtime's own report):")
        if not entries:
            return header + "\n  (nothing recorded)"
        return "\n".join([header, *(entry.render() for entry in entries)])

    def _server_records_by_page_request(self) -> dict[tuple[str, int], list[ServerRecord]]:
        """Match the k-th page request to (method, path) with the k-th server record of it."""
        records = [item for item in self._arrivals if isinstance(item, ServerRecord)]
        queues: dict[tuple[str, str], deque[list[ServerRecord]]] = defaultdict(deque)
        for index, record in enumerate(records):
            if record.kind in ("api", "model.request"):
                group = [record]
                if record.kind == "model.request":
                    reply = next((r for r in records[index + 1:]
                                  if r.kind in ("model.reply", "model.error")), None)
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


def _after(exchange: ModelExchange, since: Mark | None) -> bool:
    return since is None or (exchange.seq is not None and exchange.seq > since.server_seq)

"""What the timeline records, apart from the timeline that collects it: one entry, one
request the browser sent, one call the page's API answered, and a mark (a point in the
timeline)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pling_harness.evidence.probe import BusinessView
from pling_harness.project.business_state import BusinessState

# `model`: the browser's model route, standing in for the gateway of a page served elsewhere.
Source = Literal["page", "browser", "server", "model", "runtime"]


@dataclass(frozen=True, kw_only=True)
class TimelineEntry:
    """One line of the timeline: which source saw it, when (seq, from 1), and what."""

    seq: int
    source: Source
    description: str

    def render(self) -> str:
        return f"{self.seq:4d}  {self.source:<8} {self.description}"


@dataclass(kw_only=True)
class BrowserRequest:
    """A request as Playwright saw the browser send it; status filled in on the response."""

    index: int
    method: str
    path: str
    body: str | None
    status: int | None = None
    failure: str | None = None


@dataclass(frozen=True, kw_only=True)
class ApiCall:
    """A request to the page's API that was answered: as the fixture server logged it, or,
    for a page served elsewhere, as the browser sent it and received the answer."""

    method: str
    path: str
    """Without the query string."""
    status: int | None
    body: Any = None
    """The request body as JSON (None when absent or not JSON)."""

    def __str__(self) -> str:
        return f"{self.method} {self.path}"


@dataclass(frozen=True, kw_only=True)
class Mark:
    """A point in the timeline; queries take `since=mark` to look only at what came after."""

    page: int
    server_seq: int
    browser: int
    server_state: BusinessState | None
    page_state: BusinessView | None

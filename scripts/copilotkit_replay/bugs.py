"""CopilotKit's fixed bugs that break a promise the harness proves but that r-15's checks do
not catch through the copilotkit driver yet, each with a reproduction against the r-15
CopilotKit page in Chromium (plain Playwright): `reproduce(page, served)` returns what it saw
when the bug shows, or None when the page kept the promise. The bugs the checks catch are
data (tutorials/r-15-…/mutation/releases-copilotkit.json, `pling-tutorial releases r-15
--bugs`).

- CK-2310 (a v1 handler runs again): needs the page on CopilotKit's v1 API (replay/v1/),
  which the copilotkit driver does not read (v1's sidebar, no human-in-the-loop cards)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from pages import ServedPage
from playwright.sync_api import Page

from pling_harness.server.model.wire import ToolMessage

# How long each reproduction waits for what it is waiting for (a card, a model request).
WAIT_MS = 30_000
POLL_MS = 100


@dataclass(frozen=True)
class Bug:
    key: str
    title: str
    promise: str
    guarantee: str
    links: str
    last_buggy: str
    first_fixed: str
    reproduce: Callable[[Page, ServedPage], str | None]
    # Laid over the page for both releases (pages.py): "v1" for bugs of the v1 chat loop.
    variant: str | None = None


def ask(page: Page, text: str) -> None:
    box = page.get_by_placeholder("Ask the assistant…")
    box.fill(text)
    box.press("Enter")


def first_of(page: Page, conditions: Mapping[str, Callable[[], bool]]) -> str:
    """The name of the first condition that holds, polled; fails after WAIT_MS. The page's
    and the fixture server's model's state are both read, so this polls rather than awaits."""
    for _ in range(WAIT_MS // POLL_MS):
        for name, holds in conditions.items():
            if holds():
                return name
        page.wait_for_timeout(POLL_MS)
    raise AssertionError(f"none of {', '.join(conditions)} within {WAIT_MS // 1000} s")


def model_asked(served: ServedPage, times: int) -> Callable[[], bool]:
    return lambda: len(served.model.requests) >= times


def handler_runs_again(page: Page, served: ServedPage) -> str | None:
    """The model calls the read action, then, after its result, calls it again: the handler
    must run once per call (two reads of the workspace), never again for an answered call."""
    reads: list[str] = []
    page.on("request", lambda request: reads.append(request.url)
            if request.method == "GET" and request.url.endswith("/api/workspace") else None)
    read = {"type": "function", "function": {"name": "get_workspace", "arguments": "{}"}}
    served.model.script({"content": None, "tool_calls": [{"id": "call_first", **read}]},
                        {"content": None, "tool_calls": [{"id": "call_second", **read}]})
    ask(page, "what is the workspace status? check it twice")
    # Every handler run of the two calls comes before the model's third request.
    first_of(page, {"the model was asked after both calls": model_asked(served, 3)})
    if len(reads) == 2:
        return None
    results = [message.tool_call_id for message in served.model.requests[2].messages
               if isinstance(message, ToolMessage)]
    return (f"two calls of get_workspace ran its handler {len(reads)} times; the model's "
            f"third request carries results for {results}")


BUGS = (
    Bug(key="CK-2310", title="useCopilotAction's handler runs again for an answered call",
        promise="the handler runs once per call",
        guarantee="calls-one-after-another",
        links="issue CopilotKit/CopilotKit#2310 (PR #2513, reverted by #2538)",
        last_buggy="1.10.6", first_fixed="1.54.0", reproduce=handler_runs_again,
        variant="v1"),
)

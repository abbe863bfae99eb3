"""CopilotKit's fixed bugs that break a promise the harness proves, each with a reproduction
against the r-15 CopilotKit page in Chromium (plain Playwright): `reproduce(page, served)`
returns what it saw when the bug shows, or None when the page kept the promise."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pages import ServedPage
from playwright.sync_api import Page, expect

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


def allow_button(page: Page, tool: str) -> Any:
    card = page.locator(f"[data-testid=approval][data-tool={tool}]")
    return card.get_by_test_id("approval-allow")


def strictmode_loses_hitl_render(page: Page, served: ServedPage) -> str | None:
    """Ask to rename (a useHumanInTheLoop hook): once the call reached the page, its card must
    appear. The bug drops the hook's render under StrictMode: the run waits on a card nobody
    sees. What ends the wait on the buggy release is the time limit, so it is kept short of
    the check's own (a card normally follows its call within a second)."""
    ask(page, "rename the workspace to Acme")
    first_of(page, {"the model called save_workspace_name": model_asked(served, 1)})
    expect(page.get_by_test_id("copilot-assistant-message")).to_have_count(1)
    try:
        allow_button(page, "save_workspace_name").wait_for(timeout=WAIT_MS // 2)
    except Exception:
        return (f"save_workspace_name reached the page and no approval card appeared in "
                f"{WAIT_MS // 2000} s; the agent waits on it")
    return None


def provider_hitl_does_not_wait(page: Page, served: ServedPage) -> str | None:
    """Ask to archive (declared with the provider's `humanInTheLoop` prop): the agent must
    wait for Allow or Deny. The bug answers the model at once, with no card to decide on."""
    ask(page, "archive the workspace")
    seen = first_of(page, {
        "card": lambda: allow_button(page, "archive_workspace").is_visible(),
        "answered": model_asked(served, 2),
    })
    if seen == "card":
        return None
    answer = served.model.requests[1].messages[-1]
    return (f"archive_workspace was answered before any decision: the model received "
            f"{getattr(answer, 'content', None)!r}, and no Allow button was shown")


def parallel_results_reversed(page: Page, served: ServedPage) -> str | None:
    """One model reply with two calls (read, then rename): after Allow, the model must get
    the two results in the order of its calls."""
    served.model.script({"content": None, "tool_calls": [
        {"id": "call_read", "type": "function",
         "function": {"name": "get_workspace", "arguments": "{}"}},
        {"id": "call_rename", "type": "function",
         "function": {"name": "save_workspace_name", "arguments": '{"name": "Acme"}'}},
    ]})
    ask(page, "what is the status? then rename the workspace to Acme")
    allow_button(page, "save_workspace_name").click(timeout=WAIT_MS)
    first_of(page, {"follow-up": model_asked(served, 2)})
    results = [message.tool_call_id for message in served.model.requests[1].messages
               if isinstance(message, ToolMessage)]
    if results == ["call_read", "call_rename"]:
        return None
    return f"the model's calls were [call_read, call_rename]; its results came as {results}"


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
    Bug(key="CK-3416",
        title="useHumanInTheLoop/useFrontendTool renders lost under React StrictMode",
        promise="the approval card is shown for every call (registration under StrictMode)",
        guarantee="approval-before-side-effects",
        links="PR CopilotKit/CopilotKit#3416",
        last_buggy="1.53.0", first_fixed="1.54.0", reproduce=strictmode_loses_hitl_render),
    Bug(key="CK-4953", title="a humanInTheLoop tool declared on the provider never waits",
        promise="the agent waits for the user's decision; nothing is reported before it",
        guarantee="approval-before-side-effects",
        links="issue CopilotKit/CopilotKit#4953, PR #6851",
        last_buggy="1.70.2", first_fixed="1.70.3", reproduce=provider_hitl_does_not_wait),
    Bug(key="CK-5374", title="results of parallel frontend tool calls reach the model reversed",
        promise="calls of one reply are answered one after another, in order",
        guarantee="calls-one-after-another",
        links="PR CopilotKit/CopilotKit#5374 (closes #2809)",
        last_buggy="1.63.2", first_fixed="1.64.1", reproduce=parallel_results_reversed),
    Bug(key="CK-2310", title="useCopilotAction's handler runs again for an answered call",
        promise="the handler runs once per call",
        guarantee="calls-one-after-another",
        links="issue CopilotKit/CopilotKit#2310 (PR #2513, reverted by #2538)",
        last_buggy="1.10.6", first_fixed="1.54.0", reproduce=handler_runs_again,
        variant="v1"),
)

"""Tools registered in the browser by components (issue 28 §2): a page whose framework
registers its actions from React components (CopilotKit's `useHumanInTheLoop`, the React
page's `usePlingTool`) must keep each registered once as served (React StrictMode in
development), after the component re-renders and after it is unmounted and mounted again.

The checks of each promise sit in their guarantee's file (test_projection.py,
test_confirmation.py, test_agent_loop.py) and run in each of these lifecycles. The re-render
and the remount are the page's own hooks, named by the dock driver (`page_hooks`): the
harness triggers them and proves the rest from the model's requests, the DOM and the
browser's requests, never from the page's word. Without hooks those cases are n/a; "as
served" runs on every page.
"""

from __future__ import annotations

from typing import Literal

from pling_harness import Dock, Mark, Timeline

Lifecycle = Literal["as-served", "rerender", "remount"]
# Every action r-15's page registers: each offered exactly once, whatever the lifecycle.
R15_ACTIONS = ["get_workspace", "save_workspace_name", "archive_workspace", "reset_workspace",
               "publish_changes"]
SAVE, ARCHIVE = "save_workspace_name", "archive_workspace"
SAVE_ENDPOINT = "/api/workspace/name"
LIFECYCLES: list[Lifecycle] = ["as-served", "rerender", "remount"]


def after(dock: Dock, lifecycle: Lifecycle) -> None:
    """Put the page's tool registrations through `lifecycle` (n/a without page hooks)."""
    if lifecycle != "as-served":
        dock.run_page_hook(lifecycle)


def ask_after(dock: Dock, timeline: Timeline, lifecycle: Lifecycle, text: str) -> Mark:
    """Put the registrations through `lifecycle`, then ask `text`; where the asking began."""
    after(dock, lifecycle)
    start = timeline.mark()
    dock.ask(text)
    return start


def calls_to(timeline: Timeline, endpoint: str, since: Mark) -> int:
    """How many answered requests to `endpoint` (e.g. "POST /api/workspace/name")."""
    return sum(1 for call in timeline.api_calls(since)
               if f"{call.method} {call.path}" == endpoint)

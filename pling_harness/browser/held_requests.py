"""HeldRequests: a page's requests to one path held at the network (Playwright routing) until
the check answers them, to see what the page does while its business request is in flight."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from playwright.sync_api import Page, Route


class HeldRequests:
    """Requests to one path, held at the network by Playwright routing until the test answers
    them: `release()` lets the next one through to the server, `fail()` answers it instead."""

    def __init__(self, page: Page, path: str) -> None:
        self.page = page
        self.pattern = f"**{path}"
        self.routes: list[Route] = []
        page.route(self.pattern, lambda route: self.routes.append(route))

    def start(self, action: Callable[[], Any]) -> None:
        """Do `action` and return once the request it makes is held."""
        with self.page.expect_request(self.pattern):
            action()
        self.page.evaluate("0")  # one round trip, so the route handler has run
        assert self.routes, f"a request to {self.pattern} left the page but was not held"

    def release(self) -> None:
        self.routes.pop(0).continue_()

    def fail(self, status: int, body: dict[str, Any]) -> None:
        self.routes.pop(0).fulfill(status=status, json=body)

    def stop_holding(self) -> None:
        """Let later requests to the path through; those held so far stay held."""
        self.page.unroute(self.pattern)

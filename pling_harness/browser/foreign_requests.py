"""ForeignRequests: every request a page sends to an origin other than its own, recorded at
the network (Playwright routing), so a check can tell what reached another site. Requests to
the hosts a check planted (under `planted_domain`) are answered here with a 1×1 image and never
leave the machine; any other origin's request goes on as it would have."""

from __future__ import annotations

import base64
from dataclasses import dataclass
from urllib.parse import urlsplit

from playwright.sync_api import Page, Route

# A transparent 1×1 GIF: what a planted host answers, whatever was asked.
PIXEL = base64.b64decode("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7")


@dataclass(frozen=True)
class ForeignRequest:
    url: str
    resource_type: str  # Playwright's: image, stylesheet, font, document, fetch, …

    @property
    def host(self) -> str:
        return urlsplit(self.url).hostname or ""


def origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


class ForeignRequests:
    """Install on `page` before the text that might fetch is shown; `planted()` lists what
    reached the planted hosts since."""

    def __init__(self, page: Page, *, page_origin: str, planted_domain: str) -> None:
        self.page = page
        self.page_origin = page_origin.rstrip("/")
        self.planted_domain = planted_domain
        self.seen: list[ForeignRequest] = []
        page.route(self._foreign, self._record)

    def _foreign(self, url: str) -> bool:
        return urlsplit(url).scheme in ("http", "https") and origin_of(url) != self.page_origin

    def is_planted(self, host: str) -> bool:
        return host == self.planted_domain or host.endswith("." + self.planted_domain)

    def _record(self, route: Route) -> None:
        request = route.request
        self.seen.append(ForeignRequest(request.url, request.resource_type))
        if self.is_planted(urlsplit(request.url).hostname or ""):
            route.fulfill(status=200, body=PIXEL, content_type="image/gif")
        else:
            route.fallback()

    def planted(self) -> list[ForeignRequest]:
        """What the page asked of the planted hosts, in order (one round trip first, so every
        route handler the browser has called has run)."""
        self.page.evaluate("0")
        return [r for r in self.seen if self.is_planted(r.host)]

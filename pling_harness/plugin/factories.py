"""The call signatures of the plugin's factory fixtures, for a check's annotations."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from playwright.sync_api import Page

from pling_harness.browser.dock import Dock
from pling_harness.evidence.timeline import Timeline
from pling_harness.project.business_state import BusinessState
from pling_harness.project.contract import JsonScalar
from pling_harness.server.runner import TutorialServer


class OpenTutorialPage(Protocol):
    """`open_tutorial_page(state=...)`: the tutorial page, opened with the server's business
    state set to `state` (a state, or the fields to change from the state it has)."""

    def __call__(self, *, state: BusinessState | Mapping[str, JsonScalar] | None = None
                 ) -> Page: ...


class StartTutorialServer(Protocol):
    """`start_tutorial_server(environ=...)`: a started server whose provider `environ` picks."""

    def __call__(self, *, environ: Mapping[str, str] | None = None) -> TutorialServer: ...


@dataclass(frozen=True)
class NextTest:
    """What the next test gets: its own fixture server, and the page opened on the tutorial
    for it (as `tutorial_page` opens it), with its dock and timeline."""

    server: TutorialServer
    page: Page
    dock: Dock
    timeline: Timeline


class StartNextTest(Protocol):
    """`start_next_test()`: this test ended as the plugin ends one, the next one started."""

    def __call__(self) -> NextTest: ...

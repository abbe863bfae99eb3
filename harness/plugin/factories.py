"""The call signatures of the plugin's factory fixtures, for a check's annotations."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from playwright.sync_api import Page

from harness.server.runner import TutorialServer
from harness.server.state import WorkspaceSnapshot


class OpenTutorialPage(Protocol):
    """`open_tutorial_page(workspace=...)`: the tutorial page, opened on that workspace."""

    def __call__(self, *, workspace: WorkspaceSnapshot | None = None) -> Page: ...


class StartTutorialServer(Protocol):
    """`start_tutorial_server(environ=...)`: a started server whose provider `environ` picks."""

    def __call__(self, *, environ: Mapping[str, str] | None = None) -> TutorialServer: ...

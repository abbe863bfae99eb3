"""Every r-15 action with a `run` (save, archive, reset) reports success to the model only
after its own business request answered: the request is held at the network, and until it is
released the model hears nothing; a held request answered with a failure is `RUN_FAILED`,
never success. (The save alone was held before; a page whose archive or reset `run` did not
wait for its fetch passed every check.)"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from playwright.sync_api import Page, Route, expect

from harness import (
    Dock,
    ModelHandle,
    OpenTutorialPage,
    Say,
    Timeline,
    TutorialServer,
    WorkspaceSnapshot,
    calling,
    guarantees,
    tool_call,
)

GUARANTEE = "success-after-business-answer"
# A workspace each action changes, so "the server did it" shows in its state.
CHANGED = WorkspaceSnapshot(name="Globex", archived=True, published=False)
STARTING = WorkspaceSnapshot(name="Globex", archived=False, published=False)


@dataclass(frozen=True)
class RunAction:
    """An r-15 action with a `run`, the business request it makes and what it leaves."""

    action: str
    arguments: dict[str, Any]
    path: str
    starts_from: WorkspaceSnapshot
    leaves: WorkspaceSnapshot

    @property
    def call_id(self) -> str:
        return f"call_{self.action}"


RUN_ACTIONS = {
    "save": RunAction("save_workspace_name", {"name": "Acme"}, "/api/workspace/name",
                      STARTING, STARTING.model_copy(update={"name": "Acme"})),
    "archive": RunAction("archive_workspace", {}, "/api/workspace/archive",
                         STARTING, STARTING.model_copy(update={"archived": True})),
    "reset": RunAction("reset_workspace", {}, "/api/workspace/reset",
                       CHANGED, WorkspaceSnapshot(name="Northwind", archived=False,
                                                  published=False)),
}


class Held:
    """Requests to one path, held at the network until the test lets one go or answers it."""

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


def card_for(run: RunAction, open_tutorial_page: OpenTutorialPage, dock: Dock,
             model: ModelHandle, say: Say) -> Held:
    """The page on the action's starting workspace, its card on screen for `run.call_id`,
    and its business request to be held once it leaves."""
    page = open_tutorial_page(workspace=run.starts_from)
    model.script(calling(tool_call(run.call_id, run.action, json.dumps(run.arguments))))
    held = Held(page, run.path)
    dock.ask(say("status"))
    expect(dock.approval).to_have_attribute("data-action", run.action)
    return held


@pytest.mark.guarantee(GUARANTEE)
@pytest.mark.parametrize("name", list(RUN_ACTIONS))
def test_success_reaches_the_model_only_after_the_actions_own_request_answered(
    open_tutorial_page: OpenTutorialPage, dock: Dock, timeline: Timeline, model: ModelHandle,
    tutorial_server: TutorialServer, say: Say, name: str,
) -> None:
    run = RUN_ACTIONS[name]
    held = card_for(run, open_tutorial_page, dock, model, say)
    approved = timeline.mark()

    held.start(dock.approve_button.click)

    guarantees.no_model_request(timeline, since=approved,
                                why=f"the {run.path} request is still unanswered",
                                guarantee=GUARANTEE)
    expect(dock.busy).to_have_count(1)  # the turn is still running
    assert tutorial_server.state.snapshot() == run.starts_from
    held.routes.pop(0).continue_()
    dock.wait_until_settled()
    guarantees.success_after_business_answer(timeline, call_id=run.call_id, path=run.path,
                                             since=approved)
    assert tutorial_server.state.snapshot() == run.leaves


@pytest.mark.guarantee(GUARANTEE)
@pytest.mark.guarantee("run-failure-reported")
@pytest.mark.parametrize("name", list(RUN_ACTIONS))
def test_a_held_request_that_fails_is_run_failed_never_success(
    open_tutorial_page: OpenTutorialPage, dock: Dock, timeline: Timeline, model: ModelHandle,
    tutorial_server: TutorialServer, say: Say, name: str,
) -> None:
    run = RUN_ACTIONS[name]
    held = card_for(run, open_tutorial_page, dock, model, say)
    approved = timeline.mark()

    held.start(dock.approve_button.click)

    guarantees.no_model_request(timeline, since=approved,
                                why=f"the {run.path} request is still unanswered",
                                guarantee=GUARANTEE)
    held.routes.pop(0).fulfill(status=503, json={"ok": False, "code": "UNAVAILABLE",
                                                 "message": "try again later"})
    dock.wait_until_settled()
    assert [r.code for r in timeline.tool_results(approved)
            if r.call_id == run.call_id] == ["RUN_FAILED"]
    failed = dock.messages("notice").and_(dock.page.locator("[data-code='RUN_FAILED']"))
    expect(failed).to_have_count(1)
    assert tutorial_server.state.snapshot() == run.starts_from

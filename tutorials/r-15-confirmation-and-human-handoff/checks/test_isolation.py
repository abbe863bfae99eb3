"""Nothing of one test reaches the next: not a session grant, not the conversation, not an open
handoff, not what the page stored, not what the test added to the page through Playwright, and
not a request of the ended test that reaches the server late.

A worker's checks share one warm page and one server origin (pling_harness/browser/warm.py,
pling_harness/server/host.py), so this is proven, not assumed: the runtime keeps a dock session in
its document only (a new document on the same storage starts without one), and the line the
plugin draws between two tests leaves the next test's page and server as a fresh browser
context and a fresh server would.
"""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import Page, expect
from workspace_state import INITIAL_WORKSPACE

from pling_harness import (
    Dock,
    ModelHandle,
    Say,
    StartNextTest,
    TutorialServer,
    reload_page,
)

SAVE = "save_workspace_name"
# What a page may keep in the browser; none of it may be there for the next test.
STORE_EVERYWHERE = """async () => {
    sessionStorage.setItem("pling-ended-test", "grant");
    localStorage.setItem("pling-ended-test", "conversation");
    document.cookie = "pling-ended-test=handoff; path=/";
    window.name = "pling-ended-test";
    await new Promise((resolve, reject) => {
        const opening = indexedDB.open("pling-ended-test");
        opening.onsuccess = () => { opening.result.close(); resolve(undefined); };
        opening.onerror = () => reject(opening.error);
    });
    await (await caches.open("pling-ended-test")).put("/pling-ended-test", new Response("x"));
}"""
READ_STORAGE = """async () => ({
    sessionStorage: sessionStorage.length,
    localStorage: localStorage.length,
    cookie: document.cookie,
    windowName: window.name,
    indexedDB: (await indexedDB.databases()).map((database) => database.name),
    caches: await caches.keys(),
    initScript: window.plingEndedTestScript ?? null,
})"""
EMPTY_STORAGE = {"sessionStorage": 0, "localStorage": 0, "cookie": "", "windowName": "",
                 "indexedDB": [], "caches": [], "initScript": None}


def user_messages_sent(model: ModelHandle) -> list[str]:
    """The user messages the newest model request carried: the conversation the model sees."""
    return [message.content for message in model.requests[-1].messages
            if message.role == "user"]


def expect_no_dock_session(dock: Dock) -> None:
    """No conversation, no approval card, no handoff panel and no highlight on screen."""
    expect(dock.messages()).to_have_count(0)
    expect(dock.approval).to_have_count(0)
    expect(dock.handoff).to_have_count(0)
    expect(dock.highlights).to_have_count(0)


def expect_asked_again_with_nothing_before(dock: Dock, model: ModelHandle, request: str) -> None:
    """`request` shows the save card again (no grant) and reaches the model alone (no earlier
    conversation); the card is denied, so nothing changes."""
    dock.ask(request)
    expect(dock.approval_for(SAVE)).to_be_visible()
    assert user_messages_sent(model) == [request], (
        "the model received an earlier conversation with the new request: "
        f"{user_messages_sent(model)}")
    dock.deny()


@pytest.mark.guarantee("tests-isolated")
def test_a_new_document_starts_without_the_last_dock_session(
    tutorial_page: Page, dock: Dock, model: ModelHandle, say: Say
) -> None:
    dock.ask(say("save"))
    dock.approve_always()
    dock.ask(say("publish"))
    expect(dock.handoff).to_be_visible()

    reload_page(tutorial_page)

    expect_no_dock_session(dock)
    expect_asked_again_with_nothing_before(dock, model, say("save"))


@pytest.mark.guarantee("tests-isolated")
def test_nothing_of_a_test_reaches_the_next_one(
    tutorial_page: Page, dock: Dock, say: Say, tutorial_server: TutorialServer,
    start_next_test: StartNextTest,
) -> None:
    # The ended test leaves everything it can behind: a grant, a conversation with a handoff
    # open, storage of every kind, an init script and a route of its own.
    dock.ask(say("save"))
    dock.approve_always()
    dock.ask(say("publish"))
    expect(dock.handoff).to_be_visible()
    tutorial_page.evaluate(STORE_EVERYWHERE)
    tutorial_page.add_init_script("window.plingEndedTestScript = 'still here'")
    tutorial_page.route("**/api/model", lambda route: route.abort())
    ended_seat = tutorial_server.browser_headers
    renamed = tutorial_server.state.snapshot()

    next_one = start_next_test()

    assert next_one.server.state.snapshot() == INITIAL_WORKSPACE
    expect_no_dock_session(next_one.dock)
    assert next_one.page.evaluate(READ_STORAGE) == EMPTY_STORAGE
    # The ended test's route is gone (the request reaches the model), its grant too.
    scripted = next_one.server.model
    assert scripted is not None, "the next test's server has no scripted model"
    expect_asked_again_with_nothing_before(next_one.dock, ModelHandle(scripted), say("save"))
    # A request of the ended test that reaches the server only now changes nothing anywhere.
    seen = len(next_one.server.log.records())
    late = httpx.post(f"{next_one.server.url}/api/workspace/archive", content="{}",
                      headers={**ended_seat, "Origin": next_one.server.url,
                               "Content-Type": "application/json"})
    assert late.status_code == 410, f"a request of the ended test was answered {late.status_code}"
    assert len(next_one.server.log.records()) == seen
    assert next_one.server.state.snapshot() == INITIAL_WORKSPACE
    assert tutorial_server.state.snapshot() == renamed

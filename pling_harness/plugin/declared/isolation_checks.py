"""Generated checks, once per locale for the table, that nothing of one test reaches the next
(guarantee `tests-isolated`): not a session grant, not the conversation, not an open handoff,
not what the page stored, not what the test added to the page through Playwright, and not a
request of the ended test that reaches the server late.

A worker's checks share one warm page and one server origin (pling_harness/browser/warm.py,
pling_harness/server/host.py), so this is proven, not assumed, for every tutorial: the test
leaves behind what its table lets it (the grant of an `ask` action, else the card of an
asking one; a handoff left open), and a new document, then the next test, starts without it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx
from playwright.sync_api import expect

from pling_harness.browser.dock import Dock
from pling_harness.browser.pages import reload_page
from pling_harness.plugin.declared.context import DeclaredRun
from pling_harness.plugin.declared.rows import changes_state
from pling_harness.plugin.factories import StartNextTest
from pling_harness.project.action_table import ActionRow
from pling_harness.project.dock_driver import Absent
from pling_harness.server.model.handle import ModelHandle
from pling_harness.server.runner import TutorialServer

# The status a request naming a seat no longer there gets (pling_harness/server/host.py).
GONE = 410
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


def _asking(run: DeclaredRun) -> tuple[str, ActionRow] | None:
    """The action whose card the test leaves answered: an `ask` one (its "always allow", where
    the assistant offers one, is a grant the next document must not have), else any asking
    one."""
    rows = [(a, r) for a, r in run.table.actions.items() if r.asks]
    return next(((a, r) for a, r in rows if r.policy == "ask"), rows[0] if rows else None)


def _handoff(run: DeclaredRun) -> ActionRow | None:
    return next((r for r in run.table.actions.values() if r.policy == "handoff"), None)


def _leave_a_session(run: DeclaredRun) -> None:
    """Open the page and leave everything a dock session holds: a grant (or an answered
    card), a conversation, a handoff open."""
    asking = _asking(run)
    first = asking[1] if asking else next(iter(run.table.actions.values()))
    run.page = run.open_tutorial_page(state=dict(first.starts_from) or None)
    run.dock.ask(run.say(first.asked_with))
    # "Always allow" where the assistant offers it (its grant must not reach the next
    # document); an assistant without one has no grant to leave: the card is denied, and
    # the rest of the session (conversation, handoff) is left all the same.
    offers_always = not isinstance(run.dock.spec.approval.always, Absent)
    if asking is not None and first.policy == "ask" and offers_always:
        run.dock.approve_always()
    elif asking is not None:
        run.dock.deny()
    handoff = _handoff(run)
    if handoff is not None:
        run.dock.ask(run.say(handoff.asked_with))
        expect(run.dock.handoff).to_be_visible()


def _expect_no_dock_session(dock: Dock) -> None:
    """No conversation, no approval card, no handoff panel and no highlight on screen."""
    expect(dock.messages()).to_have_count(0)
    expect(dock.approval).to_have_count(0)
    expect(dock.handoff).to_have_count(0)
    expect(dock.highlights).to_have_count(0)


def _expect_asked_again_with_nothing_before(run: DeclaredRun, dock: Dock,
                                            model: ModelHandle) -> None:
    """The asking action's request shows its card again (no grant) and reaches the model
    alone (no earlier conversation); the card is denied, so nothing changes."""
    asking = _asking(run)
    request = run.say((asking[1] if asking else next(iter(run.table.actions.values())))
                      .asked_with)
    dock.ask(request)
    if asking is not None:
        expect(dock.approval_for(asking[0])).to_be_visible()
    sent = [m.content for m in model.requests[-1].messages if m.role == "user"]
    assert sent == [request], f"the model received an earlier conversation with the new " \
                              f"request: {sent}"
    if asking is not None:
        dock.deny()


def new_document_starts_clean(run: DeclaredRun) -> None:
    """A reload (a new document on the same storage) starts without the last dock session."""
    _leave_a_session(run)
    assert run.page is not None
    reload_page(run.page)
    _expect_no_dock_session(run.dock)
    _expect_asked_again_with_nothing_before(run, run.dock, run.model)


def _late_request(run: DeclaredRun) -> tuple[str, str, Mapping[str, Any]] | None:
    """A state-changing request of the table (method, path, body), if it declares one."""
    for row in run.table.actions.values():
        if changes_state(row):
            request = row.calls if row.calls is not None and row.calls.method != "GET" \
                else row.handoff.done.request if row.handoff else None
            if request is not None:
                return request.method, request.path, request.body or {}
    return None


def nothing_reaches_the_next_test(run: DeclaredRun, start_next_test: StartNextTest) -> None:
    """After the line the plugin draws between two tests, the next one's page, server and
    model hold nothing of the ended one, and its late request changes nothing."""
    _leave_a_session(run)
    assert run.page is not None
    run.page.evaluate(STORE_EVERYWHERE)
    run.page.add_init_script("window.plingEndedTestScript = 'still here'")
    run.page.route(f"**{run.served.tutorial.api.model}", lambda route: route.abort())
    ended = run.served
    assert isinstance(ended, TutorialServer), "start_next_test is n/a with --base-url"
    ended_seat = ended.browser_headers
    left = ended.state.snapshot()

    next_one = start_next_test()

    initial = run.served.tutorial.api.initial_state
    assert next_one.server.state.snapshot().fields() == initial, (
        f"the next test's server starts from {next_one.server.state.snapshot().fields()}, "
        f"not the initial state {initial}")
    _expect_no_dock_session(next_one.dock)
    assert next_one.page.evaluate(READ_STORAGE) == EMPTY_STORAGE
    # The ended test's route is gone (the request reaches the model), its grant too.
    scripted = next_one.server.model
    assert scripted is not None, "the next test's server has no scripted model"
    _expect_asked_again_with_nothing_before(run, next_one.dock, ModelHandle(scripted))
    # A request of the ended test that reaches the server only now changes nothing anywhere.
    late = _late_request(run)
    if late is None:
        return
    method, path, body = late
    seen = len(next_one.server.log.records())
    answer = httpx.request(method, f"{next_one.server.url}{path}", json=dict(body),
                           headers={**ended_seat, "Origin": next_one.server.url})
    assert answer.status_code == GONE, f"a request of the ended test ({method} {path}) was " \
                                       f"answered {answer.status_code}, not {GONE}"
    assert len(next_one.server.log.records()) == seen
    assert next_one.server.state.snapshot().fields() == initial
    assert ended.state.snapshot() == left

"""The timeline's two ways of hearing the in-page probe: the binding, a task's entries at a
time, and `sync`, which reads the document's own log from where its last read ended. Each
entry counts once, and nothing page script sends through the binding can hide one."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

from pling_harness.browser.dock import Dock
from pling_harness.evidence import guarantees
from pling_harness.evidence.records import Mark
from pling_harness.evidence.timeline import Timeline

pytestmark = pytest.mark.parametrize("locale", ["en"])

# Page script that takes the binding away: from now on only `sync` hears the probe.
CUT_THE_BINDING = "() => { delete window.__plingProbeReport; }"
# Page script that sends the binding an entry numbered far ahead of the document's own.
FORGE_AHEAD = """() => window.__plingProbeReport([{
  doc: window.__plingProbe.docId, seq: 100000, kind: "click",
  data: {control: "forged", decision: null, target: null, trusted: false}}])"""


def approvals_shown(timeline: Timeline, since: Mark) -> list[str | None]:
    return [card.action for card in timeline.shown("approval", since)]


def keys(timeline: Timeline) -> list[tuple[str, int]]:
    return [(event.doc, event.seq) for event in timeline.page_events()]


def test_sync_hears_what_the_binding_never_delivered(
    tutorial_page: Page, dock: Dock, timeline: Timeline
) -> None:
    before = timeline.mark()
    tutorial_page.evaluate(CUT_THE_BINDING)
    dock.ask("rename the workspace to Acme")
    assert approvals_shown(timeline, before) == ["save_workspace_name"]


def test_each_entry_counts_once_however_often_it_is_read(
    tutorial_page: Page, dock: Dock, timeline: Timeline
) -> None:
    dock.ask("rename the workspace to Acme")
    first = keys(timeline)
    dock.approve()
    again = keys(timeline)
    assert again[:len(first)] == first
    assert len(again) == len(set(again)) > len(first)
    tutorial_page.reload()
    after_reload = keys(timeline)
    assert after_reload[:len(again)] == again
    assert len(after_reload) == len(set(after_reload))
    assert len({doc for doc, _ in after_reload}) == 2


def test_an_entry_forged_ahead_through_the_binding_hides_no_real_one(
    tutorial_page: Page, dock: Dock, timeline: Timeline
) -> None:
    before = timeline.mark()
    tutorial_page.evaluate(FORGE_AHEAD)
    tutorial_page.evaluate(CUT_THE_BINDING)
    dock.ask("rename the workspace to Acme")
    assert approvals_shown(timeline, before) == ["save_workspace_name"]


# Page script: the dock moves into an open shadow root, as a page built from web components
# puts its assistant (Playwright's locators pierce it; `document.querySelectorAll` does not).
DOCK_INTO_SHADOW_ROOT = """() => {
  const host = document.createElement("div");
  host.attachShadow({mode: "open"});
  const dock = document.querySelector("pling-agent-dock");
  dock.before(host);
  host.shadowRoot.append(dock);
}"""


def test_the_probe_sees_a_card_shown_inside_an_open_shadow_root(
    tutorial_page: Page, dock: Dock, timeline: Timeline
) -> None:
    tutorial_page.evaluate(DOCK_INTO_SHADOW_ROOT)
    before = timeline.mark()
    dock.ask("rename the workspace to Acme")
    assert approvals_shown(timeline, before) == ["save_workspace_name"]
    dock.approve()
    guarantees.approval_before_side_effects(timeline, action="save_workspace_name",
                                            since=before)

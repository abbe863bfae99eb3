"""The guarantee assertions can fail: each is shown a page that breaks its promise."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from pling_harness.browser.dock import Dock
from pling_harness.browser.pages import CLOCK_PAUSED_AT, reload_page
from pling_harness.evidence import guarantees
from pling_harness.evidence.guarantees import GuaranteeViolation
from pling_harness.evidence.timeline import Timeline
from pling_harness.server.model.handle import ModelHandle
from pling_harness.server.runner import TutorialServer

pytestmark = pytest.mark.parametrize("locale", ["en"])

ARCHIVE_BEHIND_THE_USERS_BACK = """async () => {
  await fetch("/api/workspace/archive", {method: "POST", headers: {"Content-Type":
    "application/json"}, body: "{}"});
}"""


def test_approval_before_side_effects_fails_on_a_request_before_the_card(
    tutorial_page: Page, dock: Dock, timeline: Timeline
) -> None:
    tutorial_page.evaluate(ARCHIVE_BEHIND_THE_USERS_BACK)
    dock.ask("archive the workspace")

    with pytest.raises(GuaranteeViolation, match="sent POST /api/workspace/archive before any "
                                                 "approval for archive_workspace"):
        guarantees.approval_before_side_effects(timeline, action="archive_workspace")


def test_probe_cross_check_fails_on_a_request_that_bypasses_window_fetch(
    tutorial_page: Page, timeline: Timeline
) -> None:
    # An iframe's own fetch is not the page's window.fetch, so the probe does not see it.
    tutorial_page.evaluate("""async () => {
      const frame = document.createElement("iframe");
      document.body.append(frame);
      await frame.contentWindow.fetch("/api/workspace/archive", {method: "POST",
        headers: {"Content-Type": "application/json"}, body: "{}"});
    }""")

    with pytest.raises(GuaranteeViolation, match=r"a request bypassed window\.fetch"):
        guarantees.probe_saw_every_business_request(timeline)


def test_no_writes_into_targets_fails_when_script_fills_the_code(
    tutorial_page: Page, dock: Dock, timeline: Timeline
) -> None:
    dock.ask("publish the changes")
    tutorial_page.evaluate(
        "document.querySelector('[data-pling-target=verification_code]').value = '246810'")

    with pytest.raises(GuaranteeViolation, match="'246810' into verification_code via value"):
        guarantees.no_writes_into_targets(timeline)


def test_no_writes_into_targets_allows_user_typing_and_fill(
    tutorial_page: Page, dock: Dock, timeline: Timeline
) -> None:
    dock.ask("publish the changes")
    code = tutorial_page.get_by_test_id("verification-code")
    code.fill("135")  # Playwright's fill inserts text like typing; no value setter
    code.press_sequentially("79")
    expect(code).to_have_value("13579")

    guarantees.no_writes_into_targets(timeline)


# What React does to a controlled input on every keystroke: it writes back the value the user
# typed, and syncs the `value` attribute (defaultValue) to it.
REACT_WRITES_BACK_WHAT_WAS_TYPED = """() => {
  const field = document.querySelector('[data-pling-target=verification_code]');
  field.addEventListener('input', () => {
    field.value = field.value;
    field.defaultValue = field.value;
    field.setAttribute('value', field.value);
  });
}"""


def test_no_writes_into_targets_allows_react_writing_back_what_the_user_typed(
    tutorial_page: Page, dock: Dock, timeline: Timeline
) -> None:
    # A React page with a controlled code field was reported as writing into the target
    # (via defaultValue) though nothing in the field changed: the user had typed it.
    tutorial_page.evaluate(REACT_WRITES_BACK_WHAT_WAS_TYPED)
    dock.ask("publish the changes")
    code = tutorial_page.get_by_test_id("verification-code")
    code.press_sequentially("246810")
    expect(code).to_have_value("246810")

    guarantees.no_writes_into_targets(timeline)


@pytest.mark.parametrize("write", [
    "field.defaultValue = '246810'",  # an untouched field shows its default
    "field.setAttribute('value', '246810')",
])
def test_no_writes_into_targets_fails_on_a_default_that_fills_the_field(
    tutorial_page: Page, dock: Dock, timeline: Timeline, write: str
) -> None:
    dock.ask("publish the changes")
    tutorial_page.evaluate(
        f"() => {{ const field = document.querySelector('[data-pling-target=verification_code]'); "
        f"{write}; }}")

    with pytest.raises(GuaranteeViolation, match="'246810' into verification_code"):
        guarantees.no_writes_into_targets(timeline)


def test_state_unchanged_fails_when_the_server_state_changed(
    tutorial_page: Page, timeline: Timeline, tutorial_server: TutorialServer
) -> None:
    before = timeline.mark()
    now = tutorial_server.state.snapshot()
    tutorial_server.state.replace(now.model_copy(update={"archived": True}))

    with pytest.raises(GuaranteeViolation, match="server state changed"):
        guarantees.state_unchanged(timeline, since=before)


def test_ran_without_prompt_fails_when_a_card_was_shown(
    tutorial_page: Page, dock: Dock, timeline: Timeline
) -> None:
    before = timeline.mark()
    dock.ask("rename the workspace to Acme")
    dock.approve()

    with pytest.raises(GuaranteeViolation, match="expected no prompt, but 1 approval card"):
        guarantees.ran_without_prompt(timeline, action="save_workspace_name", since=before)


def test_reload_keeps_the_clock_paused(tutorial_page: Page) -> None:
    reload_page(tutorial_page)

    now_ms = tutorial_page.evaluate("Date.now()")
    assert now_ms == int(CLOCK_PAUSED_AT.timestamp() * 1000)


def test_testbed_page_opens_ready_and_proves_a_declared_action(
    testbed_page: Page, dock: Dock, timeline: Timeline, model: ModelHandle,
    tutorial_server: TutorialServer,
) -> None:
    testbed_page.evaluate("""() => window.plingTestbed.declare({
      id: "ping", desc: "Ping the server", kind: "read", confirm: true,
      params: {type: "object", properties: {}, additionalProperties: false}})""")
    model.when_user("ping", "ping", {})

    dock.ask("ping")
    guarantees.always_allow_offered(timeline, action="ping")
    dock.approve()

    guarantees.approval_before_side_effects(timeline, action="ping")
    guarantees.model_received(timeline, action="ping", code="OK")
    assert [call.action for call in tutorial_server.testbed.calls()] == ["ping"]

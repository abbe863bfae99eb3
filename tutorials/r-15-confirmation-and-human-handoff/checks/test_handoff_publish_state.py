"""The business state behind the publish handoff (SPEC §6): only the exact code publishes, at
the server and through the page (a wrong code keeps the handoff open and tells the model
nothing). (Reset bringing back every part of the initial workspace is reset_workspace's
declared effect, a check generated from actions.json.)"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from playwright.sync_api import Page, expect
from workspace_state import PUBLISH_CODE

from pling_harness import (
    Dock,
    Say,
    Timeline,
    TutorialServer,
    Words,
    guarantees,
)

if TYPE_CHECKING:  # the checks' conftest.py; pytest imports it, tests only name its types
    from conftest import Workspace

PUBLISH = "publish_changes"
# The right code's digits in their full-width forms (U+FF10 FULLWIDTH DIGIT ZERO on), as a CJK
# input method types them.
FULL_WIDTH_CODE = "".join(chr(ord(digit) - ord("0") + 0xFF10) for digit in PUBLISH_CODE)
# The right code with something around it or in another form; none of them is the code.
NEAR_MISS_CODES = {
    "leading-space": f" {PUBLISH_CODE}",
    "trailing-space": f"{PUBLISH_CODE} ",
    "leading-zero": f"0{PUBLISH_CODE}",
    "extra-digit": f"{PUBLISH_CODE}0",
    "full-width-digits": FULL_WIDTH_CODE,
    "trailing-newline": f"{PUBLISH_CODE}\n",
}
# What a user may type instead of the code: another code, or a near miss (a text field cannot
# hold a newline, the browser strips it; every other one can be typed).
TYPED_WRONG_CODES = {"another-code": "111111",
                     **{name: code for name, code in NEAR_MISS_CODES.items()
                        if name != "trailing-newline"}}
# The page's own request to the publish endpoint, as its script would send it.
POST_PUBLISH = """async (code) => {
  const response = await fetch("/api/workspace/publish", {
    method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ code }) });
  return { status: response.status, body: await response.text() };
}"""


def start_publish_handoff(dock: Dock, say: Say) -> None:
    dock.ask(say("publish"))
    expect(dock.handoff_for(PUBLISH)).to_be_visible()


# ---- only the exact code publishes -----------------------------------------------------


@pytest.mark.guarantee("handoff-wrong-code")
@pytest.mark.parametrize("near_miss", list(NEAR_MISS_CODES))
def test_server_refuses_a_code_that_only_resembles_the_right_one(
    tutorial_page: Page, tutorial_server: TutorialServer, near_miss: str,
) -> None:
    answer = tutorial_page.evaluate(POST_PUBLISH, NEAR_MISS_CODES[near_miss])

    # A refusal (any 4xx: the page contract names no business error codes), state unchanged.
    assert 400 <= answer["status"] < 500, answer
    shown = tutorial_page.request.get(f"{tutorial_server.url}/api/workspace")
    assert shown.json()["published"] is False, shown.json()
    assert not tutorial_server.state.snapshot().published


@pytest.mark.guarantee("handoff-wrong-code")
@pytest.mark.parametrize("wrong_code", list(TYPED_WRONG_CODES))
def test_typed_wrong_code_neither_publishes_nor_completes_the_handoff(
    tutorial_page: Page, dock: Dock, timeline: Timeline, workspace: Workspace, words: Words,
    say: Say, wrong_code: str,
) -> None:
    start_publish_handoff(dock, say)
    before = timeline.mark()

    workspace.publish(TYPED_WRONG_CODES[wrong_code])

    expect(workspace.message).to_have_text(words.copy["message.wrong_code"])
    sent = [(r.path, r.status) for r in timeline.business_calls(before)]
    assert sent == [("/api/workspace/publish", 400)], sent
    workspace.expect_unpublished()
    # Still open and nothing told to the model; Done now cannot pass for success either.
    expect(dock.handoff).to_be_visible()
    guarantees.no_model_request(timeline, since=before, why="the code was refused")
    dock.handoff_done()
    guarantees.model_received(timeline, action=PUBLISH, code="HANDOFF_FAILED", since=before)
    workspace.expect_unpublished()

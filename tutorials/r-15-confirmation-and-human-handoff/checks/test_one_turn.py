"""One turn at a time, and only for text: one message sent in the page's own dock starts one
turn and shows each reply once; a page calling `agent.send()` with blank text, or while a turn
runs, starts nothing. (Moved out of test_agent_loop.py, which keeps the tool calls of a reply
and "new conversation".)"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect
from testbed_actions import (
    GO_AHEAD,
    GO_AHEAD_PATTERN,
    GUARDED_SAVE,
    GUARDED_SAVE_ARGUMENTS,
    declare_guarded,
)

from pling_harness import Dock, ModelHandle, Say, Testbed, Timeline

# ---- one message, one turn, on the tutorial's own page -----------------------------------


@pytest.mark.guarantee("one-turn-at-a-time")
def test_one_message_sent_in_the_pages_dock_starts_one_turn(
    tutorial_page: Page, dock: Dock, timeline: Timeline, say: Say,
) -> None:
    # The page's own dock, not the testbed's: a page that wires its dock twice (a React
    # <AgentDock> that never unmounts, mounted again by StrictMode) answers each message
    # with two agents, two turns and two of every message.
    start = timeline.mark()
    dock.ask(say("status"))

    expect(dock.messages("user")).to_have_count(1)
    # Each reply shown once. A framework may show a call as an assistant message of its own
    # (CopilotKit: the read's activity line), so replies are told apart by their text.
    replies = dock.messages("assistant")
    expect(replies.last).to_be_visible()
    shown = replies.all_inner_texts()
    assert len(shown) == len(set(shown)), f"the assistant showed a message twice: {shown}"
    opening = [r for r in timeline.page_model_requests(start)
               if '"role":"tool"' not in (r.body or "").replace(" ", "")]
    assert len(opening) == 1, f"one message opened {len(opening)} model requests: {opening}"


@pytest.mark.guarantee("one-turn-at-a-time")
@pytest.mark.parametrize("text", [pytest.param("   ", id="spaces"),
                                  pytest.param("\n\t", id="newline-and-tab"),
                                  pytest.param(None, id="nothing")])
def test_page_sending_blank_text_starts_no_turn(
    testbed: Testbed, dock: Dock, timeline: Timeline, locale: str, text: str | None,
) -> None:
    start = timeline.mark()

    testbed.scripts.send_from_the_page(text)
    dock.ask(GO_AHEAD[locale])  # a real turn after it, to have something to wait for

    assert len(timeline.page_model_requests(start)) == 1
    expect(dock.messages("user")).to_have_count(1)


@pytest.mark.guarantee("one-turn-at-a-time")
def test_page_sending_while_a_turn_runs_starts_no_second_turn(
    testbed: Testbed, dock: Dock, timeline: Timeline, model: ModelHandle, locale: str,
) -> None:
    declare_guarded(testbed)
    model.when_user(GO_AHEAD_PATTERN, GUARDED_SAVE, GUARDED_SAVE_ARGUMENTS)
    start = timeline.mark()
    dock.ask(GO_AHEAD[locale])
    expect(dock.approval_for(GUARDED_SAVE)).to_be_visible()

    testbed.scripts.send_from_the_page(GO_AHEAD[locale])
    dock.deny()

    # The turn's own two requests (the call, then its denial), and nothing from the second send.
    assert len(timeline.page_model_requests(start)) == 2
    expect(dock.messages("user")).to_have_count(1)
    assert testbed.calls() == []

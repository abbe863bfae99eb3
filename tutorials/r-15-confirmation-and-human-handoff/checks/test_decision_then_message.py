"""The user decides a card, then writes again before anything else happens: the decision still
stands. An approved call runs and the user and the model are told it ran (or, if it did not,
that it did not); a denied one reaches the model as PERMISSION_DENIED. The model here is a
lenient OpenAI-compatible server, which answers a conversation whose tool call has no result
where OpenAI refuses it, so a page that drops the decision (vercel/ai#17033, #14428: the AI
SDK sending the approval with the next message) is seen doing it instead of failing on the wire."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from pling_harness import Dock, ModelHandle, Say, Timeline, TutorialServer, guarantees

ARCHIVE = "archive_workspace"


def decide_then_ask(dock: Dock, model: ModelHandle, say: Say, *, allow: bool) -> None:
    model.accept_unanswered_tool_calls()
    dock.ask(say("archive"))
    expect(dock.approval_for(ARCHIVE)).to_be_visible()
    if allow:
        dock.approve()
    else:
        dock.deny()
    dock.ask(say("status"))


@pytest.mark.guarantee("approval-honoured")
def test_an_approved_call_runs_even_when_a_message_follows_the_approval(
    tutorial_page: Page, dock: Dock, timeline: Timeline, model: ModelHandle,
    tutorial_server: TutorialServer, say: Say,
) -> None:
    before = timeline.mark()

    decide_then_ask(dock, model, say, allow=True)

    # What tells the user the archive ran, whatever the words: the status the page renders
    # from the server's answer.
    archived = tutorial_page.get_by_test_id("workspace-status").and_(
        tutorial_page.locator("[data-archived='true']"))
    guarantees.approval_honoured(timeline, action=ARCHIVE, since=before, effect_shown=archived)


@pytest.mark.guarantee("denial-respected")
def test_a_denial_reaches_the_model_even_when_a_message_follows_it(
    tutorial_page: Page, dock: Dock, timeline: Timeline, model: ModelHandle,
    tutorial_server: TutorialServer, say: Say,
) -> None:
    before = timeline.mark()

    decide_then_ask(dock, model, say, allow=False)

    guarantees.decided_call_never_unanswered(timeline, action=ARCHIVE, since=before,
                                             guarantee="denial-respected")
    guarantees.no_business_request(timeline, since=before, guarantee="denial-respected")
    assert not tutorial_server.state.snapshot().archived

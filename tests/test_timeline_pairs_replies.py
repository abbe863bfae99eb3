"""What a failure's timeline shows is true: each model request is followed by the reply that
answered it (the server log's `answers`), not by the next reply in the log, also when two
requests are in flight and the later one is answered first (issue 31 §7)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page

from pling_harness.browser.pages import open_page
from pling_harness.evidence.timeline import Timeline
from pling_harness.server.model.wire import (
    AssistantMessage,
    ChatCompletion,
    ModelRequest,
    UserMessage,
)
from pling_harness.server.runner import TutorialServer

# Long enough for the second request to arrive; the first is released by it, not by time.
LONGEST_WAIT_SECONDS = 30.0


class AnswersTheLaterFirst:
    """A provider at the boundary: "first" is answered only after "second" was."""

    def __init__(self) -> None:
        self._second_answered: asyncio.Event | None = None

    def _event(self) -> asyncio.Event:
        if self._second_answered is None:  # created in the server's own event loop
            self._second_answered = asyncio.Event()
        return self._second_answered

    async def complete(self, request: ModelRequest) -> ChatCompletion:
        said = request.messages[-1]
        text = said.content if isinstance(said, UserMessage) else ""
        if text == "first":
            await asyncio.wait_for(self._event().wait(), LONGEST_WAIT_SECONDS)
        reply = ChatCompletion.of(AssistantMessage(content=f"reply to {text}"), id=text,
                                  model="out-of-order")
        if text == "second":
            self._event().set()
        return reply


SEND = """(text) => {
  window.plingReplies = window.plingReplies || {};
  window.plingReplies[text] = fetch("/api/model", {
    method: "POST", headers: {"Content-Type": "application/json"},
    body: JSON.stringify({messages: [{role: "user", content: text}], locale: "en"}),
  }).then((response) => response.json());
}"""
BOTH_ANSWERED = """() => Promise.all([window.plingReplies.first, window.plingReplies.second])
  .then((replies) => replies.map((reply) => reply.message.content))"""


@pytest.fixture
def server() -> Iterator[TutorialServer]:
    with TutorialServer(tutorial="r-15", provider=AnswersTheLaterFirst()) as running:
        yield running


def test_each_model_request_is_followed_by_the_reply_that_answered_it(
    page: Page, server: TutorialServer,
) -> None:
    timeline = Timeline(server_log=server.log, server_state=server.state,
                        contract=server.tutorial.contract)
    timeline.attach(page)
    open_page(page, server.page_url("en"))

    page.evaluate(SEND, "first")
    server.log.wait_for(lambda r: r.kind == "model.request", timeout=LONGEST_WAIT_SECONDS)
    page.evaluate(SEND, "second")
    assert page.evaluate(BOTH_ANSWERED) == ["reply to first", "reply to second"]

    # The log itself has the replies the other way round, each naming its request.
    replies = server.log.records(kind="model.reply")
    assert [r.model_reply.content for r in replies if r.model_reply] == [
        "reply to second", "reply to first"]
    lines = [entry.description for entry in timeline.entries()]
    for text in ("first", "second"):
        [asked] = [i for i, line in enumerate(lines)
                   if line.endswith(f"model request, user said {text!r}; tools: none")]
        assert lines[asked + 1].endswith(f"model replied 'reply to {text}'"), (
            "\n".join(lines))

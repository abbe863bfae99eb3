"""A failing model provider seen from the page: a clear localised error, nothing run or
changed, no silent retry, and the next request works. (A failing business API:
test_run_results.py.)

The server here talks to a real OpenAI-compatible upstream over HTTP (the plugin's
`fake_upstream`, on 127.0.0.1); when no fault is queued it answers like the scripted model.
"""

from __future__ import annotations

import re
import secrets
import threading
from collections.abc import Callable

import pytest
from playwright.sync_api import Locator, Page, expect

from pling_harness import (
    Answer,
    Behaviour,
    Dock,
    Fail,
    FakeUpstream,
    HangUp,
    Malformed,
    Say,
    Stall,
    StartTutorialServer,
    Timeline,
    TutorialServer,
    Words,
    guarantees,
)

# The gateway's timeout towards the upstream, a real network timeout. Generous by default, so
# a healthy local answer is never cut off, even on a loaded machine (1 s was, at load 30). The
# check of a stalled upstream sets a shorter one: its error must show within the dock's settle
# wait (10 s), and the healthy request after it still has to fit.
GATEWAY_TIMEOUT_SECONDS = 30.0
STALLED_GATEWAY_TIMEOUT_SECONDS = 5.0
SAVE, READ = "save_workspace_name", "get_workspace"
NOT_BLANK = re.compile(r"\S")


@pytest.fixture
def gateway_timeout() -> float:
    """Seconds the gateway waits for the upstream (PLING_MODEL_TIMEOUT); a check may
    parametrize its own."""
    return GATEWAY_TIMEOUT_SECONDS


@pytest.fixture
def tutorial_server(start_tutorial_server: StartTutorialServer, fake_upstream: FakeUpstream,
                    gateway_timeout: float) -> TutorialServer:
    """The fixture server with the OpenAI-compatible provider pointed at `fake_upstream`."""
    return start_tutorial_server(environ=fake_upstream.environ(
        api_key=f"test-{secrets.token_hex(16)}", timeout=gateway_timeout))


# Each provider fault, what the gateway answers the page, and the code the dock shows it with.
FAULTS: dict[str, tuple[Callable[[threading.Event], Behaviour], int, str]] = {
    "error-500": (lambda _release: Fail(500), 502, "MODEL_UNAVAILABLE"),
    "malformed-json": (lambda _release: Malformed(), 502, "MODEL_UNAVAILABLE"),
    "not-a-completion": (lambda _release: Malformed('{"error": {"message": "overloaded"}}'),
                         502, "MODEL_UNAVAILABLE"),
    "connection-closed": (lambda _release: HangUp(), 502, "MODEL_UNAVAILABLE"),
    "too-slow": (lambda release: Stall(release), 504, "MODEL_TIMEOUT"),
    "empty-reply": (lambda _release: Answer({"content": None}), 502, "MODEL_BAD_REPLY"),
}


# Only a stalled upstream needs the short gateway timeout; the others answer at once.
FAULT_CASES = [
    pytest.param(fault, STALLED_GATEWAY_TIMEOUT_SECONDS if fault == "too-slow"
                 else GATEWAY_TIMEOUT_SECONDS, id=fault)
    for fault in FAULTS
]


def assert_error_means(words: Words, error: Locator, code: str) -> None:
    """The dock's error for `code` says what went wrong (the glossary's meaning of `code`):
    a timeout is not "could not answer (MODEL_TIMEOUT)"."""
    text = error.inner_text()
    problems = words.meaning_problems(text, code)
    assert not problems, f"the {code} error {text!r} {'; '.join(problems)}"


@pytest.mark.guarantee("gateway-faults")
@pytest.mark.parametrize(("fault", "gateway_timeout"), FAULT_CASES)
def test_provider_fault_shows_a_localised_error_runs_nothing_and_the_next_request_works(
    tutorial_page: Page, dock: Dock, timeline: Timeline, fake_upstream: FakeUpstream,
    say: Say, words: Words, fault: str,
) -> None:
    behaviour, status, code = FAULTS[fault]
    release = threading.Event()
    fake_upstream.queue(behaviour(release))
    before = timeline.mark()

    try:
        dock.ask(say("archive"))

        # Its wording is the page's (its language is checked by the bilingual checks), and
        # it says what went wrong.
        error = dock.messages("error")
        expect(error).to_have_text([NOT_BLANK])
        expect(dock.messages("error", code=code)).to_have_count(1)
        assert_error_means(words, error, code)
    finally:
        release.set()  # let a stalled upstream go, whatever happened above
    refused = timeline.server_records(before, kind="model.error")
    assert [(r.status, r.error_code) for r in refused] == [(status, code)]
    # Asked once: neither the page nor the gateway tried again on their own.
    assert len(timeline.page_model_requests(before)) == 1
    assert len(fake_upstream.received) == 1
    assert timeline.shown("approval", before) == []
    assert timeline.shown("handoff", before) == []
    guarantees.no_business_request(timeline, since=before, guarantee="gateway-faults")
    guarantees.state_unchanged(timeline, since=before, guarantee="gateway-faults")
    # The user's words stay in the conversation.
    expect(dock.messages("user")).to_have_text([say("archive")])

    # The upstream answers properly again: the next request runs its action and gets a reply.
    after = timeline.mark()
    dock.ask(say("status"))
    guarantees.model_received(timeline, action=READ, code="OK", since=after,
                              guarantee="gateway-faults")
    expect(dock.messages("assistant")).to_have_count(1)
    expect(dock.messages("error")).to_have_count(1)
    assert fake_upstream.problems == []


# The page's own model request failing before any server answers it (the network), and a
# gateway answering a code the dock has no words for: each is an error saying so, nothing runs.
MODEL_PATH = "**/api/model"
UNKNOWN_CODE = "MAINTENANCE"
# A copy `{placeholder}` the page left in its text.
UNFILLED_PLACEHOLDER = re.compile(r"\{\w+\}")


def route_failures(page: Page, failure: str) -> None:
    if failure == "network":
        page.route(MODEL_PATH, lambda route: route.abort("connectionrefused"))
    else:
        page.route(MODEL_PATH, lambda route: route.fulfill(status=503, json={
            "ok": False, "code": UNKNOWN_CODE, "message": "down for maintenance"}))


@pytest.mark.guarantee("gateway-faults")
@pytest.mark.parametrize("failure", ["network", "unknown-code"])
def test_model_request_failing_before_the_gateway_answers_shows_what_went_wrong(
    tutorial_page: Page, dock: Dock, timeline: Timeline, say: Say, words: Words, failure: str,
) -> None:
    route_failures(tutorial_page, failure)
    before = timeline.mark()

    dock.ask(say("archive"))

    error = dock.messages("error")
    expect(error).to_have_count(1)
    if failure == "network":
        expect(dock.messages("error", code="NETWORK")).to_have_count(1)
        assert_error_means(words, error, "NETWORK")
    else:
        # No words of its own for this code: the message's code carries it (a zh page need
        # not show a Latin code in its text), and the text says the assistant could not
        # answer, with every placeholder filled (page contract, "Copy").
        expect(dock.messages("error", code=UNKNOWN_CODE)).to_have_count(1)
        expect(error).not_to_have_text(UNFILLED_PLACEHOLDER)
        text = error.inner_text()
        problems = words.detail_problems(text, "gateway.unknown-code")
        assert not problems, f"the {UNKNOWN_CODE} error {text!r} {'; '.join(problems)}"
    assert len(timeline.page_model_requests(before)) == 1  # not retried
    guarantees.no_business_request(timeline, since=before, guarantee="gateway-faults")

    tutorial_page.unroute(MODEL_PATH)
    after = timeline.mark()
    dock.ask(say("status"))
    guarantees.model_received(timeline, action=READ, code="OK", since=after,
                              guarantee="gateway-faults")
    expect(dock.messages("error")).to_have_count(1)

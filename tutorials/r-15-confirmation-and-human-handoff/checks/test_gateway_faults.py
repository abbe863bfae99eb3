"""A failing real upstream behind the gateway: each way an OpenAI-compatible provider fails over
HTTP becomes the gateway's code (502 MODEL_UNAVAILABLE, 504 MODEL_TIMEOUT, 502
MODEL_BAD_REPLY), asked once, shown by the page with that code, nothing run or changed, and the
next request works. (The page's side of each code, and a model request failing before any
gateway answers, are generated for every tutorial from its action table:
pling_harness/plugin/declared/gateway_checks.py. A failing business API: test_run_results.py.)

The server here talks to a real OpenAI-compatible upstream over HTTP (the plugin's
`fake_upstream`, on 127.0.0.1); when no fault is queued it answers like the scripted model.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

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
    guarantees,
)

# The gateway's timeout towards the upstream, a real network timeout. Generous by default, so
# a healthy local answer is never cut off, even on a loaded machine (1 s was, at load 30). The
# check of a stalled upstream sets a shorter one: its error must show within the dock's settle
# wait (10 s), and the healthy request after it still has to fit.
GATEWAY_TIMEOUT_SECONDS = 30.0
STALLED_GATEWAY_TIMEOUT_SECONDS = 5.0
READ = "get_workspace"


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


@pytest.mark.guarantee("gateway-faults")
@pytest.mark.parametrize(("fault", "gateway_timeout"), FAULT_CASES)
def test_upstream_fault_is_the_gateways_code_asked_once_and_the_next_request_works(
    tutorial_page: Page, dock: Dock, timeline: Timeline, fake_upstream: FakeUpstream,
    say: Say, fault: str,
) -> None:
    behaviour, status, code = FAULTS[fault]
    # The error carries the fault's code, except on a framework that tells the page only that
    # the run failed (its driver says so): there one error is shown, and the rest holds the
    # same (the gateway's code at the server, asked once, nothing run, the next request
    # answered); the generated provider-fault check holds its words to the page's language.
    codes = dock.spec.provider_fault_codes is True
    release = threading.Event()
    fake_upstream.queue(behaviour(release))
    before = timeline.mark()

    try:
        dock.ask(say("archive"))
        expect(dock.messages("error", code=code if codes else None)).to_have_count(1)
    finally:
        release.set()  # let a stalled upstream go, whatever happened above
    refused = timeline.server_records(before, kind="model.error")
    assert [(r.status, r.error_code) for r in refused] == [(status, code)]
    # Asked once: neither the page nor the gateway tried again on their own.
    assert len(timeline.page_model_requests(before)) == 1
    assert len(fake_upstream.received) == 1
    guarantees.no_business_request(timeline, since=before, guarantee="gateway-faults")
    guarantees.state_unchanged(timeline, since=before, guarantee="gateway-faults")

    # The upstream answers properly again: the next request runs its action and gets a reply.
    after = timeline.mark()
    dock.ask(say("status"))
    guarantees.model_received(timeline, action=READ, code="OK", since=after,
                              guarantee="gateway-faults")
    if dock.spec.earlier_errors_stay is True:  # else the driver says the error goes
        expect(dock.messages("error")).to_have_count(1)
    assert fake_upstream.problems == []

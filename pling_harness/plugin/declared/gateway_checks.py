"""Generated checks of a failing model seen from the page (table-level, once per locale): each
fault of the provider (unavailable, too slow, a reply it cannot use) and the page's own model
request failing (the network, a code the dock has no words for) is one error in the user's
language saying what went wrong, asked once, nothing run or changed, the user's words kept,
and the next request answered. Through the dock driver, so another framework's page gets them;
the real upstream's faults behind the gateway are test_gateway_faults.py's (r-15)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Literal

from playwright.sync_api import Route, expect

from pling_harness.evidence import guarantees
from pling_harness.evidence.guarantees import GuaranteeViolation
from pling_harness.plugin.declared.context import DeclaredRun
from pling_harness.plugin.declared.fault_checks import what_the_user_sees
from pling_harness.project.dock_driver import Absent, NotObservable
from pling_harness.server.model.provider import (
    ProviderBadReply,
    ProviderError,
    ProviderTimeout,
    ProviderUnavailable,
)

NAME = "gateway-faults"
PROVIDER_FAULTS: tuple[ProviderError, ...] = (ProviderUnavailable(), ProviderTimeout(),
                                              ProviderBadReply())
UNKNOWN_CODE = "MAINTENANCE"
# A copy `{placeholder}` the page left in its text.
UNFILLED_PLACEHOLDER = re.compile(r"\{\w+\}")
PLAIN_REPLY = {"role": "assistant", "content": "Done."}


def errors_kept(run: DeclaredRun, faults: int) -> int | None:
    """How many errors the conversation shows after `faults` faults: all of them where the
    driver says earlier errors stay, else None (the page shows only the current one)."""
    return None if isinstance(run.dock.spec.earlier_errors_stay, Absent) else faults


def _error_says(run: DeclaredRun, code: str | None, count: int | None) -> str:
    """The `count`th error shown (None: the last of any shown, earlier ones not counted) is
    the only one carrying `code` (if given); its text."""
    if count is None:
        expect(run.dock.messages("error")).not_to_have_count(0)
    else:
        expect(run.dock.messages("error")).to_have_count(count)
    if code is not None:
        expect(run.dock.messages("error", code=code)).to_have_count(1)
    return run.dock.messages("error").last.inner_text()


def _provider_fault_told(run: DeclaredRun, fault: ProviderError, count: int | None, *,
                         code: str | Literal["fault"] | None = "fault") -> str:
    """As `_error_says` for the fault's code (or `code`), or a violation saying what the
    user sees instead (a page that shows nothing fails so, not as a locator's timeout)."""
    try:
        return _error_says(run, fault.code if code == "fault" else code, count)
    except AssertionError:
        shown = run.dock.messages("error")
        told = " | ".join(" ".join(t.split()) for t in shown.all_inner_texts()) or "none"
        raise GuaranteeViolation(NAME, f"the provider answered {fault.status} {fault.code}; "
                                 f"the user should see error {count or 'now shown'} "
                                 f"reporting it; errors "
                                 f"shown: {told}; the chat shows "
                                 f"{run.dock.messages('assistant').count()} answer(s) and "
                                 f"{run.dock.messages('notice').count()} notice(s)",
                                 run.timeline) from None


def _conversation_goes_on(run: DeclaredRun, errors: int | None) -> None:
    run.model.script(PLAIN_REPLY)
    run.dock.ask(run.say(run.row.asked_with))
    expect(run.dock.messages("assistant")).to_have_count(1)
    if errors is not None:
        expect(run.dock.messages("error")).to_have_count(errors)


def provider_faults(run: DeclaredRun) -> None:
    """Each provider fault: its code's error saying what went wrong, the server's refusal with
    that code, asked once, no card, no handoff, nothing changed; then the next request works."""
    run.open()
    asked = run.say(run.row.asked_with)
    for n, fault in enumerate(PROVIDER_FAULTS, start=1):
        run.model.script(fault)
        before = run.timeline.mark()
        try:
            run.dock.ask(asked)
        except AssertionError as error:
            raise GuaranteeViolation(NAME, f"the provider answered {fault.status} "
                                     f"{fault.code}; the user sees {what_the_user_sees(run)} "
                                     f"({str(error).splitlines()[0]})", run.timeline) from None
        if isinstance(run.dock.spec.provider_fault_codes, Absent):
            # The framework tells the page only that the run failed: its error must say so.
            text = _provider_fault_told(run, fault, errors_kept(run, n), code=None)
            problems = run.words.detail_problems(text, "gateway.unknown-code")
        else:
            text = _provider_fault_told(run, fault, errors_kept(run, n))
            problems = run.words.meaning_problems(text, fault.code)
        if problems:
            raise GuaranteeViolation(NAME, f"the {fault.code} error {text!r}: "
                                     f"{'; '.join(problems)}", run.timeline)
        refused = [(r.status, r.error_code)
                   for r in run.timeline.server_records(before, kind="model.error")]
        if refused != [(fault.status, fault.code)]:
            raise GuaranteeViolation(NAME, f"the server should refuse the request "
                                     f"{fault.status} {fault.code}; it answered {refused}",
                                     run.timeline)
        if len(run.timeline.page_model_requests(before)) != 1:
            raise GuaranteeViolation(NAME, "the page resent a failed request", run.timeline)
        run.expect_nothing_asked(before, guarantee=NAME, after=f"after a {fault.code}")
        guarantees.no_business_request(run.timeline, since=before, guarantee=NAME)
        # The user's words stay (contained: a framework's message may carry a label for
        # screen readers, "You", around them).
        expect(run.dock.messages("user")).to_contain_text([asked] * n)
    _conversation_goes_on(run, errors_kept(run, len(PROVIDER_FAULTS)))


def model_request_fails(run: DeclaredRun) -> None:
    """The page's own model request failing before any gateway answers (the network), or
    answered with a code the dock has no words for: an error saying so, never retried."""
    spec = run.dock.spec
    if spec.assistant_endpoints:
        raise NotObservable(spec.name, "assistant_endpoints", "the page talks to its "
                            "framework's chat route, whose transport errors are the "
                            "framework's, not the page contract's model endpoint")
    page = run.open()
    path = f"**{run.served.tutorial.api.model}"
    failures: dict[str, Callable[[Route], None]] = {
        "NETWORK": lambda route: route.abort("connectionrefused"),
        UNKNOWN_CODE: lambda route: route.fulfill(status=503, json={
            "ok": False, "code": UNKNOWN_CODE, "message": "down for maintenance"}),
    }
    for n, (code, failure) in enumerate(failures.items(), start=1):
        page.route(path, failure)
        before = run.timeline.mark()
        run.dock.ask(run.say(run.row.asked_with))
        text = _error_says(run, code, n)
        if code == "NETWORK":
            problems = run.words.meaning_problems(text, code)
        else:
            # No words of its own for this code: the message's code carries it; the text
            # says the assistant could not answer, every placeholder filled.
            expect(run.dock.messages("error").last).not_to_have_text(UNFILLED_PLACEHOLDER)
            problems = run.words.detail_problems(text, "gateway.unknown-code")
        if problems:
            raise GuaranteeViolation(NAME, f"the {code} error {text!r}: {'; '.join(problems)}",
                                     run.timeline)
        if len(run.timeline.page_model_requests(before)) != 1:
            raise GuaranteeViolation(NAME, "the page resent a failed request", run.timeline)
        guarantees.no_business_request(run.timeline, since=before, guarantee=NAME)
        page.unroute(path, failure)
    _conversation_goes_on(run, len(failures))

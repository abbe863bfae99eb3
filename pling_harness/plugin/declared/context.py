"""What a generated check works with: its action's row, the plugin's fixtures, and the moves
every generated check shares (open the page on the row's state, make the model call the
action, read the projection, wait for the declared effect)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, ClassVar

import pytest
from playwright.sync_api import Page, expect

from pling_harness.browser.clicks import user_click
from pling_harness.browser.dock import Dock
from pling_harness.browser.pages import reload_page
from pling_harness.evidence import guarantees
from pling_harness.evidence.guarantees import GuaranteeViolation
from pling_harness.evidence.records import Mark
from pling_harness.evidence.timeline import Timeline
from pling_harness.plugin.external import ServedTutorial
from pling_harness.plugin.factories import OpenTutorialPage
from pling_harness.project.action_table import ActionRow, ActionTable, FromBackend, filled
from pling_harness.project.business_state import BusinessState
from pling_harness.project.texts import Say, Words
from pling_harness.server.backend import tutorial_backend
from pling_harness.server.model.conversation import ToolResultSeen
from pling_harness.server.model.handle import ModelHandle, calling, tool_call
from pling_harness.server.model.wire import FunctionDefinition

# How long a generated check waits for the page to show an effect (ms).
SHOWN_TIMEOUT_MS = 5_000
# How long the dock waits for a turn to settle, per model request the turn may make (ms).
SETTLE_MS_PER_MODEL_REQUEST = 1_500
# How often a check looks again whether the model has been asked as often as it waits for (ms).
MODEL_REQUEST_LOOK_MS = 100
# How long no model request must come before a loop that stops silently counts as stopped (ms).
QUIET_MS = 3_000


@dataclass
class DeclaredRun:
    """One generated check's action, row and fixtures."""

    action: str
    row: ActionRow
    table: ActionTable
    open_tutorial_page: OpenTutorialPage
    dock: Dock
    timeline: Timeline
    model: ModelHandle
    words: Words
    say: Say
    locale: str
    served: ServedTutorial
    page: Page | None = None
    calls_made: int = 0
    # The check's own pytest request: for a check that needs a fixture of its own or its id.
    request: pytest.FixtureRequest | None = None
    # What a handoff's timeout at its declared value proves: the tutorial's own timeout.
    timeout_guarantee: ClassVar[str] = "handoff-timeout"

    def pytest_request(self) -> pytest.FixtureRequest:
        assert self.request is not None, "a generated check runs with its pytest request"
        return self.request

    # ---- the page ----------------------------------------------------------------------

    def open(self, state: Mapping[str, Any] | None = None) -> Page:
        """The tutorial page on the row's `starts_from` state (plus `state`)."""
        wanted = {**self.row.starts_from, **(state or {})}
        self.page = self.open_tutorial_page(state=wanted or None)
        return self.page

    def reload(self) -> None:
        """Reload the page (a new dock session)."""
        assert self.page is not None
        reload_page(self.page)

    def state(self) -> BusinessState:
        return self.served.state.snapshot()

    def expect_nothing_shown(self, since: Mark, *, guarantee: str, after: str) -> None:
        """No card and no handoff shown since `since` (`after` says what came before them in
        the violation)."""
        for part in ("approval", "handoff"):
            if self.timeline.shown(part, since):
                raise GuaranteeViolation(guarantee, f"a {part} was shown {after}",
                                         self.timeline)

    def expect_nothing_asked(self, since: Mark, *, guarantee: str, after: str) -> None:
        """Nothing shown since `since` (`expect_nothing_shown`), and the business state
        unchanged."""
        self.expect_nothing_shown(since, guarantee=guarantee, after=after)
        guarantees.state_unchanged(self.timeline, since=since, guarantee=guarantee)

    def expect_failure_envelope(self, result: ToolResultSeen, code: str,
                                guarantee: str) -> None:
        """SPEC §5's failure envelope `{"ok": false, "code", "message"}`, nothing else, with
        a message."""
        envelope = result.envelope
        if not (envelope is not None and set(envelope) == {"ok", "code", "message"}
                and envelope["ok"] is False and envelope["code"] == code
                and isinstance(envelope["message"], str) and envelope["message"].strip()):
            raise GuaranteeViolation(guarantee, f"call {result.call_id} should get a {code} "
                                     f"failure envelope; the model received "
                                     f"{result.content!r}", self.timeline)

    def expect_cards(self, since: Mark, guarantee: str, count: int) -> None:
        """The call to the action since `since` showed exactly `count` approval cards."""
        cards = self.timeline.shown("approval", since, action=self.action)
        if len(cards) != count:
            raise GuaranteeViolation(guarantee, f"the call to {self.action} should show "
                                     f"{count} approval card(s), {len(cards)} appeared",
                                     self.timeline)

    def expect_nothing_yet(self, since: Mark, guarantee: str) -> None:
        """While a card waits: no business request since `since`, the state unchanged."""
        guarantees.no_business_request(self.timeline, since=since, guarantee=guarantee)
        guarantees.state_unchanged(self.timeline, since=since, guarantee=guarantee)

    def expect_ran_once(self, since: Mark, arguments: Mapping[str, Any],
                        guarantee: str) -> None:
        """The row's business request went out once since `since`, carrying `arguments` as
        the row says, and the model heard OK (one call, one run of its handler)."""
        guarantees.model_received(self.timeline, action=self.action, code="OK", since=since,
                                  guarantee=guarantee)
        if self.row.calls is None:
            return
        self.timeline.require_business_requests_seen()
        route = (self.row.calls.method, self.row.calls.path)
        calls = [c for c in self.timeline.api_calls(since) if (c.method, c.path) == route]
        if self.timeline.sees_server and not self.dock.spec.business_requests_in_browser:
            # The action runs on the page's server; the same request sent by the browser is
            # the page refreshing its own view (a read's GET), which a turn's end may race.
            own = sum(1 for kind, r in self.timeline.browser_events(since)
                      if kind == "sent" and (r.method, r.path.split("?", 1)[0]) == route)
            calls = calls[own:]
        wanted = self.expected_body(arguments)
        if len(calls) != 1 or (wanted is not None and calls[0].body != wanted):
            raise GuaranteeViolation(guarantee, f"{self.action} should send "
                                     f"{self.row.calls.describe()} once with {wanted!r}; it "
                                     f"sent {[(c.path, c.body) for c in calls]}",
                                     self.timeline)

    @property
    def sees_business_requests(self) -> bool:
        """Whether the harness sees the business requests a call makes: in its own server's
        log, or in the browser when the page's tools run there; not those a framework's
        server makes out of sight (the AI SDK's chat route runs an approved call)."""
        return self.timeline.sees_server or self.dock.spec.business_requests_in_browser

    def expect_ran_as_shown(self, since: Mark, before: BusinessState,
                            arguments: Mapping[str, Any], guarantee: str) -> None:
        """The call allowed since `since` ran with exactly `arguments`, and the model heard
        OK: its request's body, where the harness sees it (`expect_ran_once`); where the
        page's server makes the request out of sight, the state it left, which must be the
        state the row's own request with exactly `arguments` leaves from `before` (the
        harness sends it itself, as another client of the business API would)."""
        if self.sees_business_requests or self.row.calls is None:
            self.expect_ran_once(since, arguments, guarantee)
            return
        guarantees.model_received(self.timeline, action=self.action, code="OK", since=since,
                                  guarantee=guarantee)
        left = self.state()
        self.served.state.replace(before)
        assert self.page is not None
        body = self.expected_body(arguments)
        answer = self.page.request.fetch(
            f"{self.served.url}{self.row.calls.path}", method=self.row.calls.method,
            headers={"Content-Type": "application/json"},
            data=None if body is None else json.dumps(body))
        by_request = self.state()
        if not answer.ok or left != by_request:
            raise GuaranteeViolation(guarantee, f"allowed with {dict(arguments)!r} shown, "
                                     f"{self.action} left the state {left.fields()}; "
                                     f"{self.row.calls.describe()} with exactly that leaves "
                                     f"{by_request.fields()} (answered {answer.status})",
                                     self.timeline)

    def expect_shown(self, view: Mapping[str, str | None], *, guarantee: str,
                     after: str | None = None) -> None:
        """The page's business view shows `view` (view name → value; None: not shown at
        all), `after` what (the action, unless said) happened."""
        assert self.page is not None
        for name, value in view.items():
            shown = self.served.tutorial.page.business_view[name]
            element = self.page.get_by_test_id(shown.testid)
            try:
                if value is None:
                    expect(element).to_have_count(0, timeout=SHOWN_TIMEOUT_MS)
                elif shown.attribute is None:
                    expect(element).to_have_text(value, timeout=SHOWN_TIMEOUT_MS)
                else:
                    expect(element).to_have_attribute(shown.attribute, value,
                                                      timeout=SHOWN_TIMEOUT_MS)
            except AssertionError as error:
                raise GuaranteeViolation(guarantee, f"after {after or self.action} the page "
                                         f"should show {name} = {value!r}: "
                                         f"{str(error).splitlines()[0]}",
                                         self.timeline) from None

    # ---- the model -----------------------------------------------------------------------

    def request_words(self) -> str:
        """What the user types to ask for the action (its row's `asked_with`)."""
        return self.say(self.row.asked_with)

    def ask(self) -> Mark:
        """The user asks for the action in their words (the row's `asked_with`); the model's
        own rule makes the call. Returns the mark taken before."""
        before = self.timeline.mark()
        self.dock.ask(self.request_words())
        return before

    def asked_at_least(self, since: Mark, count: int) -> int:
        """The model requests made since `since`, once there are `count` of them and the
        dock has settled, or once the wait for a turn of `count` requests is over (a loop
        that a framework runs between its runs can look settled for a frame, so the dock's
        settle alone does not say the turn is over)."""
        assert self.page is not None
        waited, timeout = 0, count * SETTLE_MS_PER_MODEL_REQUEST
        while (asked := len(self.timeline.server_records(since, kind="model.request"))) < count \
                and waited < timeout:
            self.page.wait_for_timeout(MODEL_REQUEST_LOOK_MS)
            waited += MODEL_REQUEST_LOOK_MS
        self.dock.wait_until_settled()
        return max(asked, len(self.timeline.server_records(since, kind="model.request")))

    def asked_until_quiet(self, since: Mark, asked: int) -> int:
        """The model requests made since `since`, once none has come for QUIET_MS (`asked`
        already seen): how a check tells that a loop which stops silently has stopped."""
        assert self.page is not None
        quiet = 0
        while quiet < QUIET_MS:
            self.page.wait_for_timeout(MODEL_REQUEST_LOOK_MS)
            now = len(self.timeline.server_records(since, kind="model.request"))
            quiet = 0 if now != asked else quiet + MODEL_REQUEST_LOOK_MS
            asked = now
        return asked

    @contextmanager
    def patient(self, model_requests: int) -> Iterator[None]:
        """The dock waits for a turn of up to `model_requests` model requests to settle (a
        framework's cap of 100 takes longer than the wait meant for one), then as before."""
        usual = self.dock.settle_timeout_ms
        self.dock.settle_timeout_ms = max(usual, model_requests * SETTLE_MS_PER_MODEL_REQUEST)
        try:
            yield
        finally:
            self.dock.settle_timeout_ms = usual

    def call(self, arguments: Mapping[str, Any] | str, *, action: str | None = None) -> Mark:
        """The model calls the action (or `action`) with exactly `arguments` (raw text as
        given), whatever the user says. Returns the call's id... in `last_call_id`."""
        self.calls_made += 1
        raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
        self.model.script(calling(tool_call(self.last_call_id, action or self.action, raw)))
        return self.ask()

    def send_call(self, arguments: Mapping[str, Any]) -> None:
        """As `call`, but return once the user's message is sent, without waiting for the turn
        (whose business request a check may be holding)."""
        self.calls_made += 1
        self.model.script(calling(tool_call(self.last_call_id, self.action,
                                            json.dumps(arguments))))
        self.dock.input.fill(self.request_words())
        user_click(self.dock.send_button)

    @property
    def last_call_id(self) -> str:
        return f"call_declared_{self.calls_made}"

    def projection(self) -> dict[str, FunctionDefinition]:
        """The tools the page projected with its last model request (one turn that calls
        nothing if it has made none), held to the table: a stale table fails naming both."""
        if not self.model.requests:
            self.model.script({"role": "assistant", "content": "…"})
            self.dock.ask(self.request_words())
        offered = self.model.offered_tools()
        # Tools the framework offers on its own (the driver's `framework_tools`) are no page
        # action, so no row of the table.
        framework = set(self.dock.spec.framework_tools)
        stale = self.table.stale_against([name for name in offered if name not in framework])
        if stale is not None:
            raise GuaranteeViolation("projection-complete", stale, self.timeline)
        return offered

    def params(self) -> dict[str, Any]:
        return dict(self.projection()[self.action].parameters or {})

    def refused(self) -> dict[str, tuple[str, ...]]:
        return {name: argument.refused for name, argument in self.row.arguments.items()}

    def call_arguments(self, since: Mark) -> dict[str, Any]:
        """The arguments of the model's last call to the action since `since`."""
        calls = [c for c in self.timeline.tool_calls(since) if c.action == self.action]
        if not calls:
            raise GuaranteeViolation("model-received", f"the model made no call to "
                                     f"{self.action} for {self.row.asked_with!r}", self.timeline)
        parsed = json.loads(calls[-1].arguments or "{}")
        return parsed if isinstance(parsed, dict) else {}

    # ---- the business --------------------------------------------------------------------

    def expected_body(self, arguments: Mapping[str, Any]) -> Any:
        """The body the row's `calls` says the run sends for `arguments`."""
        assert self.row.calls is not None
        if self.row.calls.body is None:
            return dict(arguments) if self.row.calls.method != "GET" else None
        return filled(self.row.calls.body, arguments)

    def expect_effect(self, before: BusinessState, arguments: Mapping[str, Any], *,
                      guarantee: str) -> None:
        """The state is `before` with the row's effect, every other field left alone, and
        the page shows what the row says."""
        wanted = {**before.fields(), **filled(self.row.effect, arguments)}
        now = self.state().fields()
        if now != wanted:
            changed = {k: (before.fields().get(k), v) for k, v in now.items()
                       if before.fields().get(k) != v}
            raise GuaranteeViolation(guarantee, f"{self.action} should leave the state "
                                     f"{wanted}; it is {now} (changed: {changed})",
                                     self.timeline)
        self.expect_shown({k: str(filled(self.row.shows, arguments)[k])
                           for k in self.row.shows}, guarantee=guarantee)

    def handoff_timeout_ms(self) -> int:
        """The row's declared `handoff.timeout` (ms)."""
        assert self.row.handoff is not None
        return self.row.handoff.timeout_ms

    def step_value(self, value: str | FromBackend) -> str:
        """A handoff step's text: as written, or the backend.py constant it names."""
        if isinstance(value, str):
            return value
        backend = tutorial_backend(self.served.tutorial.directory(self.served.root))
        return str(getattr(backend, value.backend))

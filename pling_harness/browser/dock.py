"""Dock: the check-facing page object of a page's assistant, driven the way a user drives it.

Checks and guarantees read and drive the assistant only through it; what it finds where is
the page's dock driver (`pling_harness.project.dock_driver`: the page contract's test ids
by default, or the file a tutorial names), so the same check runs on any assistant whose
driver names the parts it needs. A part the driver declares absent raises `NotObservable`,
which the plugin reports as `n/a (<driver>: <part>: <why>)`.

Every action that hands control back to the agent (`ask`, `approve`, `deny`,
`handoff_done`, ...) returns only once the turn has *settled*: it has ended (the busy
marker is gone) or it is waiting on the user (an approval card or the handoff panel is on
screen). Waiting is done in the page, on each animation frame, never with fixed delays, so
a check written as::

    dock.ask("cancel the order")
    expect(dock.approval_for("cancel_order", policy="ask-always")).to_be_visible()
    dock.deny()
    assert "not" in dock.last_assistant_text()

reads like the acceptance walk and is exactly as slow as the page.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal, get_args

from playwright.sync_api import Locator, Page
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from pling_harness.browser.clicks import user_click
from pling_harness.browser.dock_view import DECIDED_SELECTOR, DockView
from pling_harness.browser.driver import in_page
from pling_harness.browser.repeated_decision import RepeatedApproval
from pling_harness.browser.visibility import VISIBLE_FUNCTION
from pling_harness.project.dock_driver import Absent, DriverSpec, NotObservable

# How long a turn may take before a wait gives up (ms); the scripted model answers at once.
SETTLE_TIMEOUT_MS = 10_000
_HERE = Path(__file__).parent
# Whether the turn has settled, and what the page showed (`Dock._settle`, dock_settle.js).
SETTLE_SCRIPT = in_page(VISIBLE_FUNCTION + (_HERE / "dock_settle.js").read_text(encoding="utf-8")
                        + "\nreturn plingDockSettled(parts, visible, arg.wait);")
SETTLED_SCRIPT = SETTLE_SCRIPT.replace("return plingDockSettled(parts, visible, arg.wait);",
                                       "return plingDockSettled(parts, visible, arg.wait).settled;")
# Tags the first undecided card on screen as the one being decided; false when there is none.
TAG_FIRST_CARD_SCRIPT = """cards => {
  cards[0]?.setAttribute("data-harness-decided", "");
  return cards.length > 0;
}"""
RUN_PAGE_HOOK_SCRIPT = """async name => {
  if (typeof window[name] !== "function") return false;
  await window[name]();
  return true;
}"""
FORGE_DECISION_SCRIPT = "(" + (_HERE / "forge_decision.js").read_text(encoding="utf-8") + ")"
# How page script can send the card a decision the user never chose (forge_decision.js).
ForgeRoute = Literal["script-click", "dispatched-click", "user-click", "user-keyboard",
                     "nested-element", "relabelled-button"]
FORGE_ROUTES: tuple[ForgeRoute, ...] = get_args(ForgeRoute)


class Dock(DockView):
    """The assistant on `page`, read (`DockView`) and driven as a user drives it, through
    `driver` (the page contract's by default); works with or without pytest."""

    def __init__(self, page: Page, driver: DriverSpec | None = None, *,
                 settle_timeout_ms: float = SETTLE_TIMEOUT_MS) -> None:
        super().__init__(page, driver)
        self.settle_timeout_ms = settle_timeout_ms

    # ---- driving ---------------------------------------------------------------------------

    def ask(self, text: str) -> None:
        """Type `text` into the assistant, send it, and wait until the turn settles."""
        before = self.messages().count()
        if isinstance(self.spec.earlier_errors_stay, Absent):
            # The framework forgets the error shown once the next message is sent.
            before -= self.messages("error").count()
        self.input.fill(text)
        user_click(self.send_button)
        # The turn has started once the user's message is shown; then wait for either a
        # reply after it with the assistant idle, or a question to the user.
        self._settle(f"asking {text!r}", started_at=before + 1, replied_at=before + 2)

    def run_page_hook(self, hook: Literal["rerender", "remount"]) -> None:
        """Have the page re-render, or unmount and mount again, the component that registers
        the assistant's tools (the driver's `page_hooks`), and wait until React committed.
        n/a when the driver names no hooks."""
        name = getattr(self.spec.require(self.spec.page_hooks, "page_hooks"), hook)
        if not self.page.evaluate(RUN_PAGE_HOOK_SCRIPT, name):
            raise AssertionError(f"the driver's page_hooks.{hook} names window.{name}, which "
                                 "the page does not define as a function")

    def approve(self) -> None:
        """Click Allow on the card on screen and wait until the turn settles."""
        self._decide(self.spec.approval.allow, "Allow")

    def approve_always(self) -> None:
        """Click "Always allow" and wait until the turn settles (n/a on an assistant that
        offers none)."""
        self._decide(self.driver.css(self.spec.approval.always, "approval.always"),
                     "Always allow")

    def deny(self) -> None:
        """Click Deny on the card on screen and wait until the turn settles."""
        self._decide(self.spec.approval.deny, "Deny")

    def forge_decision(self, decision: str, route: ForgeRoute = "script-click") -> None:
        """Not the user's choice: page script puts an element carrying `decision` in the
        card on screen (e.g. a forged "always" for an ask-always action) and it gets clicked
        by `route`; then wait until the turn settles. Routes: `script-click`
        (`element.click()`), `dispatched-click` (a bubbling `MouseEvent("click")`),
        `user-click` (the user clicks the injected button), `user-keyboard` (the user presses
        Enter on it), `nested-element` (the user clicks a span inside an injected element
        carrying the decision), `relabelled-button` (the card's own Allow control relabelled,
        then clicked by the user). Only for a dock that decides by a delegated attribute
        (the page contract's `approval.decision`); n/a on others."""
        attribute, value = self._decision_attribute(decision)
        forgery = {"attribute": attribute, "decision": value, "route": route,
                   "allow": self.spec.approval.allow}
        self.approval.first.evaluate(FORGE_DECISION_SCRIPT, forgery,
                                     timeout=self.settle_timeout_ms)
        forged = self.page.locator(f"{DECIDED_SELECTOR} [data-harness-forged]")
        if route in ("user-click", "nested-element", "relabelled-button"):
            forged.click(timeout=self.settle_timeout_ms)
        elif route == "user-keyboard":
            forged.press("Enter", timeout=self.settle_timeout_ms)
        self._settle(f"a forged {decision!r} ({route})", gone="decided")

    def repeat_next_approval(self, action: str) -> RepeatedApproval:
        """Page script's (or a resending client's) duplicate: the next request that carries
        the user's approval of `action` is sent with that approval answered twice
        (`RepeatedApproval`). n/a on a page whose decisions never leave it (the driver's
        `decision_wire`)."""
        wire = self.spec.require(self.spec.decision_wire, "decision_wire")
        return RepeatedApproval(self.page, wire, action)

    def wrap_in_decision(self, decision: str) -> None:
        """Page script puts the assistant inside an element carrying `decision` (a click
        inside the card that looks up the tree finds it)."""
        attribute, value = self._decision_attribute(decision)
        self.root.evaluate(
            """(dock, [attribute, decision]) => {
              const wrapper = document.createElement("div");
              wrapper.setAttribute(attribute, decision);
              dock.before(wrapper);
              wrapper.append(dock);
            }""", [attribute, value])

    def handoff_done(self) -> None:
        """Say "done" in the handoff panel and wait until the turn settles."""
        self._finish_handoff(self.handoff_done_button)

    def handoff_cancel(self) -> None:
        """Cancel the handoff and wait until the turn settles."""
        self._finish_handoff(self.handoff_cancel_button)

    def handoff_next(self) -> None:
        """Go to the next handoff step (the panel stays open)."""
        user_click(self.handoff_next_button)

    def handoff_back(self) -> None:
        """Go back one handoff step (the panel stays open)."""
        user_click(self.handoff_back_button)

    def new_conversation(self) -> None:
        """Start a new conversation: ends the session, so session grants are gone."""
        user_click(self.new_conversation_button)

    def wait_until_handoff_ends(self) -> None:
        """Wait until the handoff panel is gone (e.g. after the user published), then settle."""
        self._settle("the handoff", gone="handoff")

    def wait_until_settled(self) -> None:
        """Wait until the turn has ended or is waiting on the user (approval or handoff)."""
        self._settle("waiting")

    # ---- waiting ---------------------------------------------------------------------------

    # ---- waiting ---------------------------------------------------------------------------

    def _decision_attribute(self, decision: str) -> tuple[str, str]:
        """The attribute page script would forge `decision` with, and its value."""
        reading = self.spec.require(self.spec.approval.decision, "approval.decision")
        if reading.attribute is None or reading.inside is not None:
            raise NotObservable(self.spec.name, "approval.decision",
                                "the card is not decided by an attribute of the clicked "
                                "element, so there is no delegated decision to forge")
        return reading.attribute, reading.shown_as(decision)[0]

    def _decide(self, control: str, name: str) -> None:
        # Tag the card being decided, so a new card for the next call is not mistaken for it.
        # One look first (the card is there after a settle); else wait for one to come.
        if not self.approval.evaluate_all(TAG_FIRST_CARD_SCRIPT):
            self.approval.first.wait_for(timeout=self.settle_timeout_ms)
            self.approval.evaluate_all(TAG_FIRST_CARD_SCRIPT)
        decided = self.page.locator(DECIDED_SELECTOR).filter(visible=True)
        user_click(decided.locator(control), timeout=self.settle_timeout_ms)
        self._settle(f"clicking {name}", gone="decided")

    def _finish_handoff(self, button: Locator) -> None:
        user_click(button)
        self.wait_until_handoff_ends()

    def _settle(self, after: str, *, started_at: int = 0, replied_at: int = 0,
                gone: Literal["decided", "handoff"] | None = None) -> None:
        """Wait in the page, re-checked on each animation frame, until the turn has settled
        (dock_settle.js). An `expect` polled from outside backs off to 100 ms and more
        between looks; this sees the turn settle within a frame (Playwright's frames: the
        paused clock cannot stop them). A turn that does not settle fails like an `expect`,
        naming what it saw."""
        arg = {"driver": self.spec.for_the_page(),
               "wait": {"startedAt": started_at, "repliedAt": replied_at, "gone": gone}}
        try:
            self.page.wait_for_function(SETTLED_SCRIPT, arg=arg, polling="raf",
                                        timeout=self.settle_timeout_ms)
        except PlaywrightTimeoutError:
            seen = self.page.evaluate(SETTLE_SCRIPT, arg)["seen"]
            raise AssertionError(f"the assistant did not settle within "
                                 f"{self.settle_timeout_ms / 1000:g} s after {after}: "
                                 f"{seen}") from None

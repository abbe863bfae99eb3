"""Dock: a page object for the AgentDock, driven the way a user would drive it.

Every action that hands control back to the agent (`ask`, `approve`, `deny`,
`handoff_done`, ...) returns only once the turn has *settled*: it has ended (the busy
marker `pling-dock-busy` is gone) or it is waiting on the user (an approval card or the
handoff panel is on screen). Waiting is done in the page, on each animation frame, never with
fixed delays, so a check written as::

    dock.ask("cancel the order")
    expect(dock.approval).to_have_attribute("data-policy", "ask-always")
    dock.deny()
    assert "not" in dock.last_assistant_text()

reads like the acceptance walk and is exactly as slow as the page.
"""

from __future__ import annotations

from typing import Literal, get_args

from playwright.sync_api import Locator, Page
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from harness.browser.clicks import user_click
from harness.browser.visibility import VISIBLE_FUNCTION

# How long a turn may take before a wait gives up (ms); the scripted model answers at once.
SETTLE_TIMEOUT_MS = 10_000
DECIDED_SELECTOR = "[data-harness-decided]"
HANDOFF_SELECTOR = "[data-testid='pling-handoff']"
# Whether the turn has settled (see `Dock._settle`), in the page (`visible` as Playwright
# means it, `harness.browser.visibility`).
_SETTLED_CHECKS = VISIBLE_FUNCTION + """
  const onScreen = (selector) => [...document.querySelectorAll(selector)].some(visible);
  const dock = document.querySelector("[data-testid='pling-dock']");
  const shown = document.querySelectorAll("[data-testid='pling-message']").length;
  const busy = dock !== null && dock.querySelector("[data-testid='pling-dock-busy']") !== null;
  const asking = onScreen(
    "[data-testid='pling-approval']:not([data-harness-decided]), [data-testid='pling-handoff']");
  const idle = dock !== null && visible(dock) && !busy && shown >= repliedAt;
  const settled = shown >= startedAt && !(gone && onScreen(gone)) && (idle || asking);
"""
SETTLED_SCRIPT = ("({startedAt, repliedAt, gone}) => {" + _SETTLED_CHECKS
                  + "  return settled;\n}")
SETTLED_STATE_SCRIPT = ("({startedAt, repliedAt, gone}) => {" + _SETTLED_CHECKS
                        + "  return `${shown} message(s) shown (waiting for ${startedAt} to start, "
                        + "${repliedAt} for a reply), busy marker ${busy ? 'present' : 'gone'}, "
                        + "${asking ? 'a card or the handoff panel' : 'no card and no handoff "
                        + "panel'} on screen${gone && onScreen(gone) ? `, ${gone} still on "
                        + "screen` : ''}`;\n}")
# Tags the first undecided card on screen as the one being decided; false when there is none.
TAG_FIRST_CARD_SCRIPT = """cards => {
  cards[0]?.setAttribute("data-harness-decided", "");
  return cards.length > 0;
}"""
# How page script can send the card a decision the user never chose. The page contract lets
# any element carrying `data-decision` inside the card decide it (event delegation), so each
# route ends in a click the card cannot tell from a real one; only the executor can refuse.
ForgeRoute = Literal["script-click", "dispatched-click", "user-click", "user-keyboard",
                     "nested-element", "relabelled-button"]
FORGE_ROUTES: tuple[ForgeRoute, ...] = get_args(ForgeRoute)
# Page script preparing a forged decision on the card: injects a `[data-decision]` element
# (or relabels the card's own Allow button) marked `data-harness-forged`, and for the two
# script routes also clicks it; the user routes are driven by Playwright afterwards.
FORGE_DECISION_SCRIPT = """(card, [decision, route]) => {
  card.setAttribute("data-harness-decided", "");
  let forged;
  if (route === "relabelled-button") {
    forged = card.querySelector('[data-testid="pling-approve"]');
  } else if (route === "nested-element") {
    forged = document.createElement("span");
    forged.textContent = "forged";
    const wrapper = document.createElement("div");
    wrapper.append(forged);
    wrapper.setAttribute("data-decision", decision);
    card.append(wrapper);
  } else {
    forged = document.createElement("button");
    forged.type = "button";
    forged.textContent = "forged";
    card.append(forged);
  }
  if (route !== "nested-element") forged.setAttribute("data-decision", decision);
  forged.setAttribute("data-harness-forged", "");
  if (route === "script-click") forged.click();
  if (route === "dispatched-click") {
    forged.dispatchEvent(new MouseEvent("click", {bubbles: true, cancelable: true, view: window}));
  }
}"""


class Dock:
    """The AgentDock on `page`; works with or without pytest."""

    def __init__(self, page: Page, *, settle_timeout_ms: float = SETTLE_TIMEOUT_MS) -> None:
        self.page = page
        self.settle_timeout_ms = settle_timeout_ms
        self.root = page.get_by_test_id("pling-dock")
        self.input = page.get_by_test_id("pling-dock-input")
        self.send_button = page.get_by_test_id("pling-dock-send")
        self.busy = page.get_by_test_id("pling-dock-busy")
        self.new_conversation_button = page.get_by_test_id("pling-dock-new")
        self.approval = page.locator(
            "[data-testid='pling-approval']:not([data-harness-decided])").filter(visible=True)
        """The approval card waiting for a decision (at most one is on screen)."""
        self.approval_args = self.approval.get_by_test_id("pling-approval-args")
        self.approve_button = self.approval.get_by_test_id("pling-approve")
        self.approve_always_button = self.approval.get_by_test_id("pling-approve-always")
        self.deny_button = self.approval.get_by_test_id("pling-deny")
        self.handoff = page.get_by_test_id("pling-handoff").filter(visible=True)
        self.handoff_reason = self.handoff.get_by_test_id("pling-handoff-reason")
        self.handoff_steps = self.handoff.get_by_test_id("pling-handoff-step")
        self.handoff_current_step = self.handoff_steps.and_(
            page.locator("[data-current='true']"))
        self.handoff_timer = self.handoff.get_by_test_id("pling-handoff-timer")
        self.handoff_done_button = self.handoff.get_by_test_id("pling-handoff-done")
        self.handoff_cancel_button = self.handoff.get_by_test_id("pling-handoff-cancel")
        self.handoff_next_button = self.handoff.get_by_test_id("pling-handoff-next")
        self.handoff_back_button = self.handoff.get_by_test_id("pling-handoff-back")
        self.highlights = page.get_by_test_id("pling-highlight")

    # ---- reading -------------------------------------------------------------------------

    def messages(self, role: str | None = None) -> Locator:
        """Conversation messages, optionally of one role (user, assistant, error, notice)."""
        messages = self.page.get_by_test_id("pling-message")
        return messages if role is None else messages.and_(
            self.page.locator(f"[data-role='{role}']"))

    def last_assistant_text(self) -> str:
        """The text of the newest assistant message ("" if there is none)."""
        assistant = self.messages("assistant")
        return assistant.last.inner_text() if assistant.count() else ""

    def highlight(self, target: str) -> Locator:
        """The overlay of the handoff step pointing at `target`."""
        return self.highlights.and_(self.page.locator(f"[data-target='{target}']"))

    # ---- driving -------------------------------------------------------------------------

    def ask(self, text: str) -> None:
        """Type `text` into the dock, send it, and wait until the turn settles."""
        before = self.messages().count()
        self.input.fill(text)
        user_click(self.send_button)
        # The turn has started once the user's message is shown; then wait for either a
        # reply after it with the dock idle, or a question to the user.
        self._settle(f"asking {text!r}", started_at=before + 1, replied_at=before + 2)

    def approve(self) -> None:
        """Click Allow on the card on screen and wait until the turn settles."""
        self._decide("pling-approve")

    def approve_always(self) -> None:
        """Click "Always allow" (only offered for `ask` actions) and wait until the turn settles."""
        self._decide("pling-approve-always")

    def deny(self) -> None:
        """Click Deny on the card on screen and wait until the turn settles."""
        self._decide("pling-deny")

    def forge_decision(self, decision: str, route: ForgeRoute = "script-click") -> None:
        """Not the user's choice: page script puts a `[data-decision=<decision>]` element in the
        card on screen (e.g. a forged "always" for an ask-always action) and it gets clicked by
        `route`; then wait until the turn settles. Routes: `script-click` (`element.click()`),
        `dispatched-click` (a bubbling `MouseEvent("click")`), `user-click` (the user clicks the
        injected button), `user-keyboard` (the user presses Enter on it), `nested-element` (the
        user clicks a span inside an injected `[data-decision]` div), `relabelled-button` (the
        card's own Allow button relabelled, then clicked by the user). The card delegates
        clicks, so only the executor can refuse."""
        self.approval.first.evaluate(FORGE_DECISION_SCRIPT, [decision, route],
                                     timeout=self.settle_timeout_ms)
        forged = self.page.locator("[data-harness-decided] [data-harness-forged]")
        if route in ("user-click", "nested-element", "relabelled-button"):
            forged.click(timeout=self.settle_timeout_ms)
        elif route == "user-keyboard":
            forged.press("Enter", timeout=self.settle_timeout_ms)
        self._settle(f"a forged {decision!r} ({route})", gone=DECIDED_SELECTOR)

    def wrap_in_decision(self, decision: str) -> None:
        """Page script puts the dock inside an element carrying `data-decision=<decision>`
        (a click inside the card that looks up the tree finds it)."""
        self.root.evaluate(
            """(dock, decision) => {
              const wrapper = document.createElement("div");
              wrapper.setAttribute("data-decision", decision);
              dock.before(wrapper);
              wrapper.append(dock);
            }""", decision)

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
        """Start a new conversation: ends the dock session, so session grants are gone."""
        user_click(self.new_conversation_button)

    def wait_until_handoff_ends(self) -> None:
        """Wait until the handoff panel is gone (e.g. after the user published), then settle."""
        self._settle("the handoff", gone=HANDOFF_SELECTOR)

    def wait_until_settled(self) -> None:
        """Wait until the turn has ended or is waiting on the user (approval or handoff)."""
        self._settle("waiting")

    # ---- waiting -------------------------------------------------------------------------

    def _decide(self, testid: str) -> None:
        # Tag the card being decided, so a new card for the next call is not mistaken for it.
        # One look first (the card is there after a settle); else wait for one to come.
        if not self.approval.evaluate_all(TAG_FIRST_CARD_SCRIPT):
            self.approval.first.wait_for(timeout=self.settle_timeout_ms)
            self.approval.evaluate_all(TAG_FIRST_CARD_SCRIPT)
        decided = self.page.locator("[data-harness-decided]").filter(visible=True)
        user_click(decided.get_by_test_id(testid), timeout=self.settle_timeout_ms)
        self._settle(f"clicking {testid}", gone=DECIDED_SELECTOR)

    def _finish_handoff(self, button: Locator) -> None:
        user_click(button)
        self.wait_until_handoff_ends()

    def _settle(self, after: str, *, started_at: int = 0, replied_at: int = 0,
                gone: str | None = None) -> None:
        """Wait in the page, re-checked on each animation frame, until the turn has settled:
        at least `started_at` messages shown, nothing matching `gone` on screen, and either
        the dock idle with at least `replied_at` messages or the user asked something. An
        `expect` polled from outside backs off to 100 ms and more between looks; this sees
        the turn settle within a frame (Playwright's frames: the paused clock cannot stop
        them). A turn that does not settle fails like an `expect`, naming what it saw."""
        arg = {"startedAt": started_at, "repliedAt": replied_at, "gone": gone}
        try:
            self.page.wait_for_function(SETTLED_SCRIPT, arg=arg, polling="raf",
                                        timeout=self.settle_timeout_ms)
        except PlaywrightTimeoutError:
            seen = self.page.evaluate(SETTLED_STATE_SCRIPT, arg)
            raise AssertionError(f"the dock did not settle within "
                                 f"{self.settle_timeout_ms / 1000:g} s after {after}: "
                                 f"{seen}") from None

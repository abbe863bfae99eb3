"""DockView: what a page's assistant shows, read through its dock driver: the reading half of
the check-facing `Dock` (pling_harness/browser/dock.py), which adds driving and waiting.

Each reading is a Playwright locator (so a check waits on it with `expect`) or one look in
the page; a part the driver declares absent raises `NotObservable`.
"""

from __future__ import annotations

from playwright.sync_api import Locator, Page

from pling_harness.browser.driver import DockDriver, in_page
from pling_harness.project.dock_driver import (
    Absent,
    DriverSpec,
    NotObservable,
    Role,
    default_driver,
)

# The attribute the harness puts on the card it is deciding, so the next card is not it.
DECIDED_SELECTOR = "[data-harness-decided]"
# Page script: which decision control of a waiting card has the keyboard focus ("allow",
# "always", "deny"), looking into open shadow roots; null when none has it.
FOCUSED_DECISION_SCRIPT = in_page("""
let focused = document.activeElement;
while (focused && focused.shadowRoot && focused.shadowRoot.activeElement) {
  focused = focused.shadowRoot.activeElement;
}
if (!focused) return null;
const control = parts.control(focused);
if (!["allow", "always", "deny"].includes(control ?? "")) return null;
/** Whether `node` is inside `card`, across shadow boundaries. */
const inside = (node, card) => {
  for (let at = node; at; at = at.parentNode || at.host) if (at === card) return true;
  return false;
};
return parts.look().parts("approval").some((card) => inside(focused, card)) ? control : null;""")
# Page script: the id of every handoff target on the page, in page order.
TARGET_IDS_SCRIPT = in_page("return parts.look().targets().map(({id}) => id);")


class DockView:
    """What the assistant on `page` shows, as `driver` finds it (the page contract's by
    default); works with or without pytest."""

    def __init__(self, page: Page, driver: DriverSpec | None = None) -> None:
        self.page = page
        self.driver = DockDriver(page, driver or default_driver())
        spec = self.driver.spec
        self.root = page.locator(spec.dock.root)
        self.input = page.locator(spec.dock.input)
        self.send_button = page.locator(spec.dock.send)
        self.approval = page.locator(spec.approval.card).and_(
            page.locator(f":not({DECIDED_SELECTOR})")).filter(visible=True)
        """The approval card waiting for a decision (at most one is on screen)."""
        self.approve_button = self.approval.locator(spec.approval.allow)
        self.deny_button = self.approval.locator(spec.approval.deny)

    @property
    def spec(self) -> DriverSpec:
        return self.driver.spec

    # ---- reading: the assistant ------------------------------------------------------------

    @property
    def busy(self) -> Locator:
        """The busy marker: in the DOM exactly while a turn runs."""
        return self.driver.locate(self.spec.dock.busy, "dock.busy")

    @property
    def new_conversation_button(self) -> Locator:
        return self.driver.locate(self.spec.dock.new_conversation, "dock.new_conversation")

    def messages(self, role: Role | None = None, *, code: str | None = None) -> Locator:
        """Conversation messages, optionally of one role (user, assistant, notice, error) and
        reporting one outcome code (`PERMISSION_DENIED`, `MODEL_UNAVAILABLE`, ...)."""
        if code is not None:
            self._require_codes()
        return self.driver.messages(role, code=code)

    def last_message(self, role: Role, *, code: str | None = None) -> Locator:
        """The newest message of `role`, only if it reports `code` when one is given: ``expect(
        dock.last_message("notice", code="PERMISSION_DENIED")).to_be_attached()``."""
        last = self.messages(role).last
        return last if code is None else last.and_(self.messages(role, code=code))

    def last_assistant_text(self) -> str:
        """The text of the newest assistant message ("" if there is none)."""
        assistant = self.messages("assistant")
        return assistant.last.inner_text() if assistant.count() else ""

    # ---- reading: the approval card --------------------------------------------------------

    def approval_for(self, action: str | None = None, *, policy: str | None = None) -> Locator:
        """The card waiting for a decision, narrowed to `action` and the `policy` it shows
        (`ask` or `ask-always`): ``expect(dock.approval_for("archive_workspace",
        policy="ask-always")).to_be_visible()``."""
        card = self.approval
        if action is not None:
            card = self.driver.where(card, self.spec.approval.action, action)
        if policy is not None:
            reading = self.spec.require(self.spec.approval.policy, "approval.policy")
            card = self.driver.where(card, reading, policy)
        return card

    @property
    def approve_always_button(self) -> Locator:
        """"Always allow" on the waiting card (the page contract offers it only for `ask`)."""
        return self.approval.locator(self.driver.css(self.spec.approval.always,
                                                     "approval.always"))

    @property
    def decision_controls(self) -> Locator:
        """Every decision control on the waiting card (Allow, Deny and, where the driver has
        one, Always allow)."""
        controls = [self.spec.approval.allow, self.spec.approval.deny]
        if isinstance(self.spec.approval.always, str):
            controls.append(self.spec.approval.always)
        return self.approval.locator(", ".join(f":is({control})" for control in controls))

    @property
    def approval_description(self) -> Locator:
        """The action's description on the waiting card, as the user reads it."""
        return self.approval.locator(self.driver.css(self.spec.approval.description,
                                                     "approval.description"))

    @property
    def approval_args(self) -> Locator:
        """The arguments the action will run with, as the waiting card shows them."""
        return self.approval.locator(self.driver.css(self.spec.approval.arguments,
                                                     "approval.arguments"))

    # ---- reading: the handoff panel --------------------------------------------------------

    @property
    def handoff(self) -> Locator:
        """The handoff panel on screen."""
        return self.page.locator(self._handoff_part("panel")).filter(visible=True)

    def handoff_for(self, action: str) -> Locator:
        """The handoff panel on screen for `action`."""
        handoff = self.spec.require(self.spec.handoff, "handoff")
        return self.driver.where(self.handoff, handoff.action, action)

    @property
    def handoff_reason(self) -> Locator:
        return self.handoff.locator(self._handoff_part("reason"))

    @property
    def handoff_steps(self) -> Locator:
        return self.handoff.locator(self._handoff_part("step"))

    def handoff_step(self, index: int | None = None, *, target: str | None = None,
                     current: bool = False) -> Locator:
        """The panel's steps, narrowed to the `index`-th (from 0), the one pointing at
        `target`, and the current one: ``expect(dock.handoff_step(1, current=True))
        .to_be_visible()`` says the second step is the current one."""
        steps = self.handoff_steps
        if index is not None:
            steps = steps.nth(index)
        if target is not None:
            handoff = self.spec.require(self.spec.handoff, "handoff")
            reading = self.spec.require(handoff.step_target, "handoff.step_target")
            steps = self.driver.where(steps, reading, target)
        if current:
            steps = steps.and_(self.page.locator(self._handoff_part("current_step")))
        return steps

    @property
    def handoff_current_step(self) -> Locator:
        return self.handoff_step(current=True)

    @property
    def handoff_timer(self) -> Locator:
        """The time left, as the panel shows it (`pling_harness.time_left` matches it)."""
        return self.handoff.locator(self._handoff_part("timer"))

    @property
    def handoff_done_button(self) -> Locator:
        return self.handoff.locator(self._handoff_part("done"))

    @property
    def handoff_cancel_button(self) -> Locator:
        return self.handoff.locator(self._handoff_part("cancel"))

    @property
    def handoff_next_button(self) -> Locator:
        return self.handoff.locator(self._handoff_part("next"))

    @property
    def handoff_back_button(self) -> Locator:
        return self.handoff.locator(self._handoff_part("back"))

    # ---- reading: highlights and targets ---------------------------------------------------

    @property
    def highlights(self) -> Locator:
        """Every highlight overlay on the page."""
        highlight = self.spec.require(self.spec.highlight, "highlight")
        return self.page.locator(highlight.overlay)

    def highlight(self, target: str) -> Locator:
        """The overlay of the handoff step pointing at `target`."""
        highlight = self.spec.require(self.spec.highlight, "highlight")
        return self.driver.where(self.highlights, highlight.target, target)

    @property
    def highlighted(self) -> Locator:
        """The elements marked as under a highlight."""
        highlight = self.spec.require(self.spec.highlight, "highlight")
        return self.driver.locate(highlight.marked, "highlight.marked")

    def target_ids(self) -> list[str]:
        """The id of every handoff target on the page (n/a for a driver that names none)."""
        self.spec.require(self.spec.targets, "targets")
        ids = self.page.evaluate(TARGET_IDS_SCRIPT, {"driver": self.spec.for_the_page()})
        return [str(target) for target in ids if target is not None]

    def focused_decision(self) -> str | None:
        """The decision control of the waiting card that has the keyboard focus ("allow",
        "always", "deny"), else None."""
        decision = self.page.evaluate(FOCUSED_DECISION_SCRIPT,
                                      {"driver": self.spec.for_the_page()})
        return None if decision is None else str(decision)

    def target(self, target: str | None = None) -> Locator:
        """The page's element for handoff target `target` (every target when None)."""
        kinds = self.spec.require(self.spec.targets, "targets")
        found = [self.page.locator(kind.element) for kind in kinds]
        if target is not None:
            found = [self.driver.where(elements, kind.id, target)
                     for elements, kind in zip(found, kinds, strict=True)]
        return self.driver.union(found)

    # ---- parts ----------------------------------------------------------------------------

    def has_handoff_part(self, name: str) -> bool:
        """Whether the page's handoff has the part `name` (`next`, `back`, `done`): false where
        its driver declares it absent (the AI SDK page's current step follows the code
        field, with no Next or Back)."""
        handoff = self.spec.handoff
        return not isinstance(handoff, Absent) and not isinstance(getattr(handoff, name), Absent)

    def _handoff_part(self, name: str) -> str:
        handoff = self.spec.require(self.spec.handoff, "handoff")
        return self.driver.css(getattr(handoff, name), f"handoff.{name}")

    def _require_codes(self) -> None:
        if all(kind.code is None for kind in self.spec.messages):
            raise NotObservable(self.spec.name, "messages.code",
                                "no message the driver names reports an outcome code")

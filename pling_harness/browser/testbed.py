"""Testbed: a page object for the bare testbed page (`/testbed/`), where a check declares any
action it needs (policy rows, scopes, handoffs the tutorial's page lacks), and the server's record
of the business calls those actions made. The page's own API, `window.plingTestbed`, is
documented at the top of `pling_harness/web/testbed/testbed.js`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from playwright.sync_api import Locator, Page

from pling_harness.browser.clicks import user_click
from pling_harness.browser.testbed_scripts import TestbedScripts
from pling_harness.server.testbed_calls import TestbedCall

_DECLARE = "decl => window.plingTestbed.declare(decl)"
_DECLARE_OR_REFUSAL = """decl => {
  try { window.plingTestbed.declare(decl); return null; } catch (error) { return String(error); }
}"""
# What a user types into a handoff action's field unless a check says otherwise.
DEFAULT_INPUT = "42"


class TestbedCallRecord(Protocol):
    """The server's record of the testbed's business calls: the fixture server's own
    (`TestbedCalls`) or, for a page served elsewhere, read from it (`ExternalTestbed`)."""

    def calls(self, action: str | None = None) -> list[TestbedCall]: ...


class Testbed:
    """The testbed page, driven as its script and its user would drive it.

    Declaring goes through the page's own `window.plingTestbed` (as a page registers its
    actions); `finish(action)` does a testbed handoff's two steps the way a person does
    (types into the field, clicks Finish); `calls()` is what the actions sent the server.
    """

    __test__ = False  # a page object, not a test class, whatever pytest makes of its name

    def __init__(self, page: Page, calls: TestbedCallRecord) -> None:
        self.page = page
        self._calls = calls
        self.scripts = TestbedScripts(page)

    # ---- declaring ---------------------------------------------------------------------

    def declare(self, declaration: Mapping[str, Any]) -> dict[str, str]:
        """Register an action with a labelled button; returns `{"id", "policy"}`. `None`
        fields count as absent; a declaration the runtime refuses raises (Playwright Error)."""
        declared: dict[str, str] = self.page.evaluate(_DECLARE, dict(declaration))
        return declared

    def refusal(self, declaration: Mapping[str, Any]) -> str | None:
        """Try to declare; None if the runtime took it, else its refusal (the error, as text)."""
        refused: str | None = self.page.evaluate(_DECLARE_OR_REFUSAL, dict(declaration))
        return refused

    def undeclare(self, action: str) -> None:
        self.page.evaluate("id => window.plingTestbed.undeclare(id)", action)

    def set_enabled(self, action: str, enabled: bool) -> None:
        """The runtime's on/off switch for `action`."""
        self.page.evaluate("([id, on]) => window.plingTestbed.setEnabled(id, on)",
                           [action, enabled])

    def activate_scope(self, name: str) -> None:
        self.page.evaluate("name => window.plingTestbed.activateScope(name)", name)

    def deactivate_scope(self, name: str) -> None:
        """Undo one activation of scope `name`."""
        self.page.evaluate("name => window.plingTestbed.deactivateScope(name)", name)

    # ---- the page's controls -----------------------------------------------------------

    def button(self, action: str) -> Locator:
        """The button `declare` made for `action` (its bound element)."""
        return self.page.get_by_test_id(f"testbed-action-{action}")

    def input(self, action: str) -> Locator:
        """A handoff action's field (step 1's target)."""
        return self.page.get_by_test_id(f"testbed-input-{action}")

    def disable_button(self, action: str) -> None:
        """The page disables `action`'s button (its `disabled` property)."""
        self.button(action).evaluate("button => { button.disabled = true; }")

    def remove_button(self, action: str) -> None:
        """The page removes `action`'s button from the document."""
        self.button(action).evaluate("button => button.remove()")

    def set_input_type(self, action: str, input_type: str, value: str | None) -> None:
        """The page turns a handoff action's field into an `<input type=input_type>` with
        `value` (`None`: the value left as the new type makes it)."""
        self.input(action).evaluate(
            """(input, [type, value]) => {
              input.type = type;
              if (value !== null) input.value = value;
            }""", [input_type, value])

    def finish_button(self, action: str) -> Locator:
        """A handoff action's Finish button (step 2's target)."""
        return self.page.get_by_test_id(f"testbed-finish-{action}")

    def finish(self, action: str, value: str = DEFAULT_INPUT) -> None:
        """Do a testbed handoff as its user: click the field, type `value`, click Finish."""
        user_click(self.input(action))
        self.page.keyboard.type(value)
        user_click(self.finish_button(action))

    # ---- what reached the server -------------------------------------------------------

    def calls(self, action: str | None = None) -> list[TestbedCall]:
        """The business calls the testbed's actions made (all, or `action`'s), in order."""
        return self._calls.calls(action)

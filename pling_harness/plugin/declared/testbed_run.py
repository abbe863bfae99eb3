"""Generated checks over a tutorial's testbed table (`testbed-actions.json`): the runtime's own
rules, each row declared on the testbed page and run through the same `DeclaredRun` moves as
a tutorial's action. Opening declares the row there (and makes the model call it when the
user asks for it by id); its run is the testbed's `POST /api/testbed/run/<id>`, which the
fixture server records, so "it ran" is read at the server. Where the page is served
elsewhere without a testbed, each is n/a (`external.require_testbed`, via the `testbed`
fixture)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from playwright.sync_api import Page

from pling_harness.browser.pages import reload_page
from pling_harness.browser.testbed import Testbed
from pling_harness.plugin.declared.context import DeclaredRun
from pling_harness.plugin.declared.matrix import DeclaredCheck
from pling_harness.project.action_table import ActionTable
from pling_harness.project.testbed_table import PageMove, TestbedRow, TestbedTable, action_id

# A testbed row's checks lead with this, so `-k testbed` selects them all.
TESTBED_PREFIX = "testbed-"
# What each of a row's `page` moves does on the testbed (to the action, in the row's scope).
PAGE_MOVES: dict[PageMove, Callable[[Testbed, str, str], None]] = {
    "activate-scope": lambda testbed, _, scope: testbed.activate_scope(scope),
    "deactivate-scope": lambda testbed, _, scope: testbed.deactivate_scope(scope),
    "switch-off": lambda testbed, action, _: testbed.set_enabled(action, False),
    "switch-on": lambda testbed, action, _: testbed.set_enabled(action, True),
    "disable-button": lambda testbed, action, _: testbed.disable_button(action),
    # The page contract counts `aria-disabled="true"` as disabled.
    "aria-disable-button": lambda testbed, action, _: testbed.button(action).evaluate(
        "button => button.setAttribute('aria-disabled', 'true')"),
    "remove-button": lambda testbed, action, _: testbed.remove_button(action),
}


def checks_of_testbed_rows(table: TestbedTable) -> list[DeclaredCheck]:
    """Every check a testbed row implies: the card (or none) of its policy, for a row that
    asks the session grant of `ask` or its absence under `ask-always` (both how the policy
    was resolved), and on the first row of each asking policy approval before its run and
    denial respected: what follows a card is the executor's, the same whichever row's
    declaration resolved to that policy, so once per policy is enough. A handoff row's
    check is its timeout: the countdown from, and the end at, its declared value. A row
    the page moves (`page`) is checked for what they leave: its call refused before any
    prompt, or asking and running again."""
    found: list[DeclaredCheck] = []
    decided: set[str] = set()  # asking policies whose approval and denial are checked
    for name, row in table.rows.items():
        checks: list[tuple[str, tuple[str, ...]]] = []
        if row.page is not None:  # what the page's moves leave is all it is checked for
            checks.append(("refused-before-prompt" if row.refused else "asks-and-runs-again",
                           ("rejected-before-prompt",)))
        elif row.policy == "handoff":
            checks.append(("handoff-timeout", ("handoff-custom-timeout",)))
        else:
            checks.append(("policy-table", ("policy-table",)))
        if row.page is None and row.policy in ("ask", "ask-always") \
                and row.policy not in decided:
            decided.add(row.policy)
            checks += [
                ("approval-before-side-effects", ("approval-before-side-effects",)),
                ("denial-respected", ("denial-respected", "no-silent-retry")),
            ]
        if row.page is None and row.policy in ("ask", "ask-always"):
            checks.append(("session-grant-for-ask", ("session-grant-for-ask",))
                          if row.policy == "ask"
                          else ("ask-always-never-granted", ("ask-always-never-granted",)))
        found += [DeclaredCheck(f"{TESTBED_PREFIX}{name}", check, guarantees)
                  for check, guarantees in checks]
    return found


@dataclass
class TestbedRun(DeclaredRun):
    """A `DeclaredRun` whose action is a testbed row: `open` opens the testbed page (the
    `testbed` fixture's) and declares the row there; a reload declares it again, as a page
    registers its actions on every load."""

    __test__ = False

    testbed_table: TestbedTable | None = None
    row_name: str = ""
    open_testbed: Callable[[], Testbed] | None = None
    testbed: Testbed | None = None
    # A testbed handoff's timeout is any declared value, not a tutorial's own.
    timeout_guarantee: ClassVar[str] = "handoff-custom-timeout"

    def open(self, state: Mapping[str, Any] | None = None) -> Page:
        assert self.open_testbed is not None and state is None
        self.testbed = self.open_testbed()
        self.page = self.testbed.page
        self._declare()
        assert self.testbed_table is not None
        words = re.escape(self.request_words()) + r"(?!\w)"
        self.model.when_user(words, self.action, self.testbed_table.call_arguments(self.row_name))
        return self.page

    def reload(self) -> None:
        assert self.page is not None
        reload_page(self.page)
        self._declare()

    def _declare(self) -> None:
        assert self.testbed is not None and self.testbed_table is not None
        declaration = self.testbed_table.declaration(self.row_name)
        self.testbed.declare(declaration)
        row = self.testbed_row()
        for move in row.page if row.page is not None else \
                ("activate-scope",) if row.scope is not None else ():
            PAGE_MOVES[move](self.testbed, self.action, row.scope or "")

    def testbed_row(self) -> TestbedRow:
        assert self.testbed_table is not None
        return self.testbed_table.rows[self.row_name]

    def request_words(self) -> str:
        return self.say(self.row.asked_with, id=self.action)

    def handoff_timeout_ms(self) -> int:
        handoff = self.testbed_row().handoff
        assert handoff is not None
        return handoff.timeout


def run_of_testbed_row(declared: DeclaredCheck, table: TestbedTable | None,
                open_testbed: Callable[[], Testbed], **fixtures: Any) -> DeclaredRun | None:
    """The run of `declared` if it is a testbed row's check, else None. `fixtures` are the
    `DeclaredRun` fields every generated check fills."""
    if table is None or not declared.action.startswith(TESTBED_PREFIX):
        return None
    name = declared.action.removeprefix(TESTBED_PREFIX)
    row = table.action_row(name)
    # Not validated again: a handoff row's action row has no handoff block on purpose
    # (TestbedTable.action_row).
    return TestbedRun(action=action_id(name), row=row,
                      table=ActionTable.model_construct(actions={action_id(name): row}),
                      testbed_table=table, row_name=name, open_testbed=open_testbed,
                      **fixtures)

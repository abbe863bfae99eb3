"""Generated check that the rendered page speaks only its locale (SPEC §6), once per locale:
`<html lang>`, then a walk through every state the dock can be in, each reached through an
action of the table that can show it (busy, a reply, a card of each asking policy and its
denial, the handoff panel, its cancel, its Done without the effect, its timeout, a failed
run, the turn's cap, a call of an action the page does not offer, a gateway error). In each
state no copy key is shown raw, no placeholder unfilled, no word of another language (ids
and data shown as they are aside) and no term the glossary rules out."""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from playwright.sync_api import Route, expect

from pling_harness.evidence.guarantees import GuaranteeViolation
from pling_harness.plugin.declared import copy_notices
from pling_harness.plugin.declared.context import DeclaredRun
from pling_harness.project.action_table import ActionRow
from pling_harness.project.dock_driver import Absent, NotObservable
from pling_harness.project.texts import dock_copy, page_copy
from pling_harness.server.model import ProviderUnavailable
from pling_harness.server.model.handle import calling, tool_call

NAME = "bilingual-copy"
# A {placeholder} left unfilled on the rendered page.
UNFILLED_PLACEHOLDER = re.compile(r"\{[A-Za-z_]\w*\}")
# An action no page offers, which the model calls: the dock reports UNKNOWN_ACTION.
BOGUS_ACTION = "purge_everything"
# Everything the user can read: the text, the title, and labels that only assistive
# technology or a hover shows.
COLLECT_TEXT = """() => {
  const texts = [document.title, document.body.innerText];
  for (const element of document.querySelectorAll("[aria-label],[placeholder],[title]")) {
    for (const name of ["aria-label", "placeholder", "title"]) {
      const value = element.getAttribute(name);
      if (value) texts.push(value);
    }
  }
  return texts.join("\\n");
}"""


@dataclass
class Walk:
    """The page under walk, and what it has shown that is not its locale, by state."""

    run: DeclaredRun
    keys: list[str]
    found: dict[str, list[str]] = field(default_factory=dict)
    reported: set[str] = field(default_factory=set)

    def of(self, action: str) -> DeclaredRun:
        """The run, about `action` (same page, same fixtures)."""
        return replace(self.run, action=action, row=self.run.table.actions[action])

    def identifiers(self) -> list[str]:
        """Ids and data shown as they are: the page's targets, the actions and argument names
        the model was offered, the values it called them with, the result codes it received
        (a reply may name one, as the runtime's gateway error does), the business state's
        text."""
        run = self.run
        codes = [code for code in run.model.result_codes() if code != "OK"]  # "OK" is a word
        names = [BOGUS_ACTION, *run.dock.target_ids(), *codes]
        for name, function in (run.model.offered_tools() if run.model.requests else {}).items():
            names += [name, *(str(key) for key in function.parameters.get("properties", {}))]
        for call in run.model.tool_calls():
            with contextlib.suppress(ValueError):
                arguments = json.loads(call.arguments or "{}")
                names += [str(v) for v in (arguments.values() if isinstance(arguments, dict)
                                           else []) if isinstance(v, str)]
        return names + [v for v in run.state().fields().values() if isinstance(v, str)]

    def collect(self, state: str, text: str | None = None) -> None:
        assert self.run.page is not None
        shown = text if text is not None else str(self.run.page.evaluate(COLLECT_TEXT))
        # Earlier messages stay on screen: report a problem where it first appeared.
        fresh = [p for p in self.problems(shown) if p not in self.reported]
        self.reported.update(fresh)
        if fresh:
            self.found[state] = fresh

    def problems(self, text: str) -> list[str]:
        glossary, locale = self.run.words.glossary, self.run.locale
        found = [f"raw copy key {key!r}" for key in self.keys if key in text]
        found += [f"unfilled placeholder {p!r}" for p in sorted(set(
            UNFILLED_PLACEHOLDER.findall(text)))]
        # No variant the glossary rules out (人工接管), whoever wrote the text.
        found += glossary.term_problems(locale, text, None)
        return found + glossary.language_problems(
            locale, UNFILLED_PLACEHOLDER.sub(" ", text), identifiers=self.identifiers())

    def report(self) -> str:
        locale = self.run.locale
        return (f"the {locale} page shows text that is not {locale}:\n"
                + "\n".join(f"  {state}: {'; '.join(problems)}"
                            for state, problems in self.found.items()))

    def notice(self, move: Callable[[DeclaredRun], str], action: str) -> None:
        """Make `move` about `action`, then look at its notice."""
        self.shown_notice(move(self.of(action)), action)

    def shown_notice(self, code: str, action: str) -> None:
        try:
            expect(self.run.dock.messages("notice", code=code).last).to_be_attached()
        except AssertionError:
            raise GuaranteeViolation(NAME, f"the walk's move for {action} should bring up a "
                                     f"{code} notice; the dock shows none", self.run.timeline
                                     ) from None
        self.collect(f"{code} notice ({action})")


def _first(run: DeclaredRun, wanted: Callable[[ActionRow], bool]) -> str | None:
    """The first action the walk can take on the initial state (one whose row starts from
    another state is left to its own generated checks)."""
    return next((a for a, row in run.table.actions.items()
                 if not row.starts_from and wanted(row)), None)


def _with_policy(policy: str) -> Callable[[ActionRow], bool]:
    return lambda row: row.policy == policy


def _busy_then(walk: Walk, first: Callable[[], None]) -> None:
    """Look while the first model request is in flight, then let it through."""
    run = walk.run
    assert run.page is not None
    seen: dict[str, Any] = {}

    def look_then_answer(route: Route) -> None:
        seen["busy shown"] = run.dock.busy.is_visible()
        seen["text"] = str(run.page.evaluate(COLLECT_TEXT)) if run.page else ""
        route.continue_()

    run.page.route(f"**{run.dock.spec.conversation_path('/api/model')}", look_then_answer,
                   times=1)
    first()
    if not seen.get("busy shown"):
        raise GuaranteeViolation(NAME, "the busy marker was not shown during the model "
                                 "request", run.timeline)
    walk.collect("busy (model request in flight)", seen["text"])


def page_speaks_its_locale(run: DeclaredRun) -> None:
    root, tutorial, locale = run.served.root, run.served.tutorial, run.locale
    run.page = page = run.open_tutorial_page(state=None)
    lang = str(page.evaluate("() => document.documentElement.lang"))
    if lang.split("-")[0].lower() != locale:
        raise GuaranteeViolation(NAME, f"<html lang={lang!r}> on the {locale} page",
                                 run.timeline)
    # The page's own keys, every locale's: a key missing from one shows up as itself.
    keys = {key for each in tutorial.locales
            for key in {**page_copy(root, tutorial, each), **(dock_copy(root, tutorial, each)
                                                               or {})}}
    walk = Walk(run=run, keys=sorted(keys))
    walk.collect("initial page")
    try:
        _walk_the_dock(walk)
    except AssertionError as stopped:
        # What the walk saw before a move failed is a break of its own: never hidden by it.
        if not walk.found:
            raise
        problem = stopped.problem if isinstance(stopped, GuaranteeViolation) \
            else str(stopped).split("\n", 1)[0]
        raise GuaranteeViolation(NAME, f"{walk.report()}\nand then the walk stopped: "
                                 f"{problem}", run.timeline) from stopped
    if walk.found:
        raise GuaranteeViolation(NAME, walk.report(), run.timeline)


def _walk_the_dock(walk: Walk) -> None:
    run = walk.run
    first_action = next(iter(run.table.actions))
    reader = _first(run, lambda row: row.policy == "none")
    # A card of each asking policy ("always allow" on one, not on the other).
    asking = {policy: action for policy in ("ask", "ask-always")
              if (action := _first(run, _with_policy(policy))) is not None}
    handoff = _first(run, lambda row: row.policy == "handoff")
    writer = _first(run, lambda row: row.policy != "handoff" and row.calls is not None
                    and row.calls.method != "GET")

    def first_turn() -> None:
        if reader is not None:  # the model's own reply, in the locale
            walk.of(reader).ask()
        else:
            run.model.script({"role": "assistant", "content": "…"})
            walk.of(first_action).ask()

    _busy_then(walk, first_turn)
    walk.collect("conversation")
    for action in asking.values():
        sub = walk.of(action)
        sub.ask()
        expect(run.dock.approval_for(action)).to_be_visible()
        walk.collect(f"approval card ({sub.row.policy})")
        sub.dock.deny()
        walk.shown_notice("PERMISSION_DENIED", action)
    if handoff is not None:
        walk.of(handoff).ask()
        expect(run.dock.handoff_for(handoff)).to_be_visible()
        walk.collect("handoff panel")
        run.dock.handoff_cancel()
        walk.shown_notice("HANDOFF_CANCELLED", handoff)
        walk.notice(copy_notices.done_without_effect, handoff)
        with contextlib.suppress(NotObservable):  # no timer: its generated check is n/a
            walk.notice(copy_notices.let_handoff_time_out, handoff)
    if writer is not None:
        with contextlib.suppress(NotObservable):  # held at the network: n/a there too
            walk.notice(copy_notices.fail_business_answer, writer)
    if reader is not None:
        _into_the_cap(walk, reader)
    _rejected_and_gateway(walk, first_action)


def _into_the_cap(walk: Walk, reader: str) -> None:
    """The turn's cap (the driver's), its notice where the stop is told, else the page as the
    silent stop leaves it; nothing where the driver declares no cap a turn."""
    with contextlib.suppress(NotObservable):
        if isinstance(walk.run.dock.spec.loop_caps.stop_told, Absent):
            copy_notices.run_into_the_cap(walk.of(reader))
            walk.collect(f"the turn's cap, stopped without a notice ({reader})")
        else:
            walk.notice(copy_notices.keep_calling, reader)


def _rejected_and_gateway(walk: Walk, action: str) -> None:
    run = walk.of(action)
    run.model.script(calling(tool_call("call_walk_unknown", BOGUS_ACTION)))
    run.ask()
    expect(run.dock.messages("notice", code="UNKNOWN_ACTION").last).to_be_attached()
    walk.collect("rejected call (UNKNOWN_ACTION)")
    # A framework that tells the page only that the run failed (the driver's
    # provider_fault_codes absent) shows its own code, never the fault's: a new error is what
    # to read then.
    told = None if isinstance(run.dock.spec.provider_fault_codes, Absent) else "MODEL_UNAVAILABLE"
    errors = run.dock.messages("error", code=told)
    shown = errors.count()
    run.model.script(ProviderUnavailable("the provider answered 500"))
    run.ask()
    expect(errors.nth(shown)).to_be_attached()
    walk.collect("gateway error")

"""Guarantees that look at the live page as it is now (the card on screen, boxes, the
assistant's last words) through `timeline.page`, often together with the record; ask them
while the page is open."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from playwright.sync_api import Page, expect

from pling_harness.browser.dock import Dock
from pling_harness.evidence.guarantees.record import no_business_request, state_unchanged
from pling_harness.evidence.guarantees.violation import fail, listed, results_for, since_or_ready
from pling_harness.evidence.records import Mark
from pling_harness.evidence.timeline import Timeline
from pling_harness.project.dock_driver import Reading
from pling_harness.project.hidden_characters import describe, has_hidden, is_hidden, visible_form
from pling_harness.project.texts import Words

# How long a DOM-reading guarantee waits for the UI it inspects to be on screen.
UI_TIMEOUT_MS = 5_000
_NOT_BLANK = re.compile(r"\S")


def live_page(timeline: Timeline) -> Page:
    """The page the timeline is attached to, which these guarantees read."""
    if timeline.page is None:
        raise RuntimeError("this guarantee reads the DOM: attach the Timeline to a page first")
    return timeline.page


def live_dock(timeline: Timeline) -> Dock:
    """The assistant on the timeline's page, read through the timeline's dock driver."""
    return Dock(live_page(timeline), timeline.driver)


def denial_respected(timeline: Timeline, *, action: str, since: Mark,
                     success_phrases: Sequence[str]) -> None:
    """After Deny: the model got PERMISSION_DENIED, nothing was requested or changed, the
    page shows the denial as the call's outcome (a notice reporting PERMISSION_DENIED, where
    the driver reads outcome codes), and the assistant does not claim success (its last text
    contains none of `success_phrases`)."""
    name = "denial-respected"
    results = results_for(timeline, action, since)
    if not results or any(r.code != "PERMISSION_DENIED" for r in results):
        raise fail(name, f"expected the model to receive PERMISSION_DENIED for {action}, "
                    f"it received: {listed([r.describe() for r in results])}", timeline)
    no_business_request(timeline, since=since, guarantee=name)
    state_unchanged(timeline, since=since, guarantee=name)
    denial_shown(timeline, action=action, guarantee=name)
    no_success_claim(timeline, success_phrases=success_phrases, guarantee=name)


def denial_shown(timeline: Timeline, *, action: str, guarantee: str) -> None:
    """The page tells the user the denied call's outcome: a notice reporting PERMISSION_DENIED
    is in the conversation (a call left looking pending, e.g. vercel/ai#17136, fails). Not
    asked of a driver whose messages report no outcome code."""
    dock = live_dock(timeline)
    if all(kind.code is None for kind in dock.spec.messages):
        return
    try:
        expect(dock.messages("notice", code="PERMISSION_DENIED").last).to_be_attached(
            timeout=UI_TIMEOUT_MS)
    except AssertionError:
        raise fail(guarantee, f"the page never showed the denial of {action} as its outcome: "
                    "no notice reporting PERMISSION_DENIED is in the conversation",
                    timeline) from None


def no_success_claim(timeline: Timeline, *, success_phrases: Sequence[str],
                     guarantee: str = "no-success-claim") -> None:
    """The assistant's last message contains none of the success phrases (case-insensitive)."""
    text = live_dock(timeline).last_assistant_text()
    claimed = [p for p in success_phrases if p and p.casefold() in text.casefold()]
    if claimed:
        raise fail(guarantee, f"the assistant claims success ({listed(claimed)}) in "
                    f"{text!r}", timeline)


def always_allow_offered(timeline: Timeline, *, action: str) -> None:
    """The card on screen for `action` has policy `ask` (where the card says its policy) and
    an "always allow" control. n/a on an assistant that never offers one."""
    name = "always-allow-offered"
    dock = live_dock(timeline)
    says_policy = isinstance(dock.spec.approval.policy, Reading)
    always = dock.approve_always_button
    try:
        expect(dock.approval_for(action)).to_be_visible(timeout=UI_TIMEOUT_MS)
        if says_policy:
            expect(dock.approval_for(action, policy="ask")).to_be_visible(timeout=UI_TIMEOUT_MS)
        expect(always).to_be_visible(timeout=UI_TIMEOUT_MS)
    except AssertionError as error:
        raise fail(name, f"the approval for {action} offers no 'always allow': "
                    f"{str(error).splitlines()[0]}", timeline) from None


# Page script: the parts of the card's argument text (the element and everything in it) whose
# content overflows a box that hides the rest, i.e. text the user cannot see or scroll to.
_CLIPPED_PARTS = """args => [args, ...args.querySelectorAll("*")].flatMap(element => {
  const style = getComputedStyle(element);
  const hides = value => value === "hidden" || value === "clip";
  const cut = [];
  if (hides(style.overflowX) && element.scrollWidth > element.clientWidth + 1) cut.push("width");
  if (hides(style.overflowY) && element.scrollHeight > element.clientHeight + 1) cut.push("height");
  return cut.map(side => `${element.tagName.toLowerCase()} cut in ${side}`);
})"""


# Page script: each string value on the card in document order (the driver's `value` and
# `hidden_marker` selectors), as [its text, whether a hidden-characters marker follows it
# before the next value, its computed unicode-bidi, its rendered text], then the markers'
# texts.
_SHOWN_VALUES = """(args, {value, marker}) => {
  const parts = [...args.querySelectorAll(`:is(${value}), :is(${marker})`)];
  const isMarker = part => part.matches(marker) && !part.matches(value);
  const values = [];
  parts.forEach((part, index) => {
    if (isMarker(part)) return;
    const next = parts[index + 1];
    values.push([part.textContent, next !== undefined && isMarker(next),
                 getComputedStyle(part).unicodeBidi, part.innerText]);
  });
  const markers = parts.filter(isMarker).map(part => part.innerText);
  return {values, markers};
}"""
# The computed `unicode-bidi` of an element whose content cannot reorder text outside it.
_ISOLATING = frozenset({"isolate", "isolate-override", "plaintext"})


def approval_shows_arguments(timeline: Timeline, *, action: str, values: Sequence[str],
                             words: Words,
                             guarantee: str = "approval-shows-exact-arguments") -> None:
    """The card on screen for `action` shows each of `values` whole in its arguments (page
    contract, "Approval card"): in its visible form (verbatim, with each hidden character as
    its escape and each backslash doubled), in a value element of its own isolated for bidi,
    followed by a hidden-characters marker in `words`' language exactly when it holds a
    hidden character; no hidden character is rendered as itself, and no part is hidden by a
    box too small for it (overflow hidden or clipped). n/a on an assistant whose driver
    names no argument values or markers."""
    dock = live_dock(timeline)
    selectors = {"value": dock.driver.css(dock.spec.approval.value, "approval.value"),
                 "marker": dock.driver.css(dock.spec.approval.hidden_marker,
                                           "approval.hidden_marker")}
    _card_with_arguments_shown(dock, timeline, action=action, guarantee=guarantee)
    shown = dock.approval_args.text_content() or ""
    missing = [value for value in values if visible_form(value) not in shown]
    if missing:
        raise fail(guarantee, f"the card for {action} does not show "
                    f"{listed([repr(visible_form(v)) for v in missing])} (the visible form "
                    f"of {listed([repr(v) for v in missing])}) whole; its arguments read "
                    f"{shown!r}", timeline)
    rendered = dock.approval_args.inner_text()
    raw = sorted({describe(c) for c in rendered if is_hidden(c) and c != "\n"})
    if raw:
        raise fail(guarantee, f"the card for {action} renders hidden characters as "
                    f"themselves ({listed(raw)}) instead of making them visible; its "
                    f"arguments read {rendered!r}", timeline)
    problems = _value_problems(dock, values, words, selectors)
    if problems:
        raise fail(guarantee, f"the card for {action}: {'; '.join(problems)}", timeline)
    clipped: list[str] = dock.approval_args.evaluate(_CLIPPED_PARTS)
    if clipped:
        raise fail(guarantee, f"the card for {action} hides part of its arguments: "
                    f"{listed(clipped)}", timeline)


def _card_with_arguments_shown(dock: Dock, timeline: Timeline, *, action: str,
                               guarantee: str) -> None:
    """The card for `action` and its arguments are on screen, else the guarantee fails."""
    try:
        expect(dock.approval_for(action)).to_be_visible(timeout=UI_TIMEOUT_MS)
        expect(dock.approval_args).to_be_visible(timeout=UI_TIMEOUT_MS)
    except AssertionError as error:
        raise fail(guarantee, f"no approval card with arguments for {action}: "
                   f"{str(error).splitlines()[0]}", timeline) from None


# Page script: each value element on the card, as [its text, its rendered text].
_VALUE_TEXTS = """(args, value) => [...args.querySelectorAll(value)].map(
  part => [part.textContent, part.innerText])"""


def approval_shows_whole_values(timeline: Timeline, *, action: str, values: Sequence[str],
                                guarantee: str = "approval-shows-exact-arguments") -> None:
    """The card on screen for `action` shows each of `values` (plain text: no hidden
    character, no backslash) whole, in a value element of its own: its text is the value,
    its rendered text too (spaces kept, none collapsed or trimmed), and no part of the
    arguments is hidden by a box too small for it. Needs only the driver's `approval.value`
    (hidden characters and their marker: `approval_shows_arguments`)."""
    dock = live_dock(timeline)
    value = dock.driver.css(dock.spec.approval.value, "approval.value")
    _card_with_arguments_shown(dock, timeline, action=action, guarantee=guarantee)
    shown = [(str(text), str(rendered)) for text, rendered
             in dock.approval_args.evaluate(_VALUE_TEXTS, value)]
    problems = []
    for wanted in values:
        matches = [rendered for text, rendered in shown if text == wanted]
        if not matches:
            problems.append(f"no value element reads {wanted!r} (the values read "
                            f"{listed([repr(text) for text, _ in shown])})")
        elif matches[0] != wanted:
            problems.append(f"the value {wanted!r} is rendered as {matches[0]!r}")
    if problems:
        raise fail(guarantee, f"the card for {action} does not show its values whole: "
                    f"{'; '.join(problems)}", timeline)
    clipped: list[str] = dock.approval_args.evaluate(_CLIPPED_PARTS)
    if clipped:
        raise fail(guarantee, f"the card for {action} hides part of its arguments: "
                    f"{listed(clipped)}", timeline)


def _value_problems(dock: Dock, values: Sequence[str], words: Words,
                    selectors: dict[str, str]) -> list[str]:
    """How the card's value elements and markers break the contract for `values`."""
    found: dict[str, list[Any]] = dock.approval_args.evaluate(_SHOWN_VALUES, selectors)
    shown = [tuple(entry) for entry in found["values"]]
    markers = [str(marker) for marker in found["markers"]]
    problems: list[str] = []
    for value in values:
        expected = visible_form(value)
        matches = [entry for entry in shown if entry[0] == expected]
        if not matches:
            problems.append(f"no value element reads {expected!r} (the values read "
                            f"{listed([repr(entry[0]) for entry in shown])})")
            continue
        _, marked, bidi, text = matches[0]
        if bidi not in _ISOLATING:
            problems.append(f"the value {expected!r} is not isolated for bidi (unicode-bidi "
                            f"is {bidi!r}), so what it holds can move the text around it")
        inside = sorted({describe(c) for c in str(text) if is_hidden(c)})
        if inside:
            problems.append(f"the value {expected!r} renders {listed(inside)} as itself")
        if marked != has_hidden(value):
            problems.append(f"the value {expected!r} " + (
                "holds hidden characters but no hidden-characters marker follows it"
                if has_hidden(value) else "holds no hidden character but is marked as if"))
    for marker in markers:
        language = words.glossary.language_problems(words.locale, marker)
        if not _NOT_BLANK.search(marker) or language:
            problems.append(f"the hidden-characters marker {marker!r} is not a "
                            f"{words.locale} text ({'; '.join(language) or 'blank'})")
    return problems


def approval_still_open(timeline: Timeline, *, action: str, since: Mark,
                        guarantee: str = "approval-only-by-click") -> None:
    """The card for `action` that was on screen at `since` is still there, undecided: it did
    not leave or get replaced, no result went to the model, nothing was requested or changed.
    Use it after gestures that are not a click on a decision button (keys, focus, clicks
    elsewhere), which must answer nothing."""
    dock = live_dock(timeline)
    try:
        expect(dock.approval).to_have_count(1, timeout=UI_TIMEOUT_MS)
        expect(dock.approval_for(action)).to_have_count(1, timeout=UI_TIMEOUT_MS)
    except AssertionError as error:
        raise fail(guarantee, f"the approval for {action} is no longer waiting: "
                    f"{str(error).splitlines()[0]}", timeline) from None
    changes = [f"{e.kind} {e.data.part} {e.data.action}" for e in timeline.page_events(since)
               if e.kind in ("appear", "disappear") and e.data.part == "approval"]
    if changes:
        raise fail(guarantee, f"the approval card changed although no decision button was "
                    f"clicked: {listed(changes)}", timeline)
    sent = timeline.page_model_requests(since)
    received = timeline.server_records(since, kind="model.request")
    if sent or received:
        raise fail(guarantee, f"a result went to the model although the card was not answered "
                    f"(page sent {len(sent)}, server received {len(received)} model "
                    f"request(s))", timeline)
    no_business_request(timeline, since=since, guarantee=guarantee)
    state_unchanged(timeline, since=since, guarantee=guarantee)


def handoff_shows_reason_and_steps(timeline: Timeline, *, steps: int) -> None:
    """The handoff panel on screen shows a non-empty reason and exactly `steps` steps."""
    name = "handoff-shows-reason-and-steps"
    dock = live_dock(timeline)
    try:
        expect(dock.handoff_reason).to_have_text(_NOT_BLANK, timeout=UI_TIMEOUT_MS)
        expect(dock.handoff_steps).to_have_count(steps, timeout=UI_TIMEOUT_MS)
        for index in range(steps):
            expect(dock.handoff_steps.nth(index)).to_have_text(_NOT_BLANK)
    except AssertionError as error:
        raise fail(name, str(error).splitlines()[0], timeline) from None


def highlight_covers_target(timeline: Timeline, *, target: str, tolerance: float = 1.0) -> None:
    """The highlight for `target` covers the target's box (±`tolerance` px), target in view and
    marked as highlighted (the driver's `highlight.marked`)."""
    name = "highlight-covers-target"
    dock = live_dock(timeline)
    overlay = dock.highlight(target)
    element = dock.target(target)
    marked = dock.highlighted
    try:
        expect(overlay).to_be_visible(timeout=UI_TIMEOUT_MS)
        expect(element).to_be_in_viewport(timeout=UI_TIMEOUT_MS)
        expect(element.and_(marked)).to_have_count(1, timeout=UI_TIMEOUT_MS)
    except AssertionError as error:
        raise fail(name, str(error).splitlines()[0], timeline) from None
    covering, covered = overlay.bounding_box(), element.bounding_box()
    if covering is None or covered is None:
        raise fail(name, f"no box for the highlight ({covering}) or {target} ({covered})",
                    timeline)
    off = {k: round(covering[k] - covered[k], 2) for k in ("x", "y", "width", "height")}
    if any(abs(delta) > tolerance for delta in off.values()):
        raise fail(name, f"the highlight for {target} is at {covering} but the target is at "
                    f"{covered} (off by {off})", timeline)


def highlights_removed(timeline: Timeline, *, since: Mark | None = None) -> None:
    """No highlight overlay and no highlighted element remain, and each shown one went away."""
    since = since_or_ready(timeline, since)
    name = "highlights-removed"
    dock = live_dock(timeline)
    overlays, marked = dock.highlights, dock.highlighted
    try:
        expect(overlays).to_have_count(0, timeout=UI_TIMEOUT_MS)
        expect(marked).to_have_count(0, timeout=UI_TIMEOUT_MS)
    except AssertionError as error:
        raise fail(name, str(error).splitlines()[0], timeline) from None
    events = timeline.page_events(since)
    shown = sum(1 for e in events if e.kind == "appear" and e.data.part == "highlight")
    gone = sum(1 for e in events if e.kind == "disappear" and e.data.part == "highlight")
    if shown != gone:
        raise fail(name, f"{shown} highlight(s) appeared but {gone} went away", timeline)


def notice_means(timeline: Timeline, words: Words, *, code: str, action: str,
                 naming: str | None = None, guarantee: str = "notice-means") -> None:
    """The newest notice reporting `code` (its outcome code) names `action` and says what the
    glossary says a `code` notice means in `words`' locale, with no claim it must not make.

    The action is named by `naming` if given (e.g. the `desc` of an action declared out of
    scope, which the model was never offered), else by the `description` the model received
    for it, else by its id (an unknown action). Wording is never compared:
    "You did not allow X. It was not run." and "X was denied and not carried out." both pass;
    a notice saying "allowed and done" fails.
    """
    notice = live_dock(timeline).messages("notice", code=code).last
    try:
        expect(notice).to_be_attached(timeout=UI_TIMEOUT_MS)
    except AssertionError:
        raise fail(guarantee, f"no notice reporting {code} is in the dock", timeline) from None
    text = notice.inner_text()
    naming = naming or timeline.conversation().tool_description(action) or action
    problems = words.meaning_problems(text, code, naming=naming)
    if problems:
        raise fail(guarantee, f"the {words.locale} notice for {code} ({text!r}) "
                    f"{'; '.join(problems)}", timeline)


"""What the approval card shows: the arguments whole (a name at the schema's length limit, one
whose spaces matter), and exactly what `run` then sends. Characters that change how text reads
without showing (Trojan Source, CVE-2021-42574): the approval card makes them visible inside
their own value, and a workspace name holding a
control or format character is refused by the page before any request and by the server.
The rules are the page contract's ("Approval card", "The r-15 page")."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import Page, expect
from testbed_actions import GO_AHEAD, GO_AHEAD_PATTERN
from workspace_state import INITIAL_WORKSPACE

from harness import (
    Dock,
    GuaranteeViolation,
    Mark,
    ModelHandle,
    Timeline,
    TutorialServer,
    Words,
    guarantees,
)

SAVE = "save_workspace_name"
NAME_PATH = "/api/workspace/name"

# One row per class of character the contract names ("Approval card"), several characters
# each: the card must show every one as an escape, marked, inside its own isolated value.
HIDDEN_NAMES = {
    "bidi-override": "Acme\u202eTSET\u202c\u202a\u202b\u202d",
    "bidi-isolate": "Acme\u2066x\u2069\u2067y\u2068",
    "bidi-mark": "Acme\u200e\u200f\u061c",
    "zero-width": "Ac\u200bme\u200c\u200d\u2060",
    "byte-order-mark": "\ufeffAcme",
    "c0-control": "Acme\u0000\u0007\u001b\t\n",
    "c1-control-and-delete": "Acme\u007f\u0085\u009b",
    "line-and-paragraph-separator": "Acme\u2028Labs\u2029",
    "look-alike-space": "Acme\u00a0Labs\u2007\u202f\u205f\u3000\u1680",
    "other-format": "Acme\u00ad\u180e\U000e0041",
    "invisible-letter-or-mark": "Acme\u3164\u115f\ufe0f",
}
# A value that only looks like an escape: the model typed a backslash, "u" and hex digits.
# The card must not let it pass for one (its backslash is doubled) and must not mark it.
TYPED_ESCAPE = "Acme\\u202eTSET"

# Names Save must refuse, with where their first refused character is (counting characters
# from 1) and how the refusal names it.
REFUSED_NAMES = {
    "right-to-left-override": ("Acme\u202eTSET", 5, "U+202E"),
    "nul-and-override": ("\u0000\u202e", 1, "U+0000"),
    "zero-width-space": ("Ac\u200bme", 3, "U+200B"),
    "tag-character": ("Acme\U000e0041", 5, "U+E0041"),
}


def shows_position(text: str, position: int) -> bool:
    """`text` names `position` as a number of its own (not a digit of U+202E)."""
    return re.search(rf"(?<![\w+]){position}(?!\w)", text) is not None


# ---- approval-shows-exact-arguments -----------------------------------------------------


@pytest.mark.guarantee("approval-shows-exact-arguments")
@pytest.mark.parametrize("kind", list(HIDDEN_NAMES))
def test_card_makes_hidden_characters_visible_inside_the_value(
    tutorial_page: Page, dock: Dock, timeline: Timeline, model: ModelHandle, locale: str,
    words: Words, kind: str,
) -> None:
    name = HIDDEN_NAMES[kind]
    model.when_user(GO_AHEAD_PATTERN, SAVE, {"name": name})
    before = timeline.mark()
    dock.ask(GO_AHEAD[locale])

    guarantees.approval_shows_arguments(timeline, action=SAVE, values=[name], words=words)
    guarantees.no_business_request(timeline, since=before,
                                   guarantee="approval-shows-exact-arguments")
    dock.deny()


@pytest.mark.guarantee("approval-shows-exact-arguments")
def test_card_shows_a_typed_escape_as_typed_and_unmarked(
    tutorial_page: Page, dock: Dock, timeline: Timeline, model: ModelHandle, locale: str,
    words: Words,
) -> None:
    model.when_user(GO_AHEAD_PATTERN, SAVE, {"name": TYPED_ESCAPE})
    dock.ask(GO_AHEAD[locale])

    guarantees.approval_shows_arguments(timeline, action=SAVE, values=[TYPED_ESCAPE],
                                        words=words)
    dock.deny()


# ---- hidden-characters-refused ----------------------------------------------------------


@pytest.mark.guarantee("hidden-characters-refused")
@pytest.mark.parametrize("kind", list(REFUSED_NAMES))
def test_save_refuses_a_hidden_character_before_any_request(
    tutorial_page: Page, dock: Dock, timeline: Timeline, model: ModelHandle, locale: str,
    kind: str,
) -> None:
    name, position, character = REFUSED_NAMES[kind]
    model.when_user(GO_AHEAD_PATTERN, SAVE, {"name": name})
    dock.ask(GO_AHEAD[locale])
    allowed = timeline.mark()
    dock.approve()

    guarantees.model_received(timeline, action=SAVE, code="RUN_FAILED", since=allowed)
    guarantees.no_business_request(timeline, since=allowed, guarantee="hidden-characters-refused")
    guarantees.state_unchanged(timeline, since=allowed, guarantee="hidden-characters-refused")
    message = tutorial_page.get_by_test_id("workspace-message")
    expect(message).to_contain_text(character)
    shown = message.inner_text()
    told = [str((r.envelope or {}).get("message", "")) for r in timeline.tool_results(allowed)
            if r.action == SAVE]
    for where, text in [("the page's message", shown), *[("the RUN_FAILED message", t)
                                                         for t in told]]:
        if character not in text or not shows_position(text, position):
            raise GuaranteeViolation("hidden-characters-refused", f"{where} {text!r} should "
                                     f"name {character} and its position {position}", timeline)
    expect(tutorial_page.get_by_test_id("workspace-name-display")).to_have_text(
        INITIAL_WORKSPACE.name)


@pytest.mark.guarantee("hidden-characters-refused")
@pytest.mark.parametrize("kind", list(REFUSED_NAMES))
def test_server_refuses_a_hidden_character_naming_it(
    tutorial_page: Page, tutorial_server: TutorialServer, timeline: Timeline, kind: str,
) -> None:
    name, position, character = REFUSED_NAMES[kind]
    api = tutorial_page.request
    answer = api.post(f"{tutorial_server.url}{NAME_PATH}", data=json.dumps({"name": name}),
                      headers={"Content-Type": "application/json"})

    message = str(answer.json().get("message", ""))
    if answer.status != 400 or character not in message or not shows_position(message, position):
        raise GuaranteeViolation("hidden-characters-refused", f"POST {NAME_PATH} with "
                                 f"{name!r} should answer 400 naming {character} and position "
                                 f"{position}; it answered {answer.status} {answer.text()!r}",
                                 timeline)
    state = api.get(f"{tutorial_server.url}/api/workspace").json()
    assert {key: state[key] for key in INITIAL_WORKSPACE.model_dump()} == \
        INITIAL_WORKSPACE.model_dump(), f"the refused rename changed the workspace: {state}"


# Names at the schema's limit (80 characters, no space at either end) and names whose spaces
# matter: what the card shows and what run() sends must keep every one of them.
LONG_NAME = {
    "en": "Northwind Traders Asia Pacific Quarterly Planning and Supply Chain Workspace v25",
    "zh": ("北风贸易亚太区二〇二五年第三季度预算规划与供应链协同工作区" * 3)[:80],
}
SPACED_NAME = {"en": "  Acme  Labs  ", "zh": "  北风  实验室  "}
assert all(len(name) == 80 and name == name.strip() for name in LONG_NAME.values())


def bodies_sent_to(timeline: Timeline, path: str, since: Mark) -> list[object]:
    """The JSON bodies of the business calls to `path` the server received since `since`."""
    return [r.body for r in timeline.business_calls(since) if r.path == path]


# Names the card must show whole and run() must get exactly: one at the schema's limit, one
# whose spaces matter.
SHOWN_NAMES = {"at-the-length-limit": LONG_NAME, "with-spaces-kept": SPACED_NAME}


@pytest.mark.guarantee("approval-shows-exact-arguments")
@pytest.mark.parametrize("kind", list(SHOWN_NAMES))
def test_card_shows_the_name_whole_and_the_save_sends_exactly_it(
    tutorial_page: Page, dock: Dock, timeline: Timeline, tutorial_server: TutorialServer,
    model: ModelHandle, locale: str, words: Words, kind: str,
) -> None:
    name = SHOWN_NAMES[kind][locale]
    model.when_user(GO_AHEAD_PATTERN, SAVE, {"name": name})
    dock.ask(GO_AHEAD[locale])
    guarantees.approval_shows_arguments(timeline, action=SAVE, values=[name], words=words)

    allowed = timeline.mark()
    dock.approve()

    # run() gets what the user saw, spaces included; trimming is the server's business.
    sent = bodies_sent_to(timeline, NAME_PATH, allowed)
    if sent != [{"name": name}]:
        raise GuaranteeViolation("approval-shows-exact-arguments", f"the card showed "
                                 f"{name!r}; the save sent {sent}", timeline)
    assert tutorial_server.state.snapshot().name == name.strip()
    expect(tutorial_page.get_by_test_id("workspace-name-display")).to_have_text(name.strip())

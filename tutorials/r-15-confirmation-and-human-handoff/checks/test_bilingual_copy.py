"""Bilingual copy (SPEC §6): the page's copies in every locale of the tutorial in step, every
value in its own language and using the glossary's terms, a rendered page that speaks only
its language in every state the dock can be in, and safety notices that mean what their
code means (the reviewed glossary, never the copy's own sentence). The page is held to its
own copy (the tutorial's `copy/`) and the glossary alone, never to a runtime's copy files:
a page on another framework has a dock and words of its own."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, Route, expect
from workspace_state import INITIAL_NAME

from pling_harness import (
    Dock,
    Glossary,
    ModelHandle,
    ProviderUnavailable,
    Say,
    Timeline,
    Tutorial,
    Words,
    dock_copy,
    glossary_for,
    guarantees,
    load_tutorial_text,
    page_copy,
    tutorial_text_path,
)

# The locale the glossary's terms are named in: where its copy uses a term, the others do too.
TERMS_LOCALE = "en"
PLACEHOLDER = re.compile(r"\{(\w+)\}")
# A {placeholder} left unfilled on the rendered page.
UNFILLED_PLACEHOLDER = re.compile(r"\{[A-Za-z_]\w*\}")
# Data the walk itself puts on the page (the initial workspace name, the name the user asks
# for): shown as typed, in any language.
WALK_DATA = (INITIAL_NAME, "Acme")

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

# A code the server refuses, to bring up the page's wrong-code message.
WRONG_CODE = "111111"
# The handoff's default time limit (SPEC §4), after which it ends HANDOFF_TIMEOUT.
DEFAULT_HANDOFF_TIMEOUT_MS = 5 * 60 * 1000
# More model calls than any sane per-turn cap (SPEC §5, "e.g. 8"): the turn must stop first.
RUNAWAY_MODEL_CALLS = 20
# An action the page does not offer (the user asks for it: `say("purge")`).
BOGUS_ACTION = "purge_everything"
# A rename the page's schema accepts (1..80 characters) but the server refuses (it trims),
# asked for with `say("rename_to_blank")`.
BLANK_NAME = "   "
SAVE, ARCHIVE, PUBLISH, READ = (
    "save_workspace_name", "archive_workspace", "publish_changes", "get_workspace")


# ---- the copy files ---------------------------------------------------------------------


def load_copy(path: Path) -> dict[str, object]:
    loaded = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(loaded, dict), f"{path} is not a JSON object"
    return loaded


def own_copy_paths(root: Path, tutorial: Tutorial, locale: str) -> list[Path]:
    """The page's copy in `locale`, and the dock's strings the tutorial brings for it."""
    dock = tutorial.dock_copy_path(root, locale)
    return [tutorial.copy_path(root, locale), *([dock] if dock.is_file() else [])]


def strings_of(root: Path, tutorial: Tutorial, locale: str) -> dict[str, str]:
    """The page's own strings in `locale`: its copy, and the dock's strings it brings."""
    return {**page_copy(root, tutorial, locale), **(dock_copy(root, tutorial, locale) or {})}


def en_counterpart(tutorial: Tutorial, locale: str) -> str | None:
    """The locale whose text a `locale` text is held to for the glossary's terms, if any."""
    return TERMS_LOCALE if locale != TERMS_LOCALE and TERMS_LOCALE in tutorial.locales else None


@pytest.fixture
def glossary(tutorial: Tutorial, tutorial_root: Path) -> Glossary:
    """The harness's reviewed glossary plus the tutorial's own (terms, names)."""
    return glossary_for(tutorial_root, tutorial)


@pytest.mark.guarantee("bilingual-copy")
def test_page_copy_matches_every_other_locale_key_for_key(
    tutorial_root: Path, tutorial: Tutorial, locale: str,
) -> None:
    path = tutorial.copy_path(tutorial_root, locale)
    mine = load_copy(path)
    problems: list[str] = []
    for other_locale in tutorial.locales:
        other_path = tutorial.copy_path(tutorial_root, other_locale)
        other = load_copy(other_path)
        problems += [f"missing key {key!r} (in {other_path.name})" for key in other
                     if key not in mine]
        problems += [f"extra key {key!r} (not in {other_path.name})" for key in mine
                     if key not in other]
        for key, text in mine.items():
            if isinstance(text, str) and isinstance(other.get(key), str):
                here = sorted(set(PLACEHOLDER.findall(text)))
                there = sorted(set(PLACEHOLDER.findall(str(other[key]))))
                if here != there:
                    problems.append(f"{key!r} has placeholders {here}, {other_path.name} has "
                                    f"{there}")
    problems += [f"{key!r} is empty or not a string: {text!r}" for key, text in mine.items()
                 if not isinstance(text, str) or not text.strip()]
    assert not problems, f"{path}:\n  " + "\n  ".join(problems)


@pytest.mark.guarantee("bilingual-copy")
def test_copy_every_value_is_in_its_locale(
    tutorial_root: Path, tutorial: Tutorial, glossary: Glossary, locale: str,
) -> None:
    """Every value of the page's own copy, not only the ones a walk happens to render: no
    letter of a script the locale is not written in (CJK on an en page), no Latin word in a
    locale of another script (names from the glossary aside), nothing left untranslated."""
    problems: list[str] = []
    for path in own_copy_paths(tutorial_root, tutorial, locale):
        for key, text in load_copy(path).items():
            if not isinstance(text, str):
                continue  # reported by the key-for-key check
            found = glossary.language_problems(locale, text)
            found += ["not translated"] if glossary.untranslated(locale, text) else []
            problems += [f"{path.name}: {key!r} = {text!r}: {problem}" for problem in found]
    assert not problems, f"values that are not {locale}:\n  " + "\n  ".join(problems)


@pytest.mark.guarantee("bilingual-copy")
def test_copy_uses_the_glossary_terms_key_for_key(
    tutorial_root: Path, tutorial: Tutorial, glossary: Glossary, locale: str,
) -> None:
    """Where the en value uses a glossary term, the value in this locale uses the glossary's
    word for it (人工接力 for "human handoff", 始终允许 for "always allow"), and no variant the
    glossary rules out (人工接管, 总是允许) appears."""
    path = tutorial.copy_path(tutorial_root, locale)
    mine = load_copy(path)
    counterpart = en_counterpart(tutorial, locale)
    en = load_copy(tutorial.copy_path(tutorial_root, counterpart)) if counterpart else {}
    problems = [f"{key!r} = {text!r}: {problem}" for key, text in mine.items()
                if isinstance(text, str)
                for problem in glossary.term_problems(
                    locale, text, str(en.get(key, "")) if counterpart else None)]
    assert not problems, f"{path} breaks the glossary:\n  " + "\n  ".join(problems)


@pytest.mark.guarantee("bilingual-copy")
def test_tutorial_text_exists_with_the_same_sections_as_every_other_locale(
    tutorial_root: Path, tutorial: Tutorial, locale: str,
) -> None:
    def sections(language: str) -> list[str]:
        path = tutorial_text_path(tutorial.directory(tutorial_root), language)
        assert path.is_file(), f"missing tutorial text {path}"
        assert path.read_text(encoding="utf-8").strip(), f"{path} is empty"
        return load_tutorial_text(tutorial.directory(tutorial_root), language).section_ids

    mine = sections(locale)
    assert mine, f"tutorial.{locale}.md has no '<!-- section: <id> -->' anchors"
    for other_locale in tutorial.locales:
        other = sections(other_locale)
        assert mine == other, (
            f"section ids differ:\n{locale}: {mine}\n{other_locale}: {other}")


@pytest.mark.guarantee("bilingual-copy")
def test_tutorial_text_uses_the_glossary_terms_section_for_section(
    tutorial_root: Path, tutorial: Tutorial, glossary: Glossary, locale: str,
) -> None:
    """The tutorial's title and text, section by section, hold to the glossary as the copy
    does (code left out: identifiers are not words)."""
    directory = tutorial.directory(tutorial_root)
    mine = load_tutorial_text(directory, locale).section_prose
    counterpart = en_counterpart(tutorial, locale)
    en = load_tutorial_text(directory, counterpart).section_prose if counterpart else {}
    parts = {"tutorial.json title": (tutorial.title[locale],
                                     tutorial.title[counterpart] if counterpart else None)}
    parts |= {f"section {section or '(title)'}": (text, en.get(section, "") if counterpart
                                                   else None)
              for section, text in mine.items()}
    problems = [f"{where}: {problem}" for where, (text, en_text) in parts.items()
                for problem in glossary.term_problems(locale, text, en_text)]
    assert not problems, (f"tutorial.{locale}.md breaks the glossary:\n  "
                          + "\n  ".join(problems))


# ---- the rendered page -----------------------------------------------------------------


@pytest.mark.guarantee("bilingual-copy")
def test_html_lang_primary_subtag_is_the_locale(tutorial_page: Page, locale: str) -> None:
    lang = str(tutorial_page.evaluate("() => document.documentElement.lang"))
    assert lang.split("-")[0].lower() == locale, f"<html lang={lang!r}> on the {locale} page"


@dataclass
class ForeignTextFinder:
    """Finds, in rendered text, what does not belong on a page in `locale`: copy keys shown
    raw, placeholders left unfilled, and text in another language (the glossary's rule)."""

    locale: str
    glossary: Glossary
    keys: list[str]

    def problems(self, text: str, *, identifiers: Iterable[str]) -> list[str]:
        """`identifiers`: ids and data shown as they are (action ids, argument names)."""
        found = [f"raw copy key {key!r}" for key in self.keys if key in text]
        found += [f"unfilled placeholder {p!r}" for p in sorted(set(
            UNFILLED_PLACEHOLDER.findall(text)))]
        # No variant the glossary rules out (人工接管), whoever wrote the text.
        found += self.glossary.term_problems(self.locale, text, None)
        return found + self.glossary.language_problems(
            self.locale, UNFILLED_PLACEHOLDER.sub(" ", text), identifiers=identifiers)


@dataclass
class Scene:
    """What a walk through the dock needs, in one place."""

    page: Page
    dock: Dock
    model: ModelHandle
    say: Say
    locale: str

    def notice(self, code: str) -> None:
        """Wait for a notice reporting `code` (its outcome code, as the dock driver reads it)."""
        expect(self.dock.messages("notice", code=code).last).to_be_attached()


def calling(reply: int, *names: str) -> dict[str, Any]:
    """Raw assistant message number `reply`: it calls these tools (no arguments), says nothing."""
    return {"role": "assistant", "content": None, "tool_calls": [
        {"id": f"call_walk_{reply}_{index}", "type": "function",
         "function": {"name": name, "arguments": "{}"}} for index, name in enumerate(names)]}


# Each drives the dock to one safety notice and returns the action that notice is about.


def deny_archive(scene: Scene) -> str:
    scene.dock.ask(scene.say("archive"))
    scene.dock.deny()
    return ARCHIVE


def cancel_publish(scene: Scene) -> str:
    scene.dock.ask(scene.say("publish"))
    scene.dock.handoff_cancel()
    return PUBLISH


def let_publish_time_out(scene: Scene) -> str:
    handoff = scene.dock.spec.require(scene.dock.spec.handoff, "handoff")
    scene.dock.spec.require(handoff.timer, "handoff.timer")  # n/a: a handoff with no timer
    scene.dock.ask(scene.say("publish"))
    expect(scene.dock.handoff).to_be_visible()
    # A step with no deadline (a driver without `handoff.timer`) cannot time out: n/a.
    expect(scene.dock.handoff_timer).to_be_visible()
    scene.page.clock.fast_forward(DEFAULT_HANDOFF_TIMEOUT_MS)
    scene.dock.wait_until_handoff_ends()
    return PUBLISH


def say_done_without_publishing(scene: Scene) -> str:
    scene.dock.ask(scene.say("publish"))
    scene.dock.handoff_done()
    return PUBLISH


def rename_to_blanks_the_server_refuses(scene: Scene) -> str:
    request = scene.say("rename_to_blank")
    scene.model.when_user(re.escape(request), SAVE, {"name": BLANK_NAME})
    scene.dock.ask(request)
    scene.dock.approve()
    return SAVE


def keep_calling_until_the_loop_stops(scene: Scene) -> str:
    scene.model.script(*[calling(reply, READ) for reply in range(RUNAWAY_MODEL_CALLS)])
    scene.dock.ask(scene.say("status"))
    scene.model.reset_overrides()  # the replies the capped turn never asked for
    return READ


SAFETY_NOTICES: dict[str, Callable[[Scene], str]] = {
    "PERMISSION_DENIED": deny_archive,
    "HANDOFF_CANCELLED": cancel_publish,
    "HANDOFF_TIMEOUT": let_publish_time_out,
    "HANDOFF_FAILED": say_done_without_publishing,
    "RUN_FAILED": rename_to_blanks_the_server_refuses,
    "LOOP_LIMIT": keep_calling_until_the_loop_stops,
}


@pytest.fixture
def scene(tutorial_page: Page, dock: Dock, model: ModelHandle, say: Say, locale: str) -> Scene:
    """The r-15 page, its dock, the scripted model and the user's words, for a walk."""
    return Scene(tutorial_page, dock, model, say, locale)


@pytest.mark.guarantee("bilingual-copy")
@pytest.mark.parametrize("code", SAFETY_NOTICES)
def test_safety_notice_means_its_code_and_names_the_action(
    scene: Scene, timeline: Timeline, words: Words, code: str,
) -> None:
    """A denial says "not allowed" and claims no permission; a cancel or timeout says "not
    completed" and claims no success: held against the reviewed glossary, not the copy."""
    action = SAFETY_NOTICES[code](scene)

    guarantees.notice_means(timeline, words, code=code, action=action, guarantee="bilingual-copy")


@pytest.mark.guarantee("bilingual-copy")
def test_rendered_page_speaks_only_its_locale_in_every_dock_state(
    scene: Scene, tutorial: Tutorial, tutorial_root: Path, glossary: Glossary, locale: str,
) -> None:
    page, dock, model = scene.page, scene.dock, scene.model
    # The page's own keys, every locale's: a key missing from one shows up as itself.
    keys = {key for each in tutorial.locales for key in strings_of(tutorial_root, tutorial, each)}
    finder = ForeignTextFinder(locale=locale, glossary=glossary, keys=sorted(keys))
    found: dict[str, list[str]] = {}
    reported: set[str] = set()

    def collect(state: str, text: str | None = None) -> None:
        identifiers = [*WALK_DATA, BOGUS_ACTION, *page_identifiers(dock),
                       *tool_identifiers(model)]
        shown = text or str(page.evaluate(COLLECT_TEXT))
        # Earlier messages stay on screen: report a problem where it first appeared.
        fresh = [p for p in finder.problems(shown, identifiers=identifiers)
                 if p not in reported]
        reported.update(fresh)
        if fresh:
            found[state] = fresh

    collect("initial page")

    # Busy: look while the model request is in flight, then let it through.
    while_busy: dict[str, Any] = {}

    def look_then_answer(route: Route) -> None:
        while_busy["busy shown"] = dock.busy.is_visible()
        while_busy["text"] = str(page.evaluate(COLLECT_TEXT))
        route.continue_()

    page.route(f"**{dock.spec.conversation_path('/api/model')}", look_then_answer, times=1)
    dock.ask(scene.say("status"))
    assert while_busy.get("busy shown"), "the busy marker was not shown during the request"
    collect("busy (model request in flight)", while_busy["text"])
    collect("conversation")

    dock.ask(scene.say("save"))
    expect(dock.approval_for("save_workspace_name")).to_be_visible()
    collect("approval card (ask)")
    dock.deny()
    scene.notice("PERMISSION_DENIED")
    collect("denial notice")

    dock.ask(scene.say("archive"))
    expect(dock.approval_for("archive_workspace")).to_be_visible()
    collect("approval card (ask-always)")
    dock.deny()

    dock.ask(scene.say("publish"))
    expect(dock.handoff_for("publish_changes")).to_be_visible()
    collect("handoff panel")
    page.get_by_test_id("verification-code").click()
    page.keyboard.type(WRONG_CODE)
    page.get_by_test_id("workspace-publish").click()
    expect(page.get_by_test_id("workspace-message")).to_have_attribute("data-tone", "error")
    collect("handoff panel with a wrong code")
    dock.handoff_cancel()
    scene.notice("HANDOFF_CANCELLED")
    collect("cancel notice")

    for code in ("HANDOFF_FAILED", "HANDOFF_TIMEOUT", "RUN_FAILED", "LOOP_LIMIT"):
        SAFETY_NOTICES[code](scene)
        scene.notice(code)
        collect(f"{code} notice")

    model.when_user(re.escape(scene.say("purge")), BOGUS_ACTION)
    dock.ask(scene.say("purge"))
    scene.notice("UNKNOWN_ACTION")
    collect("rejected call (UNKNOWN_ACTION)")

    model.script(ProviderUnavailable("the provider answered 500"))
    dock.ask(scene.say("status"))
    expect(dock.last_message("error", code="MODEL_UNAVAILABLE")).to_be_attached()
    collect("gateway error")

    assert not found, f"the {locale} page shows text that is not {locale}:\n" + "\n".join(
        f"  {state}: {'; '.join(problems)}" for state, problems in found.items())


def page_identifiers(dock: Dock) -> list[str]:
    """Ids of the page's actions and targets: shown as identifiers, never translated."""
    return dock.target_ids()


def tool_identifiers(model: ModelHandle) -> Iterable[str]:
    """Action ids and argument names the model was offered (the approval card shows them)."""
    names: list[str] = []
    for name, function in (model.offered_tools() if model.requests else {}).items():
        names.append(name)
        names.extend(str(key) for key in function.parameters.get("properties", {}))
    return names

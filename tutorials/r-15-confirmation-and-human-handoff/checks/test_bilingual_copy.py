"""Bilingual copy (SPEC §6): zh and en copies in step, and a rendered page that speaks only
its own language in every state the dock can be in."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from harness.dock import Dock
from harness.model.provider import ProviderUnavailable
from harness.model.wire import ModelLocale
from harness.model_handle import ModelHandle
from harness.pytest_plugin import pling_root
from harness.serve import TutorialServer
from harness.server.state import INITIAL_NAME
from harness.tutorials import load_tutorial

Say = Callable[[str], str]
OTHER_LOCALE = {"zh": "en", "en": "zh"}
PLACEHOLDER = re.compile(r"\{(\w+)\}")
# A {placeholder} left unfilled on the rendered page.
UNFILLED_PLACEHOLDER = re.compile(r"\{[A-Za-z_]\w*\}")
# Han ideographs (with extension A and compatibility forms), CJK punctuation, full-width forms.
CJK_CHARACTER = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")
# A word of the en copy: 3+ ASCII letters (shorter runs are units and abbreviations).
ENGLISH_WORD = re.compile(r"[A-Za-z]{3,}")
# What may stand in Latin letters on the zh page: names and identifiers, not English.
IDENTIFIER = re.compile(r"[A-Za-z0-9_]+")
NAMES_IN_ANY_LANGUAGE = frozenset({
    "Harbor",  # the demo product
    "Pling", "pling",  # the runtime
    INITIAL_NAME, "Acme",  # workspace names (the initial one, the one the user asks for)
    "JSON", "true", "false", "null",  # the format and its literals (arguments, type names)
})
SECTION_ANCHOR = re.compile(r"^<!-- section: ([a-z0-9][a-z0-9-]*) -->$", re.MULTILINE)

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

# The actions the page offers the model, as the runtime projects them (same module instance).
PROJECTION = """async () => (await import("/pling/index.js")).defaultRegistry.projection()"""

# A code the server refuses, to bring up the page's wrong-code message.
WRONG_CODE = "111111"
# An action the page does not offer, and how the user's request for it reads.
BOGUS_ACTION = "purge_everything"
BOGUS_REQUEST = {"en": "purge everything", "zh": "清空一切"}


# ---- the copy files ---------------------------------------------------------------------


def copy_path(root: Path, tutorial_id: str, copy_set: str, locale: str) -> Path:
    if copy_set == "page":
        return root / "tutorials" / tutorial_id / "copy" / f"{locale}.json"
    return root / "fixtures" / "pling" / "locales" / f"{locale}.json"


def load_copy(path: Path) -> dict[str, object]:
    loaded = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(loaded, dict), f"{path} is not a JSON object"
    return loaded


def strings_of(root: Path, tutorial_id: str, locale: str) -> dict[str, str]:
    """Page copy and dock copy of `locale`, merged (their keys do not overlap)."""
    merged: dict[str, str] = {}
    for copy_set in ("page", "dock"):
        copy = load_copy(copy_path(root, tutorial_id, copy_set, locale))
        merged.update((key, value) for key, value in copy.items() if isinstance(value, str))
    return merged


@pytest.fixture
def served_root(pytestconfig: pytest.Config) -> Path:
    """The folder the checks' server serves (--pling-root, else the project)."""
    return pling_root(pytestconfig)


@pytest.fixture
def canonical_id(tutorial_id: str, served_root: Path) -> str:
    return load_tutorial(tutorial_id, served_root).id


@pytest.mark.guarantee("bilingual-copy")
@pytest.mark.parametrize("copy_set", ["page", "dock"])
def test_copy_matches_the_other_locale_key_for_key(
    served_root: Path, canonical_id: str, copy_set: str, locale: str,
) -> None:
    path = copy_path(served_root, canonical_id, copy_set, locale)
    other_path = copy_path(served_root, canonical_id, copy_set, OTHER_LOCALE[locale])
    mine, other = load_copy(path), load_copy(other_path)

    problems = [f"missing key {key!r} (in {other_path.name})" for key in other if key not in mine]
    problems += [f"extra key {key!r} (not in {other_path.name})" for key in mine
                 if key not in other]
    for key, text in mine.items():
        if not isinstance(text, str) or not text.strip():
            problems.append(f"{key!r} is empty or not a string: {text!r}")
        elif isinstance(other.get(key), str):
            here = sorted(set(PLACEHOLDER.findall(text)))
            there = sorted(set(PLACEHOLDER.findall(str(other[key]))))
            if here != there:
                problems.append(f"{key!r} has placeholders {here}, {other_path.name} has {there}")
    assert not problems, f"{path}:\n  " + "\n  ".join(problems)


@pytest.mark.guarantee("bilingual-copy")
def test_tutorial_text_exists_with_the_same_sections_as_the_other_locale(
    served_root: Path, canonical_id: str, locale: str,
) -> None:
    def sections(language: str) -> list[str]:
        path = served_root / "tutorials" / canonical_id / f"tutorial.{language}.md"
        assert path.is_file(), f"missing tutorial text {path}"
        text = path.read_text(encoding="utf-8")
        assert text.strip(), f"{path} is empty"
        return SECTION_ANCHOR.findall(text)

    mine, other = sections(locale), sections(OTHER_LOCALE[locale])
    assert mine, f"tutorial.{locale}.md has no '<!-- section: <id> -->' anchors"
    assert mine == other, (
        f"section ids differ:\n{locale}: {mine}\n{OTHER_LOCALE[locale]}: {other}")


# ---- the rendered page -----------------------------------------------------------------


@pytest.mark.guarantee("bilingual-copy")
def test_html_lang_primary_subtag_is_the_locale(tutorial_page: Page, locale: str) -> None:
    lang = str(tutorial_page.evaluate("() => document.documentElement.lang"))
    assert lang.split("-")[0].lower() == locale, f"<html lang={lang!r}> on the {locale} page"


class ForeignTextFinder:
    """Finds, in rendered text, what does not belong on a page in `locale`."""

    def __init__(self, *, locale: str, foreign: Iterable[str], keys: Iterable[str],
                 identifiers: Iterable[str]) -> None:
        self.locale = locale
        self.keys = sorted(set(keys))
        self.allowed = NAMES_IN_ANY_LANGUAGE | set(identifiers)
        self.english_words = {w.lower() for text in foreign for w in ENGLISH_WORD.findall(text)
                              if w not in self.allowed}

    def problems(self, text: str) -> list[str]:
        found = [f"raw copy key {key!r}" for key in self.keys if key in text]
        found += [f"unfilled placeholder {p!r}" for p in sorted(set(
            UNFILLED_PLACEHOLDER.findall(text)))]
        if self.locale == "en":
            cjk = sorted(set(CJK_CHARACTER.findall(text)))
            found += [f"CJK text {''.join(cjk)!r}"] if cjk else []
        else:
            english = sorted({run for token in IDENTIFIER.findall(text)
                              if token not in self.allowed
                              for run in ENGLISH_WORD.findall(token)
                              if run.lower() in self.english_words})
            found += [f"English words {english}"] if english else []
        return found


@pytest.mark.guarantee("bilingual-copy")
def test_rendered_page_speaks_only_its_locale_in_every_dock_state(
    tutorial_page: Page, dock: Dock, model: ModelHandle, tutorial_server: TutorialServer,
    served_root: Path, say: Say, locale: str,
) -> None:
    page = tutorial_page
    tutorial_id = tutorial_server.tutorial.id
    own = strings_of(served_root, tutorial_id, locale)
    foreign = strings_of(served_root, tutorial_id, OTHER_LOCALE[locale])
    other: ModelLocale = "en" if locale == "zh" else "zh"
    rules = model.scripted.rules
    model_texts_in_other = [text.text(other) for text in (
        rules.done, rules.other_failure, rules.unknown_request, *rules.failures.values(),
        *(reply for replies in rules.replies.values()
          for reply in (replies.success, *replies.failures.values())),
    )]
    tools = page.evaluate(PROJECTION)
    finder = ForeignTextFinder(
        locale=locale,
        foreign=[*foreign.values(), *model_texts_in_other],
        keys=[*own, *foreign],  # a key missing from one locale shows up as itself
        identifiers=[BOGUS_ACTION, *page_identifiers(page),
                     *tool_identifiers(tools if isinstance(tools, list) else [])],
    )
    found: dict[str, list[str]] = {}

    def collect(state: str) -> None:
        problems = finder.problems(str(page.evaluate(COLLECT_TEXT)))
        if problems:
            found[state] = problems

    collect("initial page")

    dock.ask(say("status"))
    expect(dock.messages("assistant")).to_have_count(1)
    collect("conversation")

    dock.ask(say("save"))
    expect(dock.approval).to_be_visible()
    collect("approval card")
    dock.deny()
    expect(dock.messages("notice").last).to_have_attribute("data-code", "PERMISSION_DENIED")
    collect("denied call")

    dock.ask(say("publish"))
    expect(dock.handoff).to_be_visible()
    collect("handoff panel")
    page.get_by_test_id("verification-code").click()
    page.keyboard.type(WRONG_CODE)
    page.get_by_test_id("workspace-publish").click()
    page_message = page.get_by_test_id("workspace-message")
    expect(page_message).to_have_attribute("data-tone", "error")
    collect("handoff panel with a wrong code")
    dock.handoff_cancel()

    model.when_user(re.escape(BOGUS_REQUEST[locale]), BOGUS_ACTION)
    dock.ask(BOGUS_REQUEST[locale])
    expect(dock.messages("notice").last).to_have_attribute("data-code", "UNKNOWN_ACTION")
    collect("rejected call (UNKNOWN_ACTION)")

    model.script(ProviderUnavailable("the provider answered 500"))
    dock.ask(say("status"))
    expect(dock.messages("error")).to_have_count(1)
    collect("gateway error")

    assert not found, f"the {locale} page shows text that is not {locale}:\n" + "\n".join(
        f"  {state}: {'; '.join(problems)}" for state, problems in found.items())
    # The messages that come from the copy files are this locale's, word for word.
    expect(page_message).to_have_text(own["message.wrong_code"])
    expect(dock.messages("error")).to_have_text(own["gateway.MODEL_UNAVAILABLE"])


def page_identifiers(page: Page) -> list[str]:
    """Ids of the page's actions and targets: shown as identifiers, never translated."""
    ids = page.evaluate("""() => [...document.querySelectorAll("[data-pling-target]")]
        .map((element) => element.getAttribute("data-pling-target"))""")
    return [str(value) for value in ids] if isinstance(ids, list) else []


def tool_identifiers(tools: list[object]) -> list[str]:
    """Action ids and argument names of a projection."""
    names: list[str] = []
    for tool in tools:
        function = tool.get("function") if isinstance(tool, dict) else None
        if not isinstance(function, dict):
            continue
        names.append(str(function.get("name")))
        parameters = function.get("parameters")
        properties = parameters.get("properties") if isinstance(parameters, dict) else None
        names.extend(str(name) for name in (properties or {}))
    return names

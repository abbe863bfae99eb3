"""Generated check of a tutorial's words as files (SPEC §6), once per locale: the page's copy
key for key and placeholder for placeholder with every other locale's, every value of it (and
of the dock strings the tutorial brings) in its own language, the glossary's terms where the
en copy uses them, and the tutorial text with the same sections in every locale, holding to
the glossary as the copy does. All of it follows from `copy/`, `glossary.json`,
`tutorial.*.md` and `tutorial.json`, so every tutorial gets it."""

from __future__ import annotations

import json
import re
from pathlib import Path

from pling_harness.evidence.guarantees import GuaranteeViolation
from pling_harness.plugin.declared.context import DeclaredRun
from pling_harness.project.glossary import Glossary
from pling_harness.project.tutorial_text import load_tutorial_text, tutorial_text_path
from pling_harness.project.tutorials import Tutorial

NAME = "bilingual-copy"
# The locale the glossary's terms are named in: where its copy uses a term, the others do too.
TERMS_LOCALE = "en"
PLACEHOLDER = re.compile(r"\{(\w+)\}")


def _load(path: Path) -> dict[str, object]:
    loaded = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(loaded, dict):
        return {"": f"{path} is not a JSON object"}
    return loaded


def _terms_counterpart(tutorial: Tutorial, locale: str) -> str | None:
    """The locale whose text a `locale` text is held to for the glossary's terms, if any."""
    return TERMS_LOCALE if locale != TERMS_LOCALE and TERMS_LOCALE in tutorial.locales else None


def _key_for_key(root: Path, tutorial: Tutorial, locale: str) -> list[str]:
    path = tutorial.copy_path(root, locale)
    mine = _load(path)
    problems: list[str] = []
    for other_locale in tutorial.locales:
        other_path = tutorial.copy_path(root, other_locale)
        other = _load(other_path)
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
    return [f"{path.name}: {problem}" for problem in problems]


def _values_in_locale(root: Path, tutorial: Tutorial, glossary: Glossary,
                      locale: str) -> list[str]:
    """Every value, not only the ones a walk happens to render: no letter of a script the
    locale is not written in, no Latin word in a locale of another script (names from the
    glossary aside), nothing left untranslated."""
    dock = tutorial.dock_copy_path(root, locale)
    problems: list[str] = []
    for path in [tutorial.copy_path(root, locale), *([dock] if dock.is_file() else [])]:
        for key, text in _load(path).items():
            if not isinstance(text, str):
                continue  # reported key for key
            found = glossary.language_problems(locale, text)
            found += ["not translated"] if glossary.untranslated(locale, text) else []
            problems += [f"{path.name}: {key!r} = {text!r}: {problem} (not {locale})"
                         for problem in found]
    return problems


def _copy_terms(root: Path, tutorial: Tutorial, glossary: Glossary, locale: str) -> list[str]:
    """Where the en value uses a glossary term, this locale's value uses the glossary's word
    for it, and no variant the glossary rules out appears."""
    path = tutorial.copy_path(root, locale)
    counterpart = _terms_counterpart(tutorial, locale)
    en = _load(tutorial.copy_path(root, counterpart)) if counterpart else {}
    return [f"{path.name}: {key!r} = {text!r}: {problem}" for key, text in _load(path).items()
            if isinstance(text, str)
            for problem in glossary.term_problems(
                locale, text, str(en.get(key, "")) if counterpart else None)]


def _text_sections(root: Path, tutorial: Tutorial, locale: str) -> list[str]:
    directory = tutorial.directory(root)
    missing = [f"missing or empty tutorial text {path}" for path in
               (tutorial_text_path(directory, each) for each in tutorial.locales)
               if not path.is_file() or not path.read_text(encoding="utf-8").strip()]
    if missing:
        return missing
    mine = load_tutorial_text(directory, locale).section_ids
    if not mine:
        return [f"tutorial.{locale}.md has no '<!-- section: <id> -->' anchors"]
    return [f"section ids differ: {locale} {mine}, {other} {theirs}"
            for other in tutorial.locales
            if (theirs := load_tutorial_text(directory, other).section_ids) != mine]


def _text_terms(root: Path, tutorial: Tutorial, glossary: Glossary, locale: str) -> list[str]:
    """The title and the text, section by section, hold to the glossary as the copy does
    (code left out: identifiers are not words)."""
    directory = tutorial.directory(root)
    mine = load_tutorial_text(directory, locale).section_prose
    counterpart = _terms_counterpart(tutorial, locale)
    en = load_tutorial_text(directory, counterpart).section_prose if counterpart else {}
    parts = {"tutorial.json title": (tutorial.title[locale],
                                     tutorial.title[counterpart] if counterpart else None)}
    parts |= {f"tutorial.{locale}.md section {section or '(title)'}":
              (text, en.get(section, "") if counterpart else None)
              for section, text in mine.items()}
    return [f"{where}: {problem}" for where, (text, en_text) in parts.items()
            for problem in glossary.term_problems(locale, text, en_text)]


def copy_files_agree(run: DeclaredRun) -> None:
    """The tutorial's copy and text in this locale, as files (no page needed)."""
    root, tutorial, locale = run.served.root, run.served.tutorial, run.locale
    glossary = run.words.glossary
    problems = [*_key_for_key(root, tutorial, locale),
                *_values_in_locale(root, tutorial, glossary, locale),
                *_copy_terms(root, tutorial, glossary, locale)]
    sections = _text_sections(root, tutorial, locale)
    problems += sections or _text_terms(root, tutorial, glossary, locale)
    if problems:
        raise GuaranteeViolation(NAME, f"the {locale} copy and tutorial text:\n  "
                                 + "\n  ".join(problems), run.timeline)

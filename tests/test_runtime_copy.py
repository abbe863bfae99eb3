"""The reference runtime's own copy (pling_harness/web/runtime/locales/): the catalogues it
ships in step, key for key and placeholder for placeholder, every value in its language and
using the glossary's terms. The runtime's business, so the harness's tests: a tutorial's
checks hold a page to the page's own copy and the glossary, never to these files."""

from __future__ import annotations

import json
import re

import pytest

from pling_harness.project.glossary import HARNESS_GLOSSARY_PATH, Glossary, load_glossary
from pling_harness.project.paths import RUNTIME_DIR

LOCALES_DIR = RUNTIME_DIR / "locales"
SHIPPED = sorted(path.stem for path in LOCALES_DIR.glob("*.json"))
PLACEHOLDER = re.compile(r"\{(\w+)\}")
# What i18n.js says it ships: `SUPPORTED_LOCALES = ... (["zh", "en"])`.
SUPPORTED_LOCALES = re.compile(r"SUPPORTED_LOCALES = /\*\* @type \{const\} \*/ \((\[[^\]]*\])\)")


def catalogue(locale: str) -> dict[str, str]:
    loaded = json.loads((LOCALES_DIR / f"{locale}.json").read_text(encoding="utf-8"))
    assert isinstance(loaded, dict) and all(isinstance(v, str) for v in loaded.values())
    return loaded


@pytest.fixture(scope="module")
def glossary() -> Glossary:
    return load_glossary(HARNESS_GLOSSARY_PATH)


def test_runtime_ships_the_catalogues_it_says_it_supports() -> None:
    declared = SUPPORTED_LOCALES.search((RUNTIME_DIR / "i18n.js").read_text(encoding="utf-8"))

    assert declared is not None
    assert sorted(json.loads(declared[1])) == SHIPPED


@pytest.mark.parametrize("locale", SHIPPED)
def test_runtime_catalogue_matches_every_other_key_for_key(locale: str) -> None:
    mine = catalogue(locale)
    problems: list[str] = []
    for other_locale in SHIPPED:
        other = catalogue(other_locale)
        problems += [f"missing {key!r} (in {other_locale})" for key in other if key not in mine]
        problems += [f"{key!r}: placeholders {sorted(set(PLACEHOLDER.findall(text)))}, "
                     f"{other_locale} has {sorted(set(PLACEHOLDER.findall(other[key])))}"
                     for key, text in mine.items() if key in other
                     and set(PLACEHOLDER.findall(text)) != set(PLACEHOLDER.findall(other[key]))]
    problems += [f"{key!r} is empty" for key, text in mine.items() if not text.strip()]
    assert not problems, f"locales/{locale}.json:\n  " + "\n  ".join(problems)


@pytest.mark.parametrize("locale", SHIPPED)
def test_runtime_catalogue_is_in_its_language(glossary: Glossary, locale: str) -> None:
    problems = [f"{key!r} = {text!r}: {problem}" for key, text in catalogue(locale).items()
                for problem in [*glossary.language_problems(locale, text),
                                *(["not translated"] if glossary.untranslated(locale, text)
                                  else [])]]
    assert not problems, f"locales/{locale}.json:\n  " + "\n  ".join(problems)


@pytest.mark.parametrize("locale", SHIPPED)
def test_runtime_catalogue_uses_the_glossary_terms(glossary: Glossary, locale: str) -> None:
    en = catalogue("en")
    problems = [f"{key!r} = {text!r}: {problem}" for key, text in catalogue(locale).items()
                for problem in glossary.term_problems(locale, text, en.get(key))]
    assert not problems, f"locales/{locale}.json:\n  " + "\n  ".join(problems)

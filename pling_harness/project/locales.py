"""Locales and the writing systems their text is written in: what a tutorial's `locales`
name, how a locale finds its entry in a file keyed by locale, and which characters belong to
a locale's page (the glossary's `scripts`).

No locale is special here: a tutorial's `locales` decides which ones a run speaks, and the
files keyed by locale (copy, model rules, glossary) must cover them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Annotated, Literal, TypeVar

from pydantic import Field

# A language, optionally with its region: zh, en, ja, pt-BR.
LOCALE_PATTERN = r"^[a-z]{2}(-[A-Z]{2})?$"
Locale = Annotated[str, Field(pattern=LOCALE_PATTERN)]

# The writing systems a locale's words may be written in. Each is a regex character class.
Script = Literal["latin", "han", "kana", "hangul", "cyrillic", "greek"]
SCRIPT_CHARACTERS: dict[str, str] = {
    "latin": "A-Za-z\u00c0-\u024f\u1e00-\u1eff",
    "han": "\u3005\u3007\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff",
    "kana": "\u3040-\u309f\u30a0-\u30ff\u31f0-\u31ff\uff66-\uff9f",
    "hangul": "\u1100-\u11ff\u3130-\u318f\uac00-\ud7af",
    "cyrillic": "\u0400-\u04ff",
    "greek": "\u0370-\u03ff",
}
# East Asian punctuation and full-width forms: at home in text of these scripts only.
EAST_ASIAN_SCRIPTS = frozenset({"han", "kana", "hangul"})
EAST_ASIAN_MARKS = "\u3000-\u3004\u3008-\u303f\uff00-\uff65\uffa0-\uffef"

Value = TypeVar("Value")


def language(locale: str) -> str:
    """The primary language subtag: "zh-CN" → "zh"."""
    return locale.split("-")[0].lower()


def entry_for(entries: Mapping[str, Value], locale: str) -> Value | None:
    """The entry of `locale` in a mapping keyed by locale: its own, else its language's
    ("zh-CN" reads "zh"), else one region of its language ("zh" reads "zh-CN"); else None."""
    if locale in entries:
        return entries[locale]
    for key, value in entries.items():
        if key == language(locale):
            return value
    for key, value in entries.items():
        if language(key) == language(locale):
            return value
    return None


def letters_pattern(scripts: Iterable[str]) -> re.Pattern[str]:
    """One character of any of `scripts`."""
    return re.compile("[" + "".join(SCRIPT_CHARACTERS[name] for name in scripts) + "]")


def foreign_characters(text: str, scripts: Iterable[str]) -> dict[str, str]:
    """Characters of `text` written in a non-Latin script that is not one of `scripts`, by
    script (`"east-asian marks"` for CJK punctuation and full-width forms in text of no East
    Asian script). Latin is left to the caller: single letters are units and variables, and
    names and identifiers are Latin words in any language."""
    own = set(scripts)
    found: dict[str, str] = {}
    for name in SCRIPT_CHARACTERS:
        if name == "latin" or name in own:
            continue
        characters = sorted(set(re.findall(f"[{SCRIPT_CHARACTERS[name]}]", text)))
        if characters:
            found[name] = "".join(characters)
    if not own & EAST_ASIAN_SCRIPTS:
        marks = sorted(set(re.findall(f"[{EAST_ASIAN_MARKS}]", text)))
        if marks:
            found["east-asian marks"] = "".join(marks)
    return found

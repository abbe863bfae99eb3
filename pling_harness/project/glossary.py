"""The reviewed words copy is held to: what each notice must say, the terms, the scripts of
each locale, and names.

Two files in one format (`Glossary`): the harness's own `pling_harness/project/glossary.json`
(the framework's words in zh and en: what a notice of each result code means, the framework's
terms such as 人工接力 / human handoff) and, optionally, a tutorial's
`tutorials/<id>/glossary.json` (its page's terms, the product names it shows, and everything
for a locale the harness's file does not cover: its notices, its scripts, its words for the
framework's terms). `glossary_for(root, tutorial)` merges the two and refuses a tutorial
locale neither covers. Checks use it so that they test what a text *means* in its language,
never the copy's own wording (a wrong sentence in the copy would otherwise agree with itself).

Phrases match where a word starts, case-insensitively, and run on: "cancel" matches
"Cancelled", "publish" matches "published". Chinese and Japanese have no word boundaries, so
a phrase in them matches anywhere.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from pling_harness.project.datafile import load_json_model
from pling_harness.project.locales import (
    LOCALE_PATTERN,
    Locale,
    Script,
    entry_for,
    foreign_characters,
    letters_pattern,
)
from pling_harness.project.tutorials import Tutorial

GLOSSARY_FILE_NAME = "glossary.json"
HARNESS_GLOSSARY_PATH = Path(__file__).resolve().parent / GLOSSARY_FILE_NAME
# The locale the glossary's terms are named in (`term(locale, "argument")`).
TERM_NAME_LOCALE = "en"

# A run of Latin letters in text of a non-Latin script: a word, unless the glossary names it
# (single letters are units and variables, not words).
LATIN_WORD = re.compile(r"[A-Za-z]{2,}")
# A {placeholder} of the copy files: filled at run time, so never part of the language.
PLACEHOLDER = re.compile(r"\{\w+\}")


class GlossaryError(ValueError):
    """A glossary file is unreadable or invalid; the message names the file and field."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class NoticeMeaning(_Strict):
    """What a notice of one result code says, in one locale."""

    says: tuple[tuple[str, ...], ...] = Field(min_length=1)
    """Each entry is one thing the notice must say, as the phrases that say it: the notice
    contains at least one phrase of every entry (e.g. "not allowed" and "not run")."""
    never_claims: tuple[str, ...] = ()
    """Phrases that would claim the opposite (success, permission). One counts unless a
    negation of the locale (a whole word) stands right before it: "未完成" and "was not
    completed" are fine, "已完成" and "completed" are not."""


class LocaleNotices(_Strict):
    """The meaning of every notice code in one locale, and how that locale negates."""

    negations: tuple[str, ...] = Field(min_length=1)
    negation_reach: int = Field(ge=1, le=40)
    """How many characters before a claim a negation may stand and still negate it."""
    codes: dict[str, NoticeMeaning] = Field(min_length=1)
    details: dict[str, NoticeMeaning] = {}
    """Meanings a text carries besides its code's, by name: the reason a `RUN_FAILED` gives
    when `run` gave none of its own (`run.no-reason`, `run.result-not-json`), the error for a
    gateway code the page has no words for (`gateway.unknown-code`). A check holds a text to
    one of these instead of to a runtime's own copy key."""


class Term(_Strict):
    """One term in its locales, written `{"en": "human handoff", "zh": "人工接力", "forms":
    {"en": ["handoff"]}, "avoid": {"zh": ["人工接管"]}}`: where the en text uses it, the text
    of every other locale uses that locale's word. Named by its en word."""

    words: dict[Locale, str] = Field(min_length=1)
    """The term in each locale (in the file: one key per locale)."""
    forms: dict[Locale, tuple[str, ...]] = {}
    """More words of a locale that name the term (en "handoff" for "human handoff")."""
    avoid: dict[Locale, tuple[str, ...]] = {}
    """Variants of a locale that must appear nowhere (zh 人工接管 for 人工接力)."""

    @model_validator(mode="before")
    @classmethod
    def _locale_keys_are_its_words(cls, data: Any) -> Any:
        if not isinstance(data, dict) or "words" in data:
            return data
        words = {key: value for key, value in data.items() if re.match(LOCALE_PATTERN, key)}
        rest = {key: value for key, value in data.items() if key not in words}
        return {**rest, "words": words}

    @model_validator(mode="after")
    def _named_in_english(self) -> Self:
        if TERM_NAME_LOCALE not in self.words:
            raise ValueError(f"a term is named by its {TERM_NAME_LOCALE} word; give "
                             f"{TERM_NAME_LOCALE!r} beside {sorted(self.words)}")
        return self

    @property
    def name(self) -> str:
        return self.words[TERM_NAME_LOCALE]

    def phrases(self, locale: str) -> tuple[str, ...]:
        """The term and its forms in `locale`; () where it has no word in that locale."""
        word = entry_for(self.words, locale)
        return () if word is None else (word, *(entry_for(self.forms, locale) or ()))

    def variants_to_avoid(self, locale: str) -> tuple[str, ...]:
        return entry_for(self.avoid, locale) or ()

    def combined(self, more: Term, *, source: str) -> Term:
        """This term with `more`'s words for locales it has none for (a tutorial giving the
        framework's term its ja word); a word it already has cannot change."""
        changed = sorted(locale for locale, word in more.words.items()
                         if self.words.get(locale, word) != word)
        if changed:
            raise GlossaryError(f"{source}: term {self.name!r} already has a word in "
                                f"{changed}; a tutorial adds locales, it does not change one")
        return Term(words={**self.words, **more.words},
                    forms={**more.forms, **self.forms},
                    avoid={locale: (*self.avoid.get(locale, ()), *more.avoid.get(locale, ()))
                           for locale in {*self.avoid, *more.avoid}})


class Glossary(_Strict):
    """Notice meanings and scripts per locale, terms, and the names any language may show."""

    names: tuple[str, ...] = ()
    """Words shown as they are in every language (product names, formats, literals)."""
    scripts: dict[Locale, tuple[Script, ...]] = {}
    """The writing systems each locale's text is written in (zh: han; ja: han and kana;
    en: latin): a letter of any other script on its page is text in another language."""
    notices: dict[Locale, LocaleNotices] = {}
    terms: tuple[Term, ...] = ()

    # ---- completeness ---------------------------------------------------------------------

    def coverage_problems(self, locales: Iterable[str]) -> list[str]:
        """What `locales` lack here: notices or scripts of their own, or notices that know
        other codes or details than the first locale's. [] when every one is covered."""
        problems: list[str] = []
        first: tuple[str, LocaleNotices] | None = None
        for locale in locales:
            notices = entry_for(self.notices, locale)
            if notices is None:
                problems.append(f"no notices.{locale} (what each result code's notice must "
                                f"say in {locale}); the glossaries cover "
                                f"{sorted(self.notices)}")
            if entry_for(self.scripts, locale) is None:
                problems.append(f"no scripts.{locale} (the writing systems of {locale} text, "
                                'e.g. ["han", "kana"] for ja)')
            if notices is None:
                continue
            if first is None:
                first = (locale, notices)
                continue
            for part in ("codes", "details"):
                mine, theirs = set(getattr(notices, part)), set(getattr(first[1], part))
                if mine != theirs:
                    problems.append(f"notices.{locale}.{part} lacks {sorted(theirs - mine)} "
                                    f"and adds {sorted(mine - theirs)} beside {first[0]}'s")
        return problems

    # ---- combining ------------------------------------------------------------------------

    def merged(self, more: Glossary, *, source: str) -> Glossary:
        """This glossary plus `more` (a tutorial's): it may add terms, names, codes, scripts,
        whole locales and a term's words in more locales, but not change what a code means
        or what a locale's word for a term is."""
        notices = dict(self.notices)
        for locale, extra in more.notices.items():
            base = notices.get(locale)
            if base is None:
                notices[locale] = extra
                continue
            clash = sorted(set(base.codes) & set(extra.codes)
                           | set(base.details) & set(extra.details))
            if clash:
                raise GlossaryError(f"{source}: notices.{locale} redefines {clash}; the "
                                    "framework's meaning of a result code cannot be changed")
            notices[locale] = base.model_copy(update={
                "codes": {**base.codes, **extra.codes},
                "details": {**base.details, **extra.details}})
        clash = sorted(locale for locale, scripts in more.scripts.items()
                       if self.scripts.get(locale, scripts) != scripts)
        if clash:
            raise GlossaryError(f"{source}: scripts of {clash} are the harness's already")
        terms = {term.name: term for term in self.terms}
        for term in more.terms:
            known = terms.get(term.name)
            terms[term.name] = term if known is None else known.combined(term, source=source)
        return Glossary(names=(*self.names, *more.names), scripts={**self.scripts,
                        **more.scripts}, notices=notices, terms=tuple(terms.values()))

    # ---- notices -------------------------------------------------------------------------

    def knows(self, locale: str, code: str) -> bool:
        notices = entry_for(self.notices, locale)
        return notices is not None and code in notices.codes

    def meaning_problems(self, locale: str, text: str, code: str, *,
                         naming: str | None = None) -> list[str]:
        """What is wrong with `text` as the `locale` notice for `code`: a meaning it does not
        say, a claim it makes, or (given `naming`) not naming the action. [] if none."""
        notices = entry_for(self.notices, locale)
        if notices is None or code not in notices.codes:
            raise KeyError(f"the glossary has no meaning for {code!r} in {locale!r}; known: "
                           f"{sorted(notices.codes) if notices else []}")
        return _problems(notices, notices.codes[code], text, naming)

    def detail_problems(self, locale: str, text: str, detail: str) -> list[str]:
        """What is wrong with `text` as saying the glossary's `detail` (a named meaning such
        as `run.no-reason`) in `locale`: a phrase group it says nothing of, a claim it makes."""
        notices = entry_for(self.notices, locale)
        if notices is None or detail not in notices.details:
            raise KeyError(f"the glossary has no detail {detail!r} in {locale!r}; known: "
                           f"{sorted(notices.details) if notices else []}")
        return _problems(notices, notices.details[detail], text, None)

    def term(self, locale: str, en: str) -> tuple[str, ...]:
        """The phrases of the glossary term whose en word is `en`, in `locale` (its word and
        forms there): what a text must use to name that thing."""
        for term in self.terms:
            if term.name == en:
                phrases = term.phrases(locale)
                if not phrases:
                    raise KeyError(f"the glossary's term {en!r} has no {locale} word; add "
                                   f"{locale!r} to it in the tutorial's glossary.json terms")
                return phrases
        raise KeyError(f"the glossary has no term {en!r}; known: "
                       f"{[t.name for t in self.terms]}")

    def says_term(self, locale: str, text: str, en: str) -> bool:
        """Whether `text` uses the glossary term `en` in `locale` (where a word starts)."""
        return any(_occurrences(text, phrase) for phrase in self.term(locale, en))

    # ---- language ------------------------------------------------------------------------

    def language_problems(self, locale: str, text: str, *,
                          identifiers: Iterable[str] = ()) -> list[str]:
        """What in `text` is not `locale`: letters of a script the locale is not written in
        (CJK on an en page, kana on a zh page), and in text of a non-Latin script, Latin words
        that are neither glossary names nor `identifiers` (ids, argument names, data the user
        typed)."""
        text = PLACEHOLDER.sub(" ", text)
        scripts = self._scripts(locale)
        problems = [f"{script} text {characters!r}"
                    for script, characters in foreign_characters(text, scripts).items()]
        if "latin" in scripts:
            return problems
        allowed = {*self.names, *identifiers}
        # Identifiers are whole tokens (cancel_order); names may be any Latin run.
        tokens = [t for t in re.findall(r"[\w]+", text, re.ASCII) if t not in allowed]
        foreign = sorted({w for token in tokens for w in LATIN_WORD.findall(token)
                          if w not in allowed})
        return problems + ([f"Latin words {foreign}"] if foreign else [])

    def untranslated(self, locale: str, text: str) -> bool:
        """A value of a non-Latin-script locale with none of its letters, though it is not
        made only of names (a zh value left in English)."""
        scripts = self._scripts(locale)
        if "latin" in scripts or letters_pattern(scripts).search(text):
            return False
        rest = PLACEHOLDER.sub(" ", text)
        for name in sorted(self.names, key=len, reverse=True):
            rest = rest.replace(name, " ")
        return bool(re.search(r"[A-Za-z]", rest))

    def _scripts(self, locale: str) -> tuple[str, ...]:
        scripts = entry_for(self.scripts, locale)
        if scripts is None:
            raise KeyError(f"the glossary has no scripts for {locale!r}; known: "
                           f"{sorted(self.scripts)}. Current input: {locale!r}")
        return scripts

    # ---- terms ---------------------------------------------------------------------------

    def term_problems(self, locale: str, text: str, en_text: str | None) -> list[str]:
        """What in `text` breaks the terms: a term the en counterpart `en_text` uses whose
        word in `locale` `text` lacks (not for en itself, nor without an en counterpart), and
        any variant of `locale` to avoid."""
        text = PLACEHOLDER.sub(" ", text)
        counterpart = PLACEHOLDER.sub(" ", en_text) if en_text is not None else ""
        problems: list[str] = []
        for term in self.terms:
            own = term.phrases(locale)
            if en_text is not None and locale != TERM_NAME_LOCALE and own:
                used = [p for p in term.phrases(TERM_NAME_LOCALE) if _occurrences(counterpart, p)]
                if used and not any(_occurrences(text, phrase) for phrase in own):
                    problems.append(f"the en text says {used[0]!r} but this does not say "
                                    f"{own[0]!r}")
            instead = own[0] if own else term.name
            problems += [f"says {variant!r}: the glossary's term is {instead!r}"
                         for variant in term.variants_to_avoid(locale)
                         if _occurrences(text, variant)]
        return problems


def _problems(notices: LocaleNotices, meaning: NoticeMeaning, text: str,
              naming: str | None) -> list[str]:
    problems: list[str] = []
    if naming is not None and naming not in text:
        problems.append(f"does not name the action {naming!r}")
    # The action's own name may contain anything ("Publish the saved changes"): it is
    # not the notice's claim, so it is left out before reading what the notice says.
    said = text.replace(naming, " ") if naming else text
    for phrases in meaning.says:
        if not any(_occurrences(said, phrase) for phrase in phrases):
            problems.append(f"says none of {list(phrases)}")
    for claim in meaning.never_claims:
        for start in _occurrences(said, claim):
            before = said[max(0, start - notices.negation_reach):start]
            if not any(_occurrences(before, negation, whole_word=True)
                       for negation in notices.negations):
                problems.append(f"claims {claim!r} (at {said[start:start + 20]!r})")
                break
    return problems


def _occurrences(text: str, phrase: str, *, whole_word: bool = False) -> list[int]:
    """Where `phrase` occurs in `text` at the start of a word (case-insensitive); with
    `whole_word`, only where the word also ends with it ("no", not "now")."""
    end = r"(?![A-Za-z])" if whole_word else ""
    pattern = re.compile(r"(?<![A-Za-z])" + re.escape(phrase) + end, re.IGNORECASE)
    return [match.start() for match in pattern.finditer(text)]


def load_glossary(path: Path) -> Glossary:
    """Read and validate one glossary file; errors name the file and the field."""
    return load_json_model(path, Glossary, GlossaryError)


def glossary_for(root: Path, tutorial: Tutorial) -> Glossary:
    """The harness's glossary plus the tutorial's own `glossary.json`, if it has one; a
    GlossaryError if together they do not cover every locale of the tutorial."""
    glossary = load_glossary(HARNESS_GLOSSARY_PATH)
    own = tutorial.directory(root) / GLOSSARY_FILE_NAME
    if own.is_file():
        glossary = glossary.merged(load_glossary(own), source=str(own))
    problems = glossary.coverage_problems(tutorial.locales)
    if problems:
        raise GlossaryError(
            f"tutorial {tutorial.id!r} offers {list(tutorial.locales)}, but its glossary "
            f"({own}) with the harness's has " + "; ".join(problems)
            + ". A locale the harness does not cover brings its own words "
            "(docs/adding-a-tutorial.md, \"Another language\")")
    return glossary


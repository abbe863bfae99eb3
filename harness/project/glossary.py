"""The reviewed words copy is held to: what each notice must say, the zh ↔ en terms, and names.

Two files in one format (`Glossary`): the harness's own `harness/project/glossary.json` (the
framework's words: what a notice of each result code means, and the framework's terms such
as 人工接力 / human handoff) and, optionally, a tutorial's `tutorials/<id>/glossary.json`
(its page's terms and the product names it shows). `glossary_for(root, tutorial)` merges
the two. Checks use it so that they test what a text *means* in its language, never the
copy's own wording (a wrong sentence in the copy would otherwise agree with itself).

Phrases match where a word starts, case-insensitively, and run on: "cancel" matches
"Cancelled", "publish" matches "published". zh has no word boundaries, so a zh phrase
matches anywhere.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from harness.project.datafile import load_json_model
from harness.project.tutorials import Tutorial

GlossaryLocale = Literal["zh", "en"]
GLOSSARY_FILE_NAME = "glossary.json"
HARNESS_GLOSSARY_PATH = Path(__file__).resolve().parent / GLOSSARY_FILE_NAME

# Han ideographs (with extension A and compatibility forms), CJK punctuation, full-width forms.
CJK_CHARACTER = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")
# A run of Latin letters in zh text: a word, unless the glossary names it (single letters are
# units and variables, not English).
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
    """One term in both languages: where the en text uses it, the zh text uses `zh`."""

    en: str = Field(min_length=1)
    zh: str = Field(min_length=1)
    en_forms: tuple[str, ...] = ()
    """More en words that call for the zh term (e.g. "handoff" for "human handoff")."""
    zh_avoid: tuple[str, ...] = ()
    """zh variants that must appear nowhere (e.g. 人工接管 for 人工接力)."""
    en_avoid: tuple[str, ...] = ()
    """en variants that must appear nowhere."""

    @property
    def en_phrases(self) -> tuple[str, ...]:
        return (self.en, *self.en_forms)


class Glossary(_Strict):
    """Notice meanings per locale, zh ↔ en terms, and the names any language may show."""

    names: tuple[str, ...] = ()
    """Words shown as they are in every language (product names, formats, literals)."""
    notices: dict[GlossaryLocale, LocaleNotices] = {}
    terms: tuple[Term, ...] = ()

    @model_validator(mode="after")
    def _both_locales_know_the_same_codes(self) -> Self:
        if self.notices and set(self.notices) != {"zh", "en"}:
            raise ValueError(f"notices must cover zh and en, not only {sorted(self.notices)}")
        if self.notices and set(self.notices["zh"].codes) != set(self.notices["en"].codes):
            raise ValueError(f"notices: zh covers {sorted(self.notices['zh'].codes)} but en "
                             f"covers {sorted(self.notices['en'].codes)}")
        if self.notices and set(self.notices["zh"].details) != set(self.notices["en"].details):
            raise ValueError(f"notices: zh details cover {sorted(self.notices['zh'].details)} "
                             f"but en details cover {sorted(self.notices['en'].details)}")
        return self

    # ---- combining ------------------------------------------------------------------------

    def merged(self, more: Glossary, *, source: str) -> Glossary:
        """This glossary plus `more` (a tutorial's): it may add terms, names and codes, but
        not change what a code already means."""
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
        return Glossary(names=(*self.names, *more.names), notices=notices,
                        terms=(*self.terms, *more.terms))

    # ---- notices -------------------------------------------------------------------------

    def knows(self, locale: str, code: str) -> bool:
        notices = self.notices.get(_locale(locale))
        return notices is not None and code in notices.codes

    def meaning_problems(self, locale: str, text: str, code: str, *,
                         naming: str | None = None) -> list[str]:
        """What is wrong with `text` as the `locale` notice for `code`: a meaning it does not
        say, a claim it makes, or (given `naming`) not naming the action. [] if none."""
        notices = self.notices.get(_locale(locale))
        if notices is None or code not in notices.codes:
            raise KeyError(f"the glossary has no meaning for {code!r} in {locale!r}; known: "
                           f"{sorted(notices.codes) if notices else []}")
        return _problems(notices, notices.codes[code], text, naming)

    def detail_problems(self, locale: str, text: str, detail: str) -> list[str]:
        """What is wrong with `text` as saying the glossary's `detail` (a named meaning such
        as `run.no-reason`) in `locale`: a phrase group it says nothing of, a claim it makes."""
        notices = self.notices.get(_locale(locale))
        if notices is None or detail not in notices.details:
            raise KeyError(f"the glossary has no detail {detail!r} in {locale!r}; known: "
                           f"{sorted(notices.details) if notices else []}")
        return _problems(notices, notices.details[detail], text, None)

    def term(self, locale: str, en: str) -> tuple[str, ...]:
        """The phrases of the glossary term whose en form is `en`, in `locale` (en: the term
        and its forms; zh: the zh term): what a text must use to name that thing."""
        for term in self.terms:
            if term.en == en:
                return term.en_phrases if _locale(locale) == "en" else (term.zh,)
        raise KeyError(f"the glossary has no term {en!r}; known: {[t.en for t in self.terms]}")

    def says_term(self, locale: str, text: str, en: str) -> bool:
        """Whether `text` uses the glossary term `en` in `locale` (where a word starts)."""
        return any(_occurrences(text, phrase) for phrase in self.term(locale, en))

    # ---- language ------------------------------------------------------------------------

    def language_problems(self, locale: str, text: str, *,
                          identifiers: Iterable[str] = ()) -> list[str]:
        """What in `text` is not `locale`: CJK in en text; in zh text, Latin words that are
        neither glossary names nor `identifiers` (ids, argument names, data the user typed)."""
        text = PLACEHOLDER.sub(" ", text)
        if _locale(locale) == "en":
            cjk = sorted(set(CJK_CHARACTER.findall(text)))
            return [f"CJK text {''.join(cjk)!r}"] if cjk else []
        allowed = {*self.names, *identifiers}
        # Identifiers are whole tokens (cancel_order); names may be any Latin run.
        tokens = [t for t in re.findall(r"[A-Za-z0-9_]+", text) if t not in allowed]
        english = sorted({w for token in tokens for w in LATIN_WORD.findall(token)
                          if w not in allowed})
        return [f"English words {english}"] if english else []

    def untranslated(self, locale: str, text: str) -> bool:
        """A zh copy value with no CJK at all, though it is not made only of names."""
        if _locale(locale) != "zh" or CJK_CHARACTER.search(text):
            return False
        rest = PLACEHOLDER.sub(" ", text)
        for name in sorted(self.names, key=len, reverse=True):
            rest = rest.replace(name, " ")
        return bool(re.search(r"[A-Za-z]", rest))

    # ---- terms ---------------------------------------------------------------------------

    def term_problems(self, locale: str, text: str, counterpart: str) -> list[str]:
        """What in `text` breaks the terms. zh: a term the en `counterpart` uses whose zh term
        `text` lacks, and any zh variant to avoid. en: any en variant to avoid."""
        text, counterpart = PLACEHOLDER.sub(" ", text), PLACEHOLDER.sub(" ", counterpart)
        problems: list[str] = []
        for term in self.terms:
            if _locale(locale) == "zh":
                used = [p for p in term.en_phrases if _occurrences(counterpart, p)]
                if used and term.zh not in text:
                    problems.append(f"the en text says {used[0]!r} but this does not say "
                                    f"{term.zh!r}")
                avoid, instead = term.zh_avoid, term.zh
            else:
                avoid, instead = term.en_avoid, term.en
            problems += [f"says {variant!r}: the glossary's term is {instead!r}"
                         for variant in avoid if _occurrences(text, variant)]
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


def _locale(locale: str) -> GlossaryLocale:
    base = locale.split("-")[0].lower()
    if base == "zh":
        return "zh"
    if base == "en":
        return "en"
    raise ValueError(f"the glossary covers zh and en. Current input: {locale!r}")


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
    """The harness's glossary plus the tutorial's own `glossary.json`, if it has one."""
    glossary = load_glossary(HARNESS_GLOSSARY_PATH)
    own = tutorial.directory(root) / GLOSSARY_FILE_NAME
    if own.is_file():
        glossary = glossary.merged(load_glossary(own), source=str(own))
    return glossary


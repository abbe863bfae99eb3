"""Write a new tutorial from `templates/`: its page, copy, model rules, backend, action table
(every check of it is generated from that table, none hand-written) and mutant catalogue,
which pass `pling-tutorial check` and `mutate` as written, in the locales asked for.

Every file under `templates/` ends in `.tmpl` (so no tool takes a template for project
code). The files of every tutorial are written to the same path under the root with the
suffix dropped and each `__PLING_*__` token replaced: `__PLING_ID__` in paths and text, the
short id and port in text, `__PLING_JSON_*__` by JSON (the locales, titles, user requests).
In `.json` files string values are JSON-escaped.

What is said in a language lives in `templates/locales/<locale>/`, one folder per locale
the scaffold has words for: the page copy (`copy.json`), the tutorial text (`tutorial.md`),
the dock's strings where the runtime ships none for that locale (`dock.json`), and
`words.json` (`LocaleWords`): the title, the user's requests, the model's patterns and
replies, the glossary's terms, and for a locale the harness's glossary does not cover, its
notices and scripts. `tutorial.json`, `model-rules.json` and `glossary.json` are assembled
from the chosen locales' words.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from pling_harness.project.paths import FIXTURES_DIR_NAME, TUTORIALS_DIR_NAME
from pling_harness.project.tutorials import (
    COPY_DIR_NAME,
    DOCK_COPY_DIR_NAME,
    MODEL_RULES_FILE_NAME,
    Slug,
    TutorialError,
    list_tutorials,
    load_tutorial,
)

TEMPLATES_DIR = Path(__file__).parent / "templates"
LOCALES_DIR = TEMPLATES_DIR / "locales"
TEMPLATE_SUFFIX = ".tmpl"
ID_TOKEN = "__PLING_ID__"
# The port `dev` serves a new tutorial on when no tutorial under the root has one yet.
FIRST_PORT = 5260
DEFAULT_LOCALES = ("en", "zh")
# Shown as they are in every language of the page's copy.
NAMES = ("HTTP",)
GLOSSARY_FILE_NAME = "glossary.json"


class ScaffoldError(Exception):
    """The tutorial cannot be written as asked; the message names the value and the fix."""


class LocaleWords(BaseModel):
    """`templates/locales/<locale>/words.json`: what a new tutorial says in one locale."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    html_lang: str = Field(min_length=2)
    title: str = Field(min_length=1)
    user_requests: dict[str, str]
    intent_patterns: dict[str, list[str]]
    """Per action, the patterns of this locale that call it."""
    model: dict[str, Any]
    """The model's replies, shaped as in model-rules.json with one string at each text."""
    terms: dict[str, str]
    """The page's glossary terms: their en word → this locale's."""
    glossary: dict[str, Any] = {}
    """For a locale the harness's glossary does not cover: its scripts, notices and words
    for the framework's terms, as glossary.json writes them."""


@dataclass(frozen=True, kw_only=True)
class NewTutorial:
    """What `new` asks for; the rest of the tutorial comes from the templates."""

    id: str
    short_id: str
    locales: tuple[str, ...] = DEFAULT_LOCALES
    titles: Mapping[str, str] = field(default_factory=dict)
    """A title per locale, over the templates' own."""
    port: int | None = None


def scaffold_locales() -> tuple[str, ...]:
    """The locales the templates have words for."""
    return tuple(sorted(path.name for path in LOCALES_DIR.iterdir() if path.is_dir()))


def scaffold(spec: NewTutorial, root: Path) -> list[Path]:
    """Write the tutorial under `root` (its fixtures/ and tutorials/, made if missing) and
    return the files written. The page runs on the reference runtime the package serves at
    `/pling/` (no copy of it is written: an upgrade of the harness upgrades it)."""
    for name, value in (("id", spec.id), ("short id", spec.short_id)):
        try:
            TypeAdapter(Slug).validate_python(value)
        except ValidationError:
            raise ScaffoldError(f"the {name} must be lower-case letters, digits and dashes "
                                f"(e.g. r-16-refunds). Current input: {value!r}") from None
    _check_locales(spec)
    existing = _existing_tutorials(root)
    clash = [name for name in (spec.id, spec.short_id) if name in existing]
    if clash:
        raise ScaffoldError(f"{root / TUTORIALS_DIR_NAME} already has a tutorial named "
                            f"{clash[0]!r}; choose another id (and --short-id)")
    for folder in (root / TUTORIALS_DIR_NAME / spec.id, root / FIXTURES_DIR_NAME / spec.id):
        if folder.exists():
            raise ScaffoldError(f"{folder} already exists; choose another id or remove it")
    port = spec.port if spec.port is not None else _next_port(root)
    tokens = {ID_TOKEN: spec.id, "__PLING_SHORT_ID__": spec.short_id,
              "__PLING_PORT__": str(port)}
    words = {locale: _locale_words(locale, tokens) for locale in spec.locales}
    titles = {locale: spec.titles.get(locale, words[locale].title) for locale in spec.locales}
    tutorial_tokens = {
        **tokens, "__PLING_DEFAULT_LOCALE__": spec.locales[0],
        "__PLING_JSON_LOCALES__": _json(list(spec.locales), indent=None),
        "__PLING_JSON_TITLE__": _json(titles, indent=None),
        "__PLING_JSON_HTML_LANG__": _json({loc: w.html_lang for loc, w in words.items()},
                                          indent=None),
        "__PLING_JSON_USER_REQUESTS__": _json(_localized(
            {loc: w.user_requests for loc, w in words.items()}), indent=2).replace("\n", "\n  "),
    }
    # Before anything is written: locales whose words disagree leave no half-written tutorial.
    model_rules, glossary = _model_rules(words), _glossary(words)
    written = _render_templates(TEMPLATES_DIR, tutorial_tokens, root, skip=LOCALES_DIR)
    written += _write_locales(spec, words, {**tokens, ID_TOKEN: spec.id}, titles, root)
    directory = root / TUTORIALS_DIR_NAME / spec.id
    written.append(_write(directory / MODEL_RULES_FILE_NAME, model_rules))
    written.append(_write(directory / GLOSSARY_FILE_NAME, glossary))
    try:
        load_tutorial(spec.id, root)
    except TutorialError as error:  # a template and the tutorial format disagree
        raise ScaffoldError(f"the new tutorial does not load: {error}") from None
    return written


def _check_locales(spec: NewTutorial) -> None:
    known = scaffold_locales()
    if not spec.locales or len(set(spec.locales)) != len(spec.locales):
        raise ScaffoldError(f"--locales must name each locale once (e.g. en,zh,ja). Current "
                            f"input: {','.join(spec.locales)!r}")
    unknown = [locale for locale in spec.locales if locale not in known]
    if unknown:
        raise ScaffoldError(
            f"the scaffold has words for {', '.join(known)}, not for {', '.join(unknown)}; "
            f"write the tutorial in those, then add {', '.join(unknown)} by hand "
            "(docs/adding-a-tutorial.md, \"Another language\")")
    strange = sorted(set(spec.titles) - set(spec.locales))
    if strange:
        raise ScaffoldError(f"--title for {', '.join(strange)}: not one of the locales "
                            f"{', '.join(spec.locales)}")


def _locale_words(locale: str, tokens: Mapping[str, str]) -> LocaleWords:
    text = _substitute((LOCALES_DIR / locale / f"words.json{TEMPLATE_SUFFIX}").read_text(
        encoding="utf-8"), tokens, as_json=True)
    return LocaleWords.model_validate_json(text)


def _write_locales(spec: NewTutorial, words: Mapping[str, LocaleWords],
                   tokens: Mapping[str, str], titles: Mapping[str, str],
                   root: Path) -> list[Path]:
    """Each locale's copy, tutorial text and, where it has them, the dock's strings."""
    directory = root / TUTORIALS_DIR_NAME / spec.id
    copy = directory / COPY_DIR_NAME
    written: list[Path] = []
    for locale in words:
        targets = {"copy.json": copy / f"{locale}.json",
                   "tutorial.md": directory / f"tutorial.{locale}.md",
                   "dock.json": copy / DOCK_COPY_DIR_NAME / f"{locale}.json"}
        for name, target in targets.items():
            template = LOCALES_DIR / locale / f"{name}{TEMPLATE_SUFFIX}"
            if template.is_file():
                written.append(_render(template, {**tokens, "__PLING_TITLE__": titles[locale]},
                                       target))
    return written


def _localized(trees: Mapping[str, Any]) -> Any:
    """One tree from a tree per locale of the same shape: each text becomes {locale: text}."""
    first = next(iter(trees.values()))
    if isinstance(first, str):
        return dict(trees)
    if isinstance(first, dict):
        for locale, tree in trees.items():
            if not isinstance(tree, dict) or set(tree) != set(first):
                raise ScaffoldError(f"templates/locales/{locale}/words.json: its keys differ "
                                    "from the other locales'")
        return {key: _localized({loc: tree[key] for loc, tree in trees.items()})
                for key in first}
    raise ScaffoldError(f"templates: a text must be a string, not {first!r}")


def _model_rules(words: Mapping[str, LocaleWords]) -> dict[str, Any]:
    tools = next(iter(words.values())).intent_patterns
    intents = [{"tool": tool, "patterns": [pattern for each in words.values()
                                           for pattern in each.intent_patterns.get(tool, [])]}
               for tool in tools]
    return {"intents": intents, **_localized({loc: w.model for loc, w in words.items()})}


def _glossary(words: Mapping[str, LocaleWords]) -> dict[str, Any]:
    terms = [{"en": name, **{loc: w.terms[name] for loc, w in words.items()}}
             for name in next(iter(words.values())).terms]
    glossary: dict[str, Any] = {"names": list(NAMES), "terms": terms}
    for each in words.values():
        for part, value in each.glossary.items():
            if isinstance(value, list):
                glossary[part] = [*glossary.get(part, []), *value]
            else:
                glossary[part] = {**glossary.get(part, {}), **value}
    return glossary


def _existing_tutorials(root: Path) -> set[str]:
    if not (root / TUTORIALS_DIR_NAME).is_dir():
        return set()
    try:
        return {name for t in list_tutorials(root) for name in (t.id, t.short_id)}
    except TutorialError as error:
        raise ScaffoldError(f"{root}: {error}") from None


def _next_port(root: Path) -> int:
    if not (root / TUTORIALS_DIR_NAME).is_dir():
        return FIRST_PORT
    ports = [t.port for t in list_tutorials(root)]
    return max(ports) + 1 if ports else FIRST_PORT


def _json(value: Any, *, indent: int | None = 2) -> str:
    return json.dumps(value, ensure_ascii=False, indent=indent)


def _substitute(text: str, tokens: Mapping[str, str], *, as_json: bool) -> str:
    for token, value in tokens.items():
        raw = token.startswith("__PLING_JSON_")  # already JSON: inserted as it is
        # Not ensure_ascii: a title is written as typed, not as \uXXXX escapes.
        text = text.replace(token, value if raw or not as_json
                            else json.dumps(value, ensure_ascii=False)[1:-1])
    return text


def _render_templates(directory: Path, tokens: Mapping[str, str], root: Path, *,
                      skip: Path) -> list[Path]:
    written: list[Path] = []
    for template in sorted(directory.rglob(f"*{TEMPLATE_SUFFIX}")):
        if template.is_relative_to(skip):
            continue
        relative = template.relative_to(directory).as_posix().removesuffix(TEMPLATE_SUFFIX)
        written.append(_render(template, tokens,
                               root / relative.replace(ID_TOKEN, tokens[ID_TOKEN])))
    return written


def _render(template: Path, tokens: Mapping[str, str], target: Path) -> Path:
    """The template written to `target`, its tokens replaced (JSON-escaped in a JSON file)."""
    return _write_text(target, _substitute(template.read_text(encoding="utf-8"), tokens,
                                           as_json=target.suffix == ".json"))


def _write(path: Path, data: Any) -> Path:
    return _write_text(path, _json(data) + "\n")


def _write_text(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def parse_locales(value: str) -> tuple[str, ...]:
    """`en,zh,ja` → ("en", "zh", "ja")."""
    return tuple(part.strip() for part in value.split(",") if part.strip())


def parse_titles(values: Sequence[str]) -> dict[str, str]:
    """`["ja=返金"]` → {"ja": "返金"}; a value without `=` is a ScaffoldError."""
    titles: dict[str, str] = {}
    for value in values:
        locale, equals, title = value.partition("=")
        if not equals or not locale.strip() or not title.strip():
            raise ScaffoldError(f"--title takes LOCALE=TITLE (e.g. ja=返金). Current input: "
                                f"{value!r}")
        titles[locale.strip()] = title.strip()
    return titles

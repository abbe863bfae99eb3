"""Tutorial texts: every locale in step, and every quoted snippet still in its source."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pling_harness.project.locales import foreign_characters
from pling_harness.project.paths import TUTORIALS_DIR_NAME
from pling_harness.project.tutorial_text import Snippet, TutorialText, parse_tutorial
from pling_harness.project.tutorials import Tutorial, list_tutorials

# The harness's own checkout: the project these tests check.
PROJECT_ROOT = Path(__file__).resolve().parents[1]

TUTORIALS = list_tutorials()
# (tutorial id, locale) for every text the tutorials promise.
TEXTS = [(tutorial.id, locale) for tutorial in TUTORIALS for locale in tutorial.locales]
# This project's own tutorial must be among them, in both languages.
REQUIRED_TEXTS = [("r-15-confirmation-and-human-handoff", "zh"),
                  ("r-15-confirmation-and-human-handoff", "en")]

HAN_IDEOGRAPH = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
LATIN_LETTER = re.compile(r"[A-Za-z]")
# Share of Han ideographs among all letters of the zh prose, inline code left out. Product
# names stay Latin, so a real Chinese text sits near 1; a half-English one falls far below.
MIN_ZH_HAN_SHARE = 0.8


def tutorial_path(tutorial_id: str, locale: str) -> Path:
    return PROJECT_ROOT / TUTORIALS_DIR_NAME / tutorial_id / f"tutorial.{locale}.md"


def load_tutorial_text(tutorial_id: str, locale: str) -> TutorialText:
    return parse_tutorial(tutorial_path(tutorial_id, locale).read_text(encoding="utf-8"))


def text_id(tutorial_id: str, locale: str) -> str:
    return f"{tutorial_id}/tutorial.{locale}.md"


def texts_in(locale: str) -> list[tuple[str, str]]:
    return [(tutorial_id, text_locale) for tutorial_id, text_locale in TEXTS
            if text_locale == locale]


def snippet_cases() -> list[pytest.ParameterSet]:
    cases: list[pytest.ParameterSet] = []
    for tutorial_id, locale in TEXTS:
        if not tutorial_path(tutorial_id, locale).is_file():
            continue  # reported by the existence test
        for snippet in load_tutorial_text(tutorial_id, locale).snippets:
            case_id = f"{text_id(tutorial_id, locale)}:{snippet.line}"
            cases.append(pytest.param(tutorial_id, locale, snippet, id=case_id))
    return cases


def han_share(prose: str) -> float:
    han = len(HAN_IDEOGRAPH.findall(prose))
    latin = len(LATIN_LETTER.findall(prose))
    return han / (han + latin) if han + latin else 0.0


# ---- the files -------------------------------------------------------------------------


def test_tutorial_texts_required_ones_are_declared() -> None:
    missing = [text for text in REQUIRED_TEXTS if text not in TEXTS]
    assert not missing, f"tutorial.json does not list these texts' locales: {missing}"


@pytest.mark.parametrize(("tutorial_id", "locale"), TEXTS)
def test_tutorial_file_in_each_locale_exists_and_has_text(tutorial_id: str, locale: str) -> None:
    path = tutorial_path(tutorial_id, locale)
    assert path.is_file(), f"missing tutorial text {path}"
    assert path.read_text(encoding="utf-8").strip(), f"{path} is empty"


@pytest.mark.parametrize(("tutorial_id", "locale"), TEXTS)
def test_tutorial_headings_every_h2_has_section_anchor(tutorial_id: str, locale: str) -> None:
    name = text_id(tutorial_id, locale)
    text = load_tutorial_text(tutorial_id, locale)
    assert text.headings, f"{name} has no '## ' headings"
    assert not text.unanchored_headings, (
        f"{name}: put '<!-- section: <id> -->' on the line before each of "
        f"{text.unanchored_headings}"
    )
    assert len(text.section_ids) == len(text.headings), (
        f"{name} has {len(text.section_ids)} section anchors for {len(text.headings)} '## ' "
        "headings; every anchor must sit right before a heading"
    )
    assert len(set(text.section_ids)) == len(text.section_ids), (
        f"{name} repeats a section id: {text.section_ids}"
    )


@pytest.mark.parametrize("tutorial", TUTORIALS, ids=lambda tutorial: tutorial.id)
def test_tutorial_sections_across_locales_same_ids_in_same_order(tutorial: Tutorial) -> None:
    first, *others = tutorial.locales
    expected = load_tutorial_text(tutorial.id, first).section_ids
    for locale in others:
        found = load_tutorial_text(tutorial.id, locale).section_ids
        assert found == expected, (
            f"{tutorial.id}: section ids differ between locales:\n"
            f"{first}: {expected}\n{locale}: {found}"
        )


# ---- snippets --------------------------------------------------------------------------


@pytest.mark.parametrize(("tutorial_id", "locale"), TEXTS)
def test_tutorial_snippets_present_at_least_one_per_text(tutorial_id: str, locale: str) -> None:
    assert load_tutorial_text(tutorial_id, locale).snippets, (
        f"{text_id(tutorial_id, locale)} quotes no source; mark quoted blocks with "
        "'<!-- snippet: <path> -->'"
    )


@pytest.mark.parametrize(("tutorial_id", "locale"), TEXTS)
def test_snippet_anchor_without_code_block_is_reported(tutorial_id: str, locale: str) -> None:
    dangling = load_tutorial_text(tutorial_id, locale).dangling_snippet_anchors
    assert not dangling, (
        f"{text_id(tutorial_id, locale)} lines {dangling}: a snippet anchor must be on the "
        "line right before its ``` fence"
    )


@pytest.mark.parametrize(("tutorial_id", "locale", "snippet"), snippet_cases())
def test_snippet_content_occurs_verbatim_in_source(
    tutorial_id: str, locale: str, snippet: Snippet
) -> None:
    where = f"{text_id(tutorial_id, locale)} line {snippet.line}"
    source = (PROJECT_ROOT / snippet.path).resolve()
    assert source.is_relative_to(PROJECT_ROOT), f"{where}: {snippet.path} is outside the project"
    assert source.is_file(), f"{where}: no file {snippet.path}"
    assert snippet.code.strip(), f"{where}: empty snippet"
    assert snippet.code in source.read_text(encoding="utf-8"), (
        f"{where}: the block is no longer in {snippet.path}; copy it again from the source, "
        "exactly"
    )


@pytest.mark.parametrize("tutorial", TUTORIALS, ids=lambda tutorial: tutorial.id)
def test_tutorial_snippets_across_locales_same_quotes_in_same_order(tutorial: Tutorial) -> None:
    first, *others = tutorial.locales
    quotes = {
        locale: [(s.path, s.code) for s in load_tutorial_text(tutorial.id, locale).snippets]
        for locale in tutorial.locales
    }
    for locale in others:
        assert quotes[locale] == quotes[first], (
            f"{tutorial.id}: {first} and {locale} must quote the same source blocks in the same "
            "order"
        )


# ---- language --------------------------------------------------------------------------


@pytest.mark.parametrize(("tutorial_id", "locale"), texts_in("zh"))
def test_zh_tutorial_prose_is_mostly_chinese(tutorial_id: str, locale: str) -> None:
    share = han_share(load_tutorial_text(tutorial_id, locale).prose)
    assert share >= MIN_ZH_HAN_SHARE, (
        f"only {share:.0%} of the letters in {text_id(tutorial_id, locale)}'s prose are Chinese "
        f"(expected >= {MIN_ZH_HAN_SHARE:.0%})"
    )


@pytest.mark.parametrize(("tutorial_id", "locale"), texts_in("en"))
def test_en_tutorial_prose_outside_code_has_no_cjk(tutorial_id: str, locale: str) -> None:
    found = foreign_characters(load_tutorial_text(tutorial_id, locale).prose, ["latin"])
    assert not found, f"{text_id(tutorial_id, locale)} has CJK characters outside code: {found}"


# ---- the checks themselves can fail ----------------------------------------------------


def test_parse_tutorial_code_block_after_snippet_anchor_is_quoted() -> None:
    text = parse_tutorial("intro\n<!-- snippet: a.js -->\n```js\nconst x = 1;\n  y();\n```\nend")
    assert text.snippets == [Snippet("a.js", 3, "const x = 1;\n  y();")]
    assert "const" not in text.prose


def test_parse_tutorial_anchor_not_before_fence_is_dangling() -> None:
    text = parse_tutorial("<!-- snippet: a.js -->\n\n```js\nx\n```")
    assert text.snippets == []
    assert text.dangling_snippet_anchors == [1]


def test_parse_tutorial_heading_without_anchor_is_unanchored() -> None:
    text = parse_tutorial("<!-- section: one -->\n## One\n\n## Two\n")
    assert text.section_ids == ["one"]
    assert text.unanchored_headings == ["## Two"]


def test_parse_tutorial_section_prose_is_split_at_anchors_without_code() -> None:
    text = parse_tutorial("# Title\n<!-- section: one -->\n## One\nsay `code` here\n"
                          "```sh\nrun me\n```\n<!-- section: two -->\n## Two\nmore")
    assert list(text.section_prose) == ["", "one", "two"]
    assert "Title" in text.section_prose[""]
    assert "say" in text.section_prose["one"]
    assert "code" not in text.section_prose["one"]
    assert "run me" not in text.section_prose["one"]
    assert "more" in text.section_prose["two"]


def test_han_share_english_prose_is_below_threshold() -> None:
    assert han_share(parse_tutorial("Confirmation and human handoff").prose) < MIN_ZH_HAN_SHARE


def test_han_share_chinese_prose_with_inline_code_is_above_threshold() -> None:
    prose = parse_tutorial("`danger` 操作的 `confirm_policy_override` 每次都要确认").prose
    assert han_share(prose) >= MIN_ZH_HAN_SHARE

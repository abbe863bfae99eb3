"""The glossary: its files load, and its rules catch what they are for (meaning, language,
terms), on sentences a translator might really write."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pling_harness.project.glossary import (
    HARNESS_GLOSSARY_PATH,
    Glossary,
    GlossaryError,
    Term,
    glossary_for,
    load_glossary,
)
from pling_harness.project.tutorials import Tutorial, list_tutorials

# The harness's own checkout: the project these tests check.
PROJECT_ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def glossary() -> Glossary:
    return load_glossary(HARNESS_GLOSSARY_PATH)


# ---- the files -------------------------------------------------------------------------


@pytest.mark.parametrize("tutorial", list_tutorials(), ids=lambda tutorial: tutorial.id)
def test_glossary_of_every_tutorial_loads_merged_with_the_harness_one(tutorial: Tutorial) -> None:
    merged = glossary_for(PROJECT_ROOT, tutorial)
    assert merged.terms and merged.notices


def test_glossary_file_with_unknown_field_is_refused_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "glossary.json"
    path.write_text(json.dumps({"terms": [], "colour": "blue"}), encoding="utf-8")
    with pytest.raises(GlossaryError, match=r"glossary\.json: field colour"):
        load_glossary(path)


def test_glossary_merge_cannot_change_what_a_code_means(glossary: Glossary) -> None:
    loose = glossary.model_copy(update={"terms": (), "names": ()})
    with pytest.raises(GlossaryError, match="PERMISSION_DENIED"):
        glossary.merged(loose, source="tutorials/x/glossary.json")


def test_glossary_merge_cannot_change_a_detail(glossary: Glossary) -> None:
    loose = glossary.model_copy(update={"terms": (), "names": ()})
    only_details = {locale: notices.model_copy(update={"codes": {"EXTRA": notices.codes[
        "RUN_FAILED"]}}) for locale, notices in loose.notices.items()}
    with pytest.raises(GlossaryError, match=r"run\.no-reason"):
        glossary.merged(loose.model_copy(update={"notices": only_details}),
                        source="tutorials/x/glossary.json")


def test_glossary_whose_locales_know_other_details_is_reported(glossary: Glossary) -> None:
    data = glossary.model_dump()
    del data["notices"]["zh"]["details"]["run.no-reason"]

    problems = Glossary.model_validate(data).coverage_problems(["en", "zh"])

    assert problems == ["notices.zh.details lacks ['run.no-reason'] and adds [] beside en's"]


def test_harness_glossary_covers_zh_and_en(glossary: Glossary) -> None:
    assert glossary.coverage_problems(["zh", "en"]) == []


def test_tutorial_in_a_locale_no_glossary_covers_is_refused_naming_the_fix(
    tmp_path: Path,
) -> None:
    tutorial = tutorial_in(tmp_path, ["en", "ja"])

    with pytest.raises(GlossaryError, match=r"no notices\.ja .*no scripts\.ja .*Another language"):
        glossary_for(tmp_path, tutorial)


def test_tutorial_glossary_brings_a_locale_of_its_own(glossary: Glossary, tmp_path: Path) -> None:
    tutorial = tutorial_in(tmp_path, ["en", "ja"])
    own = {"scripts": {"ja": ["han", "kana"]},
           "notices": {"ja": glossary.notices["zh"].model_dump()},
           "terms": [{"en": "human handoff", "ja": "人による引き継ぎ"}]}
    (tutorial.directory(tmp_path) / "glossary.json").write_text(json.dumps(own),
                                                                encoding="utf-8")

    merged = glossary_for(tmp_path, tutorial)

    assert merged.term("ja", "human handoff") == ("人による引き継ぎ",)
    assert merged.term("en", "human handoff") == ("human handoff", "handoff")
    assert merged.language_problems("ja", "確認カード Allow") == ["Latin words ['Allow']"]
    assert merged.language_problems("ja", "承認しますか？") == []
    assert merged.language_problems("zh", "允许吗？はい") == ["kana text 'いは'"]


def test_tutorial_glossary_cannot_change_a_terms_word(glossary: Glossary) -> None:
    other = Glossary(terms=(Term.model_validate({"en": "human handoff", "zh": "人工接管"}),))

    with pytest.raises(GlossaryError, match="'human handoff' already has a word in \\['zh'\\]"):
        glossary.merged(other, source="tutorials/x/glossary.json")


def tutorial_in(root: Path, locales: list[str]) -> Tutorial:
    """A tutorial offering `locales`, written under `root` (only its tutorial.json)."""
    tutorial = Tutorial.model_validate({
        "id": "t-1", "short_id": "t-1", "fixture": "t-1", "port": 5400,
        "title": {locale: "T" for locale in locales}, "locales": locales,
        "default_locale": locales[0]})
    tutorial.directory(root).mkdir(parents=True)
    return tutorial


# ---- meaning ---------------------------------------------------------------------------


@pytest.mark.parametrize(("locale", "code", "text"), [
    ("zh", "PERMISSION_DENIED", "您没有允许“归档工作区”，该操作未执行。"),
    ("zh", "PERMISSION_DENIED", "“归档工作区”未获允许，没有执行。"),
    ("en", "PERMISSION_DENIED", "You did not allow “Archive the workspace”. It was not run."),
    ("en", "PERMISSION_DENIED", "“Archive the workspace” was denied and not carried out."),
    ("zh", "HANDOFF_CANCELLED", "“发布已保存的更改”的步骤已取消，未完成。"),
    ("en", "HANDOFF_TIMEOUT", "The step for “Publish” timed out and has not been completed."),
    ("zh", "RUN_FAILED", "已尝试执行“重命名工作区”，但没有成功：名称太长"),
])
def test_notice_that_says_its_meaning_passes(glossary: Glossary, locale: str, code: str,
                                             text: str) -> None:
    assert glossary.meaning_problems(locale, text, code) == []


@pytest.mark.parametrize(("locale", "code", "text", "problem"), [
    ("zh", "PERMISSION_DENIED", "已允许并完成“归档工作区”。", "claims '允许'"),
    ("en", "HANDOFF_CANCELLED", "Done: the step for “Publish” is complete.", "claims 'done'"),
    ("zh", "HANDOFF_TIMEOUT", "“发布已保存的更改”的步骤已完成。", "says none of ['超时'"),
    ("zh", "RUN_FAILED", "已成功执行“重命名工作区”。", "claims '成功'"),
    ("en", "HANDOFF_FAILED", "The step for “Publish” is now complete.", "claims 'complete'"),
])
def test_notice_that_claims_the_opposite_is_reported(glossary: Glossary, locale: str,
                                                     code: str, text: str,
                                                     problem: str) -> None:
    assert any(problem in found for found in glossary.meaning_problems(locale, text, code))


def test_notice_not_naming_the_action_is_reported(glossary: Glossary) -> None:
    problems = glossary.meaning_problems("en", "You did not allow “archive_workspace”. It "
                                         "was not run.", "PERMISSION_DENIED",
                                         naming="Archive the workspace")
    assert problems == ["does not name the action 'Archive the workspace'"]


def test_action_name_inside_a_notice_is_not_read_as_its_claim(glossary: Glossary) -> None:
    # "Mark the order as done" is the action's name, not the notice saying "done".
    text = "You did not allow “Mark the order as done”. It was not run."
    assert glossary.meaning_problems("en", text, "PERMISSION_DENIED",
                                     naming="Mark the order as done") == []


# ---- language --------------------------------------------------------------------------


def test_zh_value_left_in_english_is_untranslated(glossary: Glossary) -> None:
    assert glossary.untranslated("zh", "Working…")
    assert glossary.language_problems("zh", "处理中 Working…") == ["Latin words ['Working']"]


def test_zh_value_with_names_formats_and_placeholders_is_zh(glossary: Glossary) -> None:
    assert not glossary.untranslated("zh", "true 或 false")
    assert glossary.language_problems("zh", "参数不是 JSON 对象：{path}") == []


def test_en_value_with_chinese_is_reported(glossary: Glossary) -> None:
    assert glossary.language_problems("en", "Cancel 取消") == ["han text '取消'"]


# ---- terms -----------------------------------------------------------------------------


def test_zh_text_with_renggong_jieguan_breaks_the_framework_term(glossary: Glossary) -> None:
    problems = glossary.term_problems("zh", "确认与人工接管", "Confirmation and human handoff")
    assert problems == [
        "the en text says 'human handoff' but this does not say '人工接力'",
        "says '人工接管': the glossary's term is '人工接力'",
    ]


def test_zh_text_with_the_framework_terms_passes(glossary: Glossary) -> None:
    assert glossary.term_problems("zh", "确认与人工接力", "Confirmation and human handoff") == []


def test_zh_always_allow_variant_is_reported(glossary: Glossary) -> None:
    assert glossary.term_problems("zh", "总是允许", "Always allow") == [
        "the en text says 'always allow' but this does not say '始终允许'",
        "says '总是允许': the glossary's term is '始终允许'",
    ]


# ---- details and terms ------------------------------------------------------------------


@pytest.mark.parametrize(("locale", "detail", "text"), [
    ("en", "run.no-reason", "“Compute” was attempted but did not succeed: unknown error"),
    ("en", "run.no-reason", "Compute failed for no reason it gave."),
    ("zh", "run.no-reason", "已尝试“计算”，但没有成功：原因不明"),
    ("en", "run.result-not-json", "Compute did not succeed: its result could not be returned."),
    ("zh", "run.result-not-json", "结果无法返回给助手"),
    ("en", "gateway.unknown-code", "The assistant could not answer."),
    ("zh", "gateway.unknown-code", "助手无法回答，请稍后再试。"),
])
def test_text_that_says_a_detail_passes(glossary: Glossary, locale: str, detail: str,
                                        text: str) -> None:
    assert glossary.detail_problems(locale, text, detail) == []


@pytest.mark.parametrize(("locale", "detail", "text"), [
    ("en", "run.no-reason", "“Compute” was attempted but did not succeed: 42"),
    ("en", "run.no-reason", "“Compute” did not succeed: [object Object]"),
    ("zh", "run.result-not-json", "已尝试“计算”，但没有成功：未知错误"),
    ("en", "gateway.unknown-code", "MAINTENANCE"),
    ("en", "gateway.unknown-code", "The assistant could not answer. Your request is done."),
])
def test_text_that_does_not_say_a_detail_is_reported(glossary: Glossary, locale: str,
                                                     detail: str, text: str) -> None:
    assert glossary.detail_problems(locale, text, detail) != []


def test_unknown_detail_is_a_key_error_listing_the_known(glossary: Glossary) -> None:
    with pytest.raises(KeyError, match=r"run\.no-reason"):
        glossary.detail_problems("en", "text", "run.nothing")


def test_term_is_found_in_its_locale_whatever_the_wording(glossary: Glossary) -> None:
    assert glossary.says_term("en", "the arguments are not a JSON object", "argument")
    assert glossary.says_term("zh", "参数不是 JSON 对象", "argument")
    assert not glossary.says_term("en", "the input is not JSON", "argument")
    assert not glossary.says_term("zh", "输入不是 JSON", "argument")
    with pytest.raises(KeyError, match="argument"):
        glossary.term("en", "widget")

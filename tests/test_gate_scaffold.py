"""What `pling-tutorial new` writes (pling_harness/scaffold/new.py): every template once, under
the new id, its tokens replaced (JSON-escaped in JSON files), on the next free port, and
nothing else; and what it refuses before writing anything.
Fast: the files are written and loaded, no check runs (tests/test_scaffold.py runs them)."""

from __future__ import annotations

import json
import re
import shutil
from itertools import pairwise
from pathlib import Path

import pytest
from pydantic import ValidationError

from pling_harness.cli.main import main
from pling_harness.cli.usage import PROGRAM
from pling_harness.project.glossary import glossary_for
from pling_harness.project.tutorials import load_tutorial
from pling_harness.scaffold.new import (
    FIRST_PORT,
    LOCALES_DIR,
    TEMPLATE_SUFFIX,
    TEMPLATES_DIR,
    LocaleWords,
    NewTutorial,
    ScaffoldError,
    scaffold,
)

NEW = NewTutorial(id="r-90-refunds", short_id="r-90")


def templates() -> list[str]:
    """The tutorial-wide templates, under the new id (each locale's are written per locale)."""
    return sorted(p.relative_to(TEMPLATES_DIR).as_posix().removesuffix(TEMPLATE_SUFFIX)
                  .replace("__PLING_ID__", NEW.id)
                  for p in TEMPLATES_DIR.rglob(f"*{TEMPLATE_SUFFIX}")
                  if not p.is_relative_to(LOCALES_DIR))


def per_locale_files(locales: tuple[str, ...]) -> list[str]:
    """What each locale adds: its copy and text, the dock's strings where the runtime ships
    none, and the model rules and glossary that gather every locale's words."""
    folder = f"tutorials/{NEW.id}"
    files = [f"{folder}/model-rules.json", f"{folder}/glossary.json"]
    for locale in locales:
        files += [f"{folder}/copy/{locale}.json", f"{folder}/tutorial.{locale}.md"]
        if (LOCALES_DIR / locale / f"dock.json{TEMPLATE_SUFFIX}").is_file():
            files.append(f"{folder}/copy/dock/{locale}.json")
    return files


def test_new_writes_each_template_once_under_the_id_and_nothing_else(tmp_path: Path) -> None:
    written = [p.relative_to(tmp_path).as_posix() for p in scaffold(NEW, tmp_path)]

    assert len(written) == len(set(written)), written
    assert sorted(written) == sorted(templates() + per_locale_files(NEW.locales))
    # The page runs on the runtime the package serves: no copy of it under the root.
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")
                  if p.is_file()) == sorted(written)


def test_new_replaces_every_token_with_the_tutorials_values(tmp_path: Path) -> None:
    spec = NewTutorial(id="r-91-loans", short_id="r-91",
                       titles={"en": "Loans", "zh": "贷款"}, port=5399)

    scaffold(spec, tmp_path)

    tutorial = load_tutorial("r-91", tmp_path)
    assert (tutorial.id, tutorial.short_id, tutorial.port) == ("r-91-loans", "r-91", 5399)
    assert (tutorial.title["en"], tutorial.title["zh"]) == ("Loans", "贷款")
    zh = (tmp_path / "tutorials" / "r-91-loans" / "tutorial.zh.md").read_text(encoding="utf-8")
    assert zh.startswith("# r-91 · 贷款\n")
    leftovers = [p for p in tmp_path.rglob("*") if p.is_file()
                 and "__PLING_" in p.read_text(encoding="utf-8", errors="ignore")]
    assert leftovers == []


def test_new_escapes_values_in_json_files_and_writes_them_as_given_elsewhere(
    tmp_path: Path
) -> None:
    title = 'Refunds "fast" \\ slow'
    scaffold(NewTutorial(id="r-92-quotes", short_id="r-92", titles={"en": title}), tmp_path)

    copy = json.loads((tmp_path / "tutorials" / "r-92-quotes" / "copy" / "en.json").read_text(
        encoding="utf-8"))
    assert copy["page.title"] == f"Support ticket · {title}"
    assert load_tutorial("r-92", tmp_path).title["en"] == title
    en = (tmp_path / "tutorials" / "r-92-quotes" / "tutorial.en.md").read_text(encoding="utf-8")
    assert title in en


def strings_in(tree: object) -> list[str]:
    """Every key and string value of a JSON document."""
    if isinstance(tree, str):
        return [tree]
    if isinstance(tree, dict):
        return [s for key, value in tree.items() for s in [key, *strings_in(value)]]
    if isinstance(tree, list):
        return [s for value in tree for s in strings_in(value)]
    return []


def test_new_writes_json_a_person_can_edit_each_language_as_written_two_spaces_a_level(
    tmp_path: Path
) -> None:
    spec = NewTutorial(id="r-91-loans", short_id="r-91", locales=("zh", "en", "ja"),
                       titles={"zh": "贷款"})

    written = [path for path in scaffold(spec, tmp_path) if path.suffix == ".json"]

    assert {p.name for p in written} >= {"tutorial.json", "model-rules.json", "glossary.json",
                                         "zh.json", "ja.json"}
    for path in written:
        text = path.read_text(encoding="utf-8")
        # Each text as its language writes it (贷款), never as \u8d37\u6b3e.
        unreadable = [s for s in strings_in(json.loads(text))
                      if json.dumps(s, ensure_ascii=False) not in text]
        assert unreadable == [], path
        for opening, line in pairwise(text.splitlines()):
            if opening.rstrip().endswith(("{", "[")):
                step = len(line) - len(line.lstrip()) - (len(opening) - len(opening.lstrip()))
                assert step == 2, f"{path}: {line!r} after {opening!r}"


def test_new_makes_the_first_locale_given_the_default_and_keeps_their_order(
    tmp_path: Path
) -> None:
    scaffold(NewTutorial(id="r-91-loans", short_id="r-91", locales=("zh", "en", "ja")),
             tmp_path)

    tutorial = load_tutorial("r-91", tmp_path)
    assert (tutorial.default_locale, tutorial.locales) == ("zh", ("zh", "en", "ja"))


def test_new_in_a_locale_the_harness_glossary_lacks_brings_that_locales_words(
    tmp_path: Path
) -> None:
    scaffold(NewTutorial(id="r-91-loans", short_id="r-91", locales=("en", "ja")), tmp_path)

    # The harness's glossary covers en and zh: ja's notices and scripts come with the tutorial.
    glossary = glossary_for(tmp_path, load_tutorial("r-91", tmp_path))
    rules = json.loads((tmp_path / "tutorials" / "r-91-loans" / "model-rules.json").read_text(
        encoding="utf-8"))
    denial = rules["failures"]["PERMISSION_DENIED"]["ja"]
    assert glossary.meaning_problems("ja", denial, "PERMISSION_DENIED") == []
    # ja's words for the page's terms and for the framework's.
    assert glossary.term("ja", "ticket") == ("チケット",)
    assert glossary.term("ja", "human handoff") == ("引き継ぎ",)


def test_new_reads_each_title_option_as_locale_equals_title(tmp_path: Path) -> None:
    assert main(["new", "r-91-loans", "--short-id", "r-91", "--root", str(tmp_path),
                 "--title", " zh = 贷款 ", "--title", "en=Loans"]) == 0

    assert dict(load_tutorial("r-91", tmp_path).title) == {"en": "Loans", "zh": "贷款"}


@pytest.mark.parametrize("title", ["zh", "=贷款", "zh=", "zh= "])
def test_new_refuses_a_title_option_that_is_not_locale_equals_title_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], title: str
) -> None:
    code = main(["new", "r-91-loans", "--root", str(tmp_path), "--title", title])

    assert code == 2
    assert capsys.readouterr().err == (f"{PROGRAM}: error: --title takes LOCALE=TITLE "
                                       f"(e.g. ja=返金). Current input: {title!r}\n")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("locales", ["en,zh,en", ""])
def test_new_refuses_locales_that_do_not_name_each_locale_once_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], locales: str
) -> None:
    code = main(["new", "r-91-loans", "--root", str(tmp_path), "--locales", locales])

    assert code == 2
    assert capsys.readouterr().err == (f"{PROGRAM}: error: --locales must name each locale "
                                       f"once (e.g. en,zh,ja). Current input: {locales!r}\n")
    assert list(tmp_path.iterdir()) == []


def test_new_refuses_a_templates_locale_whose_words_lack_what_the_others_say(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A contributor adds a locale to the templates and leaves out one of the model's replies.
    locales = tmp_path / "locales"
    shutil.copytree(LOCALES_DIR, locales)
    shutil.copytree(locales / "en", locales / "xx")
    words_path = locales / "xx" / f"words.json{TEMPLATE_SUFFIX}"
    words = json.loads(words_path.read_text(encoding="utf-8"))
    del words["model"]["replies"]["close_ticket"]
    words_path.write_text(json.dumps(words), encoding="utf-8")
    monkeypatch.setattr("pling_harness.scaffold.new.LOCALES_DIR", locales)
    root = tmp_path / "root"

    with pytest.raises(ScaffoldError, match=(
            r"^templates/locales/xx/words\.json: its keys differ from the other locales'$")):
        scaffold(NewTutorial(id="r-91-loans", short_id="r-91", locales=("en", "xx")), root)

    assert not root.exists()


def template_words(locale: str) -> dict[str, object]:
    """A locale's words.json as the templates have it."""
    path = LOCALES_DIR / locale / f"words.json{TEMPLATE_SUFFIX}"
    words: dict[str, object] = json.loads(path.read_text(encoding="utf-8"))
    return words


@pytest.mark.parametrize(("field", "value"), [("title", ""), ("html_lang", "e")])
def test_locale_words_refuse_an_empty_title_or_a_language_tag_of_one_letter(
    field: str, value: str
) -> None:
    with pytest.raises(ValidationError, match=f"\n{field}\n  String should have at least"):
        LocaleWords.model_validate({**template_words("zh"), field: value})


def test_locale_words_take_a_title_of_one_character() -> None:
    # One character can be a whole title in zh or ja (税: tax).
    assert LocaleWords.model_validate({**template_words("zh"), "title": "税"}).title == "税"


def test_new_takes_the_port_after_the_highest_one_under_the_root(tmp_path: Path) -> None:
    scaffold(NewTutorial(id="r-93-a", short_id="r-93", port=5400), tmp_path)
    scaffold(NewTutorial(id="r-94-b", short_id="r-94", port=5300), tmp_path)

    scaffold(NewTutorial(id="r-95-c", short_id="r-95"), tmp_path)

    assert load_tutorial("r-95", tmp_path).port == 5401


def test_new_in_an_empty_root_takes_the_first_port(tmp_path: Path) -> None:
    scaffold(NEW, tmp_path)

    assert load_tutorial(NEW.short_id, tmp_path).port == FIRST_PORT == 5260


def test_new_in_a_root_with_an_empty_tutorials_folder_takes_the_first_port(
    tmp_path: Path
) -> None:
    (tmp_path / "tutorials").mkdir()

    scaffold(NEW, tmp_path)

    assert load_tutorial(NEW.short_id, tmp_path).port == FIRST_PORT


@pytest.mark.parametrize(("field", "value", "name"), [
    ("id", "R 16", "id"), ("short_id", "r_16", "short id"), ("id", "", "id")])
def test_new_refuses_a_name_that_is_not_a_slug_and_writes_nothing(
    tmp_path: Path, field: str, value: str, name: str
) -> None:
    names = {"id": "r-96-x", "short_id": "r-96", field: value}
    spec = NewTutorial(id=names["id"], short_id=names["short_id"])

    with pytest.raises(ScaffoldError, match=(
            f"^the {name} must be lower-case letters, digits and dashes "
            rf"\(e\.g\. r-16-refunds\)\. Current input: {value!r}$")):
        scaffold(spec, tmp_path)

    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("spec", [NewTutorial(id="r-90-refunds", short_id="r-97"),
                                  NewTutorial(id="r-97-other", short_id="r-90"),
                                  NewTutorial(id="r-90", short_id="r-97"),
                                  NEW])
def test_new_refuses_an_id_or_short_id_already_taken(tmp_path: Path,
                                                     spec: NewTutorial) -> None:
    scaffold(NEW, tmp_path)
    taken = spec.id if spec.id in (NEW.id, NEW.short_id) else spec.short_id

    with pytest.raises(ScaffoldError, match=(
            f"^{re.escape(str(tmp_path / 'tutorials'))} already has a tutorial named "
            f"'{taken}'; choose "
            r"another id \(and --short-id\)$")):
        scaffold(spec, tmp_path)


@pytest.mark.parametrize("folder", ["tutorials", "fixtures"])
def test_new_refuses_to_write_over_a_folder_of_that_name(tmp_path: Path, folder: str) -> None:
    (tmp_path / folder / NEW.id).mkdir(parents=True)

    with pytest.raises(ScaffoldError, match=(
            f"^{re.escape(str(tmp_path / folder / NEW.id))} already exists; choose another id "
            "or remove it$")):
        scaffold(NEW, tmp_path)

    assert not (tmp_path / "tutorials" / NEW.id / "tutorial.json").exists()


def test_new_in_a_root_whose_tutorial_is_broken_says_so(tmp_path: Path) -> None:
    broken = tmp_path / "tutorials" / "r-1-broken"
    broken.mkdir(parents=True)
    (broken / "tutorial.json").write_text("{", encoding="utf-8")

    with pytest.raises(ScaffoldError, match=f"^{re.escape(str(tmp_path))}: "):
        scaffold(NEW, tmp_path)


def test_new_whose_tutorial_would_not_load_says_so(tmp_path: Path) -> None:
    with pytest.raises(ScaffoldError, match=r"^the new tutorial does not load: "):
        scaffold(NewTutorial(id="r-98-x", short_id="r-98", port=70000), tmp_path)

"""The page contract lists every meaning a notice must carry, exactly as the glossary holds
them: a page author reads them in docs/page-contract.md ("What a notice must mean"), the
checks read them from `pling_harness/project/glossary.json`, and this test keeps the two the same.
On a difference it prints the table to paste between the markers."""

from __future__ import annotations

from pathlib import Path

from pling_harness.project.glossary import HARNESS_GLOSSARY_PATH, LocaleNotices, load_glossary

# The harness's own checkout: the project these tests check.
PROJECT_ROOT = Path(__file__).resolve().parents[1]

CONTRACT = PROJECT_ROOT / "docs" / "page-contract.md"
START, END = "<!-- meanings:start -->", "<!-- meanings:end -->"


def _says(notices: LocaleNotices, name: str, *, detail: bool) -> tuple[str, str]:
    meaning = (notices.details if detail else notices.codes)[name]
    says = " **and** ".join(" / ".join(f"`{p}`" for p in group) for group in meaning.says)
    claims = ", ".join(f"`{c}`" for c in meaning.never_claims) or "—"
    return says, claims


def meanings_table() -> str:
    """The contract's table of meanings, rendered from the harness's glossary."""
    glossary = load_glossary(HARNESS_GLOSSARY_PATH)
    en, zh = glossary.notices["en"], glossary.notices["zh"]
    rows = ["| code or detail | en: says one phrase of each group | en: never claims "
            "| zh: says | zh: never claims |", "|---|---|---|---|---|"]
    names = [(code, False) for code in en.codes] + [(name, True) for name in en.details]
    for name, detail in names:
        en_says, en_claims = _says(en, name, detail=detail)
        zh_says, zh_claims = _says(zh, name, detail=detail)
        label = f"detail `{name}`" if detail else f"`{name}`"
        rows.append(f"| {label} | {en_says} | {en_claims} | {zh_says} | {zh_claims} |")
    rows.append("")
    for locale, notices in (("en", en), ("zh", zh)):
        words = ", ".join(f"`{n}`" for n in notices.negations)
        how = "whole words, " if locale == "en" else ""
        rows.append(f"Negations ({locale}, {how}up to {notices.negation_reach} characters "
                    f"before a claim): {words}.")
    return "\n".join(rows)


def test_contract_lists_every_meaning_of_the_glossary() -> None:
    text = CONTRACT.read_text(encoding="utf-8")
    assert START in text and END in text, f"{CONTRACT} lacks the markers {START} … {END}"
    written = text.split(START, 1)[1].split(END, 1)[0].strip()
    expected = meanings_table()
    assert written == expected, (
        f"{CONTRACT}'s table of meanings differs from {HARNESS_GLOSSARY_PATH}; paste between "
        f"the markers:\n{expected}")

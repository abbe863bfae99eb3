"""Characters that change how text reads without showing (Trojan Source, CVE-2021-42574):
which ones the approval card must make visible, how, and which a name a business API stores refuses.

The page contract ("Approval card") states the same rules; the reference runtime has them in
`fixtures/pling/approval-card.js`; a tutorial's page and backend.py may use the name rule.
"""

from __future__ import annotations

import unicodedata

# Default_Ignorable_Code_Point (Unicode DerivedCoreProperties.txt): rendered as nothing,
# whatever their general category (U+3164 HANGUL FILLER is a letter, U+FE0F a mark).
# Python's unicodedata has no such property, so the ranges are listed.
DEFAULT_IGNORABLE: tuple[tuple[int, int], ...] = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160),
    (0x17B4, 0x17B5), (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E),
    (0x2060, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
# General categories the card never shows as themselves: Other (control, format, surrogate,
# private use, unassigned) and the line and paragraph separators.
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
# General categories a stored name refuses: what controls or reorders text, breaks lines,
# or is no character at all. Spaces of any width and invisible letters or marks are allowed
# (a zh user types U+3000; emoji carry U+FE0F); the card still shows them as escapes.
_REFUSED_IN_NAME_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})


def is_default_ignorable(character: str) -> bool:
    point = ord(character)
    return any(low <= point <= high for low, high in DEFAULT_IGNORABLE)


def is_hidden(character: str) -> bool:
    """Whether the approval card must show `character` as an escape: a control, format,
    surrogate, private-use or unassigned character, a line or paragraph separator, any space
    other than U+0020, or a default-ignorable code point."""
    category = unicodedata.category(character)
    return (category in _HIDDEN_CATEGORIES or (category == "Zs" and character != " ")
            or is_default_ignorable(character))


def escape(character: str) -> str:
    """`\\u202E`; past U+FFFF `\\u{E0041}` (uppercase hex, at least 4 digits)."""
    point = ord(character)
    return f"\\u{point:04X}" if point <= 0xFFFF else f"\\u{{{point:X}}}"


def visible_form(value: str) -> str:
    """`value` as the approval card shows it: each hidden character as its escape, each
    backslash doubled (so a `\\u202E` the model typed reads `\\\\u202E`), the rest as it is.
    (A card may also show a double quote as `\\"`; pass values without one.)"""
    if '"' in value:
        raise ValueError(f"visible_form() takes values without a double quote, which a card "
                         f"may show as \\\"; got {value!r}")
    return "".join(escape(c) if is_hidden(c) else "\\\\" if c == "\\" else c for c in value)


def has_hidden(value: str) -> bool:
    return any(is_hidden(c) for c in value)


def describe(character: str) -> str:
    """`U+202E RIGHT-TO-LEFT OVERRIDE`, or `U+0000` for a character without a name."""
    name = unicodedata.name(character, "")
    return f"U+{ord(character):04X}" + (f" {name}" if name else "")


def refused_in_name(name: str) -> tuple[int, str] | None:
    """The first character a stored name may not hold, as (its position counting code
    points from 1, the character), or None."""
    for position, character in enumerate(name, start=1):
        if unicodedata.category(character) in _REFUSED_IN_NAME_CATEGORIES:
            return position, character
    return None

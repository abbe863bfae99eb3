"""Arguments for generated checks, from an action's `params` (the JSON-Schema subset of the page
contract, "Argument schemas"): Hypothesis strategies of valid values, the edge values every
run tries first, and the invalid calls each keyword must refuse.

Why our own strategies and not hypothesis-jsonschema: the subset is small (object, string,
integer, number, boolean, enum, min/maxLength, required, additionalProperties), and what a
check needs beyond "valid" is ours: strings with the characters the card must make visible,
values a business API refuses (`refused`), and edges counted in code points as the runtime
counts them. A value never holds a double quote: a card may show it as `\\"`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from pling_harness.project.hidden_characters import has_hidden, refused_in_name

Params = Mapping[str, Any]
# One sample per class of character the page contract says the card must make visible
# ("Approval card"): bidi overrides, isolates and marks, zero-width, the byte-order mark, C0
# and C1 controls, line and paragraph separators, look-alike spaces, other format
# characters, invisible letters and variation selectors.
HIDDEN_SAMPLES = ("\u202e\u202c\u202a\u202b\u202d", "\u2066\u2069\u2067\u2068",
                  "\u200e\u200f\u061c", "\u200b\u200c\u200d\u2060", "\ufeff",
                  "\u0000\u0007\u001b\t\n", "\u007f\u0085\u009b", "\u2028\u2029",
                  "\u00a0\u2007\u202f\u205f\u3000\u1680", "\u00ad\u180e\U000e0041",
                  "\u3164\u115f\ufe0f")
# A value that only looks like an escape (a backslash, "u", hex digits): shown as typed.
TYPED_ESCAPE = "\\u202eTSET"
# Printable characters a user may type, in several scripts, spaces included.
_PLAIN = st.characters(codec="utf-8", categories=("L", "N", "Zs", "P", "S"),
                       exclude_characters='"\\', max_codepoint=0xFFFF)


def properties(params: Params) -> dict[str, dict[str, Any]]:
    return dict(params.get("properties") or {})


def string_arguments(params: Params) -> list[str]:
    return [name for name, schema in properties(params).items() if _is_string(schema)]


def _is_string(schema: Mapping[str, Any]) -> bool:
    return schema.get("type") == "string" and "enum" not in schema


def _length(schema: Mapping[str, Any]) -> tuple[int, int]:
    low = int(schema.get("minLength", 0))
    return low, int(schema.get("maxLength", max(low, 24)))


def accepted(value: str, refused: Sequence[str]) -> bool:
    """Whether a business API that refuses `refused` takes `value`."""
    if "blank" in refused and not value.strip():
        return False
    return not ("hidden-characters" in refused and refused_in_name(value) is not None)


def _value_strategy(schema: Mapping[str, Any], refused: Sequence[str]) -> st.SearchStrategy[Any]:
    if "enum" in schema:
        return st.sampled_from(list(schema["enum"]))
    kind = schema.get("type")
    if kind == "string":
        low, high = _length(schema)
        return st.text(_PLAIN, min_size=low, max_size=min(high, 40) if high >= low else low
                       ).filter(lambda text: accepted(text, refused) and not has_hidden(text))
    if kind == "integer":
        return st.integers(min_value=-10_000, max_value=10_000)
    if kind == "number":
        return st.floats(min_value=-1e6, max_value=1e6, allow_nan=False).map(
            lambda number: round(number, 3))
    if kind == "boolean":
        return st.booleans()
    if kind == "object":
        return valid_arguments(schema, {})
    return st.none()


def valid_arguments(params: Params, refused: Mapping[str, Sequence[str]]
                    ) -> st.SearchStrategy[dict[str, Any]]:
    """Argument objects `params` accepts and the business API takes: every required property,
    some optional ones."""
    props = properties(params)
    required = [name for name in params.get("required", []) if name in props]
    optional = [name for name in props if name not in required]
    return st.fixed_dictionaries(
        {name: _value_strategy(props[name], refused.get(name, ())) for name in required},
        optional={name: _value_strategy(props[name], refused.get(name, ()))
                  for name in optional})


def minimal_arguments(params: Params) -> dict[str, Any]:
    """The smallest valid object: each required property with a plain value of its type."""
    props = properties(params)
    return {name: _plain_value(props[name]) for name in params.get("required", [])
            if name in props}


def _plain_value(schema: Mapping[str, Any]) -> Any:
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    low, high = _length(schema)
    return {"string": "Acme"[:high].ljust(low, "x"), "integer": 1, "number": 1.5,
            "boolean": True, "object": {}}.get(str(kind))


def edge_arguments(params: Params, refused: Mapping[str, Sequence[str]]) -> list[dict[str, Any]]:
    """What each string argument's edges look like, each tried before any drawn value: the
    longest and shortest value its schema takes and one whose spaces matter."""
    examples: list[dict[str, Any]] = []
    base = minimal_arguments(params)
    for name in string_arguments(params):
        low, high = _length(properties(params)[name])
        for value in ("Northwind Traders Asia Pacific " * 4)[:high].rstrip().ljust(high, "x"), \
                "Acme"[:max(low, 1)].ljust(low, "x"), "  Acme  Labs  "[:high]:
            if low <= len(value) <= high and accepted(value, refused.get(name, ())):
                examples.append({**base, name: value})
    return examples


def hidden_values(params: Params) -> list[dict[str, Any]]:
    """Argument objects whose string values together hold every class of hidden character
    (split to fit each argument's maxLength), and one holding a typed escape."""
    base = minimal_arguments(params)
    examples: list[dict[str, Any]] = []
    for name in string_arguments(params):
        high = _length(properties(params)[name])[1]
        chunk = ""
        for sample in HIDDEN_SAMPLES:
            if len(chunk) + len(sample) + 2 > high and chunk:
                examples.append({**base, name: f"A{chunk}z"})
                chunk = ""
            chunk += sample
        examples.append({**base, name: f"A{chunk}z"[:max(high, 1)]})
        if len(TYPED_ESCAPE) <= high:
            examples.append({**base, name: TYPED_ESCAPE})
    return examples


# Hidden characters a trim removes (JavaScript's and Python's alike): refused at either end of
# a value too, where trimming first would silently drop them instead.
TRIMMED_HIDDEN = ("\u2028", "\t")


def hidden_at_the_ends(params: Params) -> list[dict[str, Any]]:
    """Argument objects whose string value starts or ends with a hidden character that a trim
    would remove."""
    base = minimal_arguments(params)
    return [{**base, name: value} for name in string_arguments(params)
            for character in TRIMMED_HIDDEN
            for value in (f"{character}Acme", f"Acme{character}")
            if len(value) <= _length(properties(params)[name])[1]]


@dataclass(frozen=True)
class InvalidCall:
    """Raw argument text a model might send that `params` must refuse, and what it breaks."""

    case: str
    arguments: str


def invalid_calls(params: Params) -> list[InvalidCall]:
    """One call per way of breaking `params`: not JSON, not an object, blank, a required
    property missing, each property of the wrong type, an unexpected property, a string one
    character outside its length, a value outside an enum."""
    base = minimal_arguments(params)
    calls = [InvalidCall("not-json", '{"oops": '), InvalidCall("not-an-object", "[]"),
             InvalidCall("empty", ""), InvalidCall("blank", " \n\t "),
             InvalidCall("unexpected-argument", json.dumps({**base, "unexpected_arg": 1}))]
    props = properties(params)
    for name in params.get("required", []):
        calls.append(InvalidCall(f"{name}-missing",
                                 json.dumps({k: v for k, v in base.items() if k != name})))
    wrong = {"string": 42, "integer": 1.5, "number": "1.5", "boolean": "true", "object": []}
    for name, schema in props.items():
        if schema.get("type") in wrong:
            calls.append(InvalidCall(f"{name}-wrong-type",
                                     json.dumps({**base, name: wrong[schema["type"]]})))
        if "enum" in schema:
            calls.append(InvalidCall(f"{name}-not-in-enum",
                                     json.dumps({**base, name: "not-listed-value"})))
        if _is_string(schema):
            low, high = _length(schema)
            if low > 0:
                calls.append(InvalidCall(f"{name}-too-short",
                                         json.dumps({**base, name: "x" * (low - 1)})))
            if "maxLength" in schema:
                calls.append(InvalidCall(f"{name}-too-long",
                                         json.dumps({**base, name: "x" * (high + 1)})))
    return calls


def near_miss_ids(action: str) -> list[str]:
    """Ids a model might send for `action` that are not it: case, separators, whitespace."""
    words = action.split("_")
    camel = words[0] + "".join(word.title() for word in words[1:])
    misses = [action.upper(), action.title(), action.replace("_", "-"),
              action.replace("_", " "), camel, f" {action} ", f"{action}\n"]
    return [miss for miss in dict.fromkeys(misses) if miss != action]

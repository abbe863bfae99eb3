"""Write the reference part of docs/dock-drivers.md from the dock driver's models
(`DriverSpec` and its parts in pling_harness/project/dock_driver.py): each part's docstring,
and per key its value, default and the docstring written after the field.

    .venv/bin/python scripts/driver_reference.py          # rewrite the reference
    .venv/bin/python scripts/driver_reference.py --check  # exit 1 if it is out of date

Only what lies between the two markers is written; the hand-written text around them is
kept. A field without a docstring is an error naming it: the reference has no blank cell.
"""

from __future__ import annotations

import argparse
import ast
import inspect
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, get_args

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from pling_harness.project import dock_driver

PAGE = Path(__file__).resolve().parents[1] / "docs" / "dock-drivers.md"
BEGIN = ("<!-- generated: begin. scripts/driver_reference.py writes what lies between these "
         "markers from the field docs in pling_harness/project/dock_driver.py; edit them "
         "there -->")
END = "<!-- generated: end -->"
# The driver's own words for the names its annotations use.
WORDS = {
    "Css": "selector",
    "str": "text",
    "bool": "`true` or `false`",
    "ApiPath": "path (`/api/...`)",
    "DriverName": "name (`a-z`, `0-9`, `-`)",
    "AttributeName": "attribute name",
    "Role": "a role (`user`, `assistant`, `notice`, `error`)",
    "Value": "text or [reading](#reading)",
}


class UndocumentedField(Exception):
    """A field the reference cannot describe: it has no docstring."""


def anchor(model: type[BaseModel]) -> str:
    """The id of its section, as a Markdown renderer makes it from the heading."""
    return model.__name__.lower()


def models_under(root: type[BaseModel]) -> list[type[BaseModel]]:
    """`root` and every model its fields hold, in the order they are first met."""
    found: list[type[BaseModel]] = []

    def visit(annotation: object) -> None:
        if isinstance(annotation, type) and issubclass(annotation, BaseModel) \
                and annotation not in found:
            found.append(annotation)
            for field in annotation.model_fields.values():
                visit(field.annotation)
        for argument in get_args(annotation):
            visit(argument)

    visit(root)
    # Absent and Reading are the driver's two words used everywhere: last, for reference.
    return sorted(found, key=lambda m: m.__name__ in ("Reading", "Absent"))


def annotations_of(module: ModuleType) -> dict[tuple[str, str], ast.expr]:
    """(class, field) → the field's annotation as written in `module`'s source."""
    found: dict[tuple[str, str], ast.expr] = {}
    for node in ast.walk(ast.parse(inspect.getsource(module))):
        if isinstance(node, ast.ClassDef):
            for statement in node.body:
                if isinstance(statement, ast.AnnAssign) and isinstance(statement.target,
                                                                       ast.Name):
                    found[(node.name, statement.target.id)] = statement.annotation
    return found


def words_for(node: ast.expr, models: Sequence[type[BaseModel]]) -> str:
    """An annotation in the driver's words: `Css | Absent` → "selector or absent"."""
    linked = {model.__name__: f"[{model.__name__}](#{anchor(model)})" for model in models}
    linked["Absent"] = "[absent](#absent)"
    linked["Reading"] = "[reading](#reading)"

    def say(part: ast.expr) -> str:
        if isinstance(part, ast.BinOp) and isinstance(part.op, ast.BitOr):
            return f"{say(part.left)} or {say(part.right)}"
        if isinstance(part, ast.Constant):
            return "none" if part.value is None else f"`{json.dumps(part.value)}`"
        if isinstance(part, ast.Name):
            return linked.get(part.id) or WORDS.get(part.id) or f"`{part.id}`"
        if isinstance(part, ast.Subscript) and isinstance(part.value, ast.Name):
            inner = part.slice.elts if isinstance(part.slice, ast.Tuple) else [part.slice]
            kind = part.value.id
            if kind == "tuple":
                return f"list of {say(inner[0])}"
            if kind == "Literal":
                return " or ".join(say(value) for value in inner)
            if kind == "dict":
                return f"map of {say(inner[0])} to {say(inner[1])}"
            if kind == "Annotated":
                return say(inner[0])
        return f"`{ast.unparse(part)}`"

    return say(node)


def default_of(field: FieldInfo) -> str:
    if field.is_required():
        return "required"
    value: Any = field.get_default(call_default_factory=True)
    if value is None:
        return "none"
    if isinstance(value, dock_driver.Absent):
        return "absent"
    if isinstance(value, BaseModel):
        return f"`{value.model_dump_json()}`"
    return f"`{json.dumps(list(value) if isinstance(value, tuple) else value)}`"


def one_line(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def render_reference(root: type[BaseModel] = dock_driver.DriverSpec,
                     module: ModuleType = dock_driver) -> str:
    """The reference: one section per model under `root`, a row per key."""
    models = models_under(root)
    written = annotations_of(module)
    missing = [f"{model.__name__}.{name}" for model in models
               for name, field in model.model_fields.items() if not field.description]
    if missing:
        raise UndocumentedField(
            f"{', '.join(missing)}: no docstring; write one on the line after the field in "
            f"{inspect.getsourcefile(module)}, then run this again")
    lines: list[str] = []
    for model in models:
        lines += [f"### {model.__name__}", "",
                  one_line(inspect.getdoc(model) or ""), "",
                  "| key | value | default | what it is |", "|---|---|---|---|"]
        for name, field in model.model_fields.items():
            value = words_for(written[(model.__name__, name)], models)
            lines.append(f"| `{name}` | {value} | {default_of(field)} | "
                         f"{one_line(field.description or '')} |")
        lines.append("")
    return "\n".join(lines)


def rewritten(page: str, reference: str) -> str:
    """`page` with what lies between its markers replaced by `reference`."""
    if page.count(BEGIN) != 1 or page.count(END) != 1:
        raise ValueError(f"{PAGE} must hold each marker once: {BEGIN!r} and {END!r}")
    before, rest = page.split(BEGIN)
    _, after = rest.split(END)
    return f"{before}{BEGIN}\n\n{reference}\n{END}{after}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 if the page is not what would be written")
    args = parser.parse_args(argv)
    page = PAGE.read_text(encoding="utf-8")
    try:
        wanted = rewritten(page, render_reference())
    except (UndocumentedField, ValueError) as error:
        print(f"driver_reference: {error}", file=sys.stderr)
        return 2
    if args.check:
        if wanted != page:
            print(f"{PAGE} is out of date: run scripts/driver_reference.py", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(wanted, encoding="utf-8")
    print(f"wrote {PAGE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

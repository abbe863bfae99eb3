"""Write a new tutorial from `templates/`: its page, copy, model rules, backend, checks and
mutant catalogue, which pass `pling-tutorial check` and `mutate` as written.

Every file under `templates/` ends in `.tmpl` (so no tool takes a template for project
code) and is written to the same path under the root with the suffix dropped and each
`__PLING_*__` token replaced: `__PLING_ID__` in paths and text, the short id, titles and port
in text. In `.json` files the values are JSON-escaped.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

from pydantic import TypeAdapter, ValidationError

from harness.project.paths import (
    FIXTURES_DIR_NAME,
    PROJECT_ROOT,
    RUNTIME_DIR_NAME,
    TESTBED_DIR_NAME,
    TUTORIALS_DIR_NAME,
)
from harness.project.tutorials import Slug, TutorialError, list_tutorials, load_tutorial

TEMPLATES_DIR = Path(__file__).parent / "templates"
TEMPLATE_SUFFIX = ".tmpl"
ID_TOKEN = "__PLING_ID__"
# The port `dev` serves a new tutorial on when no tutorial under the root has one yet.
FIRST_PORT = 5260
DEFAULT_TITLE_EN = "Refunds with confirmation"
DEFAULT_TITLE_ZH = "需确认的退款"


class ScaffoldError(Exception):
    """The tutorial cannot be written as asked; the message names the value and the fix."""


@dataclass(frozen=True, kw_only=True)
class NewTutorial:
    """What `new` asks for; the rest of the tutorial comes from the templates."""

    id: str
    short_id: str
    title_en: str = DEFAULT_TITLE_EN
    title_zh: str = DEFAULT_TITLE_ZH
    port: int | None = None

    def tokens(self, port: int) -> dict[str, str]:
        return {ID_TOKEN: self.id, "__PLING_SHORT_ID__": self.short_id,
                "__PLING_TITLE_EN__": self.title_en, "__PLING_TITLE_ZH__": self.title_zh,
                "__PLING_PORT__": str(port)}


def scaffold(spec: NewTutorial, root: Path = PROJECT_ROOT) -> list[Path]:
    """Write the tutorial under `root` (its fixtures/ and tutorials/, made if missing) and
    return the files written. A root without the reference runtime gets a copy of the
    project's (`fixtures/pling/`, `fixtures/pling-testbed/`), which the page runs on."""
    for name, value in (("id", spec.id), ("short id", spec.short_id)):
        try:
            TypeAdapter(Slug).validate_python(value)
        except ValidationError:
            raise ScaffoldError(f"the {name} must be lower-case letters, digits and dashes "
                                f"(e.g. r-16-refunds). Current input: {value!r}") from None
    existing = _existing_tutorials(root)
    clash = [name for name in (spec.id, spec.short_id) if name in existing]
    if clash:
        raise ScaffoldError(f"{root / TUTORIALS_DIR_NAME} already has a tutorial named "
                            f"{clash[0]!r}; choose another id (and --short-id)")
    for folder in (root / TUTORIALS_DIR_NAME / spec.id, root / FIXTURES_DIR_NAME / spec.id):
        if folder.exists():
            raise ScaffoldError(f"{folder} already exists; choose another id or remove it")
    port = spec.port if spec.port is not None else _next_port(root)
    written = [*_copy_runtime(root), *_render_templates(spec.tokens(port), root)]
    try:
        load_tutorial(spec.id, root)
    except TutorialError as error:  # a template and the tutorial format disagree
        raise ScaffoldError(f"the new tutorial does not load: {error}") from None
    return written


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


def _copy_runtime(root: Path) -> list[Path]:
    written: list[Path] = []
    for name in (RUNTIME_DIR_NAME, TESTBED_DIR_NAME):
        target = root / FIXTURES_DIR_NAME / name
        if not target.exists():
            shutil.copytree(PROJECT_ROOT / FIXTURES_DIR_NAME / name, target)
            written.append(target)
    return written


def _render_templates(tokens: dict[str, str], root: Path) -> list[Path]:
    written: list[Path] = []
    for template in sorted(TEMPLATES_DIR.rglob(f"*{TEMPLATE_SUFFIX}")):
        relative = template.relative_to(TEMPLATES_DIR).as_posix().removesuffix(TEMPLATE_SUFFIX)
        target = root / relative.replace(ID_TOKEN, tokens[ID_TOKEN])
        text = template.read_text(encoding="utf-8")
        as_json = target.suffix == ".json"
        for token, value in tokens.items():
            text = text.replace(token, json.dumps(value)[1:-1] if as_json else value)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        written.append(target)
    return written

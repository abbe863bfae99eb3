"""A tutorial's text (`tutorial.<locale>.md`) split into sections, quoted snippets and prose.

Sections start at `<!-- section: <id> -->` (the line right before a `## ` heading), so the zh
and en texts can be compared section by section; a snippet is a fenced block right after
`<!-- snippet: <path> -->`, quoted verbatim from that file. Prose is what a reader reads:
code blocks, inline code and HTML comments left out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

SECTION_ANCHOR = re.compile(r"^<!-- section: ([a-z0-9][a-z0-9-]*) -->$")
SNIPPET_ANCHOR = re.compile(r"^<!-- snippet: (\S+) -->$")
# A fence opens or closes a code block; the info string ("js", "sh") may follow the backticks.
FENCE = re.compile(r"^```")
INLINE_CODE = re.compile(r"`[^`\n]*`")
HTML_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
# The section id given to what comes before the first anchor (the title).
TITLE_SECTION = ""


@dataclass(frozen=True)
class Snippet:
    """A fenced code block that claims to be quoted from `path`."""

    path: str
    line: int
    code: str


@dataclass(frozen=True)
class TutorialText:
    """What the checks need to know about one tutorial file."""

    section_ids: list[str]
    headings: list[str]
    unanchored_headings: list[str]
    snippets: list[Snippet]
    dangling_snippet_anchors: list[int]
    prose: str
    section_prose: dict[str, str] = field(default_factory=dict)
    """Prose per section id; what precedes the first anchor is under TITLE_SECTION."""


def _prose(lines: list[str]) -> str:
    return INLINE_CODE.sub(" ", HTML_COMMENT.sub(" ", "\n".join(lines)))


def parse_tutorial(text: str) -> TutorialText:
    """Split `text` into sections, snippet blocks and the prose outside code."""
    lines = text.split("\n")
    section_ids: list[str] = []
    headings: list[str] = []
    unanchored: list[str] = []
    snippets: list[Snippet] = []
    dangling: list[int] = []
    prose_lines: list[str] = []
    by_section: dict[str, list[str]] = {TITLE_SECTION: []}
    current = TITLE_SECTION
    index = 0
    while index < len(lines):
        line = lines[index]
        previous = lines[index - 1] if index > 0 else ""
        if FENCE.match(line):
            end = index + 1
            while end < len(lines) and not FENCE.match(lines[end]):
                end += 1
            snippet_anchor = SNIPPET_ANCHOR.match(previous)
            if snippet_anchor:
                code = "\n".join(lines[index + 1 : end])
                snippets.append(Snippet(snippet_anchor.group(1), index + 1, code))
            index = end + 1
            continue
        if SNIPPET_ANCHOR.match(line):
            following = lines[index + 1] if index + 1 < len(lines) else ""
            if not FENCE.match(following):
                dangling.append(index + 1)
        section_anchor = SECTION_ANCHOR.match(line)
        if section_anchor:
            section_ids.append(section_anchor.group(1))
            current = section_anchor.group(1)
            by_section.setdefault(current, [])
        if line.startswith("## "):
            headings.append(line)
            if not SECTION_ANCHOR.match(previous):
                unanchored.append(line)
        prose_lines.append(line)
        by_section[current].append(line)
        index += 1
    return TutorialText(section_ids, headings, unanchored, snippets, dangling,
                        _prose(prose_lines),
                        {section: _prose(body) for section, body in by_section.items()})


def tutorial_text_path(directory: Path, locale: str) -> Path:
    """A tutorial's text in `locale`, in the tutorial's folder."""
    return directory / f"tutorial.{locale}.md"


def load_tutorial_text(directory: Path, locale: str) -> TutorialText:
    return parse_tutorial(tutorial_text_path(directory, locale).read_text(encoding="utf-8"))

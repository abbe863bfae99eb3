"""Every page, as the fixture server serves it, lists its whole static module graph as
`<link rel="modulepreload">`, so the browser fetches the runtime in one wave instead of one
wave per level of imports.

The graph is computed here from the import statements, fetched through the fixture server's
own routes. The pages' own markup names no module inside the runtime: the server writes the
runtime's lines at the page's marker from the runtime's imports (`pling_harness.server.preload`),
so a runtime laid out differently is preloaded as it is laid out, without 404s.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import httpx
import pytest

from pling_harness.project.paths import FIXTURES_DIR_NAME, TESTBED_DIR
from pling_harness.server.preload import (
    RUNTIME_PRELOAD_MARKER,
    runtime_module_graph,
    with_runtime_preloads,
)
from pling_harness.server.runner import TutorialServer

# The harness's own checkout: the project these tests check.
PROJECT_ROOT = Path(__file__).resolve().parents[1]

# Pages whose module graphs are preloaded, by path on the fixture server, and their files.
PAGES = ("/", "/testbed/")
PAGE_FILES = (PROJECT_ROOT / FIXTURES_DIR_NAME / "r-15-confirmation-and-human-handoff"
              / "index.html", TESTBED_DIR / "index.html")
# What a page may name of the runtime: its public entry and its stylesheet.
RUNTIME_PUBLIC = ("/pling/index.js", "/pling/dock.css")
# A static import or re-export written at the start of a line, as the runtime and the pages
# write theirs: `import x from "…"`, `import {…} from "…" with {…}`, `export {…} from "…"`,
# `import "…"`. `import("…")` is dynamic and not part of the static graph.
STATIC_IMPORT = re.compile(
    r"""^(?:import|export)\s(?:[^;"'`]*?\sfrom\s*)?["']([^"']+)["']""", re.MULTILINE)
JSON_SUFFIX = ".json"


@dataclass
class PageMarkup(HTMLParser):
    """The module scripts a page runs and the module preloads it declares."""

    entries: list[str] = field(default_factory=list)
    inline_modules: list[str] = field(default_factory=list)
    preloads: dict[str, str | None] = field(default_factory=dict)
    """href → its `as` attribute (None when absent)."""
    _in_inline_module: bool = False

    def __post_init__(self) -> None:
        super().__init__()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if tag == "script" and attributes.get("type") == "module":
            source = attributes.get("src")
            if source:
                self.entries.append(source)
            else:
                self._in_inline_module = True
        if tag == "link" and attributes.get("rel") == "modulepreload":
            self.preloads[attributes.get("href") or ""] = attributes.get("as")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_inline_module = False

    def handle_data(self, data: str) -> None:
        if self._in_inline_module:
            self.inline_modules.append(data)


def imports_of(source: str) -> list[str]:
    return STATIC_IMPORT.findall(source)


def module_graph(client: httpx.Client, page_url: str, markup: PageMarkup) -> set[str]:
    """Every module URL path the page's module scripts import, directly or not (entries
    included)."""
    pending = [urljoin(page_url, entry) for entry in markup.entries]
    pending += [urljoin(page_url, spec) for inline in markup.inline_modules
                for spec in imports_of(inline)]
    seen: set[str] = set()
    while pending:
        url = pending.pop()
        if url in seen:
            continue
        seen.add(url)
        response = client.get(url)
        assert response.status_code == 200, f"{url} (imported by the page's graph) answered " \
                                            f"{response.status_code}"
        if not urlsplit(url).path.endswith(JSON_SUFFIX):
            pending += [urljoin(url, spec) for spec in imports_of(response.text)]
    return {urlsplit(url).path for url in seen}


@pytest.fixture(scope="module")
def client() -> Iterator[httpx.Client]:
    with (
        TutorialServer(tutorial="r-15", environ={}) as server,
        httpx.Client(base_url=server.url) as http,
    ):
        yield http


def link_line(path: str) -> str:
    kind = ' as="json"' if path.endswith(JSON_SUFFIX) else ""
    return f'<link rel="modulepreload" href="{path}"{kind}>'


def test_imports_of_reads_every_static_form() -> None:
    source = (
        'import { a } from "./a.js";\n'
        'import b from "./b.json" with { type: "json" };\n'
        'export {\n  c,\n  d,\n} from "./c.js";\n'
        'export * from "/pling/d.js";\n'
        'import "./side-effect.js";\n'
        'const later = import("./dynamic.js");\n'
        '/** @type {import("./type-only.js").T} */\n'
        'export const NAME = "pling:event";\n'
    )
    assert imports_of(source) == ["./a.js", "./b.json", "./c.js", "/pling/d.js",
                                  "./side-effect.js"]


@pytest.mark.parametrize("page_path", PAGES)
def test_page_preloads_its_whole_module_graph(client: httpx.Client, page_path: str) -> None:
    page_url = f"{client.base_url}".rstrip("/") + page_path
    markup = PageMarkup()
    markup.feed(client.get(page_url).text)
    assert markup.entries or markup.inline_modules, f"{page_path} runs no module script"
    graph = module_graph(client, page_url, markup)
    entries = {urlsplit(urljoin(page_url, entry)).path for entry in markup.entries}
    listed = {urlsplit(urljoin(page_url, href)).path: kind
              for href, kind in markup.preloads.items()}
    missing = sorted(graph - entries - set(listed))
    assert not missing, (
        f"{page_path} does not preload {len(missing)} module(s) of its import graph; add to its "
        "<head>:\n" + "\n".join(link_line(path) for path in missing))
    stale = sorted(set(listed) - graph)
    assert not stale, (
        f"{page_path} preloads module(s) nothing imports any more; remove:\n"
        + "\n".join(link_line(path) for path in stale))
    wrong_kind = sorted(path for path, kind in listed.items()
                        if kind != ("json" if path.endswith(JSON_SUFFIX) else None))
    assert not wrong_kind, (
        f"{page_path}: a JSON module is preloaded with as=\"json\" (or the browser fetches it "
        "twice), a script module without `as`; write:\n"
        + "\n".join(link_line(path) for path in wrong_kind))


@pytest.mark.parametrize("page_file", PAGE_FILES, ids=lambda path: path.parent.name)
def test_page_markup_names_no_module_inside_the_runtime(page_file: Path) -> None:
    markup_text = page_file.read_text(encoding="utf-8")
    markup = PageMarkup()
    markup.feed(markup_text)
    assert RUNTIME_PRELOAD_MARKER in markup_text, f"{page_file} has no {RUNTIME_PRELOAD_MARKER}"
    named = sorted({path for path in re.findall(r"/pling/[\w./-]+", markup_text)
                    if path not in RUNTIME_PUBLIC})
    assert not named, (f"{page_file} names the runtime's own modules {named}: leave them to "
                       f"the server's {RUNTIME_PRELOAD_MARKER}")
    assert not markup.preloads, f"{page_file} lists preloads of its own: {markup.preloads}"


def test_a_runtime_laid_out_differently_is_preloaded_as_it_is_laid_out(tmp_path: Path) -> None:
    runtime = tmp_path / "pling"
    (runtime / "core" / "text").mkdir(parents=True)
    (runtime / "index.js").write_text(
        'export { mountAgent } from "./core/mount.js";\nimport "/pling/extra.js";\n'
        'import { x } from "https://cdn.example/lib.js";\n', encoding="utf-8")
    (runtime / "core" / "mount.js").write_text(
        'import words from "./text/en.json" with { type: "json" };\n'
        'import "../missing.js";\nexport const mountAgent = () => words;\n', encoding="utf-8")
    (runtime / "core" / "text" / "en.json").write_text("{}", encoding="utf-8")
    (runtime / "extra.js").write_text("export {};\n", encoding="utf-8")

    assert runtime_module_graph(runtime) == [
        "/pling/core/mount.js", "/pling/core/text/en.json", "/pling/extra.js", "/pling/index.js"]
    page = f"<head>\n    {RUNTIME_PRELOAD_MARKER}\n</head>"
    assert with_runtime_preloads(page, runtime).splitlines() == [
        "<head>",
        '    <link rel="modulepreload" href="/pling/core/mount.js">',
        '    <link rel="modulepreload" href="/pling/core/text/en.json" as="json">',
        '    <link rel="modulepreload" href="/pling/extra.js">',
        '    <link rel="modulepreload" href="/pling/index.js">',
        "</head>",
    ]
    assert with_runtime_preloads("<head></head>", runtime) == "<head></head>"

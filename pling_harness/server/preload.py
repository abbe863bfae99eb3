"""The runtime's `<link rel="modulepreload">` lines, written by the fixture server.

A page names only the runtime's public entry (`/pling/index.js`) and puts the marker
`<!-- pling:runtime-modulepreload -->` in its `<head>`; the server replaces the marker with
one line per module of the entry's static import graph, computed from the runtime's own
import statements. So the browser fetches the whole runtime in one wave, and a runtime laid
out differently (other module names, sub-folders) gets its own graph preloaded instead of a
row of 404s for the reference's file names (docs/page-contract.md, "Load the runtime in one
wave").
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

RUNTIME_PRELOAD_MARKER = "<!-- pling:runtime-modulepreload -->"
RUNTIME_URL_PREFIX = "/pling/"
RUNTIME_ENTRY = "index.js"
JSON_SUFFIX = ".json"
# A static import or re-export written at the start of a line: `import x from "…"`,
# `import {…} from "…" with {…}`, `export {…} from "…"`, `import "…"`. `import("…")` is
# dynamic and not part of the static graph.
STATIC_IMPORT = re.compile(
    r"""^(?:import|export)\s(?:[^;"'`]*?\sfrom\s*)?["']([^"']+)["']""", re.MULTILINE)


def imports_of(source: str) -> list[str]:
    """The specifiers of `source`'s static imports and re-exports, in order."""
    return STATIC_IMPORT.findall(source)


def _inside_runtime(importer: PurePosixPath, specifier: str) -> PurePosixPath | None:
    """The runtime-relative path `specifier` names from `importer`, or None when it points
    outside the runtime (another origin, a bare package name, a path above its folder)."""
    if specifier.startswith(RUNTIME_URL_PREFIX):
        parts = PurePosixPath(specifier[len(RUNTIME_URL_PREFIX):]).parts
    elif specifier.startswith(("./", "../")):
        parts = (importer.parent / specifier).parts
    else:
        return None
    resolved: list[str] = []
    for part in parts:
        if part == "..":
            if not resolved:
                return None
            resolved.pop()
        elif part not in (".", ""):
            resolved.append(part)
    return PurePosixPath(*resolved) if resolved else None


def runtime_module_graph(runtime_dir: Path) -> list[str]:
    """URL paths of every module the runtime's entry imports, directly or not, the entry
    included, sorted; a module that is not there is left out (the browser reports it)."""
    pending = [PurePosixPath(RUNTIME_ENTRY)]
    seen: set[PurePosixPath] = set()
    while pending:
        module = pending.pop()
        if module in seen:
            continue
        file = runtime_dir / module
        if not file.is_file():
            continue
        seen.add(module)
        if module.suffix != JSON_SUFFIX:
            source = file.read_text(encoding="utf-8")
            pending += [found for spec in imports_of(source)
                        if (found := _inside_runtime(module, spec)) is not None]
    return sorted(f"{RUNTIME_URL_PREFIX}{module}" for module in seen)


def preload_line(path: str) -> str:
    """One `<link rel="modulepreload">`; a JSON module needs `as="json"` (or it is fetched
    twice)."""
    kind = ' as="json"' if path.endswith(JSON_SUFFIX) else ""
    return f'<link rel="modulepreload" href="{path}"{kind}>'


def with_runtime_preloads(html: str, runtime_dir: Path) -> str:
    """`html` with its marker replaced by the runtime's preload lines (unchanged without it)."""
    if RUNTIME_PRELOAD_MARKER not in html:
        return html
    lines = "\n    ".join(preload_line(path) for path in runtime_module_graph(runtime_dir))
    return html.replace(RUNTIME_PRELOAD_MARKER, lines, 1)

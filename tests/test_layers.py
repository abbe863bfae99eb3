"""The package's layers depend one way, and no modules import each other in a circle.

The folder tree is the architecture (README): project files → server (its model first) →
browser → evidence → plugin → mutation (the mutation runner, its Stryker run and the pytest
plugin only it loads) → scaffold (`new` and its templates) → cli. A module may import its own
layer or one below it, type-only imports included; `pling_harness/__init__.py` (the check author's
API) sits on top. A sub-package listed in LAYERS is a layer of its own, below its parent.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

# The harness's own checkout: the project these tests check.
PROJECT_ROOT = Path(__file__).resolve().parents[1]


PACKAGE = PROJECT_ROOT / "pling_harness"
LAYERS = ("project", "server.model", "server", "browser", "evidence", "plugin", "mutation",
          "scaffold", "cli")


def module_name(path: Path) -> str:
    parts = path.relative_to(PROJECT_ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer_of(module: str) -> int:
    if module == "pling_harness":
        return len(LAYERS)  # the package itself: the public API on top
    inside = module.removeprefix("pling_harness.")
    # The longest layer name that contains the module: "server.model.wire" → "server.model".
    matches = [layer for layer in LAYERS if inside == layer or inside.startswith(layer + ".")]
    return LAYERS.index(max(matches, key=len))


MODULE_FILES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def harness_imports(path: Path) -> set[str]:
    """Every harness module `path` imports, anywhere in the file (type-only ones too)."""
    imported: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names
                            if alias.name.startswith("pling_harness"))
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("pling_harness"):
            module = node.module or ""
            for alias in node.names:  # `from pling_harness.server.model import wire` names a module
                candidate = f"{module}.{alias.name}"
                imported.add(candidate if candidate in MODULE_FILES else module)
    return imported


MODULES = MODULE_FILES
GRAPH = {name: harness_imports(path) for name, path in MODULES.items()}


def test_every_top_level_folder_is_a_known_layer() -> None:
    packages = {path.name for path in PACKAGE.iterdir()
                if path.is_dir() and (path / "__init__.py").exists()}

    assert packages == {layer for layer in LAYERS if "." not in layer}, (
        "a new folder under harness/ needs its place in LAYERS")


@pytest.mark.parametrize("module", sorted(MODULES))
def test_module_imports_only_its_own_layer_or_below(module: str) -> None:
    upward = sorted(imported for imported in GRAPH[module]
                    if imported in MODULES and layer_of(imported) > layer_of(module))

    assert not upward, (f"{module} ({LAYERS[layer_of(module)]}) imports from a layer above it: "
                        f"{upward}")


def test_no_import_cycles() -> None:
    visiting: list[str] = []
    done: set[str] = set()
    cycles: list[list[str]] = []

    def visit(module: str) -> None:
        if module in done:
            return
        if module in visiting:
            cycles.append([*visiting[visiting.index(module):], module])
            return
        visiting.append(module)
        for imported in sorted(GRAPH.get(module, set())):
            # A package's __init__ importing its own modules is how it re-exports them.
            if imported in MODULES and not module_is_parent(module, imported):
                visit(imported)
        visiting.pop()
        done.add(module)

    for module in MODULES:
        visit(module)

    assert not cycles, "import cycles: " + "; ".join(" → ".join(c) for c in cycles)


def module_is_parent(package: str, module: str) -> bool:
    return MODULES[package].name == "__init__.py" and module.startswith(package + ".")

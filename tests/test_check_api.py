"""The check author's API: check files import the harness only through `pling_harness` itself.

`pling_harness/__init__.py` is the one public surface (as pytest's is), so the layers below can
move without breaking a tutorial's checks. Every check file, its conftest included, may
import `pling_harness` or names from it, and only names it exports; a tutorial's own business
constants come from its own folder (its backend.py, through `pling_harness.tutorial_backend` in a
module of its checks folder, e.g. r-15's checks/workspace_state.py), never from `pling_harness`.
A tutorial's backend.py is held to the same API.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import pling_harness

# The harness's own checkout: the project these tests check.
PROJECT_ROOT = Path(__file__).resolve().parents[1]
CHECK_FILES = sorted((PROJECT_ROOT / "tutorials").glob("*/checks/*.py"))
BACKEND_FILES = sorted((PROJECT_ROOT / "tutorials").glob("*/backend.py"))


def harness_imports_past_the_api(path: Path) -> list[str]:
    """Each import in `path` that reaches into the harness past its public API."""
    found: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [f"import {alias.name}" for alias in node.names
                      if alias.name.startswith("pling_harness.")]
        elif isinstance(node, ast.ImportFrom) and node.module is not None:
            if node.module.startswith("pling_harness."):
                found.append(f"from {node.module} import ...")
            elif node.module == "pling_harness":
                found += [f"from pling_harness import {alias.name} (not exported)"
                          for alias in node.names if alias.name not in pling_harness.__all__]
    return found


def test_check_files_exist() -> None:
    assert CHECK_FILES, "no tutorials/*/checks/*.py found"


def local_imports(path: Path) -> list[str]:
    """The top-level modules `path` imports that are files of its own folder."""
    names = {node.module for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
             if isinstance(node, ast.ImportFrom) and node.module is not None}
    return sorted(name for name in names if (path.parent / f"{name}.py").is_file())


@pytest.mark.parametrize("path", [*CHECK_FILES, *BACKEND_FILES],
                         ids=lambda path: str(path.relative_to(PROJECT_ROOT / "tutorials")))
def test_check_file_imports_only_from_harness(path: Path) -> None:
    found = harness_imports_past_the_api(path)

    assert not found, (f"{path.relative_to(PROJECT_ROOT)} imports past the check author's API "
                       f"(use `from pling_harness import ...`): {found}")


def test_harness_imports_past_the_api_finds_a_submodule_import(tmp_path: Path) -> None:
    check = tmp_path / "test_x.py"
    check.write_text("from pling_harness.browser.dock import Dock\nimport pling_harness.server\n"
                     "from pling_harness import Dock, not_exported\nimport harness\n")

    assert harness_imports_past_the_api(check) == [
        "from pling_harness.browser.dock import ...", "import pling_harness.server",
        "from pling_harness import not_exported (not exported)"]


@pytest.mark.parametrize("name", pling_harness.__all__)
def test_every_exported_name_is_there(name: str) -> None:
    assert hasattr(pling_harness, name), (
        f"pling_harness.__all__ lists {name!r}, which pling_harness lacks")


def test_harness_imports_past_the_api_allows_the_checks_own_modules(tmp_path: Path) -> None:
    (tmp_path / "shop_state.py").write_text("from pling_harness import tutorial_backend\n")
    check = tmp_path / "test_x.py"
    check.write_text("from shop_state import INITIAL\nfrom pling_harness.server.backend import X\n")

    assert harness_imports_past_the_api(check) == ["from pling_harness.server.backend import ..."]
    assert local_imports(check) == ["shop_state"]


def test_checks_reach_their_tutorials_state_through_their_own_folder() -> None:
    """r-15's checks import its constants from checks/workspace_state.py, which reads them
    from the tutorial's backend.py; harness exports none of them."""
    users = [path.name for path in CHECK_FILES if "workspace_state" in local_imports(path)]

    assert "test_handoff_publish_state.py" in users, users
    tutorial_names = {"PUBLISH_CODE", "INITIAL_WORKSPACE", "WorkspaceSnapshot"}
    assert not tutorial_names & set(pling_harness.__all__)

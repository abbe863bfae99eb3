"""The project's static checks run with the suite, so CI fails on a mypy, ruff or tsc error."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

# The harness's own checkout: the project these tests check.
PROJECT_ROOT = Path(__file__).resolve().parents[1]


VENV_BIN = Path(sys.executable).parent
TSC = PROJECT_ROOT / "tools" / "typecheck" / "node_modules" / ".bin" / "tsc"
# mypy sees one module per name: every check folder has its own conftest.py, so each of these
# is checked on its own (the package itself is configured in pyproject.toml).
MYPY_TARGETS = [
    [],
    ["tests", "scripts"],
    *([str(folder.relative_to(PROJECT_ROOT))]
      for folder in sorted((PROJECT_ROOT / "tutorials").glob("*/checks"))),
    # A tutorial's backend.py is loaded by path, so each is its own module too.
    *([str(path.relative_to(PROJECT_ROOT))]
      for path in sorted((PROJECT_ROOT / "tutorials").glob("*/backend.py"))),
]


def run(command: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=PROJECT_ROOT, capture_output=True, text=True,
                          check=False, timeout=600)


def tool(name: str) -> str:
    path = VENV_BIN / name
    found = str(path) if path.exists() else shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not installed; run ./scripts/bootstrap")
    return found


@pytest.mark.parametrize("targets", MYPY_TARGETS, ids=lambda t: " ".join(t) or "pling_harness")
def test_mypy_strict_reports_no_error(targets: list[str]) -> None:
    result = run([tool("mypy"), "--strict", *targets])
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_reports_no_error() -> None:
    result = run([tool("ruff"), "check", "."])
    assert result.returncode == 0, result.stdout + result.stderr


def test_tsc_checks_the_javascript_from_its_jsdoc() -> None:
    if not TSC.exists():
        pytest.fail(f"{TSC} is missing; run ./scripts/bootstrap (it installs TypeScript with npm)")
    result = run([str(TSC), "-p", "tsconfig.json"])
    assert result.returncode == 0, result.stdout + result.stderr


REACT_PAGE = PROJECT_ROOT / "fixtures" / "r-15-react"


def test_tsc_checks_the_react_page_and_bindings() -> None:
    """The React page (TSX) and its bindings (fixtures/pling-react) against React's own types,
    with the TypeScript the runtime is checked with."""
    if not TSC.exists():
        pytest.fail(f"{TSC} is missing; run ./scripts/bootstrap (it installs TypeScript with npm)")
    if not (REACT_PAGE / "node_modules" / "@types" / "react").is_dir():
        pytest.fail(f"React's types are not installed in {REACT_PAGE}; run ./scripts/bootstrap "
                    "(it runs npm ci there; needs Node.js >= 20.19)")
    result = run([str(TSC), "-p", str(REACT_PAGE / "tsconfig.json")])
    assert result.returncode == 0, result.stdout + result.stderr


AI_SDK_PAGE = PROJECT_ROOT / "fixtures" / "r-15-ai-sdk"


def test_tsc_checks_the_ai_sdk_page_and_its_server() -> None:
    """The AI SDK page (TSX), its chat route and Vite config against the AI SDK's, React's
    and Node's own types, with the TypeScript the runtime is checked with."""
    if not TSC.exists():
        pytest.fail(f"{TSC} is missing; run ./scripts/bootstrap (it installs TypeScript with npm)")
    if not (AI_SDK_PAGE / "node_modules" / "ai").is_dir():
        pytest.fail(f"the AI SDK page's packages are not installed in {AI_SDK_PAGE}; run "
                    "./scripts/bootstrap (it runs npm ci there)")
    result = run([str(TSC), "-p", str(AI_SDK_PAGE / "tsconfig.json")])
    assert result.returncode == 0, result.stdout + result.stderr


ASSISTANT_UI_PAGES = [PROJECT_ROOT / "fixtures" / "r-15-assistant-ui",
                      PROJECT_ROOT / "fixtures" / "r-15-assistant-ui-v6"]


@pytest.mark.parametrize("page", ASSISTANT_UI_PAGES, ids=lambda page: page.name)
def test_tsc_checks_the_assistant_ui_page_and_its_server(page: Path) -> None:
    """An assistant-ui page (TSX), its chat route and Vite config against assistant-ui's, the
    AI SDK's, React's and Node's own types, with the TypeScript its lock pins: the page over
    AI SDK 7 and its copy over AI SDK 6."""
    page_tsc = page / "node_modules" / "typescript" / "bin" / "tsc"
    if not page_tsc.exists():
        pytest.fail(f"the assistant-ui page is not installed in {page}; run "
                    "./scripts/bootstrap (it runs npm ci there)")
    node = page / "node_modules" / ".bin" / "node"
    result = run([str(node), str(page_tsc), "-p", str(page / "tsconfig.json")])
    assert result.returncode == 0, result.stdout + result.stderr


COPILOTKIT_PAGE = PROJECT_ROOT / "fixtures" / "r-15-copilotkit"


def test_tsc_checks_the_copilotkit_page() -> None:
    """The CopilotKit page, its runtime plugin and Vite config, against CopilotKit's own types
    and with the TypeScript its lock pins."""
    page_tsc = COPILOTKIT_PAGE / "node_modules" / ".bin" / "tsc"
    if not page_tsc.exists():
        pytest.fail(f"The CopilotKit page is not installed in {COPILOTKIT_PAGE}; run "
                    "./scripts/bootstrap (it runs npm ci there; needs Node.js >= 20.19)")
    result = run([str(page_tsc), "-p", str(COPILOTKIT_PAGE / "tsconfig.json")])
    assert result.returncode == 0, result.stdout + result.stderr

"""What the docs say `mountAgent()` returns is what the runtime returns, read in Chromium
(issue 31 §9: docs/architecture.md said `{agent, executor, registry}`, the page contract
`unmount()`, and the runtime returns all four)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page

from pling_harness.browser.pages import open_page
from pling_harness.server.runner import TutorialServer

# The harness's own checkout: the project these tests check.
PROJECT_ROOT = Path(__file__).resolve().parents[1]

DOCS = PROJECT_ROOT / "docs"
# `mountAgent(…) → {a, b}` (architecture.md's runtime table) or "`mountAgent()` returns
# `{a, b}`" (the page contract), with any line break between.
RETURNS = re.compile(r"`mountAgent\([^`]*\)`?\s*(?:→|returns)\s*`?\{([^}]*)\}`?")
# What a page gets from mountAgent on a dock of its own (a registry of its own, so the
# page's actions stay as they are), unmounted again at once.
MOUNTED_KEYS = """async () => {
  const { mountAgent, createRegistry } = await import("/pling/index.js");
  const dock = document.createElement("pling-agent-dock");
  document.body.append(dock);
  const mounted = mountAgent({ dock, registry: createRegistry() });
  mounted.unmount();
  dock.remove();
  return Object.keys(mounted).sort();
}"""


@pytest.fixture(scope="module")
def running() -> Iterator[TutorialServer]:
    with TutorialServer(tutorial="r-15", environ={}) as server:
        yield server


def documented_returns() -> dict[str, list[str]]:
    """Each doc's statements of what mountAgent returns, as sorted key lists."""
    found: dict[str, list[str]] = {}
    for name in ("architecture.md", "page-contract.md"):
        text = (DOCS / name).read_text(encoding="utf-8")
        for index, match in enumerate(RETURNS.finditer(text)):
            found[f"{name} #{index + 1}"] = sorted(
                key.strip() for key in match.group(1).split(",") if key.strip())
    return found


def test_docs_say_what_mount_agent_returns(page: Page, running: TutorialServer) -> None:
    open_page(page, running.page_url("en"))
    returned = page.evaluate(MOUNTED_KEYS)

    documented = documented_returns()

    assert set(documented) >= {"architecture.md #1", "page-contract.md #1"}, documented
    assert documented == dict.fromkeys(documented, returned)

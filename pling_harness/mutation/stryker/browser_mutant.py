"""pytest plugin: hand Stryker's active mutant to the instrumented runtime in the browser.

Loaded only by the command the Stryker run gives each mutant (`-p
pling_harness.mutation.stryker.browser_mutant`), never by the runtime or a normal check run.
Stryker's command runner names the mutant in the `__STRYKER_ACTIVE_MUTANT__` environment
variable; instrumented code reads `globalThis.__stryker__.activeMutant` (or `process.env`,
which Chromium has not), so every browser context gets an init script that sets it before
any page script runs. Without the variable (Stryker's dry run) the plugin does nothing.
"""

from __future__ import annotations

import json
import os

import pytest
from playwright.sync_api import BrowserContext

# Stryker's names (@stryker-mutator/api INSTRUMENTER_CONSTANTS).
ACTIVE_MUTANT_ENV_VARIABLE = "__STRYKER_ACTIVE_MUTANT__"
STRYKER_NAMESPACE = "__stryker__"


def active_mutant_script(mutant_id: str) -> str:
    """The init script that switches mutant `mutant_id` on in a page."""
    return (f"globalThis.{STRYKER_NAMESPACE} = globalThis.{STRYKER_NAMESPACE} || {{}};\n"
            f"globalThis.{STRYKER_NAMESPACE}.activeMutant = {json.dumps(mutant_id)};\n")


@pytest.fixture(autouse=True)
def _stryker_active_mutant(request: pytest.FixtureRequest) -> None:
    """Every browser context of a test runs the mutant Stryker activated (if any)."""
    mutant_id = os.environ.get(ACTIVE_MUTANT_ENV_VARIABLE)
    if not mutant_id or "context" not in request.fixturenames:
        return
    context: BrowserContext = request.getfixturevalue("context")
    context.add_init_script(script=active_mutant_script(mutant_id))

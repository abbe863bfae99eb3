"""What many r-15 checks share on the testbed: the words that make a `when_user` rule call
something exact, and the guarded save, an `ask` write whose every run is a POST the
server records (imported like workspace_state.py: the conftest puts this folder on sys.path)."""

from __future__ import annotations

import re
from typing import Any

from pling_harness import Testbed, tutorial_of

# What the user types in each locale (the tutorial's user_requests); a `when_user` rule turns
# it into the call under test.
REQUESTS = tutorial_of(__file__).user_requests
GO_AHEAD = REQUESTS["go_ahead"]
GO_AHEAD_PATTERN = "|".join(re.escape(text) for text in GO_AHEAD.values())

GUARDED_SAVE = "guarded_save"
GUARDED_SAVE_DECLARATION: dict[str, Any] = {
    "id": GUARDED_SAVE, "desc": "Guarded save", "kind": "write", "confirm": True,
    "scope": "editor",
    "params": {"type": "object", "properties": {"note": {"type": "string"}},
               "required": ["note"], "additionalProperties": False},
}
GUARDED_SAVE_ARGUMENTS = {"note": "x"}


def declare_guarded(testbed: Testbed) -> None:
    """Declare the guarded save and activate its scope, as a page would."""
    testbed.declare(GUARDED_SAVE_DECLARATION)
    testbed.activate_scope("editor")

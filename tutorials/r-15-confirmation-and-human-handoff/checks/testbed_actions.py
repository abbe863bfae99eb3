"""What many r-15 checks share on the testbed: the words that make a `when_user` rule call
something exact, and the guarded save, an `ask` write whose every run is a POST the
server records (imported like workspace_state.py: the conftest puts this folder on sys.path)."""

from __future__ import annotations

from typing import Any

from harness import Testbed

# What the user types; a `when_user` rule turns it into the call under test.
GO_AHEAD = {"en": "go ahead", "zh": "开始吧"}
GO_AHEAD_PATTERN = "go ahead|开始吧"

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

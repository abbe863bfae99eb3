"""docs/dock-drivers.md's reference is what scripts/driver_reference.py writes from the
dock driver's field docs, and a field without one stops the script naming it."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from pydantic import BaseModel, ConfigDict

from pling_harness.project.dock_driver import Absent

# The harness's own checkout, whose script and docs these tests read.
PROJECT_ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def script() -> Iterator[ModuleType]:
    sys.path.insert(0, str(PROJECT_ROOT / "scripts"))
    try:
        yield importlib.import_module("driver_reference")
    finally:
        sys.path.remove(str(PROJECT_ROOT / "scripts"))


def test_the_committed_page_is_what_the_script_writes(script: ModuleType) -> None:
    page = (PROJECT_ROOT / "docs" / "dock-drivers.md").read_text(encoding="utf-8")

    assert script.rewritten(page, script.render_reference()) == page, (
        "docs/dock-drivers.md is out of date: run .venv/bin/python scripts/driver_reference.py")
    assert script.main(["--check"]) == 0


def test_every_key_of_every_part_has_its_row(script: ModuleType) -> None:
    reference: str = script.render_reference()

    assert "| `timer` | selector or [absent](#absent) | required | The time left" in reference
    assert "| `clock` | `\"paused\"` or [RunningClock](#runningclock) | `\"paused\"` |" in \
        reference
    assert "| `page_hooks` | [PageHooks](#pagehooks) or [absent](#absent) | absent |" in reference
    for section in ("DriverSpec", "DockParts", "MessageKind", "ApprovalParts", "HandoffParts",
                    "HighlightParts", "TargetKind", "PageHooks", "DecisionWire", "RunningClock",
                    "Absent", "Reading"):
        assert f"\n### {section}\n" in f"\n{reference}", section


class Undocumented(BaseModel):
    """A driver part whose second key says nothing."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    said: str
    """Documented."""
    unsaid: str | Absent


def test_a_field_without_a_docstring_stops_the_script_naming_it(script: ModuleType) -> None:
    with pytest.raises(script.UndocumentedField, match=r"^Undocumented\.unsaid: no docstring"):
        script.render_reference(Undocumented, sys.modules[__name__])


def test_the_page_contract_links_the_driver_reference_instead_of_holding_it() -> None:
    contract = (PROJECT_ROOT / "docs" / "page-contract.md").read_text(encoding="utf-8")

    assert "[docs/dock-drivers.md](dock-drivers.md)" in contract
    assert "### What a driver must answer" not in contract
    assert "## Worked example: an assistant in a shadow root" in \
        (PROJECT_ROOT / "docs" / "dock-drivers.md").read_text(encoding="utf-8")

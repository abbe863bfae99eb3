"""docs/guarantees.md's tables are what scripts/guarantees_page.py writes from the
guarantees' declarations: adding one regenerates the page, never edits it by hand."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from pling_harness.plugin.guarantee_registry import registry

# The harness's own checkout, whose script and docs these tests read.
PROJECT_ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def script() -> Iterator[ModuleType]:
    sys.path.insert(0, str(PROJECT_ROOT / "scripts"))
    try:
        yield importlib.import_module("guarantees_page")
    finally:
        sys.path.remove(str(PROJECT_ROOT / "scripts"))


def test_the_committed_page_is_what_the_script_writes(script: ModuleType) -> None:
    page = (PROJECT_ROOT / "docs" / "guarantees.md").read_text(encoding="utf-8")

    assert script.rewritten(page, script.rendered()) == page, (
        "docs/guarantees.md is out of date: run .venv/bin/python scripts/guarantees_page.py")
    assert script.main(["--check"]) == 0


def test_every_guarantee_and_every_generated_check_has_its_row(script: ModuleType) -> None:
    parts = script.rendered()
    known = registry()
    for name, guarantee in known.guarantees.items():
        assert f"| `{name}` | {script.cell(guarantee.means)} | " in parts["guarantees"]
    for kind in [*known.of("action"), *known.of("table")]:
        assert script.check_name(kind) in parts["generated checks"], kind.name
    assert "| `table-provider-faults` (once per locale) |" in parts["generated checks"]
    assert ("`registered-once-as-served`, `registered-once-rerender`, "
            "`registered-once-remount` |") in parts["generated checks"]


def test_a_page_without_its_markers_is_refused(script: ModuleType) -> None:
    with pytest.raises(ValueError, match="must hold the marker"):
        script.rewritten("# no markers\n", script.rendered())

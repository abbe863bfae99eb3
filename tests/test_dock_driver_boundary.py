"""Our dock's test ids and data attributes live in one place: the default dock driver.

Every check and every guarantee reads the assistant through a dock driver
(pling_harness/project/dock_driver.py), so a page whose assistant uses other markup is
checked by naming its parts in a driver file of its own. That holds only if nothing else
names ours: here no harness module (Python or the page scripts it loads), no tutorial's
check and no scaffolded check names a test id or an attribute the default driver reads.
The names are taken from the default driver itself, so a part added there is covered here.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pydantic import BaseModel

from pling_harness.project.dock_driver import DEFAULT_DRIVER_PATH, Reading, default_driver

PROJECT_ROOT = Path(__file__).resolve().parents[1]
PACKAGE = PROJECT_ROOT / "pling_harness"
TEMPLATES = PACKAGE / "scaffold" / "templates"
# The reference runtime and the testbed page: the page contract's own implementation, which
# names its test ids by definition (a page, not a reader of pages).
WEB = PACKAGE / "web"
# Generic attributes every page uses for its own elements: not our dock's.
GENERIC = frozenset({"data-testid"})
# The testbed is the harness's own page on the reference runtime; its scripts check the
# runtime's registry itself (that `tool()` marks a bound element, and unregistering unmarks
# it), which is the mark the default driver reads for handoff targets.
ALLOWED = {PACKAGE / "browser" / "testbed_scripts.py": frozenset({"data-pling-target"})}


def our_dock_names() -> set[str]:
    """Every test id and attribute the default driver's selectors and readings name."""
    spec = default_driver()
    names: set[str] = set()
    for selector in spec.selectors().values():
        names.update(re.findall(r"data-testid=['\"]([^'\"]+)['\"]", selector))
        names.update(re.findall(r"\[\s*(data-[a-z0-9-]+)", selector))

    def readings(value: object) -> None:
        if isinstance(value, Reading) and value.attribute is not None:
            names.add(value.attribute)
        elif isinstance(value, tuple):
            for item in value:
                readings(item)
        elif isinstance(value, BaseModel):
            for field in type(value).model_fields:
                readings(getattr(value, field))

    readings(spec)
    return names - GENERIC


def scanned_files() -> list[Path]:
    harness = [path for path in PACKAGE.rglob("*") if path.suffix in (".py", ".js")
               and path.is_file() and TEMPLATES not in path.parents and WEB not in path.parents]
    checks = list((PROJECT_ROOT / "tutorials").glob("*/checks/**/*.py"))
    scaffolded = list(TEMPLATES.glob("tutorials/*/checks/*.tmpl"))
    return sorted(harness + checks + scaffolded)


def test_the_default_driver_names_our_dock_as_the_page_contract_does() -> None:
    names = our_dock_names()
    # A few of the page contract's names, so this test cannot pass by reading nothing.
    assert {"pling-dock", "pling-approval", "pling-handoff-step", "data-decision",
            "data-code"} <= names, names


@pytest.mark.parametrize("path", scanned_files(),
                         ids=lambda path: str(path.relative_to(PROJECT_ROOT)))
def test_nothing_outside_the_default_driver_names_our_docks_test_ids(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    allowed = ALLOWED.get(path, frozenset())
    named = sorted({name for name in our_dock_names() - allowed
                    if re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text)})
    assert not named, (
        f"{path.relative_to(PROJECT_ROOT)} names {', '.join(named)}: read the assistant "
        f"through the Dock facade or the dock driver ({DEFAULT_DRIVER_PATH.name} names them)")

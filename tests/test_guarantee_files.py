"""One check file per behaviour family: every guarantee a tutorial's checks prove is proven in
one file of its `checks/` folder, so a reader finds all of a guarantee's checks in one place
(issue 20 §4). A check that proves several guarantees ties them into one family: they all sit
in its file.

The guarantees are read as pytest sees them (`--collect-only`, markers of every item, those a
`pytest.param(..., marks=...)` adds included), in a child pytest that loads a small plugin.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

import pytest

# The harness's own checkout: the project these tests check.
PROJECT_ROOT = Path(__file__).resolve().parents[1]


GUARANTEES_DOC = PROJECT_ROOT / "docs" / "guarantees.md"
# The tutorial whose families docs/guarantees.md lists.
DOCUMENTED_TUTORIAL = "r-15-confirmation-and-human-handoff"
CHECK_FOLDERS = sorted(path.parent
                       for path in (PROJECT_ROOT / "tutorials").glob("*/checks/conftest.py"))
# Written next to the collection: each item's check file and guarantees, as JSON lines.
COLLECTOR = '''
import json, os
from pathlib import Path

def pytest_collection_finish(session):
    lines = [json.dumps({"file": Path(str(item.path)).name,
                         "guarantees": [m.args[0] for m in item.iter_markers("guarantee")]})
             for item in session.items]
    Path(os.environ["GUARANTEE_FILES_OUT"]).write_text("\\n".join(lines), encoding="utf-8")
'''


def guarantees_in_several_files(
    checks: Iterable[tuple[str, Iterable[str]]],
) -> dict[str, list[str]]:
    """Each guarantee whose checks sit in more than one file, with those files."""
    files: dict[str, set[str]] = defaultdict(set)
    for check_file, guarantees in checks:
        for guarantee in guarantees:
            files[guarantee].add(check_file)
    return {guarantee: sorted(where) for guarantee, where in sorted(files.items())
            if len(where) > 1}


def families_of(checks: Iterable[tuple[str, Iterable[str]]]) -> dict[str, set[str]]:
    """Each check file and the guarantees its checks prove."""
    families: dict[str, set[str]] = defaultdict(set)
    for check_file, guarantees in checks:
        families[check_file].update(guarantees)
    return dict(families)


def documented_families(text: str) -> dict[str, set[str]]:
    """The rows of the "Where each guarantee is proven" table: check file → guarantees."""
    section = text.split("## Where each guarantee is proven", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `(test_[\w.]+)` \| (.+) \|$", section, re.MULTILINE)
    return {check_file: set(re.findall(r"`([\w-]+)`", guarantees))
            for check_file, guarantees in rows}


def collected_checks(folder: Path, tmp_path: Path) -> list[tuple[str, list[str]]]:
    """(check file, guarantees) of every item pytest collects from `folder`."""
    (tmp_path / "guarantee_files_collector.py").write_text(COLLECTOR, encoding="utf-8")
    out = tmp_path / "checks.jsonl"
    environ = {**os.environ, "GUARANTEE_FILES_OUT": str(out),
               "PYTHONPATH": os.pathsep.join([str(tmp_path), str(PROJECT_ROOT),
                                              os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", str(folder), "--collect-only", "-q",
         "-p", "guarantee_files_collector", "-p", "no:cacheprovider"],
        cwd=PROJECT_ROOT, env=environ, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, f"collecting {folder} failed:\n{done.stdout}\n{done.stderr}"
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    return [(row["file"], row["guarantees"]) for row in rows]


def test_a_guarantee_in_two_files_is_found() -> None:
    checks = [("test_a.py", ["one", "two"]), ("test_b.py", ["two"]), ("test_c.py", ["three"]),
              ("test_c.py", ["three"])]

    assert guarantees_in_several_files(checks) == {"two": ["test_a.py", "test_b.py"]}


def test_documented_families_are_read_from_the_table() -> None:
    text = ("## Where each guarantee is proven\n\n| check file | guarantees |\n|---|---|\n"
            "| `test_a.py` | `one`, `two-words` |\n| `test_b.py` | `three` |\n\n## Next\n"
            "| `test_c.py` | `four` |\n")

    assert documented_families(text) == {"test_a.py": {"one", "two-words"},
                                         "test_b.py": {"three"}}


def test_check_folders_exist() -> None:
    assert CHECK_FOLDERS, "no tutorials/*/checks/conftest.py found"


@pytest.mark.parametrize("folder", CHECK_FOLDERS,
                         ids=lambda folder: folder.parent.name)
def test_every_guarantee_is_proven_in_one_check_file(folder: Path, tmp_path: Path) -> None:
    checks = collected_checks(folder, tmp_path)

    assert checks, f"no checks collected from {folder}"
    split = guarantees_in_several_files(checks)
    assert not split, (
        "a guarantee's checks sit in several files; move them into the file of their "
        "behaviour family (a check proving several guarantees ties them into one): "
        + "; ".join(f"{guarantee}: {', '.join(files)}" for guarantee, files in split.items()))
    if folder.parent.name == DOCUMENTED_TUTORIAL:
        documented = documented_families(GUARANTEES_DOC.read_text(encoding="utf-8"))
        assert documented == families_of(checks), (
            "docs/guarantees.md's \"Where each guarantee is proven\" table disagrees with the "
            f"checks: documented {documented}, collected {families_of(checks)}")

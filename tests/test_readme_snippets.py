"""A new user's path through the README runs as printed (issue 39 §5): every Python snippet
runs (imports and definitions); the own check of "Use it in your own repository", put in a
new tutorial's `checks/` as a user would put it, passes `pling-tutorial check`; and when a
check of one's own cannot even be imported, `mutate` says so instead of "no check ran"."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pling_harness.cli.main import main

PROJECT = Path(__file__).resolve().parents[1]
README = PROJECT / "README.md"
# The README's own check, and the check-writing guide it sends a user to.
SNIPPET_PAGES = (README, PROJECT / "docs" / "adding-a-tutorial.md")
PYTHON_SNIPPET = re.compile(r"^```python\n(.*?)^```", re.DOTALL | re.MULTILINE)
# The README's own tutorial: `pling-tutorial new r-16-refunds --short-id r-16 ...`.
NEW_ID, NEW_SHORT_ID = "r-16-refunds", "r-16"
OWN_CHECK_NAME = "test_refund_waits"


def readme_snippets() -> list[str]:
    return [snippet for page in SNIPPET_PAGES
            for snippet in PYTHON_SNIPPET.findall(page.read_text(encoding="utf-8"))]


def own_check() -> str:
    """The snippet of "Use it in your own repository": a check of the user's own."""
    [snippet] = [s for s in readme_snippets() if f"def {OWN_CHECK_NAME}(" in s]
    return snippet


def test_readme_has_the_snippets_this_file_runs() -> None:
    assert len(readme_snippets()) >= 2
    assert own_check()


@pytest.mark.parametrize("index", range(len(readme_snippets())))
def test_readme_python_snippet_runs_as_printed(index: int) -> None:
    """Compiled and run as a module: its imports resolve and every decorator and annotation
    it evaluates names something it imported (the own check had no `import pytest`)."""
    snippet = readme_snippets()[index]
    code = compile(snippet, f"README.md python snippet {index + 1}", "exec")

    exec(code, {"__name__": f"readme_snippet_{index + 1}"})


def scaffold(root: Path) -> Path:
    """The README's `pling-tutorial new` in `root`; the new tutorial's `checks/` folder."""
    assert main(["new", NEW_ID, "--short-id", NEW_SHORT_ID, "--root", str(root)]) == 0
    checks = root / "tutorials" / NEW_ID / "checks"
    checks.mkdir()
    return checks


def test_readme_own_check_passes_in_a_new_tutorial(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    checks = scaffold(tmp_path / "project")
    (checks / f"{OWN_CHECK_NAME}.py").write_text(own_check(), encoding="utf-8")
    report = tmp_path / "report.json"

    code = main(["check", NEW_SHORT_ID, "--root", str(tmp_path / "project"),
                 "--locale", "en", "-k", OWN_CHECK_NAME, "-p", "no:cacheprovider",
                 "--pling-report", str(report)])

    out = capsys.readouterr().out
    assert code == 0, out
    tests = json.loads(report.read_text(encoding="utf-8"))["tests"]
    assert [(t["nodeid"].split("::")[-1].split("[")[0], t["locale"], t["guarantees"],
             t["outcome"]) for t in tests] == [
        (OWN_CHECK_NAME, "en", ["approval-before-side-effects"], "passed")], tests


def test_mutate_names_the_check_file_that_could_not_be_collected(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The own check as the README printed it before (no `import pytest`): pytest collects
    nothing, and every mutant was "BROKEN  no check ran" with exit 1, even with --verbose."""
    checks = scaffold(tmp_path / "project")
    as_printed_before = own_check().replace("import pytest\n", "").replace(
        "from playwright.sync_api import Page\n", "")
    (checks / f"{OWN_CHECK_NAME}.py").write_text(as_printed_before, encoding="utf-8")

    code = main(["mutate", NEW_SHORT_ID, "--root", str(tmp_path / "project"), "--focused",
                 "--jobs", "1", "--only", "refund-without-approval"])

    out = capsys.readouterr().out
    assert code == 1, out
    assert "no check ran: pytest could not collect " in out, out
    assert (f"tutorials/{NEW_ID}/checks/"
            f"{OWN_CHECK_NAME}.py (NameError: name 'pytest' is not defined)") in out, out


def test_readme_install_lines_bring_the_fonts_zh_and_ja_need() -> None:
    """Debian's chromium pulls in no CJK font: a zh or ja page is drawn in empty boxes."""
    text = README.read_text(encoding="utf-8")
    ci = re.findall(r"^```yaml\n(.*?)^```", text, re.DOTALL | re.MULTILINE)
    [pip_block] = [block for block in re.findall(r"^```sh\n(.*?)^```", text,
                                                 re.DOTALL | re.MULTILINE)
                   if "pip install pling-harness" in block]
    assert "apt-get install -y fonts-noto-cjk" in pip_block
    assert any("apt-get install -y chromium fonts-noto-cjk" in block for block in ci), ci


def test_readme_is_a_front_door_of_at_most_200_lines() -> None:
    # What it is, the two commands, your repository, your page, links: details live in docs/.
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 200

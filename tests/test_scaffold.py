"""`pling-tutorial new`: a scaffolded tutorial, in a folder of its own, passes its own check
in every locale and has every mutant of its catalogue killed."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pling_harness.cli.main import main
from pling_harness.plugin.declared.matrix import declared_checks
from pling_harness.project.action_table import load_action_table
from pling_harness.project.paths import RUNTIME_DIR
from pling_harness.project.tutorials import load_tutorial
from pling_harness.scaffold.new import NewTutorial, ScaffoldError, scaffold
from pling_harness.server.runner import TutorialServer

NEW_ID, NEW_SHORT_ID = "r-90-refunds", "r-90"
PROJECT = Path(__file__).resolve().parents[1]
TSC = PROJECT / "tools" / "typecheck" / "node_modules" / ".bin" / "tsc"


@pytest.fixture(scope="module")
def scaffolded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A root holding only the new tutorial (the runtime is the package's own)."""
    root = tmp_path_factory.mktemp("scaffolded")
    assert main(["new", NEW_ID, "--short-id", NEW_SHORT_ID, "--root", str(root)]) == 0
    return root


def test_new_writes_a_tutorial_whose_state_is_not_the_harness_s(scaffolded: Path) -> None:
    tutorial = load_tutorial(NEW_SHORT_ID, scaffolded)
    assert tutorial.api.initial_state == {"status": "open", "refund_cents": 0}
    # Another locale order than r-15's: the harness takes the tutorial's.
    assert tutorial.locales == ("en", "zh")
    assert not (scaffolded / "fixtures" / "pling").exists()  # served from the package
    for path in (f"fixtures/{NEW_ID}/app.js",
                 f"tutorials/{NEW_ID}/backend.py", f"tutorials/{NEW_ID}/copy/zh.json",
                 f"tutorials/{NEW_ID}/mutation/catalogue/ticket.json"):
        assert (scaffolded / path).is_file(), path
    leftovers = [str(p) for p in scaffolded.rglob("*")
                 if p.is_file() and "__PLING_" in p.read_text(encoding="utf-8", errors="ignore")]
    assert not leftovers, f"template tokens left in {leftovers}"


def test_new_tutorial_python_passes_ruff_and_mypy_strict(scaffolded: Path) -> None:
    folder = scaffolded / "tutorials" / NEW_ID
    config = PROJECT / "pyproject.toml"
    for command in (["ruff", "check", "--config", str(config), str(folder)],
                    ["mypy", "--strict", "--config-file", str(config),
                     str(folder / "backend.py")]):
        result = subprocess.run([sys.executable, "-m", *command], capture_output=True,
                                text=True, cwd=PROJECT)
        assert result.returncode == 0, result.stdout + result.stderr


def test_new_tutorial_page_passes_tsc_from_its_jsdoc(scaffolded: Path, tmp_path: Path) -> None:
    if not TSC.exists():
        pytest.fail(f"{TSC} is missing; run ./scripts/bootstrap (it installs TypeScript with npm)")
    # The project's settings, over the new page and the package's runtime it imports.
    config = json.loads((PROJECT / "tsconfig.json").read_text(encoding="utf-8"))
    options = {**config["compilerOptions"], "baseUrl": str(scaffolded),
               "paths": {"/pling/*": [f"{RUNTIME_DIR}/*"]}}
    tsconfig = tmp_path / "tsconfig.json"
    tsconfig.write_text(json.dumps({"compilerOptions": options,
                                    "include": [str(scaffolded / "fixtures" / NEW_ID / "*.js")]}),
                        encoding="utf-8")
    result = subprocess.run([str(TSC), "-p", str(tsconfig)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_new_refuses_an_id_already_taken(scaffolded: Path) -> None:
    with pytest.raises(ScaffoldError, match="already has a tutorial named 'r-90'"):
        scaffold(NewTutorial(id="r-91-other", short_id=NEW_SHORT_ID), scaffolded)


def test_new_refuses_an_id_that_is_not_a_slug(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["new", "R 16", "--root", str(tmp_path)]) == 2
    assert "Current input: 'R 16'" in capsys.readouterr().err


def test_check_on_the_new_tutorial_is_green_in_both_locales(
    scaffolded: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, tests = checked(NEW_SHORT_ID, scaffolded, tmp_path, capsys)
    assert code == 0, out
    # Every check its table implies by the guarantees' declarations, each guarantee proven
    # (counted from the registry, so a new guarantee needs no edit here).
    generated = declared_checks(load_action_table(scaffolded / "tutorials" / NEW_ID /
                                                  "actions.json"))
    proven = {g for check in generated for g in check.guarantees}
    assert len(proven) >= 25
    assert f"{len(proven)}/{len(proven)} guarantees proven in en, zh" in out
    # Every check is generated from its action table, none hand-written, in its own
    # locales; at least 25 guarantee × action pairs proven in each (issue 29's goal).
    assert not (scaffolded / "tutorials" / NEW_ID / "checks").exists()
    assert all(f"tutorials/{NEW_ID}/actions.json::test_declared[" in t["nodeid"]
               for t in tests), tests
    for locale in ("en", "zh"):
        pairs = {(declared_action(t["nodeid"]), g) for t in tests if t["locale"] == locale
                 and t["outcome"] == "passed" for g in t["guarantees"]}
        assert len(pairs) >= 25, sorted(pairs)
    assert len(tests) == 2 * len(generated)  # every one, in each locale


def declared_action(nodeid: str) -> str:
    """The action a generated check's id names (its parameter's first part)."""
    return nodeid.split("[", 1)[1].split("-", 1)[0]


def checked(short_id: str, root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
            *args: str) -> tuple[int, str, list[dict[str, Any]]]:
    """`check` on the tutorial: its exit code, its output and the checks its report lists."""
    report = tmp_path / "report.json"
    code = main(["check", short_id, "--root", str(root), "-p", "no:cacheprovider",
                 "--pling-report", str(report), *args])
    tests = json.loads(report.read_text(encoding="utf-8"))["tests"] if report.is_file() else []
    return code, capsys.readouterr().out, tests


def test_check_on_the_new_tutorial_served_elsewhere_is_green(
    scaffolded: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    """Its declarations (state and reset requests, presets, published rule) are enough for
    external mode: the same checks pass against its page served by another server."""
    with TutorialServer(tutorial=NEW_SHORT_ID, root=scaffolded) as served:
        code = main(["check", NEW_SHORT_ID, "--root", str(scaffolded), "--base-url",
                     served.url, "-p", "no:cacheprovider", "-k", REPRESENTATIVE])
    out = capsys.readouterr().out
    assert code == 0, out
    assert f"Checked {served.url} (served elsewhere" in out
    assert "6/6 guarantees proven in en, zh" in out


# A few generated checks, one per kind of evidence (the full matrix runs in the test above):
# a denial (page and model), the effect (server and page), a handoff done by the human.
REPRESENTATIVE = ("refund_ticket-denial-respected or refund_ticket-declared-effect or "
                  "close_ticket-success-only-after-published")


@pytest.mark.mutation
def test_mutate_on_the_new_tutorial_kills_every_mutant(
    scaffolded: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["mutate", NEW_SHORT_ID, "--root", str(scaffolded), "--jobs", "2"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "score: 24/24 mutants killed by the checks meant to catch them" in out


@pytest.mark.parametrize("command", ["list", "dev", "check", "mutate"])
def test_root_without_tutorials_is_a_usage_error(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    args = [command] if command == "list" else [command, NEW_SHORT_ID]
    assert main([*args, "--root", str(tmp_path)]) == 2
    assert f"--root {tmp_path} has no tutorials/ folder" in capsys.readouterr().err


# ---- a tutorial in zh, en and ja -------------------------------------------------------

THREE_ID, THREE_SHORT_ID = "r-92-refunds", "r-92"
# A copy check of the tutorial's own, as any tutorial may write one: the denial notice means
# PERMISSION_DENIED in the page's locale (the glossary, the tutorial's own for ja), and the
# page, card and notice shown are in that locale alone. It reads no runtime copy file.
COPY_CHECK = '''\
import pytest
from playwright.sync_api import Page, expect

from pling_harness import Dock, Say, Timeline, Words, guarantees


@pytest.mark.guarantee("bilingual-copy")
def test_denial_speaks_the_pages_locale(tutorial_page: Page, dock: Dock, timeline: Timeline,
                                        words: Words, say: Say, locale: str) -> None:
    dock.ask(say("refund"))
    expect(dock.approval).to_be_visible()
    card = dock.approval.inner_text()
    dock.deny()

    guarantees.notice_means(timeline, words, code="PERMISSION_DENIED", action="refund_ticket",
                            guarantee="bilingual-copy")
    shown = "\\n".join([tutorial_page.title(), card, tutorial_page.locator("body").inner_text()])
    assert words.glossary.language_problems(locale, shown, identifiers=["refund_ticket"]) == []
'''


@pytest.fixture(scope="module")
def in_three(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A root holding a new tutorial in en, zh and ja, with the copy check above."""
    root = tmp_path_factory.mktemp("in-three")
    assert main(["new", THREE_ID, "--short-id", THREE_SHORT_ID, "--root", str(root),
                 "--locales", "en,zh,ja"]) == 0
    checks = root / "tutorials" / THREE_ID / "checks"
    checks.mkdir()
    (checks / "test_copy.py").write_text(COPY_CHECK, encoding="utf-8")
    return root


def test_new_with_locales_writes_each_locales_words(in_three: Path) -> None:
    tutorial = load_tutorial(THREE_SHORT_ID, in_three)
    directory = tutorial.directory(in_three)

    assert tutorial.locales == ("en", "zh", "ja")
    assert set(tutorial.title) == {"en", "zh", "ja"}
    for locale in tutorial.locales:
        assert tutorial.copy_path(in_three, locale).is_file()
        assert (directory / f"tutorial.{locale}.md").is_file()
    # The dock's strings only where the runtime ships none: ja.
    assert sorted(p.name for p in tutorial.dock_copy_directory(in_three).iterdir()) == ["ja.json"]


def test_check_on_a_tutorial_in_zh_en_and_ja_is_green_in_all_three(
    in_three: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, tests = checked(THREE_SHORT_ID, in_three, tmp_path, capsys, "-k",
                               f"{REPRESENTATIVE} or test_denial_speaks_the_pages_locale")

    assert code == 0, out
    assert "7/7 guarantees proven in en, zh, ja" in out
    assert [t["locale"] for t in tests].count("ja") == 4 == len(tests) / 3


def test_ja_page_whose_dock_strings_are_left_in_english_fails_its_copy_check(
    in_three: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    dock_strings = load_tutorial(THREE_SHORT_ID, in_three).dock_copy_path(in_three, "ja")
    kept = dock_strings.read_bytes()
    dock_strings.write_bytes((RUNTIME_DIR / "locales" / "en.json").read_bytes())
    try:
        code = main(["check", THREE_SHORT_ID, "--root", str(in_three), "--locale", "ja",
                     "-k", "test_denial_speaks_the_pages_locale", "-p", "no:cacheprovider"])
    finally:
        dock_strings.write_bytes(kept)
    out = capsys.readouterr().out

    assert code == 1, out
    assert re.search(r"bilingual-copy\s+FAIL", out), out


def test_new_refuses_a_locale_it_has_no_words_for(tmp_path: Path) -> None:
    with pytest.raises(ScaffoldError, match=r"has words for en, ja, zh, not for fr; .*by hand"):
        scaffold(NewTutorial(id="r-93-refunds", short_id="r-93", locales=("en", "fr")), tmp_path)

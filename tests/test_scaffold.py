"""`pling-tutorial new`: a scaffolded tutorial, in a folder of its own, passes its own check
in every locale and has every mutant of its catalogue killed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from harness.cli.main import main
from harness.project.tutorials import load_tutorial
from harness.scaffold.new import NewTutorial, ScaffoldError, scaffold
from harness.server.runner import TutorialServer

NEW_ID, NEW_SHORT_ID = "r-90-refunds", "r-90"
PROJECT = Path(__file__).resolve().parents[1]
TSC = PROJECT / "tools" / "typecheck" / "node_modules" / ".bin" / "tsc"


@pytest.fixture(scope="module")
def scaffolded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A root holding only the new tutorial and the runtime it runs on."""
    root = tmp_path_factory.mktemp("scaffolded")
    assert main(["new", NEW_ID, "--short-id", NEW_SHORT_ID, "--root", str(root)]) == 0
    return root


def test_new_writes_a_tutorial_whose_state_is_not_the_harness_s(scaffolded: Path) -> None:
    tutorial = load_tutorial(NEW_SHORT_ID, scaffolded)
    assert tutorial.api.initial_state == {"status": "open", "refund_cents": 0}
    # Another locale order than r-15's: the harness takes the tutorial's.
    assert tutorial.locales == ("en", "zh")
    for path in ("fixtures/pling/index.js", f"fixtures/{NEW_ID}/app.js",
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
                    ["mypy", "--strict", "--config-file", str(config), str(folder / "checks"),
                     str(folder / "backend.py")]):
        result = subprocess.run([sys.executable, "-m", *command], capture_output=True,
                                text=True, cwd=PROJECT)
        assert result.returncode == 0, result.stdout + result.stderr


def test_new_tutorial_page_passes_tsc_from_its_jsdoc(scaffolded: Path, tmp_path: Path) -> None:
    if not TSC.exists():
        pytest.fail(f"{TSC} is missing; run ./scripts/bootstrap (it installs TypeScript with npm)")
    # The project's settings, over the new page and the runtime copy it imports.
    config = json.loads((PROJECT / "tsconfig.json").read_text(encoding="utf-8"))
    options = {**config["compilerOptions"], "baseUrl": str(scaffolded)}
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
    report = tmp_path / "report.json"
    code = main(["check", NEW_SHORT_ID, "--root", str(scaffolded), "-p", "no:cacheprovider",
                 "--pling-report", str(report)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "4/4 guarantees proven in en, zh" in out
    tests = json.loads(report.read_text(encoding="utf-8"))["tests"]
    # Its own checks, in its own locales, in the order its tutorial.json gives them.
    assert {t["locale"] for t in tests} == {"en", "zh"}
    assert all(f"tutorials/{NEW_ID}/checks/" in t["nodeid"] for t in tests), tests
    assert len(tests) == 8


def test_check_on_the_new_tutorial_served_elsewhere_is_green(
    scaffolded: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    """Its declarations (state and reset requests, presets, published rule) are enough for
    external mode: the same checks pass against its page served by another server."""
    with TutorialServer(tutorial=NEW_SHORT_ID, root=scaffolded) as served:
        code = main(["check", NEW_SHORT_ID, "--root", str(scaffolded), "--base-url",
                     served.url, "-p", "no:cacheprovider"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert f"Checked {served.url} (served elsewhere" in out
    assert "4/4 guarantees proven in en, zh" in out


@pytest.mark.mutation
def test_mutate_on_the_new_tutorial_kills_every_mutant(
    scaffolded: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["mutate", NEW_SHORT_ID, "--root", str(scaffolded), "--jobs", "2"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "score: 4/4 mutants killed by the checks meant to catch them" in out


@pytest.mark.parametrize("command", ["list", "dev", "check", "mutate"])
def test_root_without_fixtures_and_tutorials_is_a_usage_error(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    args = [command] if command == "list" else [command, NEW_SHORT_ID]
    assert main([*args, "--root", str(tmp_path)]) == 2
    assert f"--root {tmp_path} has no fixtures/ or tutorials/ folder" in capsys.readouterr().err

"""The bug replay's version-installing part: a framework's exact releases from the npm
registry, installed for the AI SDK page once and cached, linked into a copy of the page; and
the releases files that name each framework page's bugs."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from pydantic import ValidationError

from pling_harness.mutation.releases import (
    RECORD_NAME,
    ReleaseError,
    ReleasePins,
    ReleasesFileError,
    installed_release,
    link_release,
    load_pages_release_bugs,
    load_release_bugs,
    release_key,
)
from pling_harness.project.tutorials import load_tutorial

PROJECT_ROOT = Path(__file__).resolve().parents[1]

PAGE = PROJECT_ROOT / "fixtures" / "r-15-ai-sdk"
# ai 7.0.31: the first release with vercel/ai#17136 fixed, and the React and provider
# packages released with it (@ai-sdk/react pins that exact ai).
FIXED_17136 = {"ai": "7.0.31", "@ai-sdk/react": "4.0.34", "@ai-sdk/openai-compatible": "3.0.13"}


@pytest.mark.parametrize(("packages", "words"), [
    ({"ai": "^7.0.30"}, "exact version"),
    ({"ai": "latest"}, "exact version"),
    ({"ai": "7.0"}, "exact version"),
    ({"AI": "7.0.30"}, "npm package name"),
    ({}, "at least 1 item"),
])
def test_release_pins_are_exact_versions_of_named_packages(packages: dict[str, str],
                                                           words: str) -> None:
    with pytest.raises(ValidationError, match=words):
        ReleasePins(packages=packages)


def test_release_key_names_the_pins_and_the_pages_lock(tmp_path: Path) -> None:
    for name in ("package.json", "package-lock.json"):
        (tmp_path / name).write_bytes((PAGE / name).read_bytes())
    buggy = ReleasePins(packages={"ai": "7.0.30"})
    assert release_key(tmp_path, buggy) == release_key(PAGE, buggy)
    assert release_key(PAGE, buggy) != release_key(PAGE, ReleasePins(packages={"ai": "7.0.31"}))
    (tmp_path / "package-lock.json").write_text("{}")
    assert release_key(tmp_path, buggy) != release_key(PAGE, buggy)


def test_installed_release_has_exactly_the_pins_and_is_cached() -> None:
    if not (PAGE / "package-lock.json").is_file():
        pytest.fail(f"{PAGE} has no lock")
    node_modules = installed_release(PAGE, FIXED_17136)

    record = json.loads((node_modules.parent / RECORD_NAME).read_text())
    assert record["installed"] == FIXED_17136
    for name, version in FIXED_17136.items():
        assert json.loads((node_modules / name / "package.json").read_text())["version"] == version
    # The page's other locked packages are the page's own.
    own_react = json.loads((PAGE / "node_modules" / "react" / "package.json").read_text())
    assert json.loads((node_modules / "react" / "package.json").read_text()) == own_react
    assert installed_release(PAGE, FIXED_17136) == node_modules  # from the cache


def test_installed_release_of_a_version_the_registry_lacks_names_it(tmp_path: Path) -> None:
    with pytest.raises(ReleaseError, match=re.escape("npm install ai@0.0.999999")):
        installed_release(PAGE, {"ai": "0.0.999999"}, cache=tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_link_release_points_a_copy_at_an_install_and_never_replaces_a_real_folder(
        tmp_path: Path) -> None:
    first, second, copy = tmp_path / "a", tmp_path / "b", tmp_path / "copy"
    for folder in (first, second, copy):
        folder.mkdir()
    link_release(copy, first)
    link_release(copy, second)
    assert (copy / "node_modules").resolve() == second.resolve()
    real = tmp_path / "page"
    (real / "node_modules").mkdir(parents=True)
    with pytest.raises(ReleaseError, match="real folder"):
        link_release(real, first)
    assert (real / "node_modules").is_dir() and not (real / "node_modules").is_symlink()


def test_r15_release_bugs_pin_exact_pairs_of_the_ai_sdk_page() -> None:
    tutorial = load_tutorial("r-15")
    bugs = load_release_bugs(tutorial, PROJECT_ROOT)

    assert bugs.page == "ai-sdk"
    assert (PROJECT_ROOT / "fixtures" / f"{tutorial.short_id}-{bugs.page}").is_dir()
    assert len({bug.name for bug in bugs.bugs}) == len(bugs.bugs) >= 3
    for bug in bugs.bugs:
        if bug.fixed is None:  # open: no fixed release yet
            continue
        assert set(bug.buggy.packages) == set(bug.fixed.packages) >= {"ai"}, bug.name
        assert bug.buggy.packages["ai"] != bug.fixed.packages["ai"], bug.name
    # The first replay is the page as it is, on AI SDK 7: nothing more needed.
    assert bugs.bugs[0].needs is None and bugs.bugs[0].buggy.packages["ai"].startswith("7.")


def test_release_bugs_file_of_another_tutorial_is_refused(tmp_path: Path) -> None:
    tutorial = load_tutorial("r-15")
    folder = tutorial.mutation_directory(tmp_path)
    folder.mkdir(parents=True)
    text = (tutorial.mutation_directory(PROJECT_ROOT) / "releases.json").read_text()
    (folder / "releases.json").write_text(text.replace('"r-15"', '"r-16"', 1))
    with pytest.raises(ReleasesFileError, match="names 'r-16'"):
        load_release_bugs(tutorial, tmp_path)


def test_r15_pages_release_bugs_are_each_pages_own_file() -> None:
    tutorial = load_tutorial("r-15")
    pages = load_pages_release_bugs(tutorial, PROJECT_ROOT)

    assert set(pages) == {"ai-sdk", "copilotkit", "assistant-ui", "assistant-ui-v6"}
    assert (PROJECT_ROOT / "fixtures" / f"{tutorial.short_id}-assistant-ui").is_dir()
    assert any(bug.is_open and bug.checks for bug in pages["assistant-ui"].bugs)
    # assistant-ui's fixed bugs of @assistant-ui/react-ai-sdk 1.3.x live on its AI SDK 6 page.
    assert (PROJECT_ROOT / "fixtures" / f"{tutorial.short_id}-assistant-ui-v6").is_dir()
    assert {bug.name for bug in pages["assistant-ui-v6"].bugs} == {
        "assistant-ui-3266-approval-card-without-arguments",
        "assistant-ui-4196-stale-approval-kills-thread"}
    assert pages["ai-sdk"] == load_release_bugs(tutorial, PROJECT_ROOT)
    copilotkit = pages["copilotkit"]
    assert (PROJECT_ROOT / "fixtures" / f"{tutorial.short_id}-copilotkit").is_dir()
    assert len(copilotkit.bugs) >= 3  # CK-3416, CK-4953, CK-5374
    for bug in copilotkit.bugs:
        # The page's two CopilotKit packages are released together, at one version.
        for pins in (bug.buggy, bug.fixed):
            if pins is None:  # open: no fixed release yet
                continue
            assert set(pins.packages) == {"@copilotkit/react-core", "@copilotkit/runtime"}
            assert len(set(pins.packages.values())) == 1, bug.name
        assert bug.buggy != bug.fixed and bug.checks is not None, bug.name


def _write_releases(folder: Path, name: str, text: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text)


def test_a_page_releases_file_must_name_its_own_page(tmp_path: Path) -> None:
    tutorial = load_tutorial("r-15")
    folder = tutorial.mutation_directory(tmp_path)
    text = (tutorial.mutation_directory(PROJECT_ROOT) / "releases-copilotkit.json").read_text()
    _write_releases(folder, "releases-react.json", text)
    with pytest.raises(ReleasesFileError, match=r"releases-react\.json: field page: names "
                                                r"'copilotkit', but the file is 'react'"):
        load_pages_release_bugs(tutorial, tmp_path)


def test_two_files_of_one_page_or_one_bug_on_two_pages_are_refused(tmp_path: Path) -> None:
    tutorial = load_tutorial("r-15")
    folder = tutorial.mutation_directory(tmp_path)
    text = (tutorial.mutation_directory(PROJECT_ROOT) / "releases.json").read_text()
    _write_releases(folder, "releases.json", text)
    _write_releases(folder, "releases-ai-sdk.json", text)
    with pytest.raises(ReleasesFileError, match="'ai-sdk' already has its bugs"):
        load_pages_release_bugs(tutorial, tmp_path)

    (folder / "releases-ai-sdk.json").unlink()
    other = json.loads(text)
    other["page"] = "react"
    _write_releases(folder, "releases-react.json", json.dumps(other))
    first = other["bugs"][0]["name"]
    with pytest.raises(ReleasesFileError, match=f"field bugs: {first!r} is also a bug of page"):
        load_pages_release_bugs(tutorial, tmp_path)


def test_a_tutorial_without_releases_files_has_no_page_bugs(tmp_path: Path) -> None:
    assert load_pages_release_bugs(load_tutorial("r-15"), tmp_path) == {}

"""The harness as a user installs it (issue 27): the wheel, in a fresh virtual environment in
a folder outside this checkout, used from a new project of its own: `new`, `list`, `check`,
a check written here run with plain `pytest`, `check --base-url` against the page served by
another process (from a project that holds only the tutorial's definition), and an unrelated
pytest project beside it that still passes. Once with the newest releases pip picks, once
with every dependency at the lowest version pyproject.toml allows (a constraints file
pinning each `>=` floor). `mutate --focused` runs in the newest environment only: it runs
the same checks `check` runs, so at the floors it would prove nothing `check` does not.

The package is built once per run as a user's build frontend builds it (`python -m build`:
the sdist, then the wheel from the sdist), so the same build proves the sdist complete;
what the sdist holds and the long description's links are checked here too. Each
environment is made without pip of its own (this venv's pip installs into it, from pip's
cache) and installed once. `-m "not wheel"` leaves these out of a local run.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tarfile
import tomllib
import venv
import zipfile
from dataclasses import dataclass
from email.parser import Parser
from pathlib import Path

import pytest

from pling_harness.evidence.sources import EXTERNAL_SOURCES, why_not_provable
from pling_harness.plugin.declared.matrix import declared_checks
from pling_harness.plugin.guarantee_registry import guarantee_sources
from pling_harness.project.action_table import load_action_table

pytestmark = pytest.mark.wheel

# The harness's own checkout: what the wheel is built from.
PROJECT_ROOT = Path(__file__).resolve().parents[1]
TUTORIAL, SHORT_ID = "r-16-refunds", "r-16"
STEP_TIMEOUT_S = 600
OWN_CHECK = '''\
import pytest
from playwright.sync_api import Page, expect

from pling_harness import Dock, Say, Timeline, guarantees


@pytest.mark.guarantee("approval-before-side-effects")
def test_refund_card_names_the_refund(tutorial_page: Page, dock: Dock, timeline: Timeline,
                                      say: Say) -> None:
    before = timeline.mark()
    dock.ask(say("refund"))
    expect(tutorial_page.get_by_test_id("pling-approval")).to_have_attribute(
        "data-action", "refund_ticket")
    guarantees.approval_before_side_effects(timeline, action="refund_ticket", since=before)
'''
UNRELATED_TEST = '''\
import pytest


@pytest.fixture
def locale():
    return "fr"  # a fixture of the project's own that shares a name with the plugin's


def test_own_fixture(locale):
    assert locale == "fr"
'''


def dependency_floors() -> list[str]:
    """`name==X` for every `name>=X` in pyproject.toml's dependencies."""
    pyproject = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    floors = []
    for requirement in pyproject["project"]["dependencies"]:
        found = re.fullmatch(r"([A-Za-z0-9_.-]+)\s*>=\s*([0-9][^,;\s]*)(?:,.*)?", requirement)
        assert found, f"{requirement!r} has no >= floor to prove"
        floors.append(f"{found[1]}=={found[2]}")
    return floors


@dataclass(frozen=True)
class Built:
    """The sdist and the wheel `python -m build` made from it."""

    sdist: Path
    wheel: Path


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """sdist and wheel, built from a copy of the checkout's files (the checkout stays
    untouched): the wheel from the sdist, as `python -m build` does."""
    source = tmp_path_factory.mktemp("wheel-source")
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                             "--exclude-standard"], cwd=PROJECT_ROOT, capture_output=True,
                            check=True).stdout.decode().split("\0")
    for relative in filter(None, listed):
        if (PROJECT_ROOT / relative).is_file():
            (source / relative).parent.mkdir(parents=True, exist_ok=True)
            (source / relative).write_bytes((PROJECT_ROOT / relative).read_bytes())
    out = tmp_path_factory.mktemp("dist")
    run([sys.executable, "-m", "build", "--outdir", str(out), str(source)], cwd=source)
    (sdist,) = out.glob("pling_harness-*.tar.gz")
    (wheel,) = out.glob("pling_harness-*.whl")
    return Built(sdist=sdist, wheel=wheel)


def test_sdist_holds_the_package_its_license_and_docs_but_not_the_tests(built: Built) -> None:
    with tarfile.open(built.sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    tops = {name.split("/")[0] for name in names}

    assert {"pyproject.toml", "README.md", "LICENSE", "MANIFEST.in"} <= names
    assert {"pling_harness/web/runtime/i18n.js", "pling_harness/web/runtime/locales/zh.json",
            "pling_harness/scaffold/templates/locales/ja/dock.json.tmpl",
            "docs/page-contract.md"} <= names
    # Left out on purpose (MANIFEST.in): the suite needs the checkout, not the package.
    assert not tops & {"tests", "tutorials", "fixtures", "tools", "scripts", ".venv"}, tops
    assert not [name for name in names if "node_modules" in name or "__pycache__" in name]


def test_wheel_metadata_has_the_license_and_a_long_description_an_index_can_show(
    built: Built,
) -> None:
    with zipfile.ZipFile(built.wheel) as archive:
        (metadata_name,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        metadata = Parser().parsestr(archive.read(metadata_name).decode("utf-8"))
        licenses = [n for n in archive.namelist() if n.endswith("licenses/LICENSE")]
    description = metadata.get_payload()
    assert isinstance(description, str)
    links = re.findall(r"\]\(([^)\s]+)", description) + re.findall(r'href="([^"]+)"', description)

    assert metadata["License-Expression"] == "MIT"
    assert licenses, "the LICENSE file is not in the wheel"
    assert metadata.get_all("Project-URL") is None  # no public home yet (pyproject.toml)
    assert "Use it in your own repository" in description
    assert [link for link in links if not link.startswith("https://")] == []


def test_the_wheel_has_the_releases_and_frameworks_commands(built: Built) -> None:
    with zipfile.ZipFile(built.wheel) as archive:
        names = set(archive.namelist())

    assert {"pling_harness/cli/releases/command.py", "pling_harness/cli/releases/search.py",
            "pling_harness/cli/frameworks_page.py"} <= names


@dataclass(frozen=True)
class Environment:
    """A fresh virtual environment with the wheel installed."""

    bin: Path

    def run(self, *args: str, cwd: Path, check: bool = True) -> subprocess.CompletedProcess[str]:
        return run([str(self.bin / args[0]), *args[1:]], cwd=cwd, check=check,
                   env=self.environ())

    def environ(self) -> dict[str, str]:
        inherited = {key: value for key, value in os.environ.items()
                     if not key.startswith(("PLING_", "PYTEST_", "VIRTUAL_ENV"))}
        return {**inherited, "PATH": f"{self.bin}{os.pathsep}{inherited.get('PATH', '')}"}


@pytest.fixture(scope="module", params=["newest", "floors"])
def environment(request: pytest.FixtureRequest, built: Built,
                tmp_path_factory: pytest.TempPathFactory) -> Environment:
    """The wheel in a new venv: with the newest releases, or every dependency at its floor."""
    folder = tmp_path_factory.mktemp(f"venv-{request.param}")
    venv.create(folder, with_pip=False)  # this venv's pip installs into it: no ensurepip
    bin_dir = folder / "bin"
    pip = [sys.executable, "-m", "pip", "--python", str(bin_dir / "python")]
    constraints: list[str] = []
    if request.param == "floors":
        pinned = folder / "constraints.txt"
        pinned.write_text("\n".join(dependency_floors()) + "\n", encoding="utf-8")
        constraints = ["-c", str(pinned)]
    # No .pyc written for all of every dependency up front: what runs compiles on first import.
    run([*pip, "install", "--quiet", "--no-compile", *constraints, str(built.wheel)], cwd=folder)
    if request.param == "floors":
        installed = run([*pip, "freeze"], cwd=folder).stdout
        for pin in dependency_floors():
            assert pin.lower() in installed.lower(), f"{pin} not installed:\n{installed}"
    return Environment(bin=bin_dir)


@pytest.fixture(scope="module")
def project(environment: Environment, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new project, outside the checkout, with a tutorial written by `new`."""
    folder = tmp_path_factory.mktemp("project")
    assert not folder.is_relative_to(PROJECT_ROOT)
    environment.run("pling-tutorial", "new", TUTORIAL, "--short-id", SHORT_ID, cwd=folder)
    return folder


def test_list_names_the_new_tutorial(environment: Environment, project: Path) -> None:
    listed = environment.run("pling-tutorial", "list", cwd=project)

    assert listed.stdout.split()[:2] == [TUTORIAL, SHORT_ID]


def test_check_is_green_and_its_junit_lands_where_asked(
    environment: Environment, project: Path,
) -> None:
    done = environment.run("pling-tutorial", "check", SHORT_ID, "--junitxml", "out/junit.xml",
                           cwd=project)

    assert f"{len(proven(project))}/{len(proven(project))} guarantees proven in en, zh" in (
        done.stdout)
    assert (project / "out" / "junit.xml").is_file()


def proven(project: Path) -> dict[str, bool]:
    """Each guarantee the project's table implies by the guarantees' declarations, and
    whether a page served elsewhere can prove none of its checks (each is n/a there when
    one of its guarantees reads a source only the fixture server has)."""
    table = load_action_table(project / "tutorials" / TUTORIAL / "actions.json")
    known = guarantee_sources(None)
    unprovable: dict[str, bool] = {}
    for check in declared_checks(table):
        elsewhere = why_not_provable(check.guarantees, EXTERNAL_SOURCES, known) is not None
        for guarantee in check.guarantees:
            unprovable[guarantee] = unprovable.get(guarantee, True) and elsewhere
    return unprovable


# Newest only: mutate runs the checks `check` runs, which the floors' check proves. A
# mutation proof (about two minutes): with the others, by `pytest -m mutation`.
@pytest.mark.mutation
@pytest.mark.parametrize("environment", ["newest"], indirect=True)
def test_mutate_focused_kills_every_mutant(environment: Environment, project: Path) -> None:
    done = environment.run("pling-tutorial", "mutate", SHORT_ID, "--focused", "--jobs", "2",
                           cwd=project)

    assert "score: 24/24 mutants killed" in done.stdout


def test_a_check_of_our_own_runs_with_plain_pytest(environment: Environment,
                                                   project: Path) -> None:
    own = project / "tutorials" / TUTORIAL / "checks" / "test_own_card.py"
    own.parent.mkdir(exist_ok=True)  # `new` writes no hand-written check
    own.write_text(OWN_CHECK, encoding="utf-8")
    try:
        done = environment.run("pytest", str(own.relative_to(project)), "-q", cwd=project)
    finally:
        own.unlink()

    assert "2 passed" in done.stdout  # en and zh, the tutorial's locales


def test_check_base_url_needs_only_the_tutorials_definition(
    environment: Environment, project: Path, tmp_path: Path,
) -> None:
    consumer = tmp_path / "consumer"
    definition = consumer / "tutorials" / TUTORIAL
    copy_tree(project / "tutorials" / TUTORIAL, definition)
    (definition / "backend.py").unlink()  # the page's own server is the backend
    with ServedPage(environment, project) as url:
        done = environment.run("pling-tutorial", "check", SHORT_ID, "--base-url", url,
                               cwd=consumer)

    assert f"Checked {url}" in done.stdout
    # tests-isolated is the fixture server's own (a seat per test): n/a served elsewhere.
    # gateway-faults is n/a on a page served elsewhere (its own gateway is not the harness's).
    guarantees = proven(project)
    not_here = sorted(name for name, unprovable in guarantees.items() if unprovable)
    assert not_here == ["gateway-faults", "tests-isolated"]
    assert (f"{len(guarantees) - len(not_here)}/{len(guarantees)} guarantees proven in en, zh; "
            f"{len(not_here)} n/a") in done.stdout


# A framework's real releases from the npm registry (two of them, one check each: a few
# minutes, faster once they are in the releases cache): with the slow proofs, `-m mutation`,
# or alone, `-m releases`.
RELEASES_R15 = "r-15-confirmation-and-human-handoff"
RELEASES_RANGE = ("--page", "ai-sdk", "--package", "ai", "--from", "7.0.30", "--to", "7.0.31",
                  "--with", "@ai-sdk/openai-compatible",
                  "-k", "denial-respected and test_declared and save_workspace_name",
                  "--guarantee", "denial-respected")


@pytest.mark.mutation
@pytest.mark.releases
@pytest.mark.parametrize("environment", ["newest"], indirect=True)
def test_releases_finds_the_release_that_fixed_a_bug(environment: Environment,
                                                     tmp_path: Path) -> None:
    # r-15, its AI SDK page (sources only: each release brings its own packages) and the
    # Vite guard it imports, in a project outside the checkout: nothing of the checkout's
    # is imported.
    project = tmp_path / "framework-project"
    copy_tree(PROJECT_ROOT / "tutorials" / RELEASES_R15, project / "tutorials" / RELEASES_R15)
    for page in (RELEASES_R15, "r-15-ai-sdk", "pling-vite"):
        copy_tree(PROJECT_ROOT / "fixtures" / page, project / "fixtures" / page,
                  skip=("node_modules", ".vite-cache"))

    done = environment.run("pling-tutorial", "releases", "r-15", *RELEASES_RANGE,
                           cwd=project, check=False)

    # vercel/ai#17136: a denial left the call looking pending until ai 7.0.31.
    rows = [line for line in done.stdout.splitlines() if line.startswith("| denial-respected")]
    assert len(rows) == 1, done.stdout[-3000:] + done.stderr[-3000:]
    cells = [cell.strip() for cell in rows[0].split("|")]
    assert cells[3].startswith("ai@7.0.30 ") and cells[4].startswith("ai@7.0.31 "), \
        done.stdout[-3000:]
    assert "7.0.30 breaks, 7.0.31 keeps" in cells[5]
    assert done.returncode == 0, done.stdout[-3000:]


def test_an_unrelated_project_beside_it_passes(environment: Environment, tmp_path: Path) -> None:
    (tmp_path / "test_unrelated.py").write_text(UNRELATED_TEST, encoding="utf-8")

    done = environment.run("pytest", "-q", "--base-url", "http://127.0.0.1:9", cwd=tmp_path)

    assert "1 passed" in done.stdout


class ServedPage:
    """`pling-tutorial dev` in a process of its own; its URL while the block runs."""

    def __init__(self, environment: Environment, project: Path) -> None:
        self.environment = environment
        self.project = project
        self.process: subprocess.Popen[str] | None = None

    def __enter__(self) -> str:
        self.process = subprocess.Popen(
            [str(self.environment.bin / "pling-tutorial"), "dev", SHORT_ID, "--port", "0"],
            cwd=self.project, env=self.environment.environ(), stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True)
        assert self.process.stdout is not None
        first = self.process.stdout.readline()  # once it listens, or at its exit
        found = re.search(r"at (http://127\.0\.0\.1:\d+)/", first)
        if found is None:
            self.__exit__()
            pytest.fail(f"dev did not start: {first}")
        return found[1]

    def __exit__(self, *exc_info: object) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.communicate(timeout=30)


def copy_tree(source: Path, target: Path, skip: tuple[str, ...] = ()) -> None:
    for path in source.rglob("*"):
        parts = path.relative_to(source).parts
        if path.is_file() and "__pycache__" not in parts and not set(parts) & set(skip):
            (target / path.relative_to(source)).parent.mkdir(parents=True, exist_ok=True)
            (target / path.relative_to(source)).write_bytes(path.read_bytes())


def run(command: list[str], *, cwd: Path, check: bool = True,
        env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=STEP_TIMEOUT_S, check=False)
    if check and done.returncode != 0:
        pytest.fail(f"{' '.join(command)} exited {done.returncode}:\n{done.stdout[-3000:]}\n"
                    f"{done.stderr[-3000:]}", pytrace=False)
    return done

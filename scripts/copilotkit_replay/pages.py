"""The r-15 CopilotKit page on a given CopilotKit release, served with the fixture server,
whose scripted model on OpenAI's wire (`<server>/v1`) its runtime calls.

The page's sources are copied beside it (`fixtures/.r-15-copilotkit-<version>/`, so its
relative imports still resolve) with `@copilotkit/react-core` and `@copilotkit/runtime` set
to that release, and installed from the lock kept in `fixtures/r-15-copilotkit/replay/`
(`npm ci`); a release without a kept lock is installed once with `npm install`, and its lock
is kept for the next run.

A variant (`replay/<variant>/`) is laid over the copy: `v1` binds the page's assistant with
CopilotKit's v1 API, for bugs of the releases before its v2 core (replay/v1/README.md).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from pling_harness.project.pages_table import page_row
from pling_harness.project.tutorials import load_tutorial
from pling_harness.server.model.scripted import ScriptedModel
from pling_harness.server.page_process import PageProcess, row_process
from pling_harness.server.runner import TutorialServer

PROJECT_ROOT = Path(__file__).resolve().parents[2]

PAGE = PROJECT_ROOT / "fixtures" / "r-15-copilotkit"
KEPT_LOCKS = PAGE / "replay"
SOURCES = ("index.html", "src", "server", "vite.config.ts", "tsconfig.json")
COPILOTKIT_PACKAGES = ("@copilotkit/react-core", "@copilotkit/runtime")
INSTALL_TIMEOUT_S = 900


def pinned_version() -> str:
    """The release the page itself is pinned to."""
    package = json.loads((PAGE / "package.json").read_text())
    return str(package["dependencies"]["@copilotkit/react-core"])


def page_on(version: str, variant: str | None = None) -> Path:
    """The page's directory on `version` (with `variant` laid over it), installed; the page
    itself on its own release."""
    if version == pinned_version() and variant is None:
        return PAGE
    name = version if variant is None else f"{version}-{variant}"
    directory = PAGE.parent / f".r-15-copilotkit-{name}"
    directory.mkdir(exist_ok=True)
    for source_name in SOURCES:
        source, target = PAGE / source_name, directory / source_name
        if source.is_dir():
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(source, target)
        else:
            shutil.copy2(source, target)
    package = json.loads((PAGE / "package.json").read_text())
    package["name"] = f"pling-r-15-copilotkit-replay-{version}"
    if variant is not None:
        overlay = KEPT_LOCKS / variant
        for folder in ("src", "server"):
            shutil.copytree(overlay / folder, directory / folder, dirs_exist_ok=True)
        added = json.loads((overlay / "package.json").read_text())["dependencies"]
        package["dependencies"].update(
            {dependency: version if pinned == "RELEASE" else pinned
             for dependency, pinned in added.items()})
    for dependency in COPILOTKIT_PACKAGES:
        package["dependencies"][dependency] = version
    (directory / "package.json").write_text(json.dumps(package, indent=2) + "\n")
    install(directory, KEPT_LOCKS / name / "package-lock.json")
    return directory


def install(directory: Path, kept_lock: Path) -> None:
    lock = directory / "package-lock.json"
    installed = directory / "node_modules" / ".installed-lock.json"
    if kept_lock.is_file():
        if installed.is_file() and installed.read_bytes() == kept_lock.read_bytes():
            return
        shutil.copy2(kept_lock, lock)
        command = ["npm", "ci"]
    else:
        lock.unlink(missing_ok=True)
        command = ["npm", "install"]
    print(f"replay: {' '.join(command)} in {directory.name} (a few minutes)", flush=True)
    subprocess.run([*command, "--no-audit", "--no-fund", "--silent"], cwd=directory, check=True,
                   timeout=INSTALL_TIMEOUT_S)
    kept_lock.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(lock, kept_lock)
    shutil.copy2(lock, installed)


@dataclass
class ServedPage:
    url: str
    model: ScriptedModel
    api: TutorialServer
    vite: PageProcess


@contextmanager
def served(version: str, variant: str | None = None) -> Iterator[ServedPage]:
    """The page on `version` under Vite's dev server (StrictMode on) and the fixture server
    (business API and scripted model, `<server>/v1`); everything stops on leaving."""
    directory = page_on(version, variant)
    with TutorialServer(tutorial="r-15", root=PROJECT_ROOT, port=0, environ={}) as api:
        assert api.model is not None, "the fixture server's default provider is scripted"
        # The page's row (tutorial.json `pages`) with its folder the copy; its runtime
        # calls the model at the fixture server's /v1.
        row = page_row(load_tutorial("r-15", PROJECT_ROOT), PROJECT_ROOT, "copilotkit")
        row = row.model_copy(update={"cwd": directory.relative_to(PROJECT_ROOT).as_posix()})
        with row_process(row, root=PROJECT_ROOT, api_origin=api.url) as vite:
            yield ServedPage(url=vite.origin, model=api.model, api=api, vite=vite)

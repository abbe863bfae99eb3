"""`pling-tutorial dev <tutorial> --page ai-sdk`: the tutorial's page with its assistant built
on the Vercel AI SDK (`fixtures/<short id>-ai-sdk/`), under Vite's dev server.

Its chat route runs `streamText` inside the Vite process, so AI SDK 7's Node.js (>= 22)
runs Vite: the page's own `node_modules/.bin/node` (the npm registry's `node` package,
which `scripts/bootstrap` installs with the page). The fixture server runs in this process
on a free port: the business API behind Vite's proxy (PLING_API_ORIGIN) and, unless
`--model-url` names another, the scripted model on OpenAI's wire at its `/v1`
(PLING_OPENAI_BASE_URL), which the page's `@ai-sdk/openai-compatible` provider calls.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from pling_harness.cli.react_page import ReactPageError, ViteServer
from pling_harness.project.paths import FIXTURES_DIR_NAME
from pling_harness.project.tutorials import Tutorial
from pling_harness.server.model.openai_wire import OPENAI_BASE_PATH

AI_SDK_PAGE = "ai-sdk"
# The environment the page's server code reads (fixtures/<id>-ai-sdk/vite.config.ts).
MODEL_URL_VARIABLE = "PLING_OPENAI_BASE_URL"


def ai_sdk_directory(tutorial: Tutorial, root: Path) -> Path:
    """`fixtures/<short id>-ai-sdk/`, with its packages and its Node.js installed."""
    directory = root / FIXTURES_DIR_NAME / f"{tutorial.short_id}-{AI_SDK_PAGE}"
    if not (directory / "package.json").is_file():
        raise ReactPageError(f"{tutorial.short_id} has no AI SDK page ({directory} is "
                             "missing); --page ai-sdk needs one there")
    if not node_binary(directory).is_file():
        raise ReactPageError(
            f"the AI SDK page's packages are not installed in {directory}; run "
            "./scripts/bootstrap (it runs npm ci there, which also brings its Node.js 22)")
    return directory


def node_binary(directory: Path) -> Path:
    return directory / "node_modules" / ".bin" / "node"


def model_url(fixture_server_url: str) -> str:
    """The fixture server's scripted model on OpenAI's wire: its base URL."""
    return f"{fixture_server_url}{OPENAI_BASE_PATH}"


def ai_sdk_vite(directory: Path, *, api_origin: str, model_base_url: str,
                port: int) -> ViteServer:
    """Vite's dev server for the AI SDK page, under the page's own Node.js."""
    return ViteServer(directory=directory, mode="react", api_origin=api_origin, port=port,
                      node=node_binary(directory),
                      environ={MODEL_URL_VARIABLE: model_base_url},
                      # Vite 8.4 refuses a second dev server of one page folder (its command
                      # lock); ours each get their own port, so a check's or a test's server
                      # may run beside a developer's `dev --page ai-sdk`.
                      options=["--bypass-lock"])


# What a copy of the page needs beside its packages (never its node_modules or caches).
PAGE_SOURCES = ("index.html", "src", "server", "vite.config.ts", "tsconfig.json",
                "package.json", "package-lock.json")


def copy_page(directory: Path, copy: Path, node_modules: Path) -> None:
    """`directory`'s page copied to `copy` (a sibling, so its relative imports resolve) with
    `node_modules` linked in: a release under replay, or the page's own packages. Vite
    holds one lock per page folder, so a copy is served beside a running `dev`."""
    shutil.rmtree(copy, ignore_errors=True)
    copy.mkdir()
    for name in PAGE_SOURCES:
        source = directory / name
        if source.is_dir():
            shutil.copytree(source, copy / name)
        else:
            shutil.copy2(source, copy / name)
    (copy / "node_modules").symlink_to(node_modules.resolve(), target_is_directory=True)

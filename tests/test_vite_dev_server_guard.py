"""The React page's Vite dev server exposes nothing another site can trigger (issue 31 §1):
another site's page, in Chromium, cannot reach `/__open-in-editor` (it launched the
developer's editor) or any of Vite's dev endpoints; a foreign Host is refused everywhere;
and what Vite serves from disk is the page's own folders, never the tutorial's backend.py.
The rule is `fixtures/pling-vite/dev-server-guard.ts`; each refusal is a 403 in Vite's log."""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page

from pling_harness.browser.pages import open_page
from pling_harness.project.pages_table import page_row
from pling_harness.project.tutorials import load_tutorial
from pling_harness.server.page_process import PageProcess, row_process
from pling_harness.server.runner import TutorialServer

# The harness's own checkout: the project these tests check.
PROJECT_ROOT = Path(__file__).resolve().parents[1]

R15 = PROJECT_ROOT / "tutorials" / "r-15-confirmation-and-human-handoff"
BACKEND = R15 / "backend.py"
# Files an editor would be asked to open: real files, so launch-editor does not skip them.
FOREIGN_FILES = {"image": R15 / "tutorial.json", "no-cors-fetch": R15 / "model-rules.json",
                 "navigation": R15 / "glossary.json"}
OWN_FILE = PROJECT_ROOT / "fixtures" / "r-15-react" / "src" / "App.tsx"
# Long enough for Vite to start, or the editor to be launched, on a loaded machine.
WAIT_SECONDS = 60.0


@dataclass(frozen=True)
class DevServer:
    vite: PageProcess
    editor_log: Path

    def opened_in_editor(self) -> str:
        return self.editor_log.read_text(encoding="utf-8") if self.editor_log.exists() else ""

    def refusals(self) -> list[str]:
        return [line for line in self.vite.output if "pling guard: refused" in line]

    def refused(self, file: Path) -> Callable[[], bool]:
        """Whether the guard's log shows the editor request for `file` refused 403."""
        return lambda: any(f"file={file} 403 " in line for line in self.refusals())


def wait_until(condition: Callable[[], bool], what: str) -> None:
    """Wait for `condition`, checked every 50 ms, at most WAIT_SECONDS."""
    deadline = time.monotonic() + WAIT_SECONDS
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what}: not within {WAIT_SECONDS} s")
        time.sleep(0.05)


@pytest.fixture(scope="module")
def dev_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DevServer]:
    """`pling-tutorial dev r-15 --page react`, as it runs it, with an "editor" that only
    writes down the files it was asked to open (launch-editor's LAUNCH_EDITOR)."""
    folder = tmp_path_factory.mktemp("editor")
    editor_log = folder / "opened.txt"
    editor = folder / "editor.sh"
    editor.write_text(f'#!/bin/sh\necho "$@" >> "{editor_log}"\n', encoding="utf-8")
    editor.chmod(editor.stat().st_mode | stat.S_IXUSR)
    tutorial = load_tutorial("r-15")
    previous = os.environ.get("LAUNCH_EDITOR")
    os.environ["LAUNCH_EDITOR"] = str(editor)
    try:
        with (TutorialServer(tutorial=tutorial, environ={}) as api,
              row_process(page_row(tutorial, PROJECT_ROOT, "react"), root=PROJECT_ROOT,
                          api_origin=api.url) as vite):
            yield DevServer(vite, editor_log)
    finally:
        if previous is None:
            os.environ.pop("LAUNCH_EDITOR", None)
        else:
            os.environ["LAUNCH_EDITOR"] = previous


@pytest.fixture(scope="module")
def other_site() -> Iterator[TutorialServer]:
    """Another site's page: a server of its own on 127.0.0.1, another port."""
    with TutorialServer(tutorial="r-15", environ={}) as running:
        yield running


def editor_url(dev_server: DevServer, file: Path) -> str:
    return f"{dev_server.vite.origin}/__open-in-editor?file={file}"


def test_another_sites_page_cannot_open_the_developers_editor(
    page: Page, dev_server: DevServer, other_site: TutorialServer,
) -> None:
    open_page(page, other_site.page_url("en"))

    # As the probe did: an image, a no-cors fetch (the browser hides both answers from the
    # page, so the dev server's log says what became of them), a top-level navigation.
    page.evaluate("(url) => { new Image().src = url; }",
                  editor_url(dev_server, FOREIGN_FILES["image"]))
    page.evaluate("(url) => fetch(url, {mode: 'no-cors'}).catch(() => null)",
                  editor_url(dev_server, FOREIGN_FILES["no-cors-fetch"]))
    with page.expect_navigation() as navigation:
        page.evaluate("(url) => { location.href = url; }",
                      editor_url(dev_server, FOREIGN_FILES["navigation"]))

    assert navigation.value is not None and navigation.value.status == 403
    for file in FOREIGN_FILES.values():
        wait_until(dev_server.refused(file), f"the refusal of {file} in Vite's log")

    # The page's own request opens its file; by then any launch the others caused is done.
    open_page(page, dev_server.vite.origin + "/?lang=en")
    status = page.evaluate("(url) => fetch(url).then((r) => r.status)",
                           f"/__open-in-editor?file={OWN_FILE}")
    assert status == 200
    wait_until(lambda: str(OWN_FILE) in dev_server.opened_in_editor(), "the own file opened")
    opened = dev_server.opened_in_editor()
    assert not [f for f in FOREIGN_FILES.values() if str(f) in opened], opened


def test_dev_endpoint_without_the_pages_own_request_is_refused(dev_server: DevServer) -> None:
    # A local program (no Sec-Fetch-Site) is no page of this server's either.
    response = httpx.get(editor_url(dev_server, BACKEND))

    assert (response.status_code, response.json()["code"]) == (403, "FORBIDDEN_DEV_ENDPOINT")
    assert str(BACKEND) not in dev_server.opened_in_editor()


@pytest.mark.parametrize("host", ["127.0.0.1:{other}", "localhost:{other}",
                                  "rebound.example:{port}", "rebound.example"])
def test_foreign_host_is_refused_on_every_path(dev_server: DevServer, host: str) -> None:
    port = int(dev_server.vite.origin.rsplit(":", 1)[1])
    named = host.format(port=port, other=port + 1)

    for path in ("/", "/src/App.tsx", "/api/workspace"):
        response = httpx.get(dev_server.vite.origin + path, headers={"Host": named})
        assert response.status_code == 403, path
    if named.startswith(("127.0.0.1", "localhost")):
        # Vite's own allowedHosts lets every IP address and localhost through, on any port:
        # the guard refuses them (in the API's envelope, logged). A name that is no IP is
        # refused by Vite itself first.
        assert response.json()["code"] == "FORBIDDEN_HOST"
        assert any(f"Host \"{named}\"" in line for line in dev_server.refusals())


def test_backend_py_is_not_served_even_to_the_page_itself(
    page: Page, dev_server: DevServer,
) -> None:
    open_page(page, dev_server.vite.origin + "/?lang=en")
    status_of = "(url) => fetch(url).then((r) => r.status)"

    assert page.evaluate(status_of, f"/@fs{BACKEND}") == 403
    runtime_entry = PROJECT_ROOT / "pling_harness" / "web" / "runtime" / "index.js"
    assert page.evaluate(status_of, f"/@fs{runtime_entry}") == 200


def test_own_page_and_api_still_work_through_the_guard(dev_server: DevServer) -> None:
    assert httpx.get(dev_server.vite.origin + "/").status_code == 200
    assert httpx.get(dev_server.vite.origin + "/api/workspace").json()["name"] == "Northwind"
    # A page reached by a link from another site is a page like any other.
    navigation = httpx.get(dev_server.vite.origin + "/", headers={
        "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate",
        "Sec-Fetch-Dest": "document"})
    assert navigation.status_code == 200

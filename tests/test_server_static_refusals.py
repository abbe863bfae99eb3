"""Static routes serve what a page loads and nothing else: no dotfile or dot folder (`.env`,
`.git/config`), no source map, no JSON of the copy folder but the tutorial's locales, no
redirect to another host (issue 31 §5). Each refusal is a 404 in the server log."""

from __future__ import annotations

import http.client
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from pling_harness.server.runner import TutorialServer

# The harness's own checkout: the project these tests check.
PROJECT_ROOT = Path(__file__).resolve().parents[1]

R15 = "r-15-confirmation-and-human-handoff"
SECRET = "never-served"


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project tree whose served folders hold what a developer's folder may hold."""
    tmp_path = tmp_path_factory.mktemp("root")
    files = {
        f"fixtures/{R15}/index.html": "<!doctype html><title>r-15</title>",
        f"fixtures/{R15}/app.js": "export const page = 1;",
        f"fixtures/{R15}/app.js.map": SECRET,
        f"fixtures/{R15}/.env": SECRET,
        f"fixtures/{R15}/.git/config": SECRET,
        f"fixtures/{R15}/parts/.hidden/page.html": SECRET,
        "fixtures/pling/index.js": "export {};",
        "fixtures/pling/index.js.map": SECRET,
        "fixtures/pling/.npmrc": SECRET,
        "fixtures/pling-testbed/index.html": "<!doctype html><title>testbed</title>",
        "fixtures/pling-testbed/.DS_Store": SECRET,
        f"tutorials/{R15}/copy/zh.json": '{"page.title": "工作区设置"}',
        f"tutorials/{R15}/copy/en.json": '{"page.title": "Workspace settings"}',
        f"tutorials/{R15}/copy/draft.json": SECRET,
    }
    for relative, text in files.items():
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    for name in ("tutorial.json", "model-rules.json"):
        shutil.copy(PROJECT_ROOT / "tutorials" / R15 / name, tmp_path / "tutorials" / R15 / name)
    return tmp_path


@pytest.fixture(scope="module")
def running(root: Path) -> Iterator[TutorialServer]:
    with TutorialServer(tutorial=R15, root=root, environ={}) as server:
        yield server


@pytest.fixture
def server(running: TutorialServer) -> TutorialServer:
    running.reset()
    return running


REFUSED = {
    "dotfile": "/.env",
    "dot-folder": "/.git/config",
    "dot-folder-inside": "/parts/.hidden/page.html",
    "dotfile-percent-encoded": "/%2Eenv",
    "source-map": "/app.js.map",
    "runtime-source-map": "/pling/index.js.map",
    "runtime-dotfile": "/pling/.npmrc",
    "testbed-dotfile": "/testbed/.DS_Store",
    "copy-not-a-locale": "/copy/draft.json",
    "copy-a-locale-not-offered": "/copy/fr.json",
}


@pytest.mark.parametrize("path", REFUSED.values(), ids=REFUSED.keys())
def test_static_file_a_page_never_loads_is_refused_404_and_logged(
    server: TutorialServer, path: str,
) -> None:
    response = httpx.get(server.url + path)

    assert response.status_code == 404
    assert SECRET not in response.text
    [record] = server.log.records(kind="static")
    assert (record.method, record.status) == ("GET", 404)
    assert record.detail, record


@dataclass(frozen=True)
class Answer:
    status: int
    location: str | None


def get_as_sent(server: TutorialServer, path: str) -> Answer:
    """GET `path` exactly as written (httpx would drop its `..` segments, as browsers do,
    but another client need not)."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        return Answer(response.status, response.getheader("location"))
    finally:
        connection.close()


@pytest.mark.parametrize("path", ["//tmp", "//tmp/..", "/pling//tmp", "//" + "x" * 3])
def test_path_with_an_empty_segment_is_refused_never_redirected(
    server: TutorialServer, path: str,
) -> None:
    answer = get_as_sent(server, path)

    assert (answer.status, answer.location) == (404, None)
    assert server.log.records(kind="static")[-1].detail == "the path has an empty segment (//)"


def test_served_folder_named_by_its_absolute_path_is_no_redirect_to_another_host(
    root: Path, server: TutorialServer,
) -> None:
    # `/` + a served folder's absolute path once came back as `Location: //…/`, a
    # protocol-relative URL: the browser would go to the host named by its first segment.
    folder = (root / "fixtures" / R15 / "parts").resolve()
    answer = get_as_sent(server, f"/{folder}")

    assert (answer.status, answer.location) == (404, None)


@pytest.mark.parametrize("path", ["/", "/app.js", "/pling/index.js", "/testbed/",
                                  "/copy/zh.json", "/copy/en.json"])
def test_files_a_page_loads_are_still_served_and_not_logged(
    server: TutorialServer, path: str,
) -> None:
    response = httpx.get(server.url + path)

    assert response.status_code == 200
    assert server.log.records() == []

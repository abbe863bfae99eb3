"""Static routes: runtime, fixture, testbed and page copy, with fixed types and no escapes."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from pling_harness.server.runner import TutorialServer
from pling_harness.server.static import CACHE_FOR_A_RUN, NO_STORE

# The harness's own checkout: the project these tests check.
PROJECT_ROOT = Path(__file__).resolve().parents[1]

R15 = "r-15-confirmation-and-human-handoff"


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small project tree of our own, so these tests do not depend on pages in progress."""
    tmp_path = tmp_path_factory.mktemp("root")
    files = {
        f"fixtures/{R15}/index.html": "<!doctype html><title>r-15</title>",
        f"fixtures/{R15}/app.js": "export const page = 1;",
        f"fixtures/{R15}/styles.css": "body {}",
        f"fixtures/{R15}/parts/index.html": "<p>part</p>",
        # No runtime or testbed here: the server serves the package's own.
        f"tutorials/{R15}/copy/zh.json": '{"page.title": "工作区设置"}',
        "secret.txt": "outside the served folders",
    }
    for relative, text in files.items():
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    for name in ("tutorial.json", "model-rules.json"):
        shutil.copy(PROJECT_ROOT / "tutorials" / R15 / name, tmp_path / "tutorials" / R15 / name)
    return tmp_path


@pytest.fixture(scope="module")
def client(root: Path) -> Iterator[httpx.Client]:
    with (
        TutorialServer(tutorial="r-15", root=root, environ={}) as server,
        httpx.Client(base_url=server.url) as client,
    ):
        yield client


@pytest.mark.parametrize(
    ("path", "content_type", "text"),
    [
        ("/", "text/html", "<title>r-15</title>"),
        ("/index.html", "text/html", "<title>r-15</title>"),
        ("/app.js", "text/javascript", "export const page"),
        ("/styles.css", "text/css", "body"),
        ("/parts/", "text/html", "part"),
        ("/pling/index.js", "text/javascript", "registry.js"),
        ("/pling/locales/en.json", "application/json", "dock.send"),
        ("/testbed/", "text/html", "<title>pling testbed</title>"),
        ("/copy/zh.json", "application/json", "工作区设置"),
    ],
)
def test_static_route_existing_file_is_served_with_its_type(
    client: httpx.Client, path: str, content_type: str, text: str
) -> None:
    response = client.get(path)

    assert response.status_code == 200
    assert response.headers["content-type"].split(";")[0] == content_type
    assert response.headers["cache-control"] == CACHE_FOR_A_RUN
    assert text in response.text


@pytest.mark.parametrize("path", ["/testbed", "/parts"])
def test_static_directory_without_slash_redirects_to_slash(client: httpx.Client, path: str) -> None:
    response = client.get(path)

    assert response.status_code == 307
    assert response.headers["location"].endswith(path + "/")


@pytest.mark.parametrize(
    "path",
    ["/missing.js", "/pling/missing.js", "/copy/fr.json", "/testbed/missing.html",
     "/copy/..%2Fcopy%2Fzh.json"],
)
def test_static_route_missing_file_answers_404(client: httpx.Client, path: str) -> None:
    assert client.get(path).status_code == 404


@pytest.mark.parametrize(
    "raw_path",
    [b"/pling/..%2F..%2Fsecret.txt", b"/..%2Fsecret.txt", b"/testbed/..%2F..%2F..%2Fsecret.txt"],
)
def test_static_route_path_escaping_the_folder_answers_404(
    client: httpx.Client, raw_path: bytes
) -> None:
    url = client.base_url.copy_with(raw_path=raw_path)

    response = client.get(url)

    assert response.status_code == 404
    assert "outside" not in response.text


def test_static_route_symlink_out_of_the_folder_answers_404(
    root: Path, client: httpx.Client
) -> None:
    (root / "fixtures" / R15 / "leak.txt").symlink_to(root / "secret.txt")

    assert client.get("/leak.txt").status_code == 404


def test_static_route_project_root_serves_real_copy_files() -> None:
    """The copy route reads the tutorial folder of the real project (files others maintain)."""
    copy = PROJECT_ROOT / "tutorials" / R15 / "copy" / "en.json"
    if not copy.exists():
        pytest.skip("tutorials/r-15…/copy/en.json is not written yet")
    with (
        TutorialServer(tutorial="r-15", environ={}) as server,
        httpx.Client(base_url=server.url) as client,
    ):
        response = client.get("/copy/en.json")

    assert response.status_code == 200
    assert response.content == copy.read_bytes()


def test_static_files_are_not_kept_when_the_server_says_no_store(root: Path) -> None:
    with (
        TutorialServer(tutorial="r-15", root=root, environ={}, static_cache=NO_STORE) as server,
        httpx.Client(base_url=server.url) as client,
    ):
        assert client.get("/pling/index.js").headers["cache-control"] == NO_STORE


def test_static_missing_file_is_never_kept(client: httpx.Client) -> None:
    response = client.get("/pling/no-such-module.js")

    assert response.status_code == 404
    assert response.headers["cache-control"] == NO_STORE

"""Static files for the fixture server: fixed content types, no directory escapes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, PlainTextResponse, RedirectResponse, Response

# Module scripts must be served as JavaScript, whatever the host's mimetypes database says.
MEDIA_TYPES = {
    ".html": "text/html",
    ".js": "text/javascript",
    ".mjs": "text/javascript",
    ".json": "application/json",
    ".css": "text/css",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".md": "text/markdown",
    ".txt": "text/plain",
    ".woff2": "font/woff2",
}
INDEX_FILE = "index.html"
# Cache-Control of static files on the harness's servers: a run's files do not change while it
# runs, so the browser keeps them and a page reloads the runtime from its cache, without a
# request. An hour: longer than any run's use of one browser.
CACHE_FOR_A_RUN = "max-age=3600"
# `pling-tutorial dev`: you edit the files while they are served; the browser keeps nothing.
NO_STORE = "no-store"


def media_type(path: Path) -> str:
    return MEDIA_TYPES.get(path.suffix.lower(), "application/octet-stream")


def resolve_inside(base: Path, relative: str) -> Path | None:
    """`base/relative` if it is a file inside `base` (symlinks resolved), else None."""
    base = base.resolve()
    candidate = (base / relative).resolve()
    if not candidate.is_relative_to(base):
        return None
    if candidate.is_dir():
        candidate = candidate / INDEX_FILE
    return candidate if candidate.is_file() else None


def not_found() -> Response:
    return PlainTextResponse("Not Found", status_code=404)


# Rewrites an HTML page's text as it is served (the runtime's preloads, `harness.server.preload`).
HtmlRewrite = Callable[[str], str]


def file_response(base: Path, relative: str, *, cache_control: str = NO_STORE,
                  rewrite_html: HtmlRewrite | None = None) -> Response:
    found = resolve_inside(base, relative)
    if found is None:
        return not_found()
    headers = {"Cache-Control": cache_control}
    if rewrite_html is not None and found.suffix.lower() == ".html":
        html = rewrite_html(found.read_text(encoding="utf-8"))
        return Response(html, media_type=media_type(found), headers=headers)
    return FileResponse(found, media_type=media_type(found), headers=headers)


class StaticDirectory:
    """Serves one directory under a URL prefix; `path` is the route's `{path:path}` part."""

    def __init__(self, directory: Path, *, cache_control: str = NO_STORE,
                 rewrite_html: HtmlRewrite | None = None) -> None:
        self.directory = directory
        self.cache_control = cache_control
        self.rewrite_html = rewrite_html

    async def handle(self, request: Request) -> Response:
        relative: str = request.path_params.get("path", "")
        # A directory URL without its slash would break the page's relative imports.
        if relative and not relative.endswith("/"):
            target = (self.directory / relative)
            if target.is_dir() and target.resolve().is_relative_to(self.directory.resolve()):
                return RedirectResponse(request.url.path + "/", status_code=307)
        return file_response(self.directory, relative, cache_control=self.cache_control,
                             rewrite_html=self.rewrite_html)

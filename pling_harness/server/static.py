"""Static files for the fixture server: fixed content types, no directory escapes, and
nothing a page does not load (dotfiles, source maps)."""

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


# Never served, whatever is on disk: source maps show the code behind a build, and no page
# loads one (browsers fetch them only for an open developer tool).
REFUSED_SUFFIXES = (".map",)


def media_type(path: Path) -> str:
    return MEDIA_TYPES.get(path.suffix.lower(), "application/octet-stream")


def refusal_of(relative: str) -> str | None:
    """Why the path `relative` (below a served folder) is never served, or None.

    A control character (`/%00`) names no file; an empty segment (`//tmp`) would turn a
    redirect into a protocol-relative URL to another host; a segment starting with a dot
    is a dotfile or dot folder (`.env`, `.git/config`) or a climb out (`..`); a source map
    shows the code behind a build.
    """
    if any(ord(character) < 0x20 or ord(character) == 0x7F for character in relative):
        return "the path holds a control character"
    segments = relative.split("/")
    if "" in segments[:-1]:
        return "the path has an empty segment (//)"
    if any(segment.startswith(".") for segment in segments):
        return "dotfiles, dot folders and '..' are never served"
    if relative.lower().endswith(REFUSED_SUFFIXES):
        return "source maps are never served"
    return None


def resolve_inside(base: Path, relative: str) -> Path | None:
    """`base/relative` if it is a file inside `base` (symlinks resolved) that may be served
    (`refusal_of`), else None."""
    if refusal_of(relative) is not None:
        return None
    base = base.resolve()
    candidate = (base / relative).resolve()
    if not candidate.is_relative_to(base):
        return None
    if candidate.is_dir():
        candidate = candidate / INDEX_FILE
    return candidate if candidate.is_file() else None


def not_found() -> Response:
    return PlainTextResponse("Not Found", status_code=404)


# Rewrites an HTML page's text as it is served (the runtime's preloads,
# `pling_harness.server.preload`).
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


# Told about each refused request (the server logs it): the request, status and why.
OnRefused = Callable[[Request, int, str], None]


def _not_logged(request: Request, status: int, reason: str) -> None:
    """The default `OnRefused`: nobody to tell."""


class StaticDirectory:
    """Serves one directory under a URL prefix; `path` is the route's `{path:path}` part.
    A path `refusal_of` refuses is answered 404 and reported to `on_refused`."""

    def __init__(self, directory: Path, *, cache_control: str = NO_STORE,
                 rewrite_html: HtmlRewrite | None = None,
                 on_refused: OnRefused = _not_logged) -> None:
        self.directory = directory
        self.cache_control = cache_control
        self.rewrite_html = rewrite_html
        self.on_refused = on_refused

    async def handle(self, request: Request) -> Response:
        relative: str = request.path_params.get("path", "")
        refusal = refusal_of(relative)
        if refusal is not None:
            self.on_refused(request, 404, refusal)
            return not_found()
        # A directory URL without its slash would break the page's relative imports. (The
        # path has no empty segment, so the redirect cannot start with "//", another host.)
        if relative and not relative.endswith("/"):
            target = (self.directory / relative)
            if target.is_dir() and target.resolve().is_relative_to(self.directory.resolve()):
                return RedirectResponse(request.url.path + "/", status_code=307)
        return file_response(self.directory, relative, cache_control=self.cache_control,
                             rewrite_html=self.rewrite_html)

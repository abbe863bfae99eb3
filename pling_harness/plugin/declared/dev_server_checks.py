"""Generated check, once per locale for the table, that the server under check (a bundler's
dev server too: Vite's for the React page) exposes nothing another site can trigger
(docs/page-contract.md, "What your server must do"): its dev endpoints answer no request
another site's page sent, no foreign Host and no local program, and no request reads the
tutorial's backend.py from disk. Sent over HTTP, so it runs against the fixture server and,
with `--base-url`, against yours. (Vite's `/__open-in-editor` launched the developer's editor
for any site's `new Image().src`; its `/@fs/` served backend.py, with the publish code.)"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import httpx

from pling_harness.evidence.guarantees import GuaranteeViolation
from pling_harness.plugin.declared.context import DeclaredRun
from pling_harness.plugin.declared.foreign_checks import under_check
from pling_harness.project.action_table import FromBackend

GUARANTEE = "dev-server-refuses-other-sites"
# A file no editor can open: launch-editor returns before looking for an editor, so a server
# that wrongly answers still launches nothing while it is checked.
NO_SUCH_FILE = "/nonexistent/pling-check/file.txt"
DEV_ENDPOINTS = {
    "open-in-editor": f"/__open-in-editor?file={NO_SUCH_FILE}",
    "file-system": f"/@fs{NO_SUCH_FILE}",
    "module-by-id": "/@id/pling-check",
    "dev-client": "/@vite/client",
}
# What another site's page sends, as the browser sends it (a local program sends none).
SENDERS = {
    "image-on-another-site": {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors",
                              "Sec-Fetch-Dest": "image"},
    "page-on-another-local-port": {"Sec-Fetch-Site": "same-site", "Sec-Fetch-Mode": "no-cors",
                                   "Sec-Fetch-Dest": "image"},
    "navigation-from-another-site": {"Sec-Fetch-Site": "cross-site",
                                     "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document"},
    "fetch-with-a-foreign-origin": {"Origin": "http://evil.example"},
    "local-program": {},
    "foreign-host": {"Host": "evil.example"},
}
# Where a dev server serves a file from disk (as it is, as text, as a module).
FILE_READS = ("/@fs{path}", "/@fs{path}?raw", "/@fs{path}?import")
TIMEOUT_SECONDS = 15.0


def _refused(response: httpx.Response) -> bool:
    """Refused: a 4xx (a redirect could lead anywhere; a 2xx did what was asked)."""
    return 400 <= response.status_code < 500


def backend_markers(run: DeclaredRun, backend: Path) -> list[str]:
    """Text that shows backend.py was served: the secrets the table takes from it (a handoff
    step's `{"backend": NAME}`) and its longest line a bundler serves unescaped (no quote, no
    backslash: `?raw` serves the file as a JSON string)."""
    secrets = [run.step_value(step.value) for row in run.table.actions.values()
               if row.handoff is not None for step in row.handoff.steps
               if isinstance(step.value, FromBackend)]
    lines = [line.strip() for line in backend.read_text(encoding="utf-8").splitlines()
             if '"' not in line and "\\" not in line]
    return [*secrets, max(lines, key=len)]


def dev_server_refuses_other_sites(run: DeclaredRun) -> None:
    """Every sender but the page's own is refused at every dev endpoint, and no request (the
    page's own neither) reads backend.py from disk."""
    problems = []
    # The backend where the server under check was started (the root: a mutant's copy too).
    backend = (run.served.tutorial.directory(run.served.root) / "backend.py").resolve()
    # A page the run started is served by its own (dev) server, not the fixture server.
    server = under_check(run.served)
    own = urlsplit(server).netloc
    with httpx.Client(base_url=server, timeout=TIMEOUT_SECONDS) as client:
        for sender, headers in SENDERS.items():
            for name, path in DEV_ENDPOINTS.items():
                response = client.get(path, headers=headers)
                if not _refused(response):
                    problems.append(f"{name} ({path}) answered {response.status_code} to a "
                                    f"{sender.replace('-', ' ')}")
        markers = backend_markers(run, backend) if backend.is_file() else []
        for site in ("same-origin", "cross-site"):
            for read in FILE_READS:
                path = read.format(path=backend)
                text = client.get(path, headers={"Sec-Fetch-Site": site, "Host": own}).text
                if any(marker in text for marker in markers):
                    problems.append(f"{path} served the tutorial's backend.py to a "
                                    f"{site} request")
    if problems:
        raise GuaranteeViolation(GUARANTEE, f"the server at {server} must refuse its "
                                 "dev endpoints to other sites and never serve backend.py:\n  "
                                 + "\n  ".join(problems), run.timeline)

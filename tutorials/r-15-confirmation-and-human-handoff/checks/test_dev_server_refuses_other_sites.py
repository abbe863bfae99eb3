"""The server under check (a bundler's dev server too: Vite's for the React page) exposes
nothing another site can trigger (docs/page-contract.md, "What your server must do"): its
dev endpoints answer no request another site's page sent, no foreign Host and no local
program, and no request reads the tutorial's backend.py from disk. Sent over HTTP to the
server under check, so it runs against the fixture server and, with `--base-url`, against
yours. (Vite's `/__open-in-editor` launched the developer's editor for any site's
`new Image().src`; its `/@fs/` served backend.py, with the publish code.)"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
from workspace_state import PUBLISH_CODE

from pling_harness import Tutorial, TutorialServer

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
TIMEOUT_SECONDS = 15.0


def refused(response: httpx.Response) -> bool:
    """Refused: a 4xx (a redirect could lead anywhere; a 2xx did what was asked)."""
    return 400 <= response.status_code < 500


@pytest.mark.guarantee(GUARANTEE)
@pytest.mark.parametrize("sender", SENDERS)
def test_dev_endpoints_answer_no_request_but_the_pages_own(
    tutorial_server: TutorialServer, sender: str,
) -> None:
    problems = []
    with httpx.Client(base_url=tutorial_server.url, timeout=TIMEOUT_SECONDS) as client:
        for name, path in DEV_ENDPOINTS.items():
            response = client.get(path, headers=SENDERS[sender])
            if not refused(response):
                problems.append(f"{name} ({path}) answered {response.status_code}")
    assert not problems, (f"the server at {tutorial_server.url} must refuse its dev endpoints "
                          f"to a {sender.replace('-', ' ')}:\n  " + "\n  ".join(problems))


@pytest.mark.guarantee(GUARANTEE)
@pytest.mark.parametrize("site", ["same-origin", "cross-site"])
def test_no_request_reads_the_tutorials_backend_from_disk(
    tutorial_server: TutorialServer, tutorial: Tutorial, tutorial_root: Path, site: str,
) -> None:
    # The page's own request too: what a dev server may read is the page's folders only.
    # The backend where the server under check was started (the root: a mutant's copy too).
    backend = str((tutorial.directory(tutorial_root) / "backend.py").resolve())
    own = urlsplit(tutorial_server.url).netloc
    headers = {"Sec-Fetch-Site": site, "Host": own}
    paths = [f"/@fs{backend}", f"/@fs{backend}?raw", f"/@fs{backend}?import"]
    with httpx.Client(base_url=tutorial_server.url, timeout=TIMEOUT_SECONDS) as client:
        served = [path for path in paths
                  if PUBLISH_CODE in client.get(path, headers=headers).text]
    assert not served, (f"the server at {tutorial_server.url} served the tutorial's backend.py "
                        f"(its publish code) at {served}")

"""Replay CopilotKit's fixed bugs that r-15's checks do not catch yet (bugs.py says why)
against the r-15 CopilotKit page: each on its last buggy release (the bug must show) and its
first fixed one (it must not), in Chromium. A developer's reproduction, not a check: it
needs this checkout's page, its kept locks and its v1 overlay (fixtures/r-15-copilotkit/
replay/), and what it finds is "reproduced", never "caught", so it is not behind
`pling-tutorial releases` (whose verdicts come from check reports only) and not in the wheel.

    .venv/bin/python scripts/copilotkit_replay/replay.py            # every bug
    .venv/bin/python scripts/copilotkit_replay/replay.py CK-2310    # one

A release is installed on first use (fixtures/.r-15-copilotkit-<version>/, a few minutes and
about 600 MB each); its lock is kept in fixtures/r-15-copilotkit/replay/. Exit 0 when every
bug showed on its buggy release and not on its fixed one.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bugs import BUGS, Bug
from pages import served
from playwright.sync_api import sync_playwright

from pling_harness.browser.chromium import find_chromium


def reproduce(bug: Bug, version: str, keep: Path | None = None) -> str | None:
    """What the bug did on `version`, or None when the page kept its promise; with `keep`
    (a folder), the page server's output and what was seen are kept there."""
    chromium = find_chromium()
    with served(version, bug.variant) as page_server, sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(chromium.executable_path) if chromium.executable_path else None)
        seen: str | None = None
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            # The first load after an install waits for Vite to bundle the dependencies.
            page.goto(f"{page_server.url}/?lang=en", timeout=180_000)
            page.wait_for_selector("html[data-pling-ready=true]", timeout=90_000)
            seen = bug.reproduce(page, page_server)
            return seen
        finally:
            browser.close()
            if keep is not None:
                keep.mkdir(parents=True, exist_ok=True)
                (keep / "page-server.log").write_text("\n".join(page_server.vite.output))
                (keep / "seen.txt").write_text(f"{version}: {seen or '(absent, or no end)'}\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bugs", nargs="*", help="bug keys (default: all): "
                        + ", ".join(bug.key for bug in BUGS))
    args = parser.parse_args(argv)
    unknown = set(args.bugs) - {bug.key for bug in BUGS}
    if unknown:
        parser.error(f"unknown bug {sorted(unknown)}; known: {[bug.key for bug in BUGS]}")
    chosen = [bug for bug in BUGS if not args.bugs or bug.key in args.bugs]
    rows, failed = [], False
    for bug in chosen:
        for version, must_show in ((bug.last_buggy, True), (bug.first_fixed, False)):
            seen = reproduce(bug, version)
            as_expected = (seen is not None) == must_show
            failed |= not as_expected
            rows.append((bug.key, version, "shows" if seen else "absent",
                         "ok" if as_expected else "UNEXPECTED", seen or ""))
            print(f"{bug.key} @ {version}: {'shows' if seen else 'absent'}"
                  f"{' (unexpected)' if not as_expected else ''} {seen or ''}", flush=True)
    print("\n| bug | release | bug | expected | what the page did |")
    print("|---|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

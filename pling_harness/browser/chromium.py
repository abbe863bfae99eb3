"""Find a Chromium that Playwright can drive: Playwright's own if installed, else the system one."""

from __future__ import annotations

import argparse
import shutil
import sys
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

# Chromium must not phone home: the network here is closed and every attempt costs time.
QUIET_NETWORK_ARGS = (
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
)

SYSTEM_CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
# Chromium's headless shell: what Playwright itself runs for headless tests. It opens a
# context and page in a third of the full browser's time, so a headless run prefers it.
SYSTEM_HEADLESS_SHELL_NAMES = ("chromium-headless-shell",)

NO_CHROMIUM_HELP = (
    "No usable Chromium found. Install one with "
    "'python -m playwright install chromium' or, on Debian/Ubuntu, "
    "'sudo apt-get install -y chromium' (scripts/bootstrap does this for you)."
)


class ChromiumNotFound(RuntimeError):
    """Neither Playwright's Chromium nor a system Chromium is installed."""


@dataclass(frozen=True, kw_only=True)
class ChromiumChoice:
    """Which Chromium to launch; `executable_path` is None for Playwright's own."""

    source: str
    executable_path: Path | None

    def describe(self) -> str:
        if self.executable_path is None:
            return f"{self.source} Chromium"
        return f"{self.source} Chromium at {self.executable_path}"


def playwright_chromium_path() -> Path:
    """The path where Playwright expects its own Chromium build (it may not exist).

    Asked in a thread of its own: Playwright's sync API refuses to start in a thread that
    already drives it (a pytest session's `playwright` fixture, say), and a browser server
    started from such a session needs the answer too.
    """
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(_ask_playwright_for_its_chromium).result()


def _ask_playwright_for_its_chromium() -> Path:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        return Path(playwright.chromium.executable_path)


def system_chromium_path(*, headless: bool = False) -> Path | None:
    """The system's Chromium; for a headless launch its headless shell when installed."""
    names = (SYSTEM_HEADLESS_SHELL_NAMES if headless else ()) + SYSTEM_CHROMIUM_NAMES
    for name in names:
        found = shutil.which(name)
        if found:
            return Path(found)
    return None


def find_chromium(*, playwright_path: Path | None = None, headless: bool = True) -> ChromiumChoice:
    """Prefer Playwright's own Chromium, fall back to the system's, else raise with the fix.

    Playwright's own picks its headless shell for a headless launch by itself; for the
    system's, `headless` chooses `chromium-headless-shell` over the full browser when both
    are installed (Debian ships them as two packages).
    """
    own = playwright_path if playwright_path is not None else playwright_chromium_path()
    if own.exists():
        return ChromiumChoice(source="Playwright's", executable_path=None)
    system = system_chromium_path(headless=headless)
    if system is not None:
        return ChromiumChoice(source="system", executable_path=system)
    raise ChromiumNotFound(NO_CHROMIUM_HELP)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Report which Chromium the harness will use.")
    parser.add_argument("--quiet", action="store_true",
                        help="print nothing, only set the exit code")
    args = parser.parse_args(argv)
    try:
        choice = find_chromium()
    except ChromiumNotFound as error:
        if not args.quiet:
            print(error, file=sys.stderr)
        return 1
    if not args.quiet:
        print(f"Using {choice.describe()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The pling plugin's options (the tutorial and locales they choose are read in
tutorial_choice.py).

`--pling-shard` and `--pling-connect` are declared by their own modules (shards.py,
remote.py); `pling_root` reads and checks `--pling-root` for the fixtures and the hooks.
The mutation runner's own options are in a plugin only it loads (harness/mutation/
run_plugin.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.plugin import remote, shards
from harness.plugin.tutorial_choice import LOCALE_OPTION, TUTORIAL_OPTION
from harness.project.paths import FIXTURES_DIR_NAME, PROJECT_ROOT, TUTORIALS_DIR_NAME


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("pling", "pling tutorial checks")
    group.addoption(
        "--pling-root", metavar="DIR", default=None,
        help="folder whose fixtures/ and tutorials/ the tutorial server serves "
             "(default: the project root)",
    )
    group.addoption(
        TUTORIAL_OPTION, metavar="ID", default=None,
        help="the tutorial (id or short id) the checks run against; `pling-tutorial check "
             "<tutorial>` passes it on (default: the one whose checks folder holds the test, "
             "else the only tutorial under --pling-root)",
    )
    group.addoption(
        LOCALE_OPTION, metavar="LOCALE", default=None,
        help="run the checks in this locale only, one of the tutorial's `locales` "
             "(default: every locale it offers)",
    )
    group.addoption(
        "--pling-guarantee", metavar="NAME", action="append", default=None,
        help="run only the checks marked with this guarantee (repeatable); "
             "`pling-tutorial check <tutorial>` passes it on",
    )
    group.addoption(
        "--pling-fresh-pages", action="store_true", default=False,
        help="a new browser context and page for every test, as pytest-playwright does by "
             "default (slower); otherwise one warm page per worker serves the checks, each "
             "from a new document on emptied storage (harness/browser/warm.py)",
    )
    group.addoption(
        "--pling-report", metavar="PATH", default=None,
        help="write a JSON report: each test's locale, guarantees, outcome and failure",
    )
    group.addoption(
        "--pling-html", metavar="DIR", default=None,
        help="write DIR/index.html: the guarantee table, each check (a failure with its "
             "timeline and Playwright trace) and a gallery of the dock and page states in "
             "each locale. Turns on --tracing=retain-on-failure and --output=DIR/traces "
             "unless given",
    )
    shards.addoption(group)  # --pling-shard K/N (harness/plugin/shards.py)
    remote.addoption(group)  # --pling-connect WS_URL (harness/plugin/remote.py)


def pling_root(config: pytest.Config) -> Path:
    """The --pling-root folder, checked to hold fixtures/ and tutorials/."""
    option = config.getoption("--pling-root")
    root = Path(option).resolve() if option else PROJECT_ROOT
    missing = [name for name in (FIXTURES_DIR_NAME, TUTORIALS_DIR_NAME)
               if not (root / name).is_dir()]
    if missing:
        raise pytest.UsageError(
            f"--pling-root {root} has no {' or '.join(n + '/' for n in missing)} folder; "
            "point it at the project root or a copy of it")
    return root

"""A page the check starts itself (`pling-tutorial check <tutorial> --page NAME`): a row of
the pages table (pling_harness/project/page_rows.py), served over the run's OWN fixture
server.

The row reaches the run in its choices (`RunChoices.launch`). When the worker's shared
fixture server (`pling_harness.server.host.ServerHost`) first starts, the row's command is
started once (`PageProcess`) on a free `{port}`, with `{api_origin}` the host's address and
`{model_url}` its scripted model on OpenAI's wire; each check's fixture server, seated on
that host, opens the tutorial's page at the started page's origin instead of its own. So the
page's API calls (through its server's proxy, carrying the check's seat header) and its
server's model calls reach the check's own server: the checks that need its internals
(gateway faults, run failures, isolation) run, none is n/a "external". The page is stopped,
its whole process group, when the session ends.

A page that does not start ends the run with one line (its command, how it ended, its last
lines) and exit code 2.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pling_harness.plugin import choices
from pling_harness.plugin.report import not_applicable
from pling_harness.project.page_rows import PageRow, placeholder_values
from pling_harness.server.host import ServerHost
from pling_harness.server.page_process import PageProcess, PageStartError, free_port

# A page that does not start: the run's exit code (a usage error, as argparse's).
EXIT_PAGE_DID_NOT_START = 2
_PAGES_KEY = pytest.StashKey[dict[str, PageProcess]]()
_STOPPED_EARLY_KEY = pytest.StashKey[str]()


def launch_row(config: pytest.Config) -> PageRow | None:
    """The row the run starts, if any."""
    settled = choices.of_run(config)
    return settled.launch.value if settled is not None and settled.launch is not None else None


def configure(config: pytest.Config) -> None:
    """One started page per run: its checks run one after another (`-n` above 1 refused:
    two workers would build one page folder at once)."""
    row = launch_row(config)
    if row is None:
        return
    workers = getattr(config.option, "numprocesses", None)
    if workers not in (None, 0, 1, "0", "1"):
        raise pytest.UsageError(
            f"--page {row.name}: the run starts that page once and checks it one check after "
            f"another; drop -n {workers} (or use -n 0)")


def page_origin(config: pytest.Config, host: ServerHost, root: Path) -> str | None:
    """Where checks seated on `host` open the page: the started row's origin (started now,
    once per host), or None when the run starts no page."""
    row = launch_row(config)
    if row is None:
        return None
    started = config.stash.setdefault(_PAGES_KEY, {})
    if host.url not in started:
        process = PageProcess(row, root=root,
                              values=placeholder_values(port=free_port(), api_origin=host.url))
        try:
            process.start()
        except PageStartError as error:
            pytest.exit(f"pling: {error}", returncode=EXIT_PAGE_DID_NOT_START)
        started[host.url] = process
    return started[host.url].origin


def stop_pages(config: pytest.Config) -> None:
    """Stop every page the run started (each whole process group); one that had already
    exited is kept as `stopped_early` (the report's `page_stopped`)."""
    for process in config.stash.get(_PAGES_KEY, {}).values():
        if not process.running and _STOPPED_EARLY_KEY not in config.stash:
            last = " | ".join(line.strip() for line in list(process.output)[-3:] if line.strip())
            config.stash[_STOPPED_EARLY_KEY] = (
                f"page {process.row.name} exited before the run ended; its last lines: "
                f"{last or '(none)'}")
        process.stop()
    config.stash[_PAGES_KEY] = {}


def stopped_early(config: pytest.Config) -> str | None:
    """How a page the run started ended before the run stopped it, if it did: the checks
    after that judged no page."""
    return config.stash.get(_STOPPED_EARLY_KEY, None)


def second_server_is_not_applicable(config: pytest.Config) -> None:
    """A check with a second fixture server at once (not seated on the host): the started
    page proxies to the host only, so that server's page cannot be the row's. n/a."""
    row = launch_row(config)
    if row is not None:
        pytest.skip(not_applicable(
            f"page {row.name}", "the check starts a second fixture server while one is "
            "seated; the started page reaches only the seated one"))


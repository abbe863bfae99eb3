"""`pling-tutorial dev`: serve a tutorial's page until Ctrl-C: its own page from the fixture
server (`--page ours`, the default), or any row of its pages table (`--page NAME`: the
tutorial's `pages` in tutorial.json, or `pages` in [tool.pling]), whose command is started
with the fixture server behind it (`{api_origin}`, `{model_url}`) on `--port`
(pling_harness/project/page_rows.py, docs/adding-a-page.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pling_harness.cli.usage import (
    PROGRAM,
    SubParsers,
    UsageError,
    add_root_option,
    offered_locale,
    port_number,
    tutorial_root,
    wait_for_ctrl_c,
)
from pling_harness.project.page_rows import PageRow, PageRowError, placeholder_values
from pling_harness.project.pages_table import OURS, page_row, pages_table
from pling_harness.project.tutorials import Tutorial, load_tutorial
from pling_harness.server.page_process import PageProcess, PageStartError, free_port
from pling_harness.server.runner import TutorialServer
from pling_harness.server.static import NO_STORE

# What a dev server's log keeps: the latest records, without bodies (nobody reads it).
DEV_LOG_RECORDS = 200


def run_dev(args: argparse.Namespace) -> int:
    root = tutorial_root(args)
    tutorial = load_tutorial(args.tutorial, root)
    locale = offered_locale(tutorial, args.locale or tutorial.default_locale)
    port = tutorial.port if args.port is None else args.port
    try:
        row = page_row(tutorial, root, args.page)
    except PageRowError as error:
        raise UsageError(str(error)) from None
    if args.model_url is not None and not row.uses("model_url"):
        calling = [name for name, other in pages_table(tutorial, root).items()
                   if other.uses("model_url")]
        raise UsageError(f"--model-url is for --page {' or '.join(calling) or 'NAME'}, "
                         "whose own server calls the model (`{model_url}` in its row); "
                         f"--page {row.name} calls the fixture server's gateway")
    if not row.served_by_fixture_server:
        return run_dev_row(tutorial, row, root=root, locale=locale, port=port,
                           model_base_url=args.model_url)
    # No caching: you edit the files while they are served. Nothing reads this server's log
    # and it is never reset: it keeps a few records, not what was sent.
    server = TutorialServer(tutorial=tutorial, port=port, static_cache=NO_STORE, root=root,
                            retain=DEV_LOG_RECORDS)
    with server:
        # The prints are inside the try: a Ctrl-C that comes as soon as the address is out
        # (a script reads it and stops the server) still ends in a clean stop.
        try:
            print(f"Serving {tutorial.short_id} ({tutorial.title[locale]}) at "
                  f"{server.page_url(locale)}", flush=True)
            print("Press Ctrl-C to stop.", flush=True)
            wait_for_ctrl_c()
        except KeyboardInterrupt:
            print("Stopped.", flush=True)
    return 0


def run_dev_row(tutorial: Tutorial, row: PageRow, *, root: Path, locale: str, port: int,
                model_base_url: str | None = None) -> int:
    """The row's command, the fixture server (on a free port) behind it as `{api_origin}`
    and, unless `model_base_url` names another, its scripted model as `{model_url}`; until
    Ctrl-C (0), or until the command exits on its own (1). A page that does not start is
    one line, exit 2."""
    # The API server is the page's backend only; the browser never talks to it directly.
    server = TutorialServer(tutorial=tutorial, port=0, static_cache=NO_STORE, root=root,
                            retain=DEV_LOG_RECORDS)
    with server:
        values = placeholder_values(port=port or free_port(), api_origin=server.url)
        if model_base_url is not None:
            values["model_url"] = model_base_url
        page = PageProcess(row, root=root, values=values)
        try:
            page.start()
        except PageStartError as error:
            raise UsageError(str(error)) from None
        try:
            print(f"Serving {tutorial.short_id} ({tutorial.title[locale]}) at "
                  f"{tutorial.page_url(page.origin, locale)} (page {row.name}: "
                  f"{' '.join(page.command)}; API {server.url}; model "
                  f"{values['model_url']})", flush=True)
            print("Press Ctrl-C to stop.", flush=True)
            # From here on the page's own messages (its guard's refusals among them).
            page.echo = lambda line: print(line, end="", flush=True)
            wait_for_ctrl_c(while_running=lambda: page.running)
            print(f"{PROGRAM}: error: page {row.name}'s command exited on its own",
                  file=sys.stderr)
            return 1
        except KeyboardInterrupt:
            print("Stopped.", flush=True)
            return 0
        finally:
            page.stop()


def add_dev_command(subparsers: SubParsers) -> None:
    parser = subparsers.add_parser(
        "dev", help="serve a tutorial page on 127.0.0.1 until Ctrl-C",
        description="Serve a tutorial's page, runtime and model gateway on 127.0.0.1.",
    )
    parser.add_argument("tutorial", help="tutorial id or short id (pling-tutorial list shows them)")
    parser.add_argument("--locale", help="page language (default: the tutorial's default)")
    parser.add_argument("--port", type=port_number,
                        help="port to listen on, the row's {port} (default: the tutorial's "
                        "port; 0 = any free)")
    parser.add_argument("--page", metavar="NAME", default=OURS,
                        help="which page of the tutorial's pages table: ours (its own page, "
                        "served by the fixture server; default), or a row's name (`pages` in "
                        "its tutorial.json or [tool.pling]; an unknown name lists them), whose "
                        "command is started with this fixture server behind it")
    parser.add_argument("--model-url", metavar="URL",
                        help="for a page whose own server calls the model: the "
                        "OpenAI-compatible base URL given to it as {model_url} (default: "
                        "this fixture server's scripted model, <server>/v1), e.g. a "
                        "`pling-tutorial model-server` or the port a `check --model-port` "
                        "hosts")
    add_root_option(parser)
    parser.set_defaults(handler=run_dev)

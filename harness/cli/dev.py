"""`pling-tutorial dev`: serve a tutorial's page with its fixture server, or the React page
under Vite (--page react, react-build), until Ctrl-C."""

from __future__ import annotations

import argparse
import sys

from harness.cli.react_page import (
    REACT_MODES,
    ReactMode,
    ViteServer,
    react_directory,
)
from harness.cli.usage import (
    PROGRAM,
    SubParsers,
    add_root_option,
    offered_locale,
    port_number,
    tutorial_root,
    wait_for_ctrl_c,
)
from harness.project.tutorials import Tutorial, load_tutorial
from harness.server.runner import TutorialServer
from harness.server.static import NO_STORE


def run_dev(args: argparse.Namespace) -> int:
    root = tutorial_root(args)
    tutorial = load_tutorial(args.tutorial, root)
    locale = offered_locale(tutorial, args.locale or tutorial.default_locale)
    port = tutorial.port if args.port is None else args.port
    if args.page != "ours":
        return run_dev_react(tutorial, mode=args.page, locale=locale, port=port)
    # No caching: you edit the files while they are served.
    server = TutorialServer(tutorial=tutorial, port=port, static_cache=NO_STORE, root=root)
    with server:
        # The prints are inside the try: a Ctrl-C that comes as soon as the address is out
        # (a script reads it and stops the server) still ends in a clean stop.
        try:
            print(f"Serving {tutorial.short_id} ({tutorial.title.en}) at "
                  f"{server.page_url(locale)}", flush=True)
            print("Press Ctrl-C to stop.", flush=True)
            wait_for_ctrl_c()
        except KeyboardInterrupt:
            print("Stopped.", flush=True)
    return 0


def run_dev_react(tutorial: Tutorial, *, mode: ReactMode, locale: str, port: int) -> int:
    """The tutorial's React page under Vite, the fixture server (on a free port) behind it."""
    directory = react_directory(tutorial)
    # The API server is Vite's backend only; the browser never talks to it directly.
    server = TutorialServer(tutorial=tutorial, port=0, static_cache=NO_STORE)
    with server:
        vite = ViteServer(directory=directory, mode=mode, api_origin=server.url, port=port)
        try:
            with vite:
                what = "production build" if mode == "react-build" else "dev server"
                print(f"Serving {tutorial.short_id} ({tutorial.title.en}) at "
                      f"{tutorial.page_url(vite.url, locale)} (React page, Vite {what}; "
                      f"API {server.url})", flush=True)
                print("Press Ctrl-C to stop.", flush=True)
                wait_for_ctrl_c(while_running=lambda: vite.running)
                print(f"{PROGRAM}: error: Vite exited on its own", file=sys.stderr)
                return 1
        except KeyboardInterrupt:
            print("Stopped.", flush=True)
    return 0


def add_dev_command(subparsers: SubParsers) -> None:
    parser = subparsers.add_parser(
        "dev", help="serve a tutorial page on 127.0.0.1 until Ctrl-C",
        description="Serve a tutorial's page, runtime and model gateway on 127.0.0.1.",
    )
    parser.add_argument("tutorial", help="tutorial id or short id (pling-tutorial list shows them)")
    parser.add_argument("--locale", help="page language (default: the tutorial's default)")
    parser.add_argument("--port", type=port_number,
                        help="port to listen on (default: the tutorial's port; 0 = any free)")
    parser.add_argument("--page", choices=("ours", *REACT_MODES), default="ours",
                        help="which page: ours (no-build ES modules, default), react (the "
                        "React page under Vite's dev server) or react-build (Vite's production "
                        "build of it, served by vite preview); the React page's API is this "
                        "fixture server's, behind Vite's proxy")
    add_root_option(parser)
    parser.set_defaults(handler=run_dev)

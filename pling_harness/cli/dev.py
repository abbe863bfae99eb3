"""`pling-tutorial dev`: serve a tutorial's page with its fixture server, the React page
under Vite (--page react, react-build), or a page whose assistant is built on another
framework (--page ai-sdk: the Vercel AI SDK; --page copilotkit: CopilotKit), until Ctrl-C."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pling_harness.cli.ai_sdk_page import AI_SDK_PAGE, ai_sdk_directory, ai_sdk_vite, model_url
from pling_harness.cli.copilotkit_page import copilotkit_vite
from pling_harness.cli.react_page import (
    PAGE_NAME,
    REACT_MODES,
    ReactMode,
    ViteServer,
    react_directory,
)
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
from pling_harness.project.tutorials import Tutorial, load_tutorial
from pling_harness.server.runner import TutorialServer
from pling_harness.server.static import NO_STORE

# What a dev server's log keeps: the latest records, without bodies (nobody reads it).
DEV_LOG_RECORDS = 200
# The pages whose own server calls the model by base URL (--model-url, PLING_OPENAI_BASE_URL).
COPILOTKIT_PAGES = ("copilotkit", "copilotkit-build")
MODEL_CALLING_PAGES = (AI_SDK_PAGE, *COPILOTKIT_PAGES)


def run_dev(args: argparse.Namespace) -> int:
    root = tutorial_root(args)
    tutorial = load_tutorial(args.tutorial, root)
    locale = offered_locale(tutorial, args.locale or tutorial.default_locale)
    port = tutorial.port if args.port is None else args.port
    if args.model_url is not None and args.page not in MODEL_CALLING_PAGES:
        raise UsageError(f"--model-url is for --page {' or '.join(MODEL_CALLING_PAGES)}, whose "
                         "own server calls the model; the other pages call the fixture "
                         "server's gateway")
    if args.page == AI_SDK_PAGE:
        return run_dev_ai_sdk(tutorial, root=root, locale=locale, port=port,
                              model_base_url=args.model_url)
    if args.page != "ours":
        return run_dev_react(tutorial, mode=args.page, locale=locale, port=port, root=root,
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


def run_dev_react(tutorial: Tutorial, *, mode: ReactMode, locale: str, port: int,
                  root: Path, model_base_url: str | None = None) -> int:
    """The tutorial's React page (or CopilotKit page) under Vite, the fixture server (on a
    free port) behind it. CopilotKit's runtime, inside Vite, calls the model at
    `model_base_url`, else at the fixture server's scripted model on OpenAI's wire."""
    directory = react_directory(tutorial, root, mode)
    # The API server is Vite's backend only; the browser never talks to it directly.
    server = TutorialServer(tutorial=tutorial, port=0, static_cache=NO_STORE, root=root,
                            retain=DEV_LOG_RECORDS)
    with server:
        what = {"react-build": "production build", "copilotkit-build": "development build"
                }.get(mode, "dev server")
        what = f"{PAGE_NAME[mode]} page, Vite {what}; API {server.url}"
        if mode in COPILOTKIT_PAGES:
            model = model_base_url or model_url(server.url)
            what += f"; model {model}"
            vite = copilotkit_vite(directory, api_origin=server.url, model_base_url=model,
                                   port=port, mode=mode)
        else:
            vite = ViteServer(directory=directory, mode=mode, api_origin=server.url, port=port)
        return serve_under_vite(tutorial, vite, locale=locale, what=what)


def run_dev_ai_sdk(tutorial: Tutorial, *, root: Path, locale: str, port: int,
                   model_base_url: str | None) -> int:
    """The tutorial's AI SDK page under Vite; the fixture server (on a free port) behind it
    for the business API and, unless `model_base_url` names another, the model."""
    directory = ai_sdk_directory(tutorial, root)
    server = TutorialServer(tutorial=tutorial, port=0, static_cache=NO_STORE, root=root,
                            retain=DEV_LOG_RECORDS)
    with server:
        model = model_base_url or model_url(server.url)
        vite = ai_sdk_vite(directory, api_origin=server.url, model_base_url=model, port=port)
        return serve_under_vite(tutorial, vite, locale=locale, what=(
            f"AI SDK page, Vite dev server; API {server.url}; model {model}"))


def serve_under_vite(tutorial: Tutorial, vite: ViteServer, *, locale: str, what: str) -> int:
    """Start Vite, print the page's address (and `what` serves it), wait for Ctrl-C: 0; or
    for Vite to exit on its own: 1."""
    try:
        with vite:
            print(f"Serving {tutorial.short_id} ({tutorial.title[locale]}) at "
                  f"{tutorial.page_url(vite.url, locale)} ({what})", flush=True)
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
    parser.add_argument("--page", choices=("ours", *REACT_MODES, AI_SDK_PAGE), default="ours",
                        help="which page: ours (no-build ES modules, default), react (the "
                        "React page under Vite's dev server), react-build (Vite's production "
                        "build of it, served by vite preview), copilotkit (the page whose "
                        "assistant is CopilotKit, its runtime inside Vite's dev server), "
                        "copilotkit-build (its development build, bundled: StrictMode kept, "
                        "loads faster; served by vite preview with the runtime) or "
                        "ai-sdk (the page whose "
                        "assistant is built on the Vercel AI SDK, under Vite's dev server); "
                        "their API is this fixture server's, behind Vite's proxy")
    parser.add_argument("--model-url", metavar="URL",
                        help="--page ai-sdk or copilotkit: the OpenAI-compatible base URL "
                        "its server calls "
                        "the model at (default: this fixture server's scripted model, "
                        "<server>/v1), e.g. a `pling-tutorial model-server` or the port a "
                        "`check --model-port` hosts")
    add_root_option(parser)
    parser.set_defaults(handler=run_dev)

"""`pling-tutorial model-server <tutorial>`: the tutorial's scripted model on OpenAI's wire,
on a port of its own, until Ctrl-C.

For a page served elsewhere whose own server calls the model (the AI SDK page's
`streamText`, CopilotKit's runtime): start it, then start the page's server with its
OpenAI-compatible base URL set to the printed one. It answers by the tutorial's rules file
alone, as `dev` does; a check run that must script the model and read what it received
hosts the same server itself (see docs/architecture.md, "The model on OpenAI's wire").
"""

from __future__ import annotations

import argparse

from pling_harness.cli.usage import (
    SubParsers,
    add_root_option,
    port_number,
    tutorial_root,
    wait_for_ctrl_c,
)
from pling_harness.project.business_state import BusinessState
from pling_harness.project.tutorials import load_tutorial
from pling_harness.server.log import ServerLog
from pling_harness.server.model.scripted import ScriptedModel
from pling_harness.server.model_server import ModelServer


def run_model_server(args: argparse.Namespace) -> int:
    root = tutorial_root(args)
    tutorial = load_tutorial(args.tutorial, root)
    model = ScriptedModel.from_file(tutorial.model_rules_path(root))
    with ModelServer(port=args.port) as server:
        # The page's business state is its own server's: this one records none.
        server.serve(provider=model, log=ServerLog(), read_state=BusinessState)
        try:
            print(f"Serving {tutorial.short_id}'s scripted model on OpenAI's wire at "
                  f"{server.base_url} (POST /chat/completions, GET /models)", flush=True)
            print("Press Ctrl-C to stop.", flush=True)
            wait_for_ctrl_c()
        except KeyboardInterrupt:
            print("Stopped.", flush=True)
    return 0


def add_model_server_command(subparsers: SubParsers) -> None:
    parser = subparsers.add_parser(
        "model-server", help="serve a tutorial's scripted model on OpenAI's wire until Ctrl-C",
        description="Serve the tutorial's scripted model as an OpenAI-compatible "
        "POST /v1/chat/completions on 127.0.0.1, for a page whose own server calls the model.")
    parser.add_argument("tutorial", help="tutorial id or short id (pling-tutorial list shows them)")
    parser.add_argument("--port", type=port_number, default=0,
                        help="port to listen on (default: any free one; the address is printed)")
    add_root_option(parser)
    parser.set_defaults(handler=run_model_server)

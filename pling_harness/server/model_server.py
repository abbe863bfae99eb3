"""ModelServer: the scripted model on OpenAI's wire, alone on a port of its own.

A page served elsewhere whose own server calls the model (the AI SDK page's `streamText`)
is started with its OpenAI-compatible base URL pointing here (`http://127.0.0.1:PORT/v1`).
Whoever runs the model server steers it and reads it in-process: `pling-tutorial
model-server` serves one tutorial's model until Ctrl-C; a check run against that page
(`check --base-url URL --model-port PORT`) hosts it itself and seats each check's own model
and log (`serve`), so its checks script the model and read what it received exactly as they
do with the in-browser model route. Between checks nothing is seated: a request then gets
503, never another check's model.
"""

from __future__ import annotations

from collections.abc import Callable
from types import TracebackType
from typing import Self

from starlette.applications import Starlette

from pling_harness.project.business_state import BusinessState
from pling_harness.server.chat_completions import ChatCompletions, ModelSeat
from pling_harness.server.log import ServerLog
from pling_harness.server.model.openai_wire import OPENAI_BASE_PATH
from pling_harness.server.model.provider import ModelProvider
from pling_harness.server.runner import ServerShutdown, ServerStartError, ServerThread


class ModelServer:
    """uvicorn on `host:port` (0: any free port) answering `/v1/chat/completions` with the
    seated model. `.base_url` is what a page's OpenAI-compatible provider is given."""

    def __init__(self, *, host: str = "127.0.0.1", port: int = 0) -> None:
        self.host = host
        self.requested_port = port
        self._endpoint = ChatCompletions()
        self._serving: ServerThread | None = None

    @property
    def port(self) -> int:
        if self._serving is None:
            raise RuntimeError("the model server has no port yet; call start() first")
        return self._serving.port

    @property
    def base_url(self) -> str:
        """`http://host:port/v1`: the OpenAI base URL (the client appends `/chat/completions`)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}{OPENAI_BASE_PATH}"

    def serve(self, *, provider: ModelProvider, log: ServerLog,
              read_state: Callable[[], BusinessState]) -> None:
        """Answer with `provider` and record in `log` from now on (until `vacate`)."""
        self._endpoint.seat = ModelSeat(provider=provider, log=log, read_state=read_state)

    def vacate(self) -> None:
        """Answer 503 from now on: the check whose model was seated is over."""
        self._endpoint.seat = None

    def start(self) -> Self:
        if self._serving is not None:
            raise RuntimeError("the model server is already started")
        app = Starlette(routes=self._endpoint.routes())
        self._serving = ServerThread(app, host=self.host, port=self.requested_port,
                                     name="pling-model")
        if not self._serving.started:
            self.stop()
            raise ServerStartError(f"the model server did not start on {self.host}:"
                                   f"{self.requested_port}")
        return self

    def stop(self) -> None:
        serving, self._serving = self._serving, None
        shutdown = serving.begin_stop() if serving is not None else ServerShutdown(None, None)
        shutdown.wait()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.stop()

"""`--pling-model-port PORT` (with `--base-url`): the checks' scripted model on OpenAI's wire,
for a page whose own server calls the model (the AI SDK page's `streamText`).

The page's server was started with its model's base URL at `http://127.0.0.1:PORT/v1`
(`pling-tutorial dev r-15 --page ai-sdk --model-url …`). The run hosts a `ModelServer` on
that port from its first check to its end, and seats each check's own model and log on it
(`tutorial_server.model`, `.log`: what `model`, `timeline` and the guarantees read) for that
check only: between checks it answers 503, so a late request of one check never reaches the
next one's model. Without the option nothing here does anything.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pling_harness.plugin.options import MODEL_PORT_OPTION
from pling_harness.server.external import ExternalTarget
from pling_harness.server.model_server import ModelServer
from pling_harness.server.runner import PortInUse

OPTION = MODEL_PORT_OPTION
_SERVER_KEY = pytest.StashKey[ModelServer]()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("pling").addoption(
        OPTION, metavar="PORT", type=int, default=None,
        help="with --base-url: serve each check's scripted model on OpenAI's wire at "
             "http://127.0.0.1:PORT/v1, the base URL the page's own server calls its model at")


def pytest_configure(config: pytest.Config) -> None:
    port = config.getoption(OPTION)
    if port is None:
        return
    if not config.getoption("base_url", None):
        raise pytest.UsageError(f"{OPTION} {port}: the model port is for a page served "
                                "elsewhere; give its address with --base-url URL too")
    if not 0 < port < 65536:
        raise pytest.UsageError(f"{OPTION} must be a port number (1..65535). Current input: "
                                f"{port}")


def pytest_unconfigure(config: pytest.Config) -> None:
    server = config.stash.get(_SERVER_KEY, None)
    if server is not None:
        server.stop()


def model_server(config: pytest.Config) -> ModelServer:
    """The run's model server, started on the first check that needs it."""
    if _SERVER_KEY not in config.stash:
        server = ModelServer(port=config.getoption(OPTION))
        try:
            server.start()
        except PortInUse as error:
            raise pytest.UsageError(f"{OPTION}: {error}") from None
        config.stash[_SERVER_KEY] = server
    return config.stash[_SERVER_KEY]


@pytest.fixture(autouse=True)
def _pling_model_port(request: pytest.FixtureRequest) -> Iterator[None]:
    """Seat the check's model on the run's model server while the check runs."""
    # The same checks external mode gives a target: those that serve or open the tutorial.
    serves = {"tutorial_server", "page"} & set(request.fixturenames)
    if request.config.getoption(OPTION) is None or not serves:
        yield
        return
    target = request.getfixturevalue("tutorial_server")
    if not isinstance(target, ExternalTarget):
        yield
        return
    server = model_server(request.config)
    server.serve(provider=target.model, log=target.log, read_state=target.state.snapshot)
    try:
        yield
    finally:
        server.vacate()

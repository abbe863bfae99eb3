"""ExternalTarget: a tutorial page served elsewhere (`--base-url URL`), in place of a fixture
server.

It offers what the checks use of a `TutorialServer` (`url`, `page_url`, `tutorial`, `root`,
`state`, `testbed`, `model`, `log`), built only from what the tutorial declares
(`pling_harness.project.contract`) and what every page must serve:

- `state` reads the declared state request (e.g. `GET /api/orders`), resets with the
  declared reset request and checks the answer is the declared initial state, and brings
  the state to a value a check starts from with the declared presets (business requests,
  sent by the harness before the page opens);
- `testbed` reads the calls of the harness's testbed page when the target serves it (its
  calls so far are the baseline: the handle shows only those made after it);
- `model` is a fresh `ScriptedModel` from the tutorial's rules file; the browser's model
  route (`pling_harness.browser.model_route`) answers the page's model endpoint with it and logs
  each exchange in `log`, so the target's own gateway is never used.

States are validated as the declared state (`pling_harness.project.business_state`: the fields
of `api.initial_state`, each of its value's JSON type), which compares equal to the fixture
server's state with the same fields; any other field the target answers is left out.
Every problem is a `TargetError` whose message names the URL and the answer.
"""

from __future__ import annotations

import functools
import ssl
from pathlib import Path
from typing import Any

import httpx
from pydantic import ValidationError

from pling_harness.project.business_state import BusinessState, declared_state_model
from pling_harness.project.contract import ApiRequest
from pling_harness.project.root import current_project_root
from pling_harness.project.tutorials import Tutorial
from pling_harness.server.log import ServerLog
from pling_harness.server.model.scripted import ScriptedModel
from pling_harness.server.testbed_calls import TestbedCall

# The fixture server's testbed (`pling_harness/web/testbed/`), where a target serves it too.
TESTBED_PAGE_PATH = "/testbed/"
TESTBED_CALLS_PATH = "/api/testbed/calls"
# A local dev server answers in milliseconds; a staging server may take a while.
REQUEST_TIMEOUT_SECONDS = 15.0
# How much of an unexpected answer a message quotes.
QUOTED_CHARS = 200


@functools.cache
def tls_context() -> ssl.SSLContext:
    """One TLS context for every client of the process: httpx builds a new one for each
    client it makes (loading the CA bundle: 0.3-0.6 s on a loaded machine), and the
    harness makes one per check, mostly for a local http:// target that never uses it."""
    return httpx.create_ssl_context()


class TargetError(Exception):
    """The target did not answer as its tutorial declares; the message says where and how."""


def quoted(response: httpx.Response) -> str:
    text = " ".join(response.text.split())
    return text if len(text) <= QUOTED_CHARS else text[:QUOTED_CHARS - 1] + "…"


def send(client: httpx.Client, request: ApiRequest) -> httpx.Response:
    """Send a declared request; a failure to connect is a TargetError naming the URL."""
    url = f"{client.base_url}{request.path.lstrip('/')}"
    try:
        if request.body is None:
            return client.request(request.method, request.path)
        return client.request(request.method, request.path, json=request.body)
    except httpx.HTTPError as error:
        raise TargetError(f"{request.method} {url}: no answer ({error})") from error


def answered_ok(client: httpx.Client, request: ApiRequest, *, what: str) -> httpx.Response:
    response = send(client, request)
    if not response.is_success:
        raise TargetError(f"{what}: {request.method} {response.request.url} answered "
                          f"{response.status_code}: {quoted(response)}")
    return response


def json_of(response: httpx.Response, *, what: str) -> Any:
    try:
        return response.json()
    except ValueError:
        kind = response.headers.get("content-type", "no content type")
        raise TargetError(f"{what}: {response.request.method} {response.request.url} "
                          f"answered {kind}, not JSON: {quoted(response)}") from None


class ExternalState:
    """The target's business state, through the requests its tutorial declares."""

    def __init__(self, *, client: httpx.Client, tutorial: Tutorial) -> None:
        api = tutorial.api
        if api.state is None or api.reset is None or api.initial_state is None:
            raise TargetError(
                f"tutorial {tutorial.short_id} declares no api.state, api.reset and "
                "api.initial_state in its tutorial.json; external mode needs all three")
        self._client = client
        self._read, self._reset, self._initial = api.state, api.reset, api.initial_state
        self._presets = api.presets
        self._model = declared_state_model(api.initial_state)

    def read(self) -> Any:
        """The state request's JSON answer, as the target sent it."""
        response = answered_ok(self._client, self._read, what="the state request")
        return json_of(response, what="the state request")

    def snapshot(self) -> BusinessState:
        data = self.read()
        if isinstance(data, dict):
            # The checks compare the declared fields; a real server's state may carry more
            # (ids, timestamps) that no guarantee is about.
            data = {field: value for field, value in data.items() if field in self._initial}
        try:
            return self._model.model_validate(data)
        except ValidationError as error:
            raise TargetError(
                f"the state request {self._read.method} {self._client.base_url}"
                f"{self._read.path.lstrip('/')} answered {data!r:.{QUOTED_CHARS}}, not the "
                f"state the checks compare ({error.errors()[0]['msg']})") from None

    def reset(self) -> BusinessState:
        """Run the reset request; the state it leaves must be the declared initial state."""
        answered_ok(self._client, self._reset, what="the reset request")
        state = self.snapshot()
        if state.fields() != self._initial:
            raise TargetError(
                f"after the reset request {self._reset.method} {self._client.base_url}"
                f"{self._reset.path.lstrip('/')} the state is {state.fields()}, not the "
                f"declared initial state {self._initial}")
        return state

    def replace(self, snapshot: BusinessState) -> BusinessState:
        """Reset, then send the declared presets that bring each changed field to its value
        (in their declared order); the state must then be `snapshot`."""
        self.reset()
        wanted = {field: value for field, value in snapshot.fields().items()
                  if self._initial.get(field) != value}
        for preset in self._presets:
            if preset.field in wanted and preset.sets(wanted[preset.field]):
                request = preset.request_for(wanted.pop(preset.field))
                answered_ok(self._client, request, what=f"the preset for {preset.field}")
        state = self.snapshot()
        # A preset may set more than its own field (a refund also sets the amount refunded).
        wanted = {field: value for field, value in wanted.items()
                  if state.fields().get(field) != value}
        if wanted:
            raise TargetError(f"no preset in tutorial.json sets {wanted}; add one to "
                              "api.presets or run this check against the fixture server")
        if state != snapshot:
            raise TargetError(f"after the presets the state at {self._client.base_url} is "
                              f"{state.fields()}, not {snapshot.fields()}")
        return state


class ExternalTestbed:
    """Calls made from the testbed page, read from the target's `GET /api/testbed/calls`;
    only those after the baseline taken when this handle was made."""

    def __init__(self, *, client: httpx.Client) -> None:
        self._client = client
        self._baseline = len(self._all())

    def _all(self) -> list[TestbedCall]:
        request = ApiRequest(method="GET", path=TESTBED_CALLS_PATH)
        data = json_of(answered_ok(self._client, request, what="the testbed's calls"),
                       what="the testbed's calls")
        calls = data.get("calls") if isinstance(data, dict) else None
        try:
            return [TestbedCall.model_validate(call) for call in calls or []]
        except ValidationError as error:
            raise TargetError(f"{self._client.base_url}{TESTBED_CALLS_PATH.lstrip('/')} "
                              f"answered calls that are not testbed calls: {error}") from None

    def calls(self, action: str | None = None) -> list[TestbedCall]:
        return [call for call in self._all()[self._baseline:]
                if action is None or call.action == action]

    def clear(self) -> None:
        self._baseline = len(self._all())


class ExternalTarget:
    """One test's view of the target at `base_url`: reset on `start()`, closed on `close()`."""

    def __init__(self, *, tutorial: Tutorial, base_url: str, root: Path | None = None,
                 serves_testbed: bool = False) -> None:
        self.tutorial = tutorial
        self.root = root if root is not None else current_project_root()
        self.url = base_url.rstrip("/")
        self.serves_testbed = serves_testbed
        self.log = ServerLog()
        """The model route's exchanges (the target's own log is not ours to read)."""
        self.model = ScriptedModel.from_file(tutorial.model_rules_path(self.root),
                                             locales=tutorial.locales)
        self._client = httpx.Client(base_url=self.url + "/", timeout=REQUEST_TIMEOUT_SECONDS,
                                    verify=tls_context())
        self.state = ExternalState(client=self._client, tutorial=tutorial)
        self._testbed: ExternalTestbed | None = None

    @property
    def testbed(self) -> ExternalTestbed:
        if self._testbed is None:
            raise TargetError(f"{self.url} serves no testbed page at {TESTBED_PAGE_PATH}")
        return self._testbed

    def page_url(self, locale: str | None = None) -> str:
        return self.tutorial.page_url(self.url, locale)

    def start(self) -> ExternalTarget:
        """Reset the target's state (and take the testbed's baseline): each test starts from
        the declared initial state."""
        self.state.reset()
        if self.serves_testbed:
            self._testbed = ExternalTestbed(client=self._client)
        return self

    def close(self) -> None:
        self._client.close()

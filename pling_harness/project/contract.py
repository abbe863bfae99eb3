"""What a tutorial's page and server offer the harness, declared in `tutorial.json`.

Three keys, read by the fixture server, the in-page probe, the guarantees and external mode
alike (`pling-tutorial check <tutorial> --base-url URL`), so nothing about one tutorial's page is
written into generic harness code:

- `page`: when the page counts as ready, and its *business view*, the values the probe
  reports with every request (e.g. an order's status region's `data-state` and the shown
  customer name);
- `api`: the model endpoint, which request paths are business requests, and the business
  API that external mode drives (the state request, the reset request run before every
  test, the initial state, and presets that bring the state to a value a check starts from);
- `published`: when a handoff counts as really done (`success-only-after-published`).

All models forbid unknown keys; see docs/page-contract.md, "External pages".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

HttpMethod = Literal["GET", "POST", "PUT", "PATCH", "DELETE"]
# Paths only: the origin is the page's own (the fixture server's, or --base-url).
ApiPath = Annotated[str, Field(pattern=r"^/[^\s?#]*$", max_length=200)]
TestId = Annotated[str, Field(pattern=r"^[A-Za-z0-9_.:-]+$", max_length=100)]
AttributeName = Annotated[str, Field(pattern=r"^[a-z][a-z0-9_.:-]*$", max_length=100)]
ViewName = Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]*$", max_length=40)]
JsonScalar = str | bool | int | float | None
# In a preset's body, a string equal to this is replaced by the value being set.
VALUE_PLACEHOLDER = "{value}"
READ_ONLY_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
# The reference runtime's default gateway (`mountAgent({gatewayUrl})`).
DEFAULT_MODEL_PATH = "/api/model"


class Declared(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ApiRequest(Declared):
    """One request to the page's own server: method, path and, for a change, a JSON body
    (sent as `application/json`; `{}` for a change without fields)."""

    method: HttpMethod
    path: ApiPath
    body: dict[str, Any] | None = None

    def describe(self) -> str:
        return f"{self.method} {self.path}"


class ShownValue(Declared):
    """One value of the business view: an attribute of the element with this `data-testid`,
    or its trimmed text when no attribute is given. Absent element: null."""

    testid: TestId
    attribute: AttributeName | None = None


class ReadyCondition(Declared):
    """The page is ready once the element with `testid` has a non-empty `attribute` (set it
    only once the server's state is on the page)."""

    testid: TestId
    attribute: AttributeName


class PageDeclaration(Declared):
    """What the harness reads on the page besides the dock."""

    ready: ReadyCondition | None = None
    business_view: dict[ViewName, ShownValue] = Field(default_factory=dict)
    """Name → where the page shows it; reported with every request and change."""


class Preset(Declared):
    """How to bring one field of the state to a value: `request` sets `field` to `value`
    (or, without `value`, to any value, given by `{value}` in its body)."""

    field: ViewName
    value: JsonScalar = None
    request: ApiRequest

    @property
    def any_value(self) -> bool:
        return "value" not in self.model_fields_set

    def sets(self, value: JsonScalar) -> bool:
        return self.any_value or self.value == value

    def request_for(self, value: JsonScalar) -> ApiRequest:
        """The request with `{value}` in its body replaced by `value`."""
        if self.request.body is None:
            return self.request
        body = {key: value if item == VALUE_PLACEHOLDER else item
                for key, item in self.request.body.items()}
        return self.request.model_copy(update={"body": body})


class ApiDeclaration(Declared):
    """The page's server, as far as the harness uses it."""

    model: ApiPath = DEFAULT_MODEL_PATH
    """The model endpoint the page posts to (the gateway; routed in external mode)."""
    business_prefixes: tuple[ApiPath, ...] = ("/api/",)
    """A request that is not a read (GET, HEAD, OPTIONS), not to the model endpoint, and
    whose path starts with one of these is a business request."""
    state: ApiRequest | None = None
    """Reads the business state as JSON (external mode reads it before and after)."""
    reset: ApiRequest | None = None
    """Brings the state back to `initial_state` (external mode: before every test)."""
    initial_state: dict[str, JsonScalar] | None = None
    presets: tuple[Preset, ...] = ()
    """Requests that set one field each, tried in this order (external mode: a check that
    starts from a changed state)."""

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        if self.state is not None and self.state.method != "GET":
            raise ValueError(f"state must be a GET request; got {self.state.describe()}")
        if self.reset is not None and self.reset.method in READ_ONLY_METHODS:
            raise ValueError(f"reset must change state (not {self.reset.method}); got "
                             f"{self.reset.describe()}")
        if (self.reset is None) != (self.initial_state is None):
            raise ValueError("reset and initial_state go together: the harness checks that "
                             "the reset brought the state back to initial_state")
        if self.presets and (self.state is None or self.initial_state is None):
            raise ValueError("presets need state, reset and initial_state")
        unknown = [p.field for p in self.presets
                   if self.initial_state is not None and p.field not in self.initial_state]
        if unknown:
            raise ValueError(f"presets set {unknown}, which initial_state does not have "
                             f"(its fields: {sorted(self.initial_state or {})})")
        return self

    def is_model(self, path: str) -> bool:
        return path.split("?", 1)[0] == self.model

    def is_business(self, method: str, path: str) -> bool:
        """A request that can change business state (see `business_prefixes`)."""
        if method.upper() in READ_ONLY_METHODS:
            return False
        bare = path.split("?", 1)[0]
        return not self.is_model(bare) and bare.startswith(self.business_prefixes)


class PublishedRule(Declared):
    """When a handoff's success may reach the model: after `request` was answered with
    success, with the server's state then matching `state` and the page showing `view`."""

    request: ApiRequest
    state: dict[str, JsonScalar] = Field(min_length=1)
    view: dict[ViewName, str] = Field(default_factory=dict)

    def state_matches(self, state: Mapping[str, Any]) -> bool:
        return all(state.get(key) == value for key, value in self.state.items())

    def view_matches(self, view: Mapping[str, str | None]) -> bool:
        return all(view.get(key) == value for key, value in self.view.items())


class PageContract(Declared):
    """The three declarations together, as the evidence layer takes them."""

    page: PageDeclaration = Field(default_factory=PageDeclaration)
    api: ApiDeclaration = Field(default_factory=ApiDeclaration)
    published: PublishedRule | None = None

    @model_validator(mode="after")
    def _published_reads_declared_things(self) -> Self:
        if self.published is None:
            return self
        unknown_view = sorted(set(self.published.view) - set(self.page.business_view))
        if unknown_view:
            raise ValueError(f"published.view names {unknown_view}, which page.business_view "
                             f"does not declare (it has {sorted(self.page.business_view)})")
        initial = self.api.initial_state
        unknown_state = sorted(set(self.published.state) - set(initial or {}))
        if initial is not None and unknown_state:
            raise ValueError(f"published.state names {unknown_state}, which "
                             f"api.initial_state does not have")
        return self

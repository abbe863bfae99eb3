"""The in-page probe's wire format: what `page_probe.js` reports, as strict pydantic models."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

PROBE_SCRIPT = Path(__file__).with_name("page_probe.js")
# Must match BINDING_NAME in page_probe.js.
BINDING_NAME = "__plingProbeReport"
# Reads the current document's log; the binding may still have entries in flight.
READ_CURRENT_LOG = "() => window.__plingProbe ? window.__plingProbe.entries : []"

# data-* attributes of an element, as the probe copied them.
DataAttributes = dict[str, str | None]


class ProbeModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class BusinessView(ProbeModel):
    """The page's business state as shown: `workspace-status` attributes and the shown name."""

    status: str | None
    archived: str | None
    name: str | None


class Box(ProbeModel):
    x: float
    y: float
    width: float
    height: float


class RequestData(ProbeModel):
    id: int
    via: Literal["fetch", "xhr", "beacon"]
    method: str
    path: str
    body: str | None
    state: BusinessView
    ui: list[DataAttributes]
    """The watched UI on screen when the request left (testid plus data-* attributes)."""


class ResponseData(ProbeModel):
    id: int
    status: int | None
    error: str | None = None


class AppearData(ProbeModel):
    testid: str
    attributes: DataAttributes
    buttons: list[str] | None = None
    box: Box | None = None


class DisappearData(ProbeModel):
    testid: str
    attributes: DataAttributes


class WriteData(ProbeModel):
    via: str
    target: str | None
    testid: str | None
    value: str | None


class ClickData(ProbeModel):
    testid: str | None
    decision: str | None
    target: str | None
    trusted: bool


class InputData(ProbeModel):
    target: str | None
    testid: str | None
    trusted: bool


class RuntimeData(ProbeModel):
    detail: Any


class _Entry(ProbeModel):
    doc: str
    seq: int


class RequestEvent(_Entry):
    kind: Literal["request"]
    data: RequestData


class ResponseEvent(_Entry):
    kind: Literal["response"]
    data: ResponseData


class AppearEvent(_Entry):
    kind: Literal["appear"]
    data: AppearData


class DisappearEvent(_Entry):
    kind: Literal["disappear"]
    data: DisappearData


class StateEvent(_Entry):
    kind: Literal["state"]
    data: BusinessView


class WriteEvent(_Entry):
    kind: Literal["write"]
    data: WriteData


class ClickEvent(_Entry):
    kind: Literal["click"]
    data: ClickData


class InputEvent(_Entry):
    kind: Literal["input"]
    data: InputData


class RuntimeEvent(_Entry):
    kind: Literal["runtime"]
    data: RuntimeData


PageEvent = Annotated[
    RequestEvent | ResponseEvent | AppearEvent | DisappearEvent | StateEvent | WriteEvent
    | ClickEvent | InputEvent | RuntimeEvent,
    Field(discriminator="kind"),
]
PAGE_EVENT = TypeAdapter[PageEvent](PageEvent)


def parse_page_event(raw: object) -> PageEvent:
    """Validate one entry from the probe; raises pydantic.ValidationError if it is malformed."""
    return PAGE_EVENT.validate_python(raw)


def is_business_path(method: str, path: str) -> bool:
    """A request that can change business state: a non-GET call to the API other than the model."""
    if method.upper() in ("GET", "HEAD", "OPTIONS"):
        return False
    path = path.split("?", 1)[0]
    return path.startswith("/api/") and not path.startswith("/api/model")


def is_model_path(path: str) -> bool:
    return path.split("?", 1)[0] == "/api/model"

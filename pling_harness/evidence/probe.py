"""The in-page probe's wire format: what `page_probe.js` reports, as strict pydantic models."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from pling_harness.browser.driver import DOCK_PARTS_SCRIPT
from pling_harness.project.contract import ShownValue
from pling_harness.project.dock_driver import DriverSpec

PROBE_SCRIPT = Path(__file__).with_name("page_probe.js")
# Must match BINDING_NAME in page_probe.js.
BINDING_NAME = "__plingProbeReport"
# Reads the current document's log from an index on (`read`: per document, how many of its
# entries earlier reads returned), so a sync carries only what is new; the binding may
# still have entries in flight. Null before the probe runs.
READ_CURRENT_LOG = """read => {
  const probe = window.__plingProbe;
  if (!probe) return null;
  const from = read[probe.docId] ?? 0;
  return { doc: probe.docId, entries: probe.entries.slice(from) };
}"""

class ProbeModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# The page's business view as shown: each name the tutorial declares (`page.business_view`)
# with its value on the page (None: the element is absent or lacks the attribute).
BusinessView = dict[str, str | None]


class Box(ProbeModel):
    x: float
    y: float
    width: float
    height: float


# The parts of the assistant the probe watches, as the tutorial's dock driver names them.
WatchedPart = Literal["approval", "handoff", "highlight"]


class ShownPart(ProbeModel):
    """One approval card, handoff panel or highlight as the driver reads it: its action
    (card, panel), the card's policy and whether it offers "always allow" (None: the driver
    cannot tell), the highlight's target."""

    part: WatchedPart
    action: str | None = None
    policy: str | None = None
    always: bool | None = None
    target: str | None = None


class RequestData(ProbeModel):
    id: int
    via: Literal["fetch", "xhr", "beacon"]
    method: str
    path: str
    body: str | None
    state: BusinessView
    ui: list[ShownPart]
    """The watched parts on screen when the request left."""


class ResponseData(ProbeModel):
    id: int
    status: int | None
    error: str | None = None


class AppearData(ShownPart):
    box: Box | None = None
    """Where a highlight appeared."""


class DisappearData(ShownPart):
    pass


class WriteData(ProbeModel):
    via: str
    target: str | None
    testid: str | None
    value: str | None


class ClickData(ProbeModel):
    control: str | None
    """Which of the driver's controls was clicked ("allow", "deny", "done", "send", ...)."""
    decision: str | None
    """The decision the clicked element carries (by the driver's `approval.decision`)."""
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


def probe_script(business_view: Mapping[str, ShownValue], driver: DriverSpec) -> str:
    """The init script: the probe, told which business view to report and what the dock
    driver names (see page_probe.js), with the driver's in-page reader before it; one
    function scope, so the page gets no new global besides the probe's own."""
    config = {"businessView": {name: shown.model_dump() for name, shown in business_view.items()},
              "driver": driver.for_the_page()}
    return (f"window.__plingProbeConfig = {json.dumps(config)};\n(() => {{\n"
            + DOCK_PARTS_SCRIPT + "\n" + PROBE_SCRIPT.read_text(encoding="utf-8") + "\n})();\n")

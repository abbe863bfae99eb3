"""Dock drivers: where a page's assistant shows what the harness reads and drives.

Every check and every guarantee reads and drives the assistant through one driver: the
approval card (which action, the description, each argument value as shown, the decision
controls), the handoff panel (reason, steps, the current step and its target, timer, done,
cancel), the conversation's messages with their outcome codes, the busy marker and "new
conversation". A driver is a JSON file validated by `DriverSpec`: CSS selectors for the
parts and `Reading`s for the values, so the in-page probe watches exactly what the Python
side reads (a Python driver could not tell the probe, which runs in the page, what to
watch). Selectors match in the document and in every open shadow root.

The page contract's test ids are the default driver (`page-contract.driver.json`, next to
this module), so a page that follows docs/page-contract.md needs no driver of its own. A
tutorial names another in its `tutorial.json` (`"driver": "drivers/<name>.json"`), and
`pling-tutorial check --driver` picks one for a page served elsewhere.

A part the assistant does not have is declared absent with the reason (`{"absent":
"..."}`): a check that needs it is reported `n/a (<driver>: <part>: <why>)`, never a pass.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Annotated, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, model_validator

from pling_harness.project.contract import ApiPath
from pling_harness.project.datafile import load_json_model

DEFAULT_DRIVER_PATH = Path(__file__).with_name("page-contract.driver.json")
# Where a tutorial keeps its drivers: `--driver NAME` means tutorials/<id>/drivers/NAME.json.
DRIVERS_DIR_NAME = "drivers"
DRIVER_SUFFIX = ".json"

Css = Annotated[str, Field(min_length=1, max_length=400)]
DriverName = Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9-]*$", max_length=60)]
AttributeName = Annotated[str, Field(pattern=r"^[a-zA-Z_:][a-zA-Z0-9_.:-]*$", max_length=100)]
Role = Literal["user", "assistant", "notice", "error"]
ROLES: tuple[Role, ...] = ("user", "assistant", "notice", "error")
Part = TypeVar("Part")


class DriverError(Exception):
    """A driver file is missing or invalid, or names what the run cannot use."""


class NotObservable(Exception):
    """A check needs a part its driver declares absent: it is `n/a`, with the reason."""

    def __init__(self, driver: str, part: str, why: str) -> None:
        super().__init__(driver, part, why)
        self.driver = driver
        self.part = part
        self.why = why

    @property
    def reason(self) -> str:
        """`<driver>: <part>: <why>`, what the n/a says between its brackets."""
        return f"{self.driver}: {self.part}: {self.why}"

    def __str__(self) -> str:
        return f"n/a ({self.reason})"


class DriverPart(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Absent(DriverPart):
    """A part this assistant does not have, and why: the n/a of every check that needs it."""

    absent: str = Field(min_length=1, max_length=300)


class Reading(DriverPart):
    """A value the page shows: the element's `attribute`, or its trimmed text without one;
    of the element itself, or of its first descendant matching `inside`. `values` translates
    what the page shows into what the harness means (`"output-denied"` →
    `"PERMISSION_DENIED"`); a value it does not list is read as it is."""

    attribute: AttributeName | None = None
    inside: Css | None = None
    values: dict[str, str] = Field(default_factory=dict)

    def shown_as(self, meaning: str) -> list[str]:
        """Every value the page may show for `meaning` (the inverse of `values`)."""
        shown = [raw for raw, meant in self.values.items() if meant == meaning]
        return shown + ([meaning] if meaning not in self.values else [])


# A value fixed for every element of its kind ("notice"), or read from each (`Reading`).
Value = str | Reading


class DockParts(DriverPart):
    """The assistant as a whole: where the user types and sends, and whether it is busy."""

    root: Css
    input: Css
    send: Css
    busy: Css | Absent
    """In the DOM exactly while a turn runs (visible or not: a card waiting keeps it)."""
    new_conversation: Css | Absent


class MessageKind(DriverPart):
    """One kind of conversation message: elements matching `element`, their role (fixed or
    read) and the outcome code they report (a notice's PERMISSION_DENIED, an error's
    MODEL_UNAVAILABLE), if any. The messages are every kind's elements, in page order."""

    element: Css
    role: Role | Reading
    code: Value | None = None


class ApprovalParts(DriverPart):
    """The approval card of one call waiting for the user's decision. `card` must match a
    card only while it waits: once decided it is removed, hidden or no longer matches."""

    card: Css
    action: Reading
    policy: Reading | Absent
    """`ask` or `ask-always` (SPEC §2), as the card says it."""
    description: Css | Absent
    arguments: Css | Absent
    value: Css | Absent
    """One string argument's value, in `arguments`, exactly in its visible form."""
    hidden_marker: Css | Absent
    """Follows a value that holds hidden characters (docs/page-contract.md)."""
    allow: Css
    always: Css | Absent
    deny: Css
    decision: Reading | Absent
    """The attribute any element inside the card carries to decide it when clicked (the
    page contract's delegated decision attribute), which page script could forge."""
    one_at_a_time: Literal[True] | Absent = True
    """The calls of one reply are asked and run one after another, each card shown once the
    call before it has its result (SPEC §3); absent for a framework that asks every approval
    of a step at once and runs the approved calls together."""
    shown: Css | None = None
    """Every approval card as the user sees it, waiting or answered, where `card` matches
    only a waiting one (None: `card` is every card shown, a decided one being removed).
    A card shown with no enabled `allow` or `deny` and no `outcome` is a dead card."""
    outcome: Css | None = None
    """Inside a `shown` card, what tells the call's outcome once it is answered."""


class HandoffParts(DriverPart):
    """The panel of a step only the human may do."""

    panel: Css
    action: Reading
    reason: Css | Absent
    step: Css | Absent
    current_step: Css | Absent
    """What the current step matches besides `step` (e.g. `[aria-current='step']`)."""
    step_target: Reading | Absent
    timer: Css | Absent
    done: Css | Absent
    cancel: Css | Absent
    next: Css | Absent
    back: Css | Absent


class HighlightParts(DriverPart):
    """The overlay over the current step's target, and the mark on the target itself."""

    overlay: Css
    target: Reading
    marked: Css | Absent


class RunningClock(DriverPart):
    """The framework's own flow waits on a timer, so the page's clock must keep running."""

    running: str = Field(min_length=1, max_length=300)
    """Which timer, where: the reason a person reads in the driver and the docs."""


class PageHooks(DriverPart):
    """Functions the page puts on `window` (each returns a promise settled once React has
    committed) that re-render the component holding the assistant's tool registrations, or
    unmount and mount it again. The harness only triggers them; what it proves afterwards it
    reads from the model's requests, the DOM and the business requests, never the page."""

    rerender: str = Field(pattern=r"^[A-Za-z_$][A-Za-z0-9_$]*$", max_length=100)
    remount: str = Field(pattern=r"^[A-Za-z_$][A-Za-z0-9_$]*$", max_length=100)


NO_PAGE_HOOKS = Absent(absent="this driver names no page hook to re-render or remount the "
                       "component that registers the assistant's tools")


class DecisionWire(DriverPart):
    """How the user's decisions leave the page: in the framework's own chat request to one of
    the driver's assistant endpoints, where page script (or a client that resends them)
    could repeat one. `format` names the framework's body, which the harness knows how to
    read (`pling_harness.browser.repeated_decision`)."""

    endpoint: ApiPath
    format: Literal["ai-sdk-ui-messages"]
    """`ai-sdk-ui-messages`: the Vercel AI SDK's chat body (`{messages: UIMessage[]}`), a
    decision being a tool part's `approval` answer in `approval-responded`."""


NO_DECISION_WIRE = Absent(absent="the page decides each card itself (the executor in the "
                          "browser): no request carries a decision that could be repeated")


class TargetKind(DriverPart):
    """Elements the human acts on in a handoff (a code field, a Publish button), by id."""

    element: Css
    id: Value


class DriverSpec(DriverPart):
    """A driver file: every part the harness knows, named with selectors or said absent."""

    name: DriverName
    about: str = Field(min_length=1, max_length=600)
    """What page or framework this driver reads, for a person."""
    dock: DockParts
    messages: tuple[MessageKind, ...] = Field(min_length=1)
    approval: ApprovalParts
    handoff: HandoffParts | Absent
    highlight: HighlightParts | Absent
    targets: tuple[TargetKind, ...] | Absent
    assistant_endpoints: tuple[ApiPath, ...] = ()
    """Paths the assistant sends its conversation to on the page's own server (a
    framework's chat route, e.g. the AI SDK's `/api/chat`): the assistant's transport, never
    counted as business requests. What such a request causes at the server (an approved
    tool run there) is judged by the business state, which the harness reads itself."""

    framework_tools: tuple[Annotated[str, Field(min_length=1, max_length=64)], ...] = ()
    """Tools the framework itself offers the model beside the page's actions (CopilotKit's
    BuiltInAgent: `AGUISendStateSnapshot`, `AGUISendStateDelta`). The projection check
    leaves out one offer of each; a page action's own tools are still counted exactly."""
    tools_run_in_browser: bool = False
    """With assistant endpoints: the page's tools still run in the browser (CopilotKit's
    frontend and human-in-the-loop tools), so their business requests pass through it and a
    check can hold them; false (the AI SDK): the page's server runs an approved call."""
    blank_arguments_refused: Literal[True] | Absent = True
    """An empty or blank arguments text is INVALID_PARAMS, never read as `{}` (the page
    contract, "Argument schemas"); absent for a framework that reads it as `{}` before any
    page code sees the call (the AI SDK's tool-call parser): a blank call to an action that
    takes no arguments is then a call with none, and checks hold it to that."""
    provider_fault_codes: Literal[True] | Absent = True
    """A provider's failure reaches the user as an error reporting the fault's own code
    (MODEL_UNAVAILABLE, MODEL_TIMEOUT, MODEL_BAD_REPLY) and saying what it means; absent for
    a framework that tells the page only that the run failed: its error must then say, in
    the page's language, that the assistant could not answer."""
    repeated_call_id_refused: Literal[True] | Absent = True
    """A second call under an id already used in the same reply is refused INVALID_PARAMS,
    naming the id, while the first runs (the page contract's agent loop); absent for a
    framework that keys calls by id and merges the two before any page code sees them (the
    AI SDK's tool parts): the check of that promise is then n/a."""
    page_hooks: PageHooks | Absent = NO_PAGE_HOOKS
    decision_wire: DecisionWire | Absent = NO_DECISION_WIRE
    clock: Literal["paused"] | RunningClock = "paused"
    """The harness pauses the page's clock once it is ready, so no timer fires unless a check
    moves time (docs/page-contract.md, "No timers in the runtime's flow"). A framework whose
    own flow waits on a timer (CopilotKit's `setTimeout(0)` before each follow-up run) would
    stop there: its driver says `{"running": "<which timer>"}`, and the clock, installed at
    the same instant, keeps running; checks still move it with `fast_forward`."""

    @model_validator(mode="after")
    def _decisions_sent_to_an_assistant_endpoint(self) -> DriverSpec:
        if not isinstance(self.decision_wire, Absent) \
                and self.decision_wire.endpoint not in self.assistant_endpoints:
            raise ValueError(f"decision_wire.endpoint must be one of assistant_endpoints "
                             f"{list(self.assistant_endpoints)}. Current input: "
                             f"{self.decision_wire.endpoint!r}")
        return self

    @property
    def pauses_clock(self) -> bool:
        return self.clock == "paused"

    def is_assistant_endpoint(self, path: str) -> bool:
        return path.split("?", 1)[0] in self.assistant_endpoints

    def conversation_path(self, model_path: str) -> str:
        """Where the page sends the conversation: its assistant endpoint, else the tutorial's
        `model_path` (the browser asks the model itself)."""
        return self.assistant_endpoints[0] if self.assistant_endpoints else model_path

    @property
    def business_requests_in_browser(self) -> bool:
        """Whether the page's tools make their requests from the browser (not from a
        framework's server, as the AI SDK's chat route runs an approved call)."""
        return not self.assistant_endpoints or self.tools_run_in_browser

    def require_business_requests_in_browser(self) -> None:
        """NotObservable when a business request may leave the page's server instead of the
        browser (an approved call run there), so a check cannot hold it at the network."""
        if not self.business_requests_in_browser:
            raise NotObservable(self.name, "assistant_endpoints",
                                "the page's server runs an approved call itself; its "
                                "business request never passes through the browser")

    def require(self, part: Part | Absent, name: str) -> Part:
        """`part`, or NotObservable naming it when this driver declares it absent."""
        if isinstance(part, Absent):
            raise NotObservable(self.name, name, part.absent)
        return part

    def for_the_page(self) -> Mapping[str, object]:
        """The driver as the page's scripts read it (the probe, the dock's waits)."""
        return self.model_dump(mode="json")

    def selectors(self) -> dict[str, str]:
        """Every CSS selector the driver names, by where ("approval.card",
        "messages.0.code.inside"), for the preflight to try in the page."""
        found: dict[str, str] = {}

        def visit(value: object, where: str, *, is_value: bool = False) -> None:
            if isinstance(value, str) and not is_value:
                found[where] = value
            elif isinstance(value, Reading):
                if value.inside is not None:
                    found[f"{where}.inside"] = value.inside
            elif isinstance(value, DriverPart) and not isinstance(value, Absent):
                for name in type(value).model_fields:
                    visit(getattr(value, name), f"{where}.{name}", is_value=name in _VALUES)
            elif isinstance(value, tuple):
                for index, item in enumerate(value):
                    visit(item, f"{where}.{index}")

        for part in ("dock", "messages", "approval", "handoff", "highlight", "targets"):
            visit(getattr(self, part), part)
        return found


# Fields of the parts that hold a value (fixed or read), never a selector.
_VALUES = frozenset({"action", "policy", "decision", "step_target", "target", "role", "code",
                     "id"})


def load_driver(path: Path) -> DriverSpec:
    """Read a driver file; a missing or invalid one is a DriverError naming file and field."""
    return load_json_model(path, DriverSpec, DriverError)


@cache
def default_driver() -> DriverSpec:
    """The page contract's driver: the test ids of docs/page-contract.md."""
    return load_driver(DEFAULT_DRIVER_PATH)


def find_driver(choice: str, tutorial_dir: Path) -> Path:
    """The driver file `choice` names: a path to a .json file (relative to the working
    folder, else to the tutorial's folder), or the NAME of `<tutorial>/drivers/NAME.json`."""
    if choice.endswith(DRIVER_SUFFIX) or "/" in choice:
        for candidate in (Path(choice), tutorial_dir / choice):
            if candidate.is_file():
                return candidate
        raise DriverError(f"driver file {choice!r} not found (looked in the working folder "
                          f"and {tutorial_dir})")
    named = tutorial_dir / DRIVERS_DIR_NAME / f"{choice}{DRIVER_SUFFIX}"
    if not named.is_file():
        folder = tutorial_dir / DRIVERS_DIR_NAME
        known = sorted(p.stem for p in folder.glob(f"*{DRIVER_SUFFIX}")) if folder.is_dir() else []
        raise DriverError(f"no driver {choice!r}: {named} does not exist (known: "
                          f"{', '.join(known) or 'none'}); give a driver's name or a path to "
                          "its .json file")
    return named

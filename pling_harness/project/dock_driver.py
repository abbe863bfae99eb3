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
    # The docstring after each field is its description: in the JSON schema, and in
    # docs/dock-drivers.md (scripts/driver_reference.py writes it from them).
    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)


class Absent(DriverPart):
    """A part this assistant does not have, and why: the n/a of every check that needs it."""

    absent: str = Field(min_length=1, max_length=300)
    """Why the page has no such part (`"the framework shows no countdown"`): what the n/a of
    a check that needs it says. Something the framework does not offer or the page does not
    show; never a way to skip a check that fails."""


class Reading(DriverPart):
    """A value the page shows: the element's `attribute`, or its trimmed text without one;
    of the element itself, or of its first descendant matching `inside`. `values` translates
    what the page shows into what the harness means (`"output-denied"` →
    `"PERMISSION_DENIED"`); a value it does not list is read as it is."""

    attribute: AttributeName | None = None
    """The attribute to read (`data-tool`); none: the element's trimmed text."""
    inside: Css | None = None
    """Read the first descendant matching this selector instead of the element itself."""
    values: dict[str, str] = Field(default_factory=dict)
    """What the page shows → what the harness means (`{"output-denied":
    "PERMISSION_DENIED"}`); a value not listed is read as it is."""

    def shown_as(self, meaning: str) -> list[str]:
        """Every value the page may show for `meaning` (the inverse of `values`)."""
        shown = [raw for raw, meant in self.values.items() if meant == meaning]
        return shown + ([meaning] if meaning not in self.values else [])


# A value fixed for every element of its kind ("notice"), or read from each (`Reading`).
Value = str | Reading


class DockParts(DriverPart):
    """The assistant as a whole: where the user types and sends, and whether it is busy."""

    root: Css
    """The assistant itself: on screen once the page is ready. Needed by every check."""
    input: Css
    """Where the user types a request. Needed by every check."""
    send: Css
    """What sends it. Needed by every check."""
    busy: Css | Absent
    """In the DOM exactly while a turn runs (visible or not: a card waiting keeps it): a
    turn runs until the model has answered what the page last sent it. Needed to settle
    after each action, and by the busy checks."""
    new_conversation: Css | Absent
    """Ends the session (its grants and anything pending). Needed by
    `new-conversation-ends-pending` and the session's end."""


class MessageKind(DriverPart):
    """One kind of conversation message: elements matching `element`, their role (fixed or
    read) and the outcome code they report (a notice's PERMISSION_DENIED, an error's
    MODEL_UNAVAILABLE), if any. The messages are every kind's elements, in page order."""

    element: Css
    """The elements of this kind."""
    role: Role | Reading
    """`user`, `assistant`, `notice` or `error`: the same for every element of the kind, or
    read from each."""
    code: Value | None = None
    """The outcome code the message reports (`PERMISSION_DENIED`, `MODEL_UNAVAILABLE`),
    fixed or read; none: it reports none. Needed by the notices and gateway errors."""


class ApprovalParts(DriverPart):
    """The approval card of one call waiting for the user's decision. `card` must match a
    card only while it waits: once decided it is removed, hidden or no longer matches."""

    card: Css
    """One card per call waiting for a decision, matching only while it waits (removed,
    hidden or changed once decided; a decided card may stay as the call's record if it no
    longer matches). Needed by every confirmation guarantee."""
    action: Reading
    """The action the card is for. Needed by every confirmation guarantee."""
    policy: Reading | Absent
    """`ask` or `ask-always` (SPEC §2), as the card says it. Needed by the policy rows and
    the card's policy pictures."""
    description: Css | Absent
    """What the card says the call does. Needed by `approval-only-by-click` and
    `model-text-is-text`."""
    arguments: Css | Absent
    """The arguments the call runs with, as the card shows them. Needed by
    `approval-only-by-click` and `model-text-is-text`."""
    value: Css | Absent
    """One string argument's value, in `arguments`, exactly in its visible form. Needed by
    `approval-shows-exact-arguments`."""
    hidden_marker: Css | Absent
    """Follows a value that holds hidden characters (docs/page-contract.md). Needed by
    `approval-shows-exact-arguments`."""
    allow: Css
    """Allows this call once. Needed by every confirmation guarantee."""
    always: Css | Absent
    """Allows the action for the rest of the session. Needed by `session-grant-for-ask`
    and `ask-always-never-granted`."""
    deny: Css
    """Denies the call. Needed by every confirmation guarantee."""
    decision: Reading | Absent
    """The attribute any element inside the card carries to decide it when clicked (the
    page contract's delegated decision attribute, named in page-contract.driver.json), which
    page script could forge. Needed by `forged-decision-refused` and the forged routes of
    `ask-always-never-granted`."""
    one_at_a_time: Literal[True] | Absent = True
    """The calls of one reply are asked and run one after another, each card shown once the
    call before it has its result (SPEC §3); absent for a framework that asks every approval
    of a step at once and runs the approved calls together. Needed by
    `calls-one-after-another`."""
    shown: Css | None = None
    """Every approval card as the user sees it, waiting or answered, where `card` matches
    only a waiting one (None: `card` is every card shown, a decided one being removed).
    A card shown with no enabled `allow` or `deny` and no `outcome` is a dead card."""
    outcome: Css | None = None
    """Inside a `shown` card, what tells the call's outcome once it is answered."""


class HandoffParts(DriverPart):
    """The panel of a step only the human may do."""

    panel: Css
    """The panel, while the person's step waits. Needed by every handoff guarantee."""
    action: Reading
    """The action the step is for. Needed by every handoff guarantee."""
    reason: Css | Absent
    """Why only the person may do it. Needed by `handoff-guidance`."""
    step: Css | Absent
    """Each of the ordered steps. Needed by `handoff-guidance`."""
    current_step: Css | Absent
    """What the current step matches besides `step` (e.g. `[aria-current='step']`). Needed
    by `handoff-guidance`."""
    step_target: Reading | Absent
    """The target (a `targets` id) each step points at. Needed by `handoff-guidance`."""
    timer: Css | Absent
    """The time left (`pling_harness.time_left` matches it). Needed by `handoff-timeout`
    and `handoff-custom-timeout`."""
    done: Css | Absent
    """The person says the step is done. Needed by the handoff's outcomes."""
    cancel: Css | Absent
    """The person gives the step up. Needed by the handoff's outcomes."""
    next: Css | Absent
    """To the next step. Needed by `handoff-guidance`."""
    back: Css | Absent
    """To the step before. Needed by `handoff-guidance`."""


class HighlightParts(DriverPart):
    """The overlay over the current step's target, and the mark on the target itself."""

    overlay: Css
    """The overlay over the current step's target. Needed by `handoff-guidance`."""
    target: Reading
    """The target (a `targets` id) the overlay covers. Needed by `handoff-guidance`."""
    marked: Css | Absent
    """The mark on the target itself. Needed by `handoff-guidance`."""


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
    """The function that re-renders the component. Needed by the generated
    `<action>-registered-once-rerender` checks."""
    remount: str = Field(pattern=r"^[A-Za-z_$][A-Za-z0-9_$]*$", max_length=100)
    """The function that unmounts the component and mounts it again. Needed by the generated
    `<action>-registered-once-remount` checks."""


NO_PAGE_HOOKS = Absent(absent="this driver names no page hook to re-render or remount the "
                       "component that registers the assistant's tools")


class DecisionWire(DriverPart):
    """How the user's decisions leave the page: in the framework's own chat request to one of
    the driver's assistant endpoints, where page script (or a client that resends them)
    could repeat one. `format` names the framework's body, which the harness knows how to
    read (`pling_harness.browser.repeated_decision`)."""

    endpoint: ApiPath
    """The assistant endpoint whose request carries the decisions: one of
    `assistant_endpoints`."""
    format: Literal["ai-sdk-ui-messages"]
    """`ai-sdk-ui-messages`: the Vercel AI SDK's chat body (`{messages: UIMessage[]}`), a
    decision being a tool part's `approval` answer in `approval-responded`."""


NO_DECISION_WIRE = Absent(absent="the page decides each card itself (the executor in the "
                          "browser): no request carries a decision that could be repeated")


class MarkdownText(DriverPart):
    """The assistant renders the model's text as markdown (its raw HTML through the
    framework's sanitizer), so what the person reads is not the literal characters."""

    markdown: str = Field(min_length=1, max_length=400)
    """Where the framework does it (package, version, file), for a person to check."""
class LoopCap(DriverPart):
    """A cap the assistant itself puts on a runaway agent loop, and where the rule comes from
    (the page contract, or a framework's docs or source with its version)."""

    limit: int = Field(ge=1, le=1000)
    """The most the assistant allows (model requests in a turn, or calls in a reply)."""
    source: str = Field(min_length=1, max_length=300)
    """Where the rule comes from: the page contract, or the framework's docs or source file
    and version (CopilotKit's `MAX_FOLLOW_UP_DEPTH`, 100, in `@copilotkit/core` 1.74.0)."""


class LoopCaps(DriverPart):
    """How the assistant ends a model that keeps calling (SPEC §5): the most model requests
    one turn makes, the most calls of one reply it handles, each declared with its source or
    absent with the reason. Checks hold the page to the caps it declares, and to what every
    user is owed whatever the caps: a runaway loop ends by itself, and every call that asks
    still asks, however many calls came before it."""

    model_requests_per_turn: LoopCap | Absent
    """Past it, a turn asks the model no more; absent for a framework with no such cap.
    Needed by `loop-limit` (`table-model-calls-per-turn-capped`) and the cap's state in
    `bilingual-copy`."""
    calls_per_reply: LoopCap | Absent
    """Past it, a reply's calls are refused without running; absent for a framework that
    handles every call of a reply (each call that asks then still asks)."""
    stop_told: Literal[True] | Absent = True
    """A call refused at a cap is answered LOOP_LIMIT to the model and told to the user (a
    notice naming the action); absent for a framework that stops the loop silently."""


PAGE_CONTRACT_LOOP_CAPS = LoopCaps(
    model_requests_per_turn=LoopCap(limit=8, source="the page contract's caps "
                                    "(docs/page-contract.md, \"What the agent loop must do\")"),
    calls_per_reply=LoopCap(limit=10, source="the page contract's caps (docs/page-contract.md, "
                            "\"What the agent loop must do\")"))


class TargetKind(DriverPart):
    """Elements the human acts on in a handoff (a code field, a Publish button), by id."""

    element: Css
    """The elements of this kind."""
    id: Value
    """Each one's id, fixed or read: what `handoff.step_target` and `highlight.target`
    name."""


class DriverSpec(DriverPart):
    """A driver file: every part the harness knows, named with selectors or said absent."""

    name: DriverName
    """The driver's name, in the n/a reasons of the checks it cannot serve (`n/a (<name>:
    <part>: <why>)`)."""
    about: str = Field(min_length=1, max_length=600)
    """What page or framework this driver reads, for a person."""
    dock: DockParts
    """The assistant as a whole (`DockParts`)."""
    messages: tuple[MessageKind, ...] = Field(min_length=1)
    """Each kind of conversation message (`MessageKind`): replies, notices, errors."""
    approval: ApprovalParts
    """The approval card (`ApprovalParts`)."""
    handoff: HandoffParts | Absent
    """The panel of a step only the person may do (`HandoffParts`)."""
    highlight: HighlightParts | Absent
    """The overlay over the current step's target (`HighlightParts`)."""
    targets: tuple[TargetKind, ...] | Absent
    """The elements the person acts on (`TargetKind`). Needed by
    `handoff-never-writes-target` and the highlights."""
    assistant_endpoints: tuple[ApiPath, ...] = ()
    """Paths the assistant sends its conversation to on the page's own server (a
    framework's chat route, e.g. the AI SDK's `/api/chat`): the assistant's transport, never
    counted as business requests. What such a request causes at the server (an approved
    tool run there) is judged by the business state, which the harness reads itself, and a
    check that must hold a business request in the browser is n/a. Read by the model-request
    counts of `no-silent-retry` and `success-only-after-published`, and the held requests of
    `new-conversation-ends-pending`."""

    framework_tools: tuple[Annotated[str, Field(min_length=1, max_length=64)], ...] = ()
    """Tools the framework itself offers the model beside the page's actions (CopilotKit's
    BuiltInAgent: `AGUISendStateSnapshot`, `AGUISendStateDelta`). The projection check
    leaves out one offer of each; a page action's own tools are still counted exactly."""
    tools_run_in_browser: bool = False
    """With assistant endpoints: the page's tools still run in the browser (CopilotKit's
    frontend and human-in-the-loop tools), so their business requests pass through it and a
    check can hold them; false (the AI SDK): the page's server runs an approved call."""
    approved_calls_run: str | None = Field(default=None, min_length=1, max_length=300)
    """Where the framework runs an approved call when not in the browser, citing its docs or
    source (file, version): the n/a of a check that would hold or fail its business request
    says it."""
    blank_arguments_refused: Literal[True] | Absent = True
    """An empty or blank arguments text is INVALID_PARAMS, never read as `{}` (the page
    contract, "Argument schemas"); absent for a framework that reads it as `{}` before any
    page code sees the call (the AI SDK's tool-call parser): a blank call to an action that
    takes no arguments is then a call with none, and checks hold it to that."""
    whitespace_arguments_read_as_none: bool = True
    """With `blank_arguments_refused` absent: whether arguments of only whitespace are read as
    `{}` as well (the AI SDK's parser trims them), or only the empty text (CopilotKit's
    `parseToolArguments`: whitespace is not JSON, so it must be refused as such)."""
    provider_fault_codes: Literal[True] | Absent = True
    """A provider's failure reaches the user as an error reporting the fault's own code
    (MODEL_UNAVAILABLE, MODEL_TIMEOUT, MODEL_BAD_REPLY) and saying what it means; absent for
    a framework that tells the page only that the run failed: its error must then say, in
    the page's language, that the assistant could not answer."""
    earlier_errors_stay: Literal[True] | Absent = True
    """An error stays shown in the conversation where it happened after the user sends the
    next message (the page contract: an error is a conversation message of the error role);
    absent for a framework that shows only its current run's error and forgets it on the
    next send (assistant-ui's AI SDK runtime: one `useChat` error on the last message).
    Either way each fault must be told when it happens, in the page's language; only that
    earlier ones stay follows this."""
    repeated_call_id_refused: Literal[True] | Absent = True
    """A second call under an id already used in the same reply is refused INVALID_PARAMS,
    naming the id, while the first runs (the page contract's agent loop); absent for a
    framework that keys calls by id and merges the two before any page code sees them (the
    AI SDK's tool parts): the check of that promise is then n/a."""
    model_text: Literal["text"] | MarkdownText = "text"
    """How the assistant shows the model's text: `text`, the literal characters (the page
    contract's rule: markup shown as written), or `{"markdown": "<where>"}` for a framework
    that renders it as markdown, where the literal-text check is n/a. Either way no model
    text may run script or fetch from another site (`model-text-inert`)."""
    loop_caps: LoopCaps = PAGE_CONTRACT_LOOP_CAPS
    """The caps that end a runaway loop (the page contract's 8 model requests a turn and 10
    calls a reply unless the driver declares its framework's own)."""
    page_hooks: PageHooks | Absent = NO_PAGE_HOOKS
    """How to re-render or remount the component that registers the assistant's tools
    (`PageHooks`); without them the generated `-rerender` and `-remount` cases are n/a."""
    decision_wire: DecisionWire | Absent = NO_DECISION_WIRE
    """Where the user's decisions leave the page (`DecisionWire`): `forged-decision-refused`
    repeats an approval in the page's own request (one approval sent twice in one request
    runs the action at most once). Absent for a page that decides each card in the browser,
    where that check is n/a."""
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
                                "business request never passes through the browser"
                                + self.where_approved_calls_run)

    @property
    def where_approved_calls_run(self) -> str:
        """` (<approved_calls_run>)`, the citation an n/a ends with, or nothing."""
        return f" ({self.approved_calls_run})" if self.approved_calls_run else ""

    def require_literal_text(self) -> None:
        """NotObservable when the assistant renders the model's text as markdown: the
        literal-text rule is our runtime's, not a promise that framework makes."""
        if isinstance(self.model_text, MarkdownText):
            raise NotObservable(self.name, "model_text", "renders the model's text as "
                                f"markdown ({self.model_text.markdown})")

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

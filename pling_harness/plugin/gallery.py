"""Gallery: a screenshot of each state a user meets in the dock and the page, per locale,
taken by the real checks at the moment the state is on screen (for the HTML report).

`Gallery.watch(page, ...)` registers one Playwright locator handler on the page. Playwright
runs it before the check's next action or `expect` finds one of the states this gallery has
not captured yet in that locale visible; the action waits while the handler saves a
screenshot, so the picture shows the page exactly as the check met it. The states come from
the page's assistant as its dock driver names it (approval card per policy, the current
handoff step with its highlight, the countdown in its last minute, every `notice`/`error`
message by its outcome code; what the driver declares absent is not pictured) plus the
tutorial's own page states from `tutorials/<id>/gallery.json` (e.g. "published").

The first capture of each (state, locale) is kept; a disabled gallery (no folder) does
nothing, so checks pay for screenshots only when a report asks for them (`--pling-gallery`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import reduce
from pathlib import Path
from typing import Annotated, Self

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Locator, Page
from pydantic import BaseModel, ConfigDict, Field, model_validator

from pling_harness.browser.dock import Dock
from pling_harness.browser.driver import NOTHING, in_page
from pling_harness.plugin.report import GalleryCapture
from pling_harness.project.datafile import load_json_model
from pling_harness.project.dock_driver import (
    Absent,
    DriverSpec,
    HighlightParts,
    Reading,
    Role,
    Value,
)
from pling_harness.project.tutorials import Tutorial, TutorialError

GALLERY_FILE_NAME = "gallery.json"
APPROVAL_POLICIES = ("ask", "ask-always")
# Handoff steps watched, by position; a longer handoff's later steps are not pictured.
MAX_HANDOFF_STEPS = 8
# The countdown (m:ss) once less than a minute is left.
LAST_MINUTE = re.compile(r"^\s*0:\d\d\s*$")
CODED_ROLES: tuple[Role, ...] = ("notice", "error")
# Page script: (role, code) of every notice and error that reports a code.
READ_CODED_MESSAGES = in_page("""return parts.look().messages()
  .filter(({role, code}) => (role === "notice" || role === "error") && code !== null)
  .map(({role, code}) => [role, code]);""")
# The check's action waits while a picture is taken; a slow one is given up, not waited for.
SCREENSHOT_TIMEOUT_MS = 5_000
# Codes name image files, and the page sets them: anything else is not pictured.
CODE = re.compile(r"^[A-Z][A-Z0-9_]{0,39}$")

# Result codes in the order a reader meets them, with what each means to the user.
MESSAGE_TITLES: dict[str, str] = {
    "PERMISSION_DENIED": "denied by the user",
    "HANDOFF_CANCELLED": "handoff cancelled",
    "HANDOFF_TIMEOUT": "handoff timed out",
    "HANDOFF_FAILED": "handoff not completed",
    "HANDOFF_BUSY": "another handoff is open",
    "UNKNOWN_ACTION": "rejected call: unknown action",
    "INVALID_PARAMS": "rejected call: invalid arguments",
    "OUT_OF_SCOPE": "rejected call: out of scope",
    "UNAVAILABLE": "rejected call: action unavailable",
    "RUN_FAILED": "the action failed",
    "LOOP_LIMIT": "turn stopped: too many model calls",
}
DataName = Annotated[str, Field(pattern=r"^data-[a-z0-9-]+$")]
StateName = Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9-]*$", max_length=60)]


class PageState(BaseModel):
    """A state of the tutorial's own page worth a picture: its element (`testid`) with an
    attribute value, or showing exactly a text of the page's copy, or both."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: StateName
    title: str = Field(min_length=1)
    testid: str = Field(min_length=1)
    attribute: DataName | None = None
    value: str | None = None
    copy_text: str | None = None
    """A key of the tutorial's copy: the element shows exactly that text in the locale."""

    @model_validator(mode="after")
    def _says_what_to_look_for(self) -> Self:
        if (self.attribute is None) != (self.value is None):
            raise ValueError("attribute and value go together; give both or neither")
        if self.attribute is None and self.copy_text is None:
            raise ValueError("give attribute and value, or copy_text, to say what to look for")
        return self

    def locator(self, page: Page, copy: Mapping[str, str]) -> Locator:
        element = page.get_by_test_id(self.testid)
        if self.attribute is not None:
            element = element.and_(page.locator(f"[{self.attribute}={json.dumps(self.value)}]"))
        if self.copy_text is not None:
            if self.copy_text not in copy:
                raise TutorialError(
                    f"{GALLERY_FILE_NAME}: page state {self.name!r} names copy key "
                    f"{self.copy_text!r}, which the page's copy does not have")
            exact = re.compile(rf"^\s*{re.escape(copy[self.copy_text])}\s*$")
            element = element.filter(has_text=exact)
        return element


class GalleryFile(BaseModel):
    """`tutorials/<id>/gallery.json`: the tutorial's page states (the dock's come with it)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    page_states: tuple[PageState, ...] = ()


def load_page_states(tutorial: Tutorial, root: Path) -> tuple[PageState, ...]:
    """The tutorial's page states; none when it has no gallery.json."""
    path = tutorial.directory(root) / GALLERY_FILE_NAME
    if not path.is_file():
        return ()
    return load_json_model(path, GalleryFile, TutorialError).page_states


def state_order(state: str) -> tuple[int, int, str]:
    """Where a state sits in the report: approval, handoff, notices, errors, page."""
    kind, _, rest = state.partition("-")
    if kind == "approval":
        return (0, APPROVAL_POLICIES.index(rest) if rest in APPROVAL_POLICIES else 9, rest)
    if kind == "handoff":
        step = rest.removeprefix("step-")
        return (1, int(step) if step.isdigit() else MAX_HANDOFF_STEPS + 1, rest)
    codes = list(MESSAGE_TITLES)
    if kind == "notice":
        return (2, codes.index(rest) if rest in codes else len(codes), rest)
    return (3 if kind == "error" else 4, 0, rest)


@dataclass(frozen=True)
class Watched:
    """One state to look out for on a page: its element when on screen, and what to note."""

    state: str
    title: str
    element: Locator
    detail: Callable[[Locator], str]


def dock_states(dock: Dock) -> list[Watched]:
    """The assistant's states, as its dock driver names them: cards (per policy, where the
    card says it), handoff steps (with their highlight, where there is one), the last
    minute of the countdown. A part the driver declares absent is not pictured."""
    spec, driver = dock.spec, dock.driver

    def reading(value: Value | None) -> Callable[[Locator], str]:
        return lambda element: driver.read(element, value) or ""

    action = reading(spec.approval.action)
    # Every card, the one being decided too: the harness tags it just before its click,
    # which is when the picture is taken.
    cards = dock.page.locator(spec.approval.card)
    policy_reading = spec.approval.policy
    if isinstance(policy_reading, Reading):
        states = [Watched(f"approval-{policy}", f"Approval card, policy {policy}",
                          driver.where(cards, policy_reading, policy), action)
                  for policy in APPROVAL_POLICIES]
    else:
        states = [Watched("approval", "Approval card", cards, action)]
    handoff = spec.handoff
    if isinstance(handoff, Absent) or isinstance(handoff.step, Absent) \
            or isinstance(handoff.current_step, Absent):
        return states
    # With its highlight on the page, so the picture shows both.
    around = (dock.page.locator("body").filter(has=dock.highlights)
              if isinstance(spec.highlight, HighlightParts) else dock.page.locator("body"))
    target = reading(handoff.step_target if isinstance(handoff.step_target, Reading) else None)
    states += [
        Watched(f"handoff-step-{index + 1}", f"Handoff, step {index + 1} highlighted",
                around.locator(dock.handoff_step(index, current=True)), target)
        for index in range(MAX_HANDOFF_STEPS)
    ]
    if isinstance(handoff.timer, str):
        states.append(Watched("handoff-timer", "Handoff countdown, last minute",
                              dock.handoff_timer.filter(has_text=LAST_MINUTE),
                              lambda element: element.inner_text().strip()))
    return states


def message_title(role: str, code: str) -> str:
    if role == "error":
        return f"Gateway error {code}"
    meaning = MESSAGE_TITLES.get(code)
    return f"Notice {code}: {meaning}" if meaning else f"Notice {code}"


class Gallery:
    """Screenshots of user-facing states, the first per (state, locale); works without pytest.

    `folder` None disables it. Image files are named `<state>.<locale><file_suffix>.png`;
    give each pytest-xdist worker its own suffix so workers never write the same file.
    """

    def __init__(self, folder: Path | None, *, file_suffix: str = "") -> None:
        self.folder = folder
        self.file_suffix = file_suffix
        self.problems: list[str] = []
        """Captures that failed (a gallery never fails a check); shown in the report."""
        self._captured: set[tuple[str, str]] = set()
        self._new: list[GalleryCapture] = []

    @property
    def enabled(self) -> bool:
        return self.folder is not None

    def watch(self, page: Page, *, locale: str, source: str,
              page_states: Sequence[PageState] = (), copy: Mapping[str, str] | None = None,
              driver: DriverSpec | None = None) -> None:
        """Picture the states still missing in `locale` when `page` shows them (its
        assistant read with `driver`, the page contract's by default); `source` (e.g. the
        test's node id) is noted with each picture."""
        if self.folder is None:
            return
        dock = Dock(page, driver)
        watched = dock_states(dock) + [
            Watched(f"page-{state.name}", state.title, state.locator(page, copy or {}),
                    lambda element: "")
            for state in page_states
        ]
        _PageWatch(self, dock, locale=locale, source=source, watched=watched).arm()

    def take_captures(self) -> list[GalleryCapture]:
        """The captures made since the last call (a test's own, when called per test)."""
        new, self._new = self._new, []
        return new

    def take_problems(self) -> list[str]:
        """The problems noted since the last call."""
        new, self.problems = self.problems, []
        return new

    def is_captured(self, state: str, locale: str) -> bool:
        return (state, locale) in self._captured

    def captured_states(self, locale: str) -> list[str]:
        return [state for state, captured_in in self._captured if captured_in == locale]

    def keep(self, image: bytes, *, state: str, title: str, locale: str, detail: str,
             source: str) -> None:
        if self.folder is None or self.is_captured(state, locale):
            return
        name = f"{state}.{locale}{self.file_suffix}.png"
        self.folder.mkdir(parents=True, exist_ok=True)
        (self.folder / name).write_bytes(image)
        self._captured.add((state, locale))
        self._new.append(GalleryCapture(state=state, title=title, locale=locale, image=name,
                                        detail=detail, nodeid=source))


class _PageWatch:
    """The gallery's locator handler on one page, re-armed with what is still missing."""

    def __init__(self, gallery: Gallery, dock: Dock, *, locale: str, source: str,
                 watched: list[Watched]) -> None:
        self.gallery = gallery
        self.dock = dock
        self.page = dock.page
        self.locale = locale
        self.source = source
        self.watched = watched

    def _missing(self) -> list[Watched]:
        return [w for w in self.watched if not self.gallery.is_captured(w.state, self.locale)]

    def _new_messages(self) -> Locator:
        """Notices and errors reporting a code whose (role, code) this locale has no
        picture of yet."""
        driver = self.dock.driver
        found = [self.page.locator(NOTHING)]
        for kind in driver.spec.messages:
            for role in CODED_ROLES:
                elements = driver.where_any(
                    driver.where(self.page.locator(kind.element), kind.role, role), kind.code)
                for code in self._captured_codes(role):
                    elements = driver.where_not(elements, kind.code, code)
                found.append(elements)
        return driver.union(found)

    def _captured_codes(self, role: str) -> list[str]:
        prefix = f"{role}-"
        return [state.removeprefix(prefix) for state in self.gallery.captured_states(self.locale)
                if state.startswith(prefix)]

    def arm(self) -> None:
        # One handler for everything missing: Playwright checks each handler before every
        # action, so one union costs one visibility check instead of one per state.
        elements = [w.element for w in self._missing()] + [self._new_messages()]
        anything_new = reduce(lambda union, element: union.or_(element), elements)
        self.page.add_locator_handler(anything_new.filter(visible=True).first, self._capture,
                                      no_wait_after=True, times=1)

    def _capture(self) -> None:
        try:
            on_screen = self._on_screen()
            if on_screen:
                # caret="initial": hiding the caret would add a <style> to the page, a DOM
                # change the page (e.g. a handoff's expect.check()) could react to.
                image = self.page.screenshot(caret="initial", timeout=SCREENSHOT_TIMEOUT_MS)
                for state, title, detail in on_screen:
                    self.gallery.keep(image, state=state, title=title, locale=self.locale,
                                      detail=detail, source=self.source)
            self.arm()
        except PlaywrightError as error:
            # The page may be closing as the test ends; a picture is never worth a failure.
            self.gallery.problems.append(f"{self.source}: {error.message.splitlines()[0]}")

    def _on_screen(self) -> list[tuple[str, str, str]]:
        found = []
        for watched in self._missing():
            element = watched.element.filter(visible=True).first
            if element.count():
                found.append((watched.state, watched.title, watched.detail(element)))
        codes = self.page.evaluate(READ_CODED_MESSAGES,
                                   {"driver": self.dock.spec.for_the_page()})
        for role, code in dict.fromkeys(tuple(pair) for pair in codes):
            if CODE.match(str(code)):
                found.append((f"{role}-{code}", message_title(role, code), ""))
        return found

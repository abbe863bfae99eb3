"""A dock driver on one page: the parts its file names, as Playwright locators.

Playwright's CSS locators pierce open shadow roots, as the in-page reader
(`dock_parts.js`) does, so the Python side clicks and reads the very elements the probe
watches. A value is found by its `Reading` (an attribute, or the trimmed text, of the
element or of a descendant), translated by the reading's `values`; here a locator is
narrowed to the elements whose reading says a given meaning.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import reduce
from pathlib import Path

from playwright.sync_api import Locator, Page

from pling_harness.project.dock_driver import (
    Absent,
    DriverSpec,
    MessageKind,
    Role,
    Value,
)

DOCK_PARTS_SCRIPT = Path(__file__).with_name("dock_parts.js").read_text(encoding="utf-8")
# Element script: what a value (a driver's fixed value or reading) says about the element.
READ_SCRIPT = ("(element, arg) => {\n" + DOCK_PARTS_SCRIPT
               + "\nreturn plingDockParts(arg.driver).read(element, arg.value);\n}")
# A selector no element matches: a reading that cannot say the meaning asked for.
NOTHING = ":not(*)"


def in_page(body: str) -> str:
    """A page function `(arg) => {...}` running `body` with `parts`, the driver `arg.driver`
    read in the page (dock_parts.js), in scope."""
    return ("(arg) => {\n" + DOCK_PARTS_SCRIPT
            + "\nconst parts = plingDockParts(arg.driver);\n" + body + "\n}")


def css_string(text: str) -> str:
    """`text` as a quoted CSS string (for an attribute selector)."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\a ")
    return f'"{escaped}"'


def _exactly(shown: Sequence[str]) -> re.Pattern[str]:
    return re.compile(r"^\s*(?:" + "|".join(re.escape(text) for text in shown) + r")\s*$")


class DockDriver:
    """`spec`'s parts on `page`; works with or without pytest."""

    def __init__(self, page: Page, spec: DriverSpec) -> None:
        self.page = page
        self.spec = spec

    @property
    def name(self) -> str:
        return self.spec.name

    def css(self, part: str | Absent, name: str) -> str:
        """The selector of part `name`, or NotObservable when the driver says it is absent."""
        return self.spec.require(part, name)

    def locate(self, part: str | Absent, name: str) -> Locator:
        """Every element of part `name` on the page (open shadow roots too)."""
        return self.page.locator(self.css(part, name))

    def read(self, element: Locator, value: Value | None) -> str | None:
        """What `value` says about `element` (one element), as the probe reads it."""
        if value is None or isinstance(value, str):
            return value
        said = element.evaluate(READ_SCRIPT, {"driver": self.spec.for_the_page(),
                                              "value": value.model_dump(mode="json")})
        return None if said is None else str(said)

    def nothing(self, elements: Locator) -> Locator:
        return elements.and_(self.page.locator(NOTHING))

    def where(self, elements: Locator, value: Value | None, meaning: str) -> Locator:
        """`elements` whose `value` reads `meaning` (None: no element says anything)."""
        if value is None:
            return self.nothing(elements)
        if isinstance(value, str):
            return elements if value == meaning else self.nothing(elements)
        shown = value.shown_as(meaning)
        if value.attribute is not None:
            match = self._attribute_match(value.attribute, shown)
            if value.inside is not None:
                return elements.filter(has=self.page.locator(f":is({value.inside}){match}"))
            return elements.and_(self.page.locator(match))
        if value.inside is not None:
            return elements.filter(
                has=self.page.locator(value.inside).filter(has_text=_exactly(shown)))
        return elements.filter(has_text=_exactly(shown))

    def where_not(self, elements: Locator, value: Value | None, meaning: str) -> Locator:
        """`elements` whose `value` does not read `meaning`."""
        if value is None:
            return elements
        if isinstance(value, str):
            return self.nothing(elements) if value == meaning else elements
        shown = value.shown_as(meaning)
        if value.attribute is not None:
            match = self._attribute_match(value.attribute, shown)
            if value.inside is not None:
                return elements.filter(has_not=self.page.locator(f":is({value.inside}){match}"))
            return elements.and_(self.page.locator(f":not({match})"))
        if value.inside is not None:
            return elements.filter(
                has_not=self.page.locator(value.inside).filter(has_text=_exactly(shown)))
        return elements.filter(has_not_text=_exactly(shown))

    def where_any(self, elements: Locator, value: Value | None) -> Locator:
        """`elements` whose `value` reads something at all."""
        if value is None:
            return self.nothing(elements)
        if isinstance(value, str):
            return elements
        source = self.page.locator(value.inside) if value.inside is not None else None
        if value.attribute is not None:
            attribute = f"[{value.attribute}]"
            if source is None:
                return elements.and_(self.page.locator(attribute))
            return elements.filter(has=self.page.locator(f":is({value.inside}){attribute}"))
        not_blank = re.compile(r"\S")
        if source is None:
            return elements.filter(has_text=not_blank)
        return elements.filter(has=source.filter(has_text=not_blank))

    def messages(self, role: Role | None = None, *, code: str | None = None) -> Locator:
        """The conversation's messages (every kind the driver names), optionally of one role
        and reporting one outcome code."""
        kinds = [self._messages_of(kind, role, code) for kind in self.spec.messages]
        return reduce(Locator.or_, kinds)

    def _messages_of(self, kind: MessageKind, role: Role | None, code: str | None) -> Locator:
        elements = self.page.locator(kind.element)
        if role is not None:
            elements = self.where(elements, kind.role, role)
        if code is not None:
            elements = self.where(elements, kind.code, code)
        return elements

    def union(self, locators: Sequence[Locator]) -> Locator:
        return reduce(Locator.or_, locators)

    @staticmethod
    def _attribute_match(attribute: str, shown: Sequence[str]) -> str:
        return ":is(" + ", ".join(f"[{attribute}={css_string(text)}]" for text in shown) + ")"

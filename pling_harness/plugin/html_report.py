"""The HTML report (`--pling-html DIR`, `pling-tutorial check --report DIR`): one static page.

`DIR/index.html` holds the guarantee × locale table (each cell links to its checks), the
gallery (each state a user meets, zh and en side by side, images in `DIR/gallery/`; taken
only when asked, `--pling-gallery`), and
every check with its outcome and duration; a failing one with its message, timeline and
Playwright trace (and, for a check run again, traced, its first run's failure; plugin/retry.py).
No script at all and nothing from the network: the page is built with
ElementTree, so every text from a check or a model is escaped by construction.

Why not pytest-html: its results table is drawn in the browser by its own script from a
JSON blob, so there is no row a table cell could link to, and its media are per test,
while a gallery row pairs pictures from two different tests (zh and en).
"""

from __future__ import annotations

import datetime as dt
import os
import re
import urllib.parse
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Sequence
from pathlib import Path

from pling_harness.plugin.gallery import state_order
from pling_harness.plugin.html_style import STYLE
from pling_harness.plugin.report import (
    FirstTry,
    GalleryCapture,
    Outcome,
    SuiteReport,
    TestRecord,
)

REPORT_FILE_NAME = "index.html"
GALLERY_DIR_NAME = "gallery"
NO_GUARANTEE = "(no guarantee)"
OUTCOME_LABEL: dict[Outcome, str] = {
    "passed": "pass", "failed": "FAIL", "error": "ERROR", "skipped": "skip",
    "n/a": "n/a", "not run": "not run", "flaky": "FLAKY"}
OUTCOME_RANK: dict[Outcome, int] = {"n/a": -1, "passed": 0, "skipped": 1, "not run": 2,
                                    "flaky": 3, "failed": 4, "error": 5}
FAILING: tuple[Outcome, ...] = ("failed", "error", "flaky")
_UNSAFE_ID = re.compile(r"[^A-Za-z0-9_-]+")


def write_html_report(suite: SuiteReport, folder: Path, *, locales: Sequence[str] = (),
                      generated: dt.datetime | None = None) -> Path:
    """Write `folder/index.html` for `suite` and drop gallery images no capture refers to
    (a second pytest-xdist worker's picture of the same state). Returns the page's path."""
    folder.mkdir(parents=True, exist_ok=True)
    gallery = folder / GALLERY_DIR_NAME
    if gallery.is_dir():
        kept = {capture.image for capture in suite.gallery}
        for image in gallery.iterdir():
            if image.name not in kept:
                image.unlink()
    page = render_html_report(suite, folder=folder, locales=locales,
                              generated=generated or dt.datetime.now(dt.UTC))
    path = folder / REPORT_FILE_NAME
    path.write_text(page, encoding="utf-8")
    return path


def render_html_report(suite: SuiteReport, *, folder: Path, locales: Sequence[str] = (),
                       generated: dt.datetime) -> str:
    shown = shown_locales(suite, locales)
    anchors = {test.nodeid: f"check-{index}" for index, test in enumerate(suite.tests)}
    html = ET.Element("html", lang="en")
    head = ET.SubElement(html, "head")
    ET.SubElement(head, "meta", charset="utf-8")
    ET.SubElement(head, "title").text = "pling check report"
    ET.SubElement(head, "style").text = STYLE
    body = ET.SubElement(html, "body")
    ET.SubElement(body, "h1").text = "pling check report"
    ET.SubElement(body, "p", {"data-testid": "report-summary"}).text = summary_line(suite, shown)
    if suite.interrupted is not None:
        ET.SubElement(body, "p", {"class": "interrupted", "data-testid": "interrupted"}).text = (
            f"The run was {suite.interrupted} before its end: this report holds the checks "
            "that ran; the others are marked not run.")
    ET.SubElement(body, "p", {"class": "duration"}).text = (
        f"Generated {generated:%Y-%m-%d %H:%M} UTC.")
    _choices(body, suite)
    nav = ET.SubElement(body, "nav")
    for target, label in (("guarantees", "Guarantees"), ("gallery", "Gallery"),
                          ("checks", "Checks")):
        link(nav, f"#{target}", label)
    _guarantee_table(body, suite, shown)
    _gallery(body, suite, shown, anchors)
    _checks(body, suite, shown, anchors, folder)
    return "<!DOCTYPE html>\n" + ET.tostring(html, encoding="unicode", method="html")


def _choices(body: ET.Element, suite: SuiteReport) -> None:
    """What the run chose (root, tutorial, page, driver, locales, model port) and where each
    choice came from."""
    if not suite.choices:
        return
    table = ET.SubElement(body, "table", {"class": "choices", "data-testid": "run-choices"})
    ET.SubElement(table, "caption").text = "What this run checked, and why"
    for choice in suite.choices:
        row = ET.SubElement(table, "tr")
        ET.SubElement(row, "th", scope="row").text = choice.name
        ET.SubElement(row, "td").text = choice.value
        ET.SubElement(row, "td", {"class": "source"}).text = choice.source


def shown_locales(suite: SuiteReport, preferred: Sequence[str]) -> list[str]:
    """The locales the run has, in `preferred` order first."""
    present = {test.locale for test in suite.tests if test.locale} | {
        capture.locale for capture in suite.gallery}
    return [loc for loc in dict.fromkeys([*preferred, *sorted(present)]) if loc in present]


def summary_line(suite: SuiteReport, locales: Sequence[str]) -> str:
    counts: dict[Outcome, int] = {}
    for test in suite.tests:
        counts[test.outcome] = counts.get(test.outcome, 0) + 1
    parts = [f"{counts[o]} {o}" for o in OUTCOME_LABEL if counts.get(o)]
    guarantees = guarantee_names(suite)
    proven = suite.count_guarantees(locales, "passed")
    stopped = f"Interrupted ({suite.interrupted}). " if suite.interrupted is not None else ""
    return (f"{stopped}{len(suite.tests)} checks: {', '.join(parts) or 'none ran'}. "
            f"{proven}/{len(guarantees)} guarantees proven in {', '.join(locales) or '-'}.")


def outcome_class(outcome: Outcome) -> str:
    """`outcome-passed`, …, `outcome-na`, `outcome-not-run` ("n/a" is no CSS name)."""
    return "outcome-" + outcome.replace("/", "").replace(" ", "-")


def guarantee_names(suite: SuiteReport) -> list[str]:
    """Guarantees in the order the run met them."""
    return list(dict.fromkeys(g for test in suite.tests for g in test.guarantees))


def anchor_id(*parts: str) -> str:
    return "-".join(_UNSAFE_ID.sub("_", part) for part in parts)


def link(parent: ET.Element, href: str, text: str, **attributes: str) -> ET.Element:
    element = ET.SubElement(parent, "a", {"href": href, **attributes})
    element.text = text
    return element


def short_name(nodeid: str) -> str:
    """`tutorials/.../checks/test_x.py::test_y[zh]` → `test_x.py::test_y[zh]`."""
    return nodeid.rsplit("/", 1)[-1]


def _section(body: ET.Element, section_id: str, title: str) -> ET.Element:
    section = ET.SubElement(body, "section", id=section_id)
    ET.SubElement(section, "h2").text = title
    return section


def _guarantee_table(body: ET.Element, suite: SuiteReport, locales: Sequence[str]) -> None:
    section = _section(body, "guarantees", "Guarantees")
    table = ET.SubElement(section, "table", {"data-testid": "guarantee-table"})
    header = ET.SubElement(ET.SubElement(table, "thead"), "tr")
    ET.SubElement(header, "th").text = "guarantee"
    for locale in locales:
        ET.SubElement(header, "th").text = locale
    rows = ET.SubElement(table, "tbody")
    outcomes = suite.guarantee_outcomes()
    for guarantee in guarantee_names(suite):
        row = ET.SubElement(rows, "tr", {"data-guarantee": guarantee})
        ET.SubElement(row, "th", scope="row").text = guarantee
        for locale in locales:
            outcome = outcomes.get((guarantee, locale))
            checks = [t for t in suite.tests if guarantee in t.guarantees and t.locale == locale]
            cell = ET.SubElement(row, "td", {"data-locale": locale})
            if outcome is None:
                cell.text = "-"
                continue
            cell.set("class", outcome_class(outcome))
            link(cell, "#" + anchor_id("checks", guarantee, locale),
                 f"{OUTCOME_LABEL[outcome]} ({len(checks)})")


def _gallery(body: ET.Element, suite: SuiteReport, locales: Sequence[str],
             anchors: dict[str, str]) -> None:
    section = _section(body, "gallery", "Gallery: what the user sees")
    ET.SubElement(section, "p").text = (
        "Each state as the checks met it, taken at that moment. Click a picture for its "
        "full size.")
    if not suite.gallery_taken and not suite.gallery:
        ET.SubElement(section, "p", {"class": "missing", "data-testid": "gallery-not-taken"}
                      ).text = ("Not taken on this run: `check --report DIR --gallery` "
                                "(pytest: --pling-gallery) pictures each state the checks meet.")
        return
    if not suite.gallery:
        ET.SubElement(section, "p", {"class": "missing"}).text = (
            "No pictures: the checks that ran met none of the gallery's states.")
        return
    by_state: dict[str, dict[str, GalleryCapture]] = {}
    for capture in sorted(suite.gallery, key=lambda c: state_order(c.state)):
        by_state.setdefault(capture.state, {})[capture.locale] = capture
    table = ET.SubElement(section, "table", {"class": "gallery", "data-testid": "gallery"})
    header = ET.SubElement(table, "tr")
    ET.SubElement(header, "th").text = "state"
    for locale in locales:
        ET.SubElement(header, "th").text = locale
    for state, captures in by_state.items():
        row = ET.SubElement(table, "tr", {"data-state": state})
        name = ET.SubElement(row, "th", scope="row")
        name.text = next(iter(captures.values())).title
        ET.SubElement(ET.SubElement(name, "div"), "code").text = state
        for locale in locales:
            cell = ET.SubElement(row, "td", {"data-locale": locale})
            shown = captures.get(locale)
            if shown is None:
                cell.set("class", "missing")
                cell.text = f"not met in {locale} by the checks that ran"
                continue
            _figure(cell, shown, anchors)
    if suite.gallery_notes:
        ET.SubElement(section, "p").text = "Pictures that could not be taken:"
        ET.SubElement(section, "pre").text = "\n".join(suite.gallery_notes)


def _figure(cell: ET.Element, capture: GalleryCapture, anchors: dict[str, str]) -> None:
    figure = ET.SubElement(cell, "figure")
    source = f"{GALLERY_DIR_NAME}/{urllib.parse.quote(capture.image)}"
    full_size = ET.SubElement(figure, "a", href=source)
    ET.SubElement(full_size, "img", src=source, alt=f"{capture.title} ({capture.locale})")
    caption = ET.SubElement(figure, "figcaption")
    caption.text = (f"{capture.detail} · " if capture.detail else "") + "met by "
    anchor = anchors.get(capture.nodeid)
    if anchor is None:
        ET.SubElement(caption, "code").text = short_name(capture.nodeid)
    else:
        link(caption, f"#{anchor}", short_name(capture.nodeid))


def _checks(body: ET.Element, suite: SuiteReport, locales: Sequence[str],
            anchors: dict[str, str], folder: Path) -> None:
    section = _section(body, "checks", "Checks")
    placed: set[str] = set()
    groups = [*guarantee_names(suite)]
    if any(not test.guarantees for test in suite.tests):
        groups.append(NO_GUARANTEE)
    group_locales = [*locales, *([None] if any(t.locale is None for t in suite.tests) else [])]
    for guarantee in groups:
        group = ET.SubElement(section, "section", id=anchor_id("guarantee", guarantee))
        ET.SubElement(group, "h3").text = guarantee
        for locale in group_locales:
            tests = [t for t in suite.tests if t.locale == locale and (
                guarantee in t.guarantees or (guarantee == NO_GUARANTEE and not t.guarantees))]
            if not tests:
                continue
            part = ET.SubElement(group, "div", id=anchor_id("checks", guarantee, locale or "-"))
            ET.SubElement(part, "h4").text = locale or "no locale"
            for test in _worst_first(tests):
                # A test proving two guarantees is listed twice; the anchor goes on the first.
                anchor = None if test.nodeid in placed else anchors[test.nodeid]
                placed.add(test.nodeid)
                _check(part, test, anchor, folder)


def _worst_first(tests: Iterable[TestRecord]) -> list[TestRecord]:
    return sorted(tests, key=lambda t: -OUTCOME_RANK[t.outcome])


def _check(parent: ET.Element, test: TestRecord, anchor: str | None, folder: Path) -> None:
    failing = test.outcome in FAILING
    entry = ET.SubElement(parent, "details", {
        "class": f"check {outcome_class(test.outcome)}", "data-testid": "check",
        "data-nodeid": test.nodeid, "data-outcome": test.outcome})
    if anchor is not None:
        entry.set("id", anchor)
    if failing:
        entry.set("open", "open")
    summary = ET.SubElement(entry, "summary")
    badge = outcome_class(test.outcome).replace("outcome-", "badge-")
    ET.SubElement(summary, "span", {"class": f"badge {badge}"}).text = OUTCOME_LABEL[test.outcome]
    ET.SubElement(summary, "span").text = f" {short_name(test.nodeid)} "
    ET.SubElement(summary, "span", {"class": "duration"}).text = f"{test.duration:.2f} s"
    facts = ET.SubElement(entry, "p", {"class": "nodeid"})
    facts.text = f"{test.nodeid} · guarantees: {', '.join(test.guarantees) or 'none'}"
    if test.reason is not None:
        ET.SubElement(entry, "p", {"data-testid": "not-applicable"}).text = (
            f"Not proven on this run: n/a ({test.reason})")
    if not failing:
        return
    ET.SubElement(entry, "pre", {"data-testid": "failure-message"}).text = (
        test.message or test.failure or "")
    if test.timeline:
        ET.SubElement(entry, "h5").text = "Timeline"
        ET.SubElement(entry, "pre", {"data-testid": "timeline"}).text = test.timeline
    for trace in test.traces:
        href = _relative_href(Path(trace), folder)
        line = ET.SubElement(entry, "p")
        line.text = "Playwright trace: "
        link(line, href, urllib.parse.unquote(href), **{"data-testid": "trace-link"})
        ET.SubElement(line, "span").text = " — open it with "
        ET.SubElement(line, "code").text = f"playwright show-trace {trace}"
    if test.details:
        more = ET.SubElement(entry, "details")
        ET.SubElement(more, "summary").text = "Full pytest report"
        ET.SubElement(more, "pre").text = test.details
    if test.first_try is not None:
        _first_try(entry, test.first_try)


def _first_try(entry: ET.Element, first: FirstTry) -> None:
    """The first, untraced run's failure of a check run again, traced (plugin/retry.py)."""
    ET.SubElement(entry, "h5").text = (
        f"First run (untraced): {OUTCOME_LABEL[first.outcome]}, then run again with a trace")
    ET.SubElement(entry, "pre", {"data-testid": "first-try-message"}).text = (
        first.message or first.failure or "")
    if first.timeline:
        ET.SubElement(entry, "pre", {"data-testid": "first-try-timeline"}).text = first.timeline
    if first.details:
        more = ET.SubElement(entry, "details")
        ET.SubElement(more, "summary").text = "Full pytest report of the first run"
        ET.SubElement(more, "pre").text = first.details


def _relative_href(path: Path, folder: Path) -> str:
    try:
        relative = os.path.relpath(path, folder)
    except ValueError:  # another drive (Windows): only an absolute link is possible
        return path.as_uri()
    return urllib.parse.quote(Path(relative).as_posix())

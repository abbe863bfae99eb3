"""`pling-tutorial merge-reports DIR...`: one verdict from the reports of N shards.

Each DIR is a shard's `--report` folder: its `report.json` (the SuiteReport, with the part
it ran and the whole suite it was cut from), `index.html` with its `gallery/`, the traces
of its failed checks, and `junit.xml` when the shard wrote its JUnit file there. The merge
writes one of each: the guarantee × locale table, the gallery, every check, and each
failure with its timeline and trace.

A check counts once. One that ran in no shard, or in two, is an error in the merged report
(not a pass), as is a shard missing from 1..N, given twice, or cut from another suite. A
guarantee is proven only when every one of its checks ran and passed: one left skipped
(a shard that stopped early) fails the merge too. The exit code is the gate: 0 only when
every check of the suite ran exactly once, none failed, and no guarantee was left unproven.
"""

from __future__ import annotations

import shutil
import sys
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pling_harness.cli.check import render_summary
from pling_harness.plugin.html_report import GALLERY_DIR_NAME, REPORT_FILE_NAME, write_html_report
from pling_harness.plugin.report import (
    CollectedCheck,
    GalleryCapture,
    ShardRecord,
    SuiteReport,
    TestRecord,
)
from pling_harness.plugin.report_writer import SUITE_FILE_NAME, clear_html_report

JUNIT_FILE_NAME = "junit.xml"
TRACES_DIR_NAME = "traces"
MERGE_SUITE_NAME = "pling-merge-reports"
FAILING = ("failed", "error", "flaky")
UNRUN = ("skipped", "not run")
"""Outcomes that leave a guarantee unproven: skipped, or never reached by a stopped shard."""


class MergeError(Exception):
    """A shard's folder cannot be read at all (no report, not a report)."""


@dataclass
class Shard:
    """One shard's report folder, read."""

    folder: Path
    report: SuiteReport
    record: ShardRecord

    @property
    def label(self) -> str:
        return f"{self.record.index}/{self.record.count}"


@dataclass
class Merged:
    report: SuiteReport
    problems: list[str] = field(default_factory=list)
    """What makes the merge fail besides failed checks: lost, doubled, foreign checks and
    missing or extra shards."""

    @property
    def ok(self) -> bool:
        return not self.problems and not any(t.outcome in FAILING for t in self.report.tests)


def read_shard(folder: Path) -> Shard:
    path = folder / SUITE_FILE_NAME
    if not path.is_file():
        raise MergeError(f"{folder} has no {SUITE_FILE_NAME}: give the folder a shard wrote "
                         "with pling-tutorial check ... --shard K/N --report DIR")
    try:
        report = SuiteReport.read(path)
    except ValueError as error:
        raise MergeError(f"{path} is not a pling report: {error}") from None
    # A run that was not cut is the whole suite: shard 1/1.
    record = report.shard or ShardRecord(
        index=1, count=1, collected=[CollectedCheck(nodeid=t.nodeid, locale=t.locale,
                                                    guarantees=t.guarantees)
                                     for t in report.tests])
    return Shard(folder=folder, report=report, record=record)


def merge(shards: Sequence[Shard]) -> Merged:
    """The one report of `shards`: each collected check once, lost and doubled checks as
    errors, the gallery's first picture of each state and locale."""
    problems = _shard_problems(shards)
    suite: dict[str, CollectedCheck] = {}
    for shard in shards:
        for check in shard.record.collected:
            suite.setdefault(check.nodeid, check)
    ran: dict[str, list[tuple[Shard, TestRecord]]] = {}
    for shard in shards:
        for test in shard.report.tests:
            ran.setdefault(test.nodeid, []).append((shard, test))
    tests: list[TestRecord] = []
    for nodeid, check in suite.items():
        runs = ran.pop(nodeid, [])
        if not runs:
            problem = "ran in no shard: every check of the suite must run in exactly one"
            problems.append(f"{nodeid} {problem}")
            tests.append(TestRecord(nodeid=nodeid, locale=check.locale,
                                    guarantees=check.guarantees, outcome="error",
                                    failure=problem, message=problem))
        elif len(runs) > 1:
            where = ", ".join(f"{shard.label} ({test.outcome})" for shard, test in runs)
            problem = f"ran in {len(runs)} shards: {where}; a check runs in exactly one"
            problems.append(f"{nodeid} {problem}")
            first = runs[0][1]
            tests.append(first.model_copy(update={"outcome": "error", "failure": problem,
                                                  "message": problem}))
        else:
            tests.append(runs[0][1])
    for nodeid, runs in ran.items():
        problem = (f"ran in shard {', '.join(shard.label for shard, _ in runs)} but is not in "
                   "the suite the shards were cut from")
        problems.append(f"{nodeid} {problem}")
        tests.append(runs[0][1].model_copy(update={"outcome": "error", "failure": problem,
                                                   "message": problem}))
    gallery: dict[tuple[str, str], GalleryCapture] = {}
    notes: list[str] = []
    for shard in shards:
        for capture in shard.report.gallery:
            gallery.setdefault((capture.state, capture.locale), capture)
        notes += shard.report.gallery_notes
    stopped = [f"shard {shard.label} {shard.report.interrupted}" for shard in shards
               if shard.report.interrupted]
    # The shards of one run made the same choices: the first one's stand for all.
    report = SuiteReport(tests=tests, gallery=list(gallery.values()), gallery_notes=notes,
                         gallery_taken=any(shard.report.gallery_taken for shard in shards),
                         interrupted="; ".join(stopped) or None,
                         choices=next((s.report.choices for s in shards if s.report.choices),
                                      []))
    return Merged(report=report, problems=problems + _unproven(report))


def _unproven(report: SuiteReport) -> list[str]:
    """Guarantees a skipped or not-run check leaves unproven (a shard stopped before it, say):
    proven means every check of it ran and passed (or could not apply to a page served
    elsewhere)."""
    return [f"guarantee {guarantee!r} in {locale} is not proven: "
            + ", ".join(f"{t.nodeid} ({t.outcome})" for t in report.tests
                        if guarantee in t.guarantees and (t.locale or "-") == locale
                        and t.outcome in UNRUN)
            + " did not run"
            for (guarantee, locale), outcome in report.guarantee_outcomes().items()
            if outcome in UNRUN]


def _shard_problems(shards: Sequence[Shard]) -> list[str]:
    if not shards:
        return ["no shard reports given"]
    problems: list[str] = []
    counts = sorted({shard.record.count for shard in shards})
    if len(counts) > 1:
        problems.append("the shards were cut into different numbers of parts: " + ", ".join(
            f"{shard.folder} is {shard.label}" for shard in shards))
    count = counts[-1]
    seen: dict[int, list[Shard]] = {}
    for shard in shards:
        seen.setdefault(shard.record.index, []).append(shard)
    for index in range(1, count + 1):
        if index not in seen:
            problems.append(f"shard {index}/{count} is missing: give every shard's report "
                            "folder (its checks count as lost)")
        elif len(seen[index]) > 1:
            problems.append(f"shard {index}/{count} is given twice: "
                            + ", ".join(str(shard.folder) for shard in seen[index]))
    first = {check.nodeid for check in shards[0].record.collected}
    for shard in shards[1:]:
        other = {check.nodeid for check in shard.record.collected}
        if other != first:
            problems.append(
                f"shard {shard.label} ({shard.folder}) was cut from another suite than "
                f"{shards[0].label} ({shards[0].folder}): {len(other - first)} checks only "
                f"there, {len(first - other)} missing there; run every shard on the same "
                "commit with the same options")
    return problems


def shown_locales(report: SuiteReport) -> list[str]:
    """The merged run's locales in the tutorial's order: the order the suite was collected
    in, which runs each check in the tutorial's locales one after another."""
    return list(dict.fromkeys(test.locale for test in report.tests if test.locale))


def write_merged(merged: Merged, shards: Sequence[Shard], folder: Path) -> None:
    """`folder/index.html`, `report.json`, `gallery/` and `traces/shard-K-of-N/`."""
    folder.mkdir(parents=True, exist_ok=True)
    clear_html_report(folder)
    gallery = folder / GALLERY_DIR_NAME
    gallery.mkdir(exist_ok=True)
    wanted = {capture.image for capture in merged.report.gallery}
    for shard in shards:
        for capture in shard.report.gallery:
            source = shard.folder / GALLERY_DIR_NAME / capture.image
            if capture.image in wanted and source.is_file():
                shutil.copyfile(source, gallery / capture.image)
                wanted.discard(capture.image)
    tests = []
    by_nodeid = {test.nodeid: shard for shard in shards for test in shard.report.tests}
    for test in merged.report.tests:
        ran_in = by_nodeid.get(test.nodeid)
        if test.traces and ran_in is not None:
            test = test.model_copy(update={"traces": tuple(
                _copy_trace(Path(trace), ran_in, folder) for trace in test.traces)})
        tests.append(test)
    report = merged.report.model_copy(update={"tests": tests})
    write_html_report(report, folder, locales=shown_locales(report))
    report.write(folder / SUITE_FILE_NAME)


def _copy_trace(trace: Path, shard: Shard, folder: Path) -> str:
    """The trace's place in the merged folder: found in the shard's folder where the shard
    wrote it (relative to the folder it had then), else left where it is."""
    written_in = Path(shard.record.folder) if shard.record.folder else None
    candidates = [trace]
    relative: Path | None = None
    if written_in is not None and trace.is_relative_to(written_in):
        relative = trace.relative_to(written_in)
        candidates.insert(0, shard.folder / relative)
    source = next((path for path in candidates if path.is_file()), None)
    if source is None:
        return str(trace)
    tail = relative.parts[1:] if relative is not None and relative.parts[:1] == (
        TRACES_DIR_NAME,) else (relative.parts if relative is not None else (trace.name,))
    target = folder.joinpath(TRACES_DIR_NAME,
                             f"shard-{shard.record.index}-of-{shard.record.count}", *tail)
    target.parent.mkdir(parents=True, exist_ok=True)
    if source.resolve() != target.resolve():
        shutil.copyfile(source, target)
    return str(target.resolve())


def merge_junit(shards: Sequence[Shard], merged: Merged, path: Path) -> list[str]:
    """One JUnit file: every shard's test suites, then a suite of the merge's own
    problems (each an error case), so a CI view shows a lost check too. Returns the
    folders that had no JUnit file."""
    root = ET.Element("testsuites", name="pling")
    absent: list[str] = []
    for shard in shards:
        source = shard.folder / JUNIT_FILE_NAME
        if not source.is_file():
            absent.append(str(shard.folder))
            continue
        parsed = ET.parse(source).getroot()
        for suite in ([parsed] if parsed.tag == "testsuite" else parsed.iter("testsuite")):
            suite.set("name", f"{suite.get('name', 'pytest')} (shard {shard.label})")
            root.append(suite)
    if merged.problems:
        suite = ET.SubElement(root, "testsuite", name=MERGE_SUITE_NAME,
                              tests=str(len(merged.problems)), errors=str(len(merged.problems)),
                              failures="0", skipped="0")
        for number, problem in enumerate(merged.problems, start=1):
            case = ET.SubElement(suite, "testcase", classname=MERGE_SUITE_NAME,
                                 name=f"problem-{number}")
            ET.SubElement(case, "error", message=problem).text = problem
    path.parent.mkdir(parents=True, exist_ok=True)
    ET.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)
    return absent


def run_merge(folders: Sequence[Path], *, report_folder: Path | None,
              junit: Path | None) -> int:
    """Merge, write what was asked, print the summary and the problems; 0 only when every
    check ran exactly once and passed (or was skipped / n/a, as in one serial run)."""
    shards = [read_shard(folder) for folder in folders]
    merged = merge(shards)
    if report_folder is not None:
        write_merged(merged, shards, report_folder)
    if junit is not None:
        for folder in merge_junit(shards, merged, junit):
            print(f"pling-tutorial: note: {folder} has no {JUNIT_FILE_NAME}; its checks are "
                  "in the merged report but not in the merged JUnit file", file=sys.stderr)
    print(f"Merged {len(shards)} shard report(s): "
          + ", ".join(f"{shard.label} ({len(shard.report.tests)} checks)" for shard in shards))
    print(render_summary(merged.report, shown_locales(merged.report)))
    for problem in merged.problems:
        print(f"merge problem: {problem}")
    if report_folder is not None:
        print(f"HTML report: {report_folder / REPORT_FILE_NAME}")
    return 0 if merged.ok else 1

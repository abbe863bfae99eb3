"""`pling-tutorial releases` over a range: the registry's exact releases in version order,
each companion at its release that goes with each one, and per guarantee the first release
that breaks it and the first that keeps it again, by bisection or release by release; a
release that could not be judged (no install, no page, a check that errored) is an error,
never a break, and the exit code says so."""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from pathlib import Path

import pytest

from pling_harness.cli.main import main
from pling_harness.cli.releases import registry, search
from pling_harness.cli.releases.command import range_exit_code
from pling_harness.cli.releases.verdict import CheckRun
from pling_harness.evidence.guarantees import GuaranteeViolation
from pling_harness.evidence.timeline import Timeline
from pling_harness.plugin.report import Outcome, SuiteReport, TestRecord
from pling_harness.plugin.reporting import violation_parts

PROJECT_ROOT = Path(__file__).resolve().parents[1]
DENIAL = "denial-respected"
OTHER = "approval-honoured"


def test_versions_are_ordered_as_versions_and_prereleases_only_when_asked() -> None:
    published = ["7.0.10", "7.0.9", "7.0.0-beta.10", "7.0.0-beta.2", "7.0.0", "6.9.9",
                 "7.1.0-canary.1", "7.0.11", "latest-ish"]

    assert registry.versions_in_range(published, "7.0.0", "7.0.10") == [
        "7.0.0", "7.0.9", "7.0.10"]
    assert registry.versions_in_range(published, "6.9.9", "7.0.0", prereleases=True) == [
        "6.9.9", "7.0.0-beta.2", "7.0.0-beta.10", "7.0.0"]
    with pytest.raises(registry.RegistryError, match="comes after"):
        registry.versions_in_range(published, "7.0.10", "7.0.9")
    with pytest.raises(registry.RegistryError, match="not an exact version"):
        registry.versions_in_range(published, "^7", "7.0.9")


def fake_registry(calls: list[list[str]]) -> registry.View:
    """`npm view` of a package `p` whose companion `c` pins it exactly (not every release:
    no c pins p 1.0.3), and `o` that pins nothing, published minutes after each p."""
    start = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)

    def view(arguments: Sequence[str]) -> object:
        calls.append(list(arguments))
        if arguments[0] == "c@2":
            return [{"version": "2.0.1", "dependencies.p": "1.0.1"},
                    {"version": "2.0.2", "dependencies.p": "1.0.2"},
                    {"version": "2.0.3", "dependencies.p": "1.0.2"},
                    {"version": "2.0.4-beta.1", "dependencies.p": "1.0.3"},
                    {"version": "2.0.5", "dependencies.p": "1.0.4"}]
        if arguments[0] == "o@3":
            return [{"version": "3.0.1"}, {"version": "3.0.2"}]
        if arguments == ["p", "time"]:
            return {"created": "x", **{f"1.0.{n}": (start + datetime.timedelta(days=n))
                                       .isoformat() for n in range(1, 5)}}
        if arguments == ["o", "time"]:
            return {f"3.0.{n}": (start + datetime.timedelta(days=n, minutes=5)).isoformat()
                    for n in range(1, 5)} | {"4.0.0": start.isoformat()}
        raise AssertionError(f"unexpected npm view {arguments}")
    return view


def test_each_companion_is_at_its_release_that_goes_with_each_one() -> None:
    calls: list[list[str]] = []

    pins = registry.release_pins("p", ["1.0.1", "1.0.2", "1.0.3", "1.0.4"],
                                 {"c": 2, "o": 3}, fake_registry(calls))

    assert {v: pin.packages for v, pin in pins.items()} == {
        # c pins p exactly: its newest release pinning it, else the newest pinning an
        # earlier one (no c release pins 1.0.3 but a beta); o pins nothing: its release of
        # the same major published with each (3.0.3 five minutes after p 1.0.3).
        "1.0.1": {"p": "1.0.1", "c": "2.0.1", "o": "3.0.1"},
        "1.0.2": {"p": "1.0.2", "c": "2.0.3", "o": "3.0.2"},
        "1.0.3": {"p": "1.0.3", "c": "2.0.3", "o": "3.0.3"},
        "1.0.4": {"p": "1.0.4", "c": "2.0.5", "o": "3.0.4"}}
    assert ["c@2", "version", "dependencies.p"] in calls


def violation(guarantee: str) -> str:
    return violation_parts(GuaranteeViolation(guarantee, "no notice", Timeline()))[0]


def run_of(*records: tuple[str, Outcome, str | None]) -> CheckRun:
    """One check run whose report holds `records` (guarantee, outcome, message)."""
    return CheckRun("checks/test_x.py::a", SuiteReport(tests=[
        TestRecord(nodeid=f"checks/test_x.py::{guarantee}", guarantees=(guarantee,),
                   outcome=outcome, message=message)
        for guarantee, outcome, message in records]))


BREAKS = run_of((DENIAL, "failed", violation(DENIAL)), (OTHER, "passed", None))
KEEPS = run_of((DENIAL, "passed", None), (OTHER, "passed", None))
ERRORED = CheckRun("(release)", None, "ReleaseError: npm install ai@1.0.5 failed: E404")
WAIT_RAN_OUT = run_of((DENIAL, "failed", "Timeout 30000ms exceeded"), (OTHER, "passed", None))
OTHERS_VIOLATION = run_of((DENIAL, "failed", violation(OTHER)), (OTHER, "passed", None))

VERSIONS = [f"1.0.{n}" for n in range(1, 11)]


def tried_with(states: dict[str, CheckRun]) -> tuple[search.Tried, list[str]]:
    order: list[str] = []

    def attempt(version: str) -> Sequence[CheckRun]:
        order.append(version)
        return [states[version]]
    return search.Tried(attempt), order


def test_bisection_finds_the_last_breaking_and_first_keeping_release() -> None:
    runs = {v: BREAKS if n < 7 else KEEPS for n, v in enumerate(VERSIONS, start=1)}
    tried, order = tried_with(runs)

    [denial, other] = search.bisect(VERSIONS, tried, [DENIAL, OTHER])

    assert (denial.first_breaks, denial.last_breaks, denial.first_keeps_again) == (
        "1.0.1", "1.0.6", "1.0.7")
    assert len(order) == len(set(order)) <= 6  # each release tried once, far fewer than 10
    assert other.first_breaks is None and "no change to bisect" in other.note
    assert range_exit_code([denial, other], VERSIONS) == 0


def test_a_break_on_the_newest_release_has_no_fix_yet_and_exits_1() -> None:
    runs = {v: KEEPS if n < 4 else BREAKS for n, v in enumerate(VERSIONS, start=1)}
    tried, _ = tried_with(runs)

    [denial] = search.bisect(VERSIONS, tried, [DENIAL])

    assert (denial.first_breaks, denial.first_keeps_again) == ("1.0.4", None)
    assert denial.breaks_newest
    assert range_exit_code([denial], VERSIONS) == 1


@pytest.mark.parametrize("unjudged", [ERRORED, WAIT_RAN_OUT, OTHERS_VIOLATION])
def test_a_release_that_cannot_be_judged_is_set_aside_never_a_break(
        unjudged: CheckRun) -> None:
    # 1.0.6 (the first middle tried) cannot be judged: the search goes on around it.
    runs = {v: BREAKS if n < 8 else KEEPS for n, v in enumerate(VERSIONS, start=1)}
    runs["1.0.6"] = unjudged
    tried, order = tried_with(runs)

    [denial] = search.bisect(VERSIONS, tried, [DENIAL])

    assert order[2] == "1.0.6" and denial.states["1.0.6"][0] == "error"
    assert (denial.last_breaks, denial.first_keeps_again) == ("1.0.7", "1.0.8")
    assert denial.note == ""
    assert range_exit_code([denial], VERSIONS) == 3  # answered, with a release unjudged


def test_an_unjudged_release_between_the_pair_is_named() -> None:
    runs = {v: BREAKS if n < 7 else KEEPS for n, v in enumerate(VERSIONS, start=1)}
    runs["1.0.6"] = ERRORED
    tried, _ = tried_with(runs)

    [denial] = search.bisect(VERSIONS, tried, [DENIAL])

    assert (denial.last_breaks, denial.first_keeps_again) == ("1.0.5", "1.0.7")
    assert denial.note.startswith("1.0.6 between 1.0.5 and 1.0.7 could not be judged")


def test_an_end_that_cannot_be_judged_answers_nothing_and_exits_1() -> None:
    runs = {v: BREAKS for v in VERSIONS} | {"1.0.10": ERRORED}
    tried, order = tried_with(runs)

    [denial] = search.bisect(VERSIONS, tried, [DENIAL])

    assert order == ["1.0.1", "1.0.10"] and "no change to bisect" in denial.note
    assert denial.first_keeps_again is None
    assert range_exit_code([denial], VERSIONS) == 1


def test_each_release_reads_every_change_in_version_order() -> None:
    runs = {v: KEEPS for v in VERSIONS} | {"1.0.3": BREAKS, "1.0.4": BREAKS}
    tried, order = tried_with(runs)

    [denial] = search.each(VERSIONS, tried, [DENIAL])

    assert order == VERSIONS
    assert (denial.first_breaks, denial.last_breaks, denial.first_keeps_again) == (
        "1.0.3", "1.0.4", "1.0.5")


@pytest.mark.parametrize(("arguments", "said"), [
    (["--page", "ai-sdk", "--package", "ai", "--from", "7.0.30"], "a range needs --to"),
    (["--page", "ai-sdk", "--package", "ai", "--from", "^7", "--to", "7.0.31"],
     "not an exact version"),
    (["--page", "ours", "--package", "ai", "--from", "7.0.30", "--to", "7.0.31"],
     "no framework page 'ours'"),
    (["--page", "react", "--package", "ai", "--from", "7.0.30", "--to", "7.0.31"],
     "--package ai is not a dependency of page react"),
    (["--bugs", "--page", "react"], "no declared bugs for page ['react']"),
    (["--bugs", "no-such-bug"], "no bug named ['no-such-bug']"),
    (["--page", "ai-sdk", "--package", "ai", "--from", "7.0.30", "--to", "7.0.31", "--bug",
      "no-such-bug"], "no declared bug 'no-such-bug' on page ai-sdk"),
    (["--bugs", "--page", "ai-sdk", "no-such-bug"], "no bug named ['no-such-bug']"),
    (["--bugs", "--page", "ai-sdk", "--no-such-option"], "unrecognized arguments"),
    (["--table", "docs/release-replay.md", "--page", "ai-sdk"], "go with --bugs"),
])
def test_bad_input_is_a_usage_line_and_runs_nothing(
        arguments: list[str], said: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["releases", "r-15", "--root", str(PROJECT_ROOT), *arguments])

    assert code == 2
    assert said in capsys.readouterr().err


def test_the_command_bisects_a_range_with_a_declared_bugs_page_and_prints_the_pair(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    from pling_harness.cli.releases import seats
    from pling_harness.mutation.releases import PageSwap, ReleasePins

    asked: list[tuple[str, str, tuple[PageSwap, ...]]] = []

    def replay(place: object, checks: str, pins: ReleasePins, folder: Path,
               swaps: tuple[PageSwap, ...] = (), serve: object = None) -> list[CheckRun]:
        version = pins.packages["ai"]
        asked.append((version, checks, swaps))
        broken = registry.compare(version, "7.0.138") < 0
        return [run_of((OTHER, "failed", violation(OTHER)) if broken else (OTHER, "passed", None))]

    published = [f"7.0.{n}" for n in range(120, 160)] + ["7.0.140-beta.1"]
    monkeypatch.setattr(registry, "registry_versions", lambda package: published)
    monkeypatch.setattr(registry, "release_pins", lambda package, versions, companions: {
        v: ReleasePins(packages={"ai": v, **{c: "1.0.0" for c in companions}})
        for v in versions})
    monkeypatch.setattr(seats, "replay_release", replay)

    code = main(["releases", "r-15", "--root", str(PROJECT_ROOT), "--page", "ai-sdk",
                 "--package", "ai", "--from", "7.0.130", "--to", "7.0.145", "--runs",
                 str(tmp_path), "--bug", "vercel-ai-17033-approval-skipped-by-a-later-message"])

    said = capsys.readouterr().out
    [row] = [line for line in said.splitlines() if line.startswith("| approval-honoured")]
    cells = [cell.strip() for cell in row.split("|")]
    assert code == 0
    assert cells[3].startswith("ai@7.0.137 ") and cells[4].startswith("ai@7.0.138 ")
    # The bug's checks and its page swaps on every release; each release tried once, and
    # the page's own package that pins ai exactly (@ai-sdk/react) set with each.
    assert {checks for _, checks, _ in asked} == {
        "test_an_approved_call_runs_even_when_a_message_follows_the_approval"}
    assert all(len(swaps) == 1 for _, _, swaps in asked)
    assert len(asked) == len({version for version, _, _ in asked}) <= 7
    assert "with @ai-sdk/react released with each" in said


def test_an_invalid_releases_file_is_a_usage_line(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "project"
    tutorial = PROJECT_ROOT / "tutorials" / "r-15-confirmation-and-human-handoff"
    copied = root / "tutorials" / tutorial.name
    for path in tutorial.rglob("*"):
        if path.is_file() and "__pycache__" not in path.parts:
            (copied / path.relative_to(tutorial)).parent.mkdir(parents=True, exist_ok=True)
            (copied / path.relative_to(tutorial)).write_bytes(path.read_bytes())
    (copied / "mutation" / "releases.json").write_text('{"tutorial": "r-15", "page": 1}')

    code = main(["releases", "r-15", "--root", str(root), "--bugs"])

    assert code == 2
    assert "releases.json" in capsys.readouterr().err

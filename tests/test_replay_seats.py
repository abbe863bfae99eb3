"""The release replay's seats (pling_harness/cli/releases/seats.py): each replayed check
in a seat of its own, every run's output kept, and a replay whose page cannot start (a page
command that exits at once, a release the registry lacks) reported as an error, never a
catch, with the command exiting non-zero."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from pling_harness.cli.main import main
from pling_harness.cli.releases import declared, seats, serving
from pling_harness.cli.releases.seats import SeatAddress
from pling_harness.cli.releases.serving import Place
from pling_harness.cli.releases.verdict import CheckRun, judge_release
from pling_harness.evidence.guarantees import GuaranteeViolation
from pling_harness.evidence.timeline import Timeline
from pling_harness.mutation.releases import ReleaseBug, ReleasePins
from pling_harness.plugin.report import Outcome, SuiteReport, TestRecord
from pling_harness.plugin.reporting import violation_parts
from pling_harness.project.page_rows import PageRow
from pling_harness.project.tutorials import load_tutorial

PROJECT_ROOT = Path(__file__).resolve().parents[1]
PLACE = Place(PROJECT_ROOT, load_tutorial("r-15", PROJECT_ROOT), "ai-sdk")

GUARANTEE = "denial-respected"
FIXED = ReleasePins(packages={"ai": "7.0.31"})


def bug(name: str = "fake-1-page-bug", checks: str | None = "denial-respected",
        fixed: ReleasePins | None = FIXED, not_replayed: str | None = None) -> ReleaseBug:
    return ReleaseBug.model_validate(dict(
        name=name, report="https://example.com/issue/1", fix="the fix",
        promise="a denial is shown", expected=(GUARANTEE,),
        buggy=ReleasePins(packages={"ai": "7.0.30"}), fixed=fixed,
        shows="nothing", checks=checks, not_replayed=not_replayed))


SERVE_PAGE = serving.serve_page


def page_that_exits_at_once(place: Place, directory: Path) -> PageRow:
    """The page's row with its command replaced by one that prints one line and exits 1."""
    return SERVE_PAGE(place, directory).model_copy(update={"command": (
        "/bin/sh", "-c", "echo 'page: cannot start, port taken' >&2; exit 1"),
        "build_command": None})


def test_a_replay_whose_page_cannot_start_is_an_error_not_a_catch(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    @contextmanager
    def no_install(place: Place, pins: ReleasePins, swaps: object = ()) -> Iterator[Path]:
        yield place.directory  # its own folder: the command below never reads it

    monkeypatch.setattr(serving, "page_on", no_install)
    monkeypatch.setattr(serving, "serve_page", page_that_exits_at_once)
    monkeypatch.setattr(declared, "declared_bugs", lambda place: {"ai-sdk": (bug(),)})
    table = tmp_path / "replay.md"
    table.write_text(f"{declared.BEGIN}\n{declared.END}\n")

    code = main(["releases", "r-15", "--root", str(PROJECT_ROOT), "--bugs", "--page",
                 "ai-sdk", "--table", str(table)])

    assert code == declared.EXIT_NOT_AS_EXPECTED
    [line] = table.read_text().split(declared.BEGIN)[1].split(declared.END)[0] \
        .strip().splitlines()[2:]
    cells = [cell.strip() for cell in line.split("|")]
    assert cells[3] == "**error**"
    assert cells[5].startswith("error: ") and "the page did not start" in cells[5]
    assert "page: cannot start, port taken" in cells[5]
    assert "caught" not in cells[5]
    # The page's output is kept beside the table, one folder per row and release.
    kept = tmp_path / "replay-runs" / "ai-sdk" / "fake-1-page-bug" / "buggy"
    assert "cannot start" in (kept / "error.txt").read_text()
    assert "cannot start" in (kept / "00-first-load" / "page-server.log").read_text()
    assert "did_not_start" in (kept / "00-first-load" / "seat.json").read_text()
    assert cells[9] == "`replay-runs/ai-sdk/fake-1-page-bug`"


def test_a_release_the_registry_lacks_is_an_error_not_a_catch(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLING_RELEASES_CACHE", str(tmp_path / "cache"))
    missing = ReleasePins(packages={"ai": "0.0.999999"})

    runs = seats.replay_release(PLACE, "denial-respected", missing, tmp_path / "buggy")

    judged = judge_release((GUARANTEE,), runs)
    assert judged.verdict == "error" and judged.caught == {}
    assert "npm install ai@0.0.999999" in judged.errors["(release)"]
    assert not PLACE.copy.exists()


def violation(problem: str) -> str:
    return violation_parts(GuaranteeViolation(GUARANTEE, problem, Timeline()))[0]


def test_each_check_gets_a_seat_of_its_own_and_a_crash_stays_in_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    checks = [f"checks/test_x.py::test_{n}" for n in
              ("first", "crashes", "after_a_seat_that_broke", "last")]
    seated: list[Path] = []

    @contextmanager
    def no_install(place: Place, pins: ReleasePins, swaps: object = ()) -> Iterator[Path]:
        yield place.directory  # never served: warm and the seats are fakes

    @contextmanager
    def fake_seat(place: Place, directory: Path, folder: Path,
                  serve: object = None) -> Iterator[SeatAddress]:
        folder.mkdir(parents=True, exist_ok=True)
        seated.append(folder)
        if folder.name == "03-test_after_a_seat_that_broke":
            raise RuntimeError("the fixture server did not start")
        yield SeatAddress(PageRow(name=f"seat-{len(seated)}", command=("true",)))

    said: dict[str, tuple[Outcome, str | None]] = {
        checks[0]: ("failed", violation("no notice")),
        checks[1]: ("error", "Failed: the server did not reset"),
        checks[3]: ("passed", None)}

    def fake_run(place: Place, address: SeatAddress, expression: str,
                 nodeid: str, others: list[str], folder: Path) -> CheckRun:
        assert address.row.name == f"seat-{len(seated)}"  # this check's own seat
        outcome, message = said[nodeid]
        record = TestRecord(nodeid=nodeid, guarantees=(GUARANTEE,), outcome=outcome,
                            message=message)
        return CheckRun(nodeid, SuiteReport(tests=[record]), None, str(folder))

    monkeypatch.setattr(serving, "page_on", no_install)
    monkeypatch.setattr(seats, "warm", lambda place, row, folder: None)
    monkeypatch.setattr(seats, "seat", fake_seat)
    monkeypatch.setattr(seats, "selected_checks", lambda *args: checks)
    monkeypatch.setattr(seats, "run_one_check", fake_run)

    runs = seats.replay_release(PLACE, "denial-respected", bug().buggy, tmp_path / "b")

    assert [run.check for run in runs] == checks
    assert len(seated) == 4 and len(set(seated)) == 4
    assert [Path(run.output).name for run in runs] == [
        "01-test_first", "02-test_crashes", "03-test_after_a_seat_that_broke", "04-test_last"]
    judged = judge_release((GUARANTEE,), runs)
    # The checks after a crash, and after a seat that broke, were judged on seats of their
    # own; the crash and the broken seat are still errors.
    assert judged.verdict == "error" and judged.passed == 1
    assert judged.caught == {GUARANTEE: violation("no notice")}
    assert judged.errors[checks[2]] == "RuntimeError: the fixture server did not start"
    assert "the fixture server did not start" in (seated[2] / "error.txt").read_text()


def test_a_bug_not_replayed_must_say_why_and_a_replayed_one_must_not() -> None:
    with pytest.raises(ValueError, match="must say why it is not replayed"):
        bug(checks=None)
    with pytest.raises(ValueError, match="drop not_replayed"):
        bug(not_replayed="no page yet")
    assert bug(checks=None, not_replayed="no page yet").not_replayed == "no page yet"


def test_an_open_bug_has_no_fixed_release_and_its_row_says_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    opened = bug(fixed=None)
    assert opened.is_open
    replayed: list[str] = []

    def caught_on(place: Place, checks: str, pins: ReleasePins, folder: Path,
                  swaps: object = ()) -> list[CheckRun]:
        replayed.append(seats.release_name(pins))
        record = TestRecord(nodeid="checks/test_x.py::a", guarantees=(GUARANTEE,),
                            outcome="failed", message=violation("no notice"))
        return [CheckRun(record.nodeid, SuiteReport(tests=[record]))]

    monkeypatch.setattr(seats, "replay_release", caught_on)
    row = declared.replay_bug(PLACE, opened, tmp_path, "2026-12-07")

    assert replayed == ["ai@7.0.30"]  # the newest release only
    assert (row.outcome, row.fixed, row.fixed_said) == ("open", "none yet", "-")
    assert row.buggy_said == f"caught: {violation('no notice')}"
    assert declared.exit_code([row]) == 0


def test_a_bug_not_replayed_shows_its_reason_and_the_command_exits_3(tmp_path: Path) -> None:
    row = declared.replay_bug(PLACE, bug(checks=None, not_replayed="the page on AI SDK 6"),
                              tmp_path, "2026-12-07")
    assert row.outcome == "not replayed" and "the page on AI SDK 6" in row.checks
    assert declared.exit_code([row]) == declared.EXIT_NOT_ALL_REPLAYED


def fake_check_run(monkeypatch: pytest.MonkeyPatch, *nodeids: str,
                   page_stopped: str | None = None) -> None:
    """The check run replaced by one that writes a report of `nodeids`, each failed with
    the expected guarantee's violation (and the page's early exit, if `page_stopped`)."""
    def run_and_keep(place: Place, command: list[str], folder: Path, name: str,
                     timeout_s: float) -> None:
        # The bug's -k with every other check it selects deselected: this one runs alone.
        deselected = [command[i + 1] for i, flag in enumerate(command) if flag == "--deselect"]
        assert deselected == ["checks/test_x.py::b"]
        assert command[command.index("-k") + 1] == "x"
        report = Path(command[command.index("--pling-report") + 1])
        SuiteReport(tests=[TestRecord(nodeid=nodeid, guarantees=(GUARANTEE,), outcome="failed",
                                      message=violation("no notice")) for nodeid in nodeids],
                    page_stopped=page_stopped).write(report)

    monkeypatch.setattr(seats, "run_and_keep", run_and_keep)


@pytest.mark.parametrize(("still_up", "reported", "problem"), [
    (True, ["checks/test_x.py::a"], None),
    (False, ["checks/test_x.py::a"], "the page stopped during the check"),
    (True, ["checks/test_x.py::a", "checks/test_x.py::b"], "was to hold checks/test_x.py::a"),
    (True, [], "was to hold checks/test_x.py::a"),
])
def test_a_violation_counts_only_from_a_run_of_that_check_alone_on_a_page_still_serving(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, still_up: bool, reported: list[str],
        problem: str | None) -> None:
    fake_check_run(monkeypatch, *reported,
                   page_stopped=None if still_up else "page ai-sdk exited before the run ended")
    address = SeatAddress(PLACE.row)

    run = seats.run_one_check(PLACE, address, "x", "checks/test_x.py::a",
                              ["checks/test_x.py::a", "checks/test_x.py::b"], tmp_path)

    judged = judge_release((GUARANTEE,), [run])
    if problem is None:
        assert run.problem is None and judged.verdict == "caught"
    else:
        assert run.problem is not None and problem in run.problem
        assert judged.verdict == "error"


def test_pages_served_on_releases_are_the_rows_whose_folder_has_a_package_json() -> None:
    served = serving.served_pages(PLACE.tutorial, PROJECT_ROOT)

    assert "ours" not in served  # no command: the fixture server's own page
    assert {"react", "react-build", "ai-sdk", "copilotkit", "copilotkit-build",
            "assistant-ui"} <= set(served)
    with pytest.raises(serving.ServingError, match="no way to serve page 'ours'"):
        _ = Place(PROJECT_ROOT, PLACE.tutorial, "ours").row


def test_a_release_is_served_by_the_pages_own_row_on_its_copy(tmp_path: Path) -> None:
    place = Place(PROJECT_ROOT, PLACE.tutorial, "assistant-ui")
    copy = place.copy

    row = serving.serve_page(place, copy)

    assert row.cwd == f"fixtures/.r-15-assistant-ui-replay-{os.getpid()}"
    assert row.model_copy(update={"cwd": place.row.cwd}) == place.row


def test_a_copy_of_a_page_keeps_its_files_and_dotfiles_and_links_the_releases_packages(
        tmp_path: Path) -> None:
    page, packages = tmp_path / "page", tmp_path / "release" / "node_modules"
    for name in ("src/main.tsx", ".env", "node_modules/x/index.js", "dist/index.html",
                 ".vite-cache/deps/x.js"):
        (page / name).parent.mkdir(parents=True, exist_ok=True)
        (page / name).write_text(name)
    packages.mkdir(parents=True)

    serving.copy_page(page, tmp_path / "copy", packages)

    copied = sorted(str(path.relative_to(tmp_path / "copy"))
                    for path in (tmp_path / "copy").rglob("*"))
    assert copied == [".env", "node_modules", "src", "src/main.tsx"]
    assert (tmp_path / "copy" / "node_modules").resolve() == packages.resolve()

"""The open breaks of current framework releases (`fixtures/found/<break>/`): each has its
reproduction's README and a valid `found.json`, and docs/frameworks.md's Found block is what
they say, each fail cell of a guarantee they name linking its reproduction."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from pling_harness.cli import frameworks_page
from pling_harness.cli.main import main
from pling_harness.plugin.report import TestRecord
from pling_harness.project.pages_table import pages_table
from pling_harness.project.tutorials import load_tutorial

PROJECT_ROOT = Path(__file__).resolve().parents[1]
R15 = frameworks_page.Where(PROJECT_ROOT, load_tutorial("r-15", PROJECT_ROOT))
PAGES = {page.key: page for page in frameworks_page.framework_pages(R15)}
TITLES = frameworks_page.column_titles(R15)


def found_block() -> str:
    return "\n".join(frameworks_page.found_section(frameworks_page.found_breaks(PROJECT_ROOT),
                                                   TITLES))


def test_every_break_has_a_reproduction_and_a_record() -> None:
    folders = sorted(p for p in (PROJECT_ROOT / frameworks_page.FOUND).iterdir() if p.is_dir())
    breaks = frameworks_page.found_breaks(PROJECT_ROOT)

    assert folders, "no open break recorded"
    assert [p.name for p in folders] == list(breaks)
    assert all((p / "README.md").is_file() for p in folders)
    # A page of the pages table: a column, or a page that is none (the AI SDK 6 replay page).
    pages = set(pages_table(R15.tutorial, PROJECT_ROOT))
    assert {found.page for found in breaks.values()} <= pages


def test_frameworks_page_shows_every_break() -> None:
    block = found_block()
    assert block in (PROJECT_ROOT / "docs" / "frameworks.md").read_text(encoding="utf-8"), (
        "run .venv/bin/pling-tutorial frameworks r-15 --found-only")


def test_the_command_rewrites_only_the_found_block(tmp_path: Path) -> None:
    page = tmp_path / "frameworks.md"
    page.write_text(f"# cells kept\n\n{frameworks_page.FOUND_BEGIN}\nstale\n"
                    f"{frameworks_page.FOUND_END}\n\nafter\n", encoding="utf-8")

    code = main(["frameworks", "r-15", "--root", str(PROJECT_ROOT), "--found-only",
                 "--out", str(page)])

    text = page.read_text(encoding="utf-8")
    assert code == 0
    assert text.startswith("# cells kept\n") and text.endswith("\nafter\n")
    assert "stale" not in text
    assert found_block() in text


BREAK = {"page": "copilotkit", "title": "t", "user_sees": "u", "confirmed_on": ["1.74.0"],
         "known": "not reported"}


def test_a_break_no_check_fails_on_names_the_benchmark_that_measures_it() -> None:
    measured = frameworks_page.Found.model_validate(
        {**BREAK, "measured_by": "`scripts/bench_held.py`: held 190 ms"})
    caught = frameworks_page.Found.model_validate(
        {**BREAK, "check": "table-x", "guarantees": ["model-text-inert"]})

    assert measured.caught_by() == "no check; measured by `scripts/bench_held.py`: held 190 ms"
    assert caught.caught_by() == "`table-x` (model-text-inert)"
    assert measured.caught_by() in frameworks_page.found_section({"slug": measured}, TITLES)[-2]


@pytest.mark.parametrize("fields", [
    {},
    {"check": "table-x", "guarantees": ["model-text-inert"], "measured_by": "bench"},
    {"check": "table-x"},
    {"measured_by": "bench", "guarantees": ["model-text-inert"]},
], ids=["neither", "both", "check-without-guarantee", "benchmark-with-guarantee"])
def test_a_break_is_caught_one_way_and_only_a_check_names_guarantees(
        fields: dict[str, object]) -> None:
    # A guarantee beside a benchmark would link the reproduction from cells that pass.
    with pytest.raises(ValidationError):
        frameworks_page.Found.model_validate({**BREAK, **fields})


def test_a_failing_cell_links_the_reproduction_of_its_break() -> None:
    failed = TestRecord.model_validate({
        "nodeid": "actions.json::test_declared[table-model-text-never-acts-en-chromium]",
        "locale": "en", "guarantees": ["model-text-inert"], "outcome": "failed",
        "failure": "guarantee 'model-text-inert' violated: the page fetched …"})

    cell = frameworks_page.cell([failed], ("copilotkit-remote-images",))

    assert cell.startswith("**fails** 1/1 checks: guarantee 'model-text-inert' violated")
    assert cell.endswith("([reproduction](../fixtures/found/copilotkit-remote-images/))")


def test_a_failing_cell_says_the_problem_on_the_failure_s_second_line() -> None:
    failed = TestRecord.model_validate({
        "nodeid": "actions.json::test_declared[table-page-speaks-its-locale-zh-chromium]",
        "locale": "zh", "guarantees": ["bilingual-copy"], "outcome": "failed",
        "failure": "GuaranteeViolation: guarantee 'bilingual-copy' violated: the zh page "
                   "shows text that is not zh:",
        "message": "guarantee 'bilingual-copy' violated: the zh page shows text that is not "
                   "zh:\n  initial page: Latin words ['Copilot', 'chat', 'sidebar']"})

    assert frameworks_page.cell([failed]) == (
        "**fails** 1/1 checks: guarantee 'bilingual-copy' violated: the zh page shows text "
        "that is not zh: initial page: Latin words ['Copilot', 'chat', 'sidebar']")


def test_an_na_cell_keeps_each_reason_whole_with_its_citation() -> None:
    # The citation comes last in a driver's reason; a cut reason would drop it.
    why = ("ai-sdk: assistant_endpoints: the page's server runs an approved call itself; its "
           "business request never passes through the browser (ai 7.0.173, "
           "collectToolApprovals then executeToolCall in dist/index.mjs, where the approved "
           "call runs on the page's server before the next model request)")
    skipped = TestRecord.model_validate({
        "nodeid": "actions.json::test_declared[archive_workspace-declared-effect-en-chromium]",
        "locale": "en", "guarantees": ["declared-effect"], "outcome": "n/a", "reason": why})

    assert len(why) > 220
    assert frameworks_page.cell([skipped]) == f"n/a: {why}"


def test_a_framework_s_na_cell_links_its_judgement() -> None:
    copilotkit, ours = PAGES["copilotkit"], PAGES["ours"]
    judged = (PROJECT_ROOT / "docs" / frameworks_page.JUDGED).read_text(encoding="utf-8")

    assert frameworks_page.judged(copilotkit, "n/a: copilotkit: handoff.timer: …").endswith(
        "([judged](frameworks-judged.md#copilotkit-1740))")
    assert frameworks_page.judged(copilotkit, "kept (zh, en; 2 checks)") == (
        "kept (zh, en; 2 checks)")
    assert frameworks_page.judged(ours, "n/a: external: …") == "n/a: external: …"
    assert "## CopilotKit (1.74.0)" in judged and "## Vercel AI SDK (7.0.173)" in judged


def test_the_columns_are_the_pages_table_rows_that_have_one() -> None:
    assert list(PAGES) == ["ours", "ai-sdk", "copilotkit", "assistant-ui"]
    assert PAGES["assistant-ui"].versions(R15).startswith("`@assistant-ui/react` ")
    assert PAGES["ours"].versions(R15) == "this checkout's runtime (pling_harness/web/runtime)"


def test_a_page_the_table_has_no_column_for_is_a_usage_error(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code = main(["frameworks", "r-15", "--root", str(PROJECT_ROOT), "--pages", "react",
                 "--render-only", "--out", str(tmp_path / "page.md")])

    assert code == 2
    assert "--pages: no page 'react'; there are: ours, ai-sdk, copilotkit, assistant-ui" \
        in capsys.readouterr().err
    assert not (tmp_path / "page.md").exists()


def test_the_page_has_a_column_per_row_and_says_which_were_not_run(tmp_path: Path) -> None:
    page = tmp_path / "page.md"

    code = main(["frameworks", "r-15", "--root", str(PROJECT_ROOT), "--render-only",
                 "--runs", str(tmp_path / "runs"), "--out", str(page)])

    text = page.read_text(encoding="utf-8")
    assert code == 0
    assert "built 4 ways (Reference runtime, Vercel AI SDK, CopilotKit, assistant-ui)" in text
    assert "| guarantee | Reference runtime | Vercel AI SDK | CopilotKit | assistant-ui |" \
        in text
    assert text.count("| not run: no kept run |") == 4

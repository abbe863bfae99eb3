"""`pling-tutorial list` and the command dispatch."""

from __future__ import annotations

import pytest

from pling_harness.cli.main import main


def test_cli_list_prints_id_short_id_and_both_titles(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list"]) == 0

    out = capsys.readouterr().out
    (line,) = [line for line in out.splitlines() if "r-15" in line]
    assert line.split()[:2] == ["r-15-confirmation-and-human-handoff", "r-15"]
    assert "确认与人工接力" in line
    assert "Confirmation and human handoff" in line


def test_cli_without_command_exits_2_with_usage(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2

    assert "usage: pling-tutorial" in capsys.readouterr().err


def test_cli_unknown_command_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve"]) == 2

    assert "invalid choice: 'serve'" in capsys.readouterr().err


def test_cli_help_exits_0_listing_commands(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0

    out = capsys.readouterr().out
    assert "list" in out
    assert "dev" in out

"""`pling-tutorial mutate r-15 --generated`: argument handling, without running Stryker."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pling_harness.cli import mutate as mutate_command
from pling_harness.cli.main import main


@pytest.fixture
def generated_calls(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Stand in for the Stryker run at the CLI's boundary: record what it was asked to do."""
    calls: list[dict[str, Any]] = []

    def record(**kwargs: Any) -> int:
        calls.append(kwargs)
        return 0

    monkeypatch.setattr(mutate_command, "run_generated", record)
    return calls


def test_generated_defaults_to_every_group_one_mutant_at_a_time(
    generated_calls: list[dict[str, Any]],
) -> None:
    assert main(["mutate", "r-15", "--generated"]) == 0

    [call] = generated_calls
    assert call["tutorial_id"] == "r-15-confirmation-and-human-handoff"
    assert call["command"] == "pling-tutorial mutate r-15 --generated"
    assert call["groups"] == ()
    assert call["concurrency"] == 1
    assert call["force"] is False


def test_generated_passes_groups_jobs_and_force(generated_calls: list[dict[str, Any]]) -> None:
    code = main(["mutate", "r-15", "--generated", "--group", "policy", "--group", "dock",
                 "--jobs", "2", "--force"])

    assert code == 0
    [call] = generated_calls
    assert call["groups"] == ("policy", "dock")
    assert call["concurrency"] == 2
    assert call["force"] is True


@pytest.mark.parametrize("flags", [["--only", "archive-no-prompt"], ["--focused"], ["--verbose"]])
def test_generated_with_a_catalogue_flag_is_a_usage_error(
    flags: list[str], capsys: pytest.CaptureFixture[str], generated_calls: list[dict[str, Any]],
) -> None:
    code = main(["mutate", "r-15", "--generated", *flags])

    assert code == 2
    assert f"{flags[0]} cannot be used with --generated" in capsys.readouterr().err
    assert generated_calls == []


@pytest.mark.parametrize("flags", [["--group", "policy"], ["--force"]])
def test_group_or_force_without_generated_is_a_usage_error(
    flags: list[str], capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["mutate", "r-15", *flags])

    assert code == 2
    assert "--group and --force go with --generated" in capsys.readouterr().err


def test_generated_unknown_group_names_the_plans_groups(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["mutate", "r-15", "--generated", "--group", "nope"])

    assert code == 2
    err = capsys.readouterr().err
    assert "no group named 'nope'; the plan has: policy, executor" in err


def test_generated_without_node_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))

    code = main(["mutate", "r-15", "--generated", "--group", "policy"])

    assert code == 2
    err = capsys.readouterr().err
    assert "node is not on PATH" in err
    assert "Node.js >= 20 and npm" in err

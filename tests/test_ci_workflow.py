"""The CI gate example (.github/workflows/tutorial-check.yml) is valid and runs what the
README says: its two commands, the check as a matrix of shards whose reports one merge job
turns into the verdict, with the report and JUnit file kept even when checks fail."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

# The harness's own checkout: the project these tests check.
PROJECT_ROOT = Path(__file__).resolve().parents[1]


WORKFLOW = PROJECT_ROOT / ".github" / "workflows" / "tutorial-check.yml"
README = PROJECT_ROOT / "README.md"
UPLOAD_ACTION = "actions/upload-artifact@"


@pytest.fixture(scope="module")
def workflow() -> dict[Any, Any]:
    """The workflow file, parsed."""
    loaded = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    assert isinstance(loaded, dict), f"{WORKFLOW} is not a YAML mapping"
    return loaded


def steps(workflow: dict[Any, Any]) -> list[dict[str, Any]]:
    return [step for job in workflow["jobs"].values() for step in job["steps"]]


def runs(workflow: dict[Any, Any]) -> list[str]:
    return [" ".join(str(step["run"]).split()) for step in steps(workflow) if "run" in step]


def readme_commands() -> list[str]:
    """The README's "two commands": the lines of its first shell block that set up and then
    run something (later sections, such as "Gate a release", may repeat them with flags)."""
    text = README.read_text(encoding="utf-8")
    first_block = text.split("```sh", 1)[1].split("```", 1)[0]
    return [line.strip() for line in first_block.splitlines()
            if line.startswith("./scripts/bootstrap && ")]


def test_workflow_runs_each_of_the_readme_commands(workflow: dict[Any, Any]) -> None:
    commands = readme_commands()

    assert len(commands) == 2, f"expected the README's two commands, found {commands}"
    for command in commands:
        assert any(run.startswith(command) for run in runs(workflow)), (
            f"no step runs the README's {command!r}; steps run: {runs(workflow)}")


def job_steps(workflow: dict[Any, Any], job: str) -> list[dict[str, Any]]:
    return list(workflow["jobs"][job]["steps"])


def job_runs(workflow: dict[Any, Any], job: str) -> list[str]:
    return [" ".join(str(step["run"]).split()) for step in job_steps(workflow, job)
            if "run" in step]


def uploads(workflow: dict[Any, Any], job: str) -> dict[str, dict[str, Any]]:
    return {str(step["with"]["path"]).rstrip("/"): step for step in job_steps(workflow, job)
            if str(step.get("uses", "")).startswith(UPLOAD_ACTION)}


def shards(workflow: dict[Any, Any]) -> list[int]:
    return list(workflow["jobs"]["check"]["strategy"]["matrix"]["shard"])


def test_workflow_check_runs_one_shard_per_runner_into_its_report_folder(
    workflow: dict[Any, Any]
) -> None:
    [check] = [run for run in job_runs(workflow, "check") if "pling-tutorial check r-15" in run]
    count = len(shards(workflow))

    assert shards(workflow) == list(range(1, count + 1)) and count > 1, shards(workflow)
    assert workflow["jobs"]["check"]["strategy"]["fail-fast"] is False
    assert check.endswith(f"check r-15 --shard ${{{{ matrix.shard }}}}/{count} "
                          "--report out/report --gallery --junitxml out/report/junit.xml")
    [upload] = uploads(workflow, "check").values()
    assert upload["with"]["path"].rstrip("/") == "out/report"
    assert upload["with"]["name"] == "shard-${{ matrix.shard }}" and upload["if"] == "always()"


def test_workflow_merge_job_merges_every_shard_even_after_a_failed_one(
    workflow: dict[Any, Any]
) -> None:
    merge = workflow["jobs"]["merge"]
    [command] = [run for run in job_runs(workflow, "merge") if "merge-reports" in run]
    [download] = [step for step in merge["steps"]
                  if str(step.get("uses", "")).startswith("actions/download-artifact@")]
    named = command.split("merge-reports", 1)[1].split("--report", 1)[0].split()

    assert merge["needs"] == "check" and merge["if"] == "always()"
    assert download["with"] == {"pattern": "shard-*", "path": "shards"}
    # Every shard named: one whose artifact is missing is an error, never a smaller suite.
    assert named == [f"shards/shard-{index}" for index in shards(workflow)]
    assert command.endswith("--report out/report --junitxml out/junit.xml")


def test_workflow_uploads_the_merged_junit_report_and_traces_even_after_a_failure(
    workflow: dict[Any, Any]
) -> None:
    merged = uploads(workflow, "merge")

    assert set(merged) == {"out/junit.xml", "out/report", "out/report/traces"}
    assert all(step.get("if") == "always()" for step in merged.values()), merged


def test_workflow_runs_on_pull_requests_and_pushes_to_main(workflow: dict[Any, Any]) -> None:
    # YAML 1.1 (PyYAML) reads the bare key `on` as the boolean true.
    triggers = workflow[True]

    assert "pull_request" in triggers and triggers["push"]["branches"] == ["main"]


def test_a_framework_upgrade_is_gated_on_the_promises_of_the_releases_it_crosses(
    workflow: dict[Any, Any]
) -> None:
    job = workflow["jobs"]["framework-upgrade"]
    [versions] = [step for step in job["steps"] if step.get("id") == "versions"]
    [gate] = [run for run in job_runs(workflow, "framework-upgrade") if "releases r-15" in run]
    manifest = job["env"]["PAGE_MANIFEST"]

    assert job["if"] == "github.event_name == 'pull_request'"
    assert (PROJECT_ROOT / manifest).is_file()
    # The pinned release from the pull request's base, the proposed one from its head.
    assert "git show origin/${{ github.base_ref }}:$PAGE_MANIFEST" in versions["run"]
    assert gate.startswith("./scripts/bootstrap && .venv/bin/pling-tutorial releases r-15 "
                           "--page ai-sdk --package ai --from ${{ steps.versions.outputs.from "
                           "}} --to ${{ steps.versions.outputs.to }}")
    assert '-k "$GATED_CHECKS"' in gate and "--each" not in gate  # bisected
    assert uploads(workflow, "framework-upgrade")["out/releases"]["if"] == "always()"

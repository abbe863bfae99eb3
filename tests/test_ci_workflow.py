"""The CI gate example (.github/workflows/tutorial-check.yml) is valid and runs what the
README says: its two commands, with the report and JUnit file kept even when checks fail."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from harness.project.paths import PROJECT_ROOT

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


def test_workflow_check_writes_the_report_and_the_junit_file(workflow: dict[Any, Any]) -> None:
    [check] = [run for run in runs(workflow) if "pling-tutorial check r-15" in run]

    assert check.endswith("check r-15 --report out/report --junitxml out/junit.xml")


def test_workflow_uploads_junit_report_and_traces_even_after_a_failure(
    workflow: dict[Any, Any]
) -> None:
    uploads = {str(step["with"]["path"]).rstrip("/"): step for step in steps(workflow)
               if str(step.get("uses", "")).startswith(UPLOAD_ACTION)}

    assert set(uploads) == {"out/junit.xml", "out/report", "out/report/traces"}
    assert all(step.get("if") == "always()" for step in uploads.values()), uploads


def test_workflow_runs_on_pull_requests_and_pushes_to_main(workflow: dict[Any, Any]) -> None:
    # YAML 1.1 (PyYAML) reads the bare key `on` as the boolean true.
    triggers = workflow[True]

    assert "pull_request" in triggers and triggers["push"]["branches"] == ["main"]

"""message-while-card-waits: generated for every action that asks, and only for those; on a page
that sends the message (the AI SDK page, whose card then stays asking), it fails where a user
sees the conversation die (fixtures/found/ai-sdk-late-approval-kills-thread). Our page, which
holds the message until the card is answered, passes it in the suite's whole-matrix run; the
mutant `send-open-while-card-waits` shows it fails there too."""

from __future__ import annotations

from pathlib import Path

from pling_harness.cli.main import main
from pling_harness.plugin.declared.matrix import declared_checks
from pling_harness.plugin.guarantee_registry import registry
from pling_harness.plugin.report import SuiteReport
from pling_harness.project.action_table import load_action_table

PROJECT_ROOT = Path(__file__).resolve().parents[1]
R15 = PROJECT_ROOT / "tutorials" / "r-15-confirmation-and-human-handoff"
NAME = "message-while-card-waits"


def test_every_asking_action_gets_the_check_and_no_other() -> None:
    assert NAME in registry().guarantees
    ids = {check.id for check in declared_checks(load_action_table(R15 / "actions.json"))}
    assert {f"{action}-{NAME}" for action in
            ("save_workspace_name", "archive_workspace", "reset_workspace")} <= ids
    assert f"get_workspace-{NAME}" not in ids  # a read asks nothing
    assert f"publish_changes-{NAME}" not in ids  # a handoff shows no card


def test_a_late_allow_on_the_ai_sdk_card_left_asking_kills_its_conversation(
    tmp_path: Path,
) -> None:
    report = tmp_path / "report.json"

    code = main(["check", "r-15", "--page", "ai-sdk", "--locale", "en", "-k",
                 f"archive_workspace-{NAME}", "--pling-report", str(report), "-q",
                 "-p", "no:cacheprovider"])

    [test] = SuiteReport.read(report).tests
    assert code == 1 and test.outcome == "failed", test
    # The message written while the card waited was answered; the card, still asking, was
    # allowed; the next message then failed, as a user sees it.
    assert "once the card left waiting was allowed was answered with an error" in str(
        test.message), test.message
    assert "Tool result is missing for tool call" in str(test.message), test.message

"""r-15's own checks judge the AI SDK page (fixtures/r-15-ai-sdk/) through its dock driver
(tutorials/r-15-…/drivers/ai-sdk.json), as the README's two-line recipe runs them:

    pling-tutorial dev r-15 --page ai-sdk --port 5440 --model-url http://127.0.0.1:5441/v1
    pling-tutorial check r-15 --base-url http://127.0.0.1:5440 --model-port 5441 --driver ai-sdk

A representative selection, zh and en: approvals asked, allowed and denied, the human's step
cancelled, and the guarantees the AI SDK offers nothing for reported n/a with the driver's
reason, never passed. The whole suite on this page is a separate run (docs/measurements.md).
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from pling_harness.plugin.report import SuiteReport
from pling_harness.server.page_process import free_port

PROJECT_ROOT = Path(__file__).resolve().parents[1]
PLING_TUTORIAL = Path(sys.executable).parent / "pling-tutorial"
PAGE = PROJECT_ROOT / "fixtures" / "r-15-ai-sdk"
SERVING = re.compile(r"at (http://127\.0\.0\.1:\d+)/\?lang=zh \(page ai-sdk:")
DRIVER = "ai-sdk"
SELECTION = " or ".join([
    "archive_workspace-approval-before-side-effects",
    "reset_workspace-denial-respected",
    "publish_changes-handoff-cancel",
    "publish_changes-success-only-after-published",
    "test_an_approved_call_runs_even_when_a_message_follows_the_approval",
    "test_one_approval_sent_twice_in_one_request_runs_the_action_once",
    "save_workspace_name-session-grant-for-ask",  # n/a: no "always allow"
    "publish_changes-handoff-timeout",  # n/a: no handoff timer
    "table-reply-without-text-or-calls",  # the model's 502 as its code in the chat error
    "table-provider-faults",  # the check hosts the model: its faults are the check's to script
    "table-unknown-action-told",  # told, and the next request answered
    "table-repeated-call-id-refused",  # n/a: the SDK merges calls by id
    # Judged from the business state where the page's server runs the approved call.
    "save_workspace_name-approval-shows-whole-values",
    "archive_workspace-declared-effect",
    "save_workspace_name-success-after-business-answer",
    "archive_workspace-success-after-business-answer",  # n/a: the API refuses no archive
    # The gestures need only Allow and Deny; "always allow" has a check of its own.
    "(test_approval_card_stays_open_until_a_decision_button_is_clicked and keys-on-the-page)",
    "test_keys_and_focus_on_always_allow_answer_nothing",  # n/a: no "always allow"
])
NOT_APPLICABLE = {
    "session-grant-for-ask": "ai-sdk: approval.always:",
    "handoff-timeout": "ai-sdk: handoff.timer:",
    "repeated-call-id": "ai-sdk: repeated_call_id_refused:",
    "archive_workspace-success-after-business-answer": "ai-sdk: assistant_endpoints:",
    "always_allow_answer_nothing": "ai-sdk: approval.always:",
}


@pytest.fixture(scope="module")
def page_url() -> Iterator[tuple[str, int]]:
    """The page served as the recipe's first line serves it (free ports), and its model port."""
    if not (PAGE / "node_modules" / ".bin" / "node").exists():
        pytest.fail(f"the AI SDK page is not installed in {PAGE}; run ./scripts/bootstrap")
    model_port = free_port("127.0.0.1")
    process = subprocess.Popen(
        [str(PLING_TUTORIAL), "dev", "r-15", "--page", "ai-sdk", "--port", "0",
         "--model-url", f"http://127.0.0.1:{model_port}/v1"],
        cwd=PROJECT_ROOT, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        assert process.stdout is not None
        said = []
        for line in process.stdout:
            said.append(line)
            if found := SERVING.search(line):
                yield found.group(1), model_port
                break
        else:
            pytest.fail(f"dev --page ai-sdk did not serve: {''.join(said)[-800:]}")
    finally:
        process.terminate()
        process.communicate(timeout=30)  # drains and closes its output


def test_r15_checks_judge_the_ai_sdk_page_through_its_driver_in_both_locales(
    page_url: tuple[str, int], tmp_path: Path,
) -> None:
    url, model_port = page_url
    report = tmp_path / "report.json"

    run = subprocess.run(
        [str(PLING_TUTORIAL), "check", "r-15", "--base-url", url, "--model-port",
         str(model_port), "--driver", DRIVER, "-k", SELECTION, "--pling-report", str(report),
         "-q", "-p", "no:cacheprovider"],
        cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=900, check=False)

    tests = SuiteReport.read(report).tests
    outcomes = {test.nodeid.split("::")[-1]: (test.outcome, test.reason, test.failure)
                for test in tests}
    assert run.returncode == 0, (outcomes, run.stdout[-2000:])
    assert {test.locale for test in tests} == {"zh", "en"}
    proven = [name for name, (outcome, _, _) in outcomes.items() if outcome == "passed"]
    assert len(proven) >= 8, f"only {proven} ran and passed"
    for name, (outcome, reason, _) in outcomes.items():
        why = next((why for key, why in NOT_APPLICABLE.items() if key in name), None)
        if why is None:
            assert outcome == "passed", f"{name}: {outcome}"
        else:
            assert outcome == "n/a" and reason is not None and reason.startswith(why), (
                f"{name}: {outcome} ({reason})")

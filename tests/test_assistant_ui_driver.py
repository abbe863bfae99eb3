"""r-15's own checks judge the assistant-ui page (fixtures/r-15-assistant-ui/) through its dock
driver (tutorials/r-15-…/drivers/assistant-ui.json). The page is served by its own command, as
a pages-table row would serve it (docs/assistant-ui.md, "Serve it"): Vite under the page's
Node.js 22 in the page's folder, with the fixture server's address and the model's base URL in
its environment; the check then hosts the model on that port:

    pling-tutorial check r-15 --base-url http://127.0.0.1:P --model-port M --driver assistant-ui

A representative selection, zh and en: approvals asked, allowed and denied, the human's step
cancelled, an unknown action told, assistant-ui's open break caught (a model's markdown image
fetched from another site), and the promises assistant-ui does not make ("always allow", a handoff
timer) reported n/a with the driver's reason, never passed. The whole suite on this page is a
separate run (docs/assistant-ui.md).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from pling_harness.plugin.report import SuiteReport
from pling_harness.project.tutorials import load_tutorial
from pling_harness.server.page_process import free_port
from pling_harness.server.runner import TutorialServer

PROJECT_ROOT = Path(__file__).resolve().parents[1]
PLING_TUTORIAL = Path(sys.executable).parent / "pling-tutorial"
PAGE = PROJECT_ROOT / "fixtures" / "r-15-assistant-ui"
# The page's command, as its pages-table row names it ({port}, {api_origin}, {model_url}).
COMMAND = ["node_modules/.bin/node", "node_modules/vite/bin/vite.js", "--port", "{port}",
           "--strictPort", "--host", "127.0.0.1", "--bypass-lock"]
ENV = {"PLING_API_ORIGIN": "{api_origin}", "PLING_OPENAI_BASE_URL": "{model_url}"}
LISTENING = re.compile(r"Local:\s+(http://127\.0\.0\.1:\d+)/")
DRIVER = "assistant-ui"
SELECTION = " or ".join([
    "archive_workspace-approval-before-side-effects",
    "reset_workspace-denial-respected",
    "publish_changes-handoff-cancel",
    "publish_changes-success-only-after-published",
    "test_one_approval_sent_twice_in_one_request_runs_the_action_once",
    "save_workspace_name-session-grant-for-ask",  # n/a: assistant-ui grants nothing
    "publish_changes-handoff-timeout",  # n/a: no handoff timer
    "table-unknown-action-told",  # told, and the next request answered
    "archive_workspace-message-while-card-waits",  # sent: the card cancelled, answered on
    "save_workspace_name-approval-shows-whole-values",
    "table-model-text-never-acts",  # fails: assistant-ui's markdown fetches remote images
    "archive_workspace-declared-effect",
    # The gestures need only Allow and Deny; "always allow" has a check of its own.
    "(test_approval_card_stays_open_until_a_decision_button_is_clicked and keys-on-the-page)",
    "test_keys_and_focus_on_always_allow_answer_nothing",  # n/a: no "always allow"
])
# assistant-ui's open break (fixtures/found/assistant-ui-remote-images/): caught, in each locale.
FAILS = {"table-model-text-never-acts": "guarantee 'model-text-inert' violated"}
NOT_APPLICABLE = {
    "session-grant-for-ask": "assistant-ui: approval.always:",
    "handoff-timeout": "assistant-ui: handoff.timer:",
    "always_allow_answer_nothing": "assistant-ui: approval.always:",
}


def filled(text: str, values: dict[str, str]) -> str:
    return re.sub(r"\{(\w+)\}", lambda found: values[found.group(1)], text)


@pytest.fixture(scope="module")
def page_url() -> Iterator[tuple[str, int]]:
    """The page served by its own command (free ports) over a fixture server, and the port of
    the model the check hosts."""
    if not (PAGE / "node_modules" / ".bin" / "node").exists():
        pytest.fail(f"the assistant-ui page is not installed in {PAGE}; run ./scripts/bootstrap")
    tutorial = load_tutorial("r-15", PROJECT_ROOT)
    model_port = free_port("127.0.0.1")
    with TutorialServer(tutorial=tutorial, environ={}) as api:
        values = {"port": str(free_port("127.0.0.1")), "api_origin": api.url,
                  "model_url": f"http://127.0.0.1:{model_port}/v1"}
        environ = {**os.environ, "NO_COLOR": "1",
                   **{name: filled(value, values) for name, value in ENV.items()}}
        process = subprocess.Popen(
            [filled(part, values) for part in COMMAND], cwd=PAGE, env=environ, text=True,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            assert process.stdout is not None
            said = []
            for line in process.stdout:
                said.append(line)
                if found := LISTENING.search(line):
                    yield found.group(1), model_port
                    break
            else:
                pytest.fail(f"the assistant-ui page did not start: {''.join(said)[-800:]}")
        finally:
            os.killpg(process.pid, 15)
            process.communicate(timeout=30)  # drains and closes its output


def test_r15_checks_judge_the_assistant_ui_page_through_its_driver_in_both_locales(
    page_url: tuple[str, int], tmp_path: Path,
) -> None:
    url, model_port = page_url
    report = tmp_path / "report.json"

    run = subprocess.run(
        [str(PLING_TUTORIAL), "check", "r-15", "--base-url", url, "--model-port",
         str(model_port), "--driver", DRIVER, "-k", SELECTION, "--pling-report", str(report),
         "-q", "-p", "no:cacheprovider"],
        cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=1500, check=False)

    tests = SuiteReport.read(report).tests
    outcomes = {test.nodeid.split("::")[-1]: (test.outcome, test.reason, test.failure)
                for test in tests}
    assert run.returncode == 1, (outcomes, run.stdout[-2000:])  # 1: the break below
    assert {test.locale for test in tests} == {"zh", "en"}
    proven = [name for name, (outcome, _, _) in outcomes.items() if outcome == "passed"]
    assert len(proven) >= 8, f"only {proven} ran and passed"
    for name, (outcome, reason, failure) in outcomes.items():
        why = next((why for key, why in NOT_APPLICABLE.items() if key in name), None)
        broken = next((says for key, says in FAILS.items() if key in name), None)
        if broken is not None:
            assert outcome == "failed" and broken in (failure or ""), f"{name}: {outcome}"
        elif why is None:
            assert outcome == "passed", f"{name}: {outcome}"
        else:
            assert outcome == "n/a" and reason is not None and reason.startswith(why), (
                f"{name}: {outcome} ({reason})")

"""r-15's own checks judge the CopilotKit page through its dock driver, in zh and en.

A representative subset, kept fast: the page is served as a user serves it (`pling-tutorial
dev r-15 --page copilotkit --model-url`), and `check r-15 --base-url URL --model-port PORT
--driver copilotkit` runs the browser-side registration promises as served, generated for
each of the five actions (`<action>-registered-once-as-served`, React StrictMode: each
action offered once, one card or handoff per call, a denial running nothing, an approved
call's business request sent once, a read's handler run once), two calls under one id each
asking on their own card, the rename's values shown whole and run as shown, and the approval
card's gestures that need only Allow and Deny; and four checks CopilotKit cannot meet as our
runtime does, each n/a with the driver's reason, never a pass: the timeout notice of a handoff
(it offers no countdown), the refusal of a repeated id (its AI SDK layer renames it), the loop
cap's notice (its loop stops silently at its own cap) and what keys do to "always allow"
(it offers none). And one break CopilotKit leaves, found by a check: a model's image URL
fetched from another site (`model-text-inert`). The provider's faults run (the check hosts the
model) and the page's chat `onError` tells them; an unknown tool name, CopilotKit's break,
fails saying what its user sees. The whole suite on this page is `pling-tutorial frameworks r-15`
(figures in docs/measurements.md).
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from pling_harness.cli.main import main
from pling_harness.plugin.report import SuiteReport
from pling_harness.server.page_process import free_port

PROJECT_ROOT = Path(__file__).resolve().parents[1]
PLING_TUTORIAL = Path(sys.executable).parent / "pling-tutorial"
PAGE_INSTALLED = PROJECT_ROOT / "fixtures" / "r-15-copilotkit" / "node_modules" / ".bin" / "vite"
SERVING = re.compile(r"at (http://127\.0\.0\.1:\d+)/\?lang=zh \(page copilotkit")
SELECTION = " or ".join([
    "registered-once-as-served",
    "timeout-notice-means-its-code",  # n/a: no handoff timer
    "table-repeated-call-id-refused",  # n/a: its AI SDK layer renames a repeated id
    "table-repeated-call-id-runs-nothing-unasked",  # what its users are owed instead
    "get_workspace-notices-mean-their-codes",  # n/a: its loop stops without a notice
    "save_workspace_name-approval-shows-whole-values",
    "(test_approval_card_stays_open_until_a_decision_button_is_clicked and clicks-on-the-page)",
    "test_keys_and_focus_on_always_allow_answer_nothing",  # n/a: no "always allow"
    "provider-faults",  # the check hosts the model: not n/a
    "unknown-action-told",  # CopilotKit's break
])
# Each n/a check's reason, by a name in its id: the part CopilotKit lacks, as its driver
# declares it.
NOT_APPLICABLE = {
    "timeout-notice": "copilotkit: handoff.timer:",
    "repeated-call-id-refused": "copilotkit: repeated_call_id_refused:",
    "notices-mean-their-codes": "copilotkit: loop_caps.stop_told:",
    "always_allow_answer_nothing": "copilotkit: approval.always:",
}
# CopilotKit's break (fixtures/found/copilotkit-unknown-tool-kills-thread/), as its user sees it.
UNKNOWN_TOOL_SEEN = ("the user was not told: no notice or error reports UNKNOWN_ACTION",
                     "no answer", "the next message also gets no answer")



@pytest.fixture(scope="module")
def served() -> Iterator[tuple[str, int]]:
    """The CopilotKit page's URL, and the port its runtime calls the model on."""
    if not PAGE_INSTALLED.exists():
        pytest.fail("the CopilotKit page is not installed; run ./scripts/bootstrap")
    model_port = free_port("127.0.0.1")
    process = subprocess.Popen(
        [str(PLING_TUTORIAL), "dev", "r-15", "--page", "copilotkit", "--port", "0",
         "--model-url", f"http://127.0.0.1:{model_port}/v1"],
        cwd=PROJECT_ROOT, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert process.stdout is not None
    try:
        seen = []
        for line in process.stdout:
            seen.append(line)
            found = SERVING.search(line)
            if found:
                yield found.group(1), model_port
                break
        else:
            pytest.fail(f"dev --page copilotkit did not start: {''.join(seen)}")
    finally:
        process.terminate()
        process.communicate(timeout=30)


def test_r15_checks_judge_the_copilotkit_page_through_its_driver_in_zh_and_en(
    served: tuple[str, int], tmp_path: Path,
) -> None:
    url, model_port = served
    report = tmp_path / "report.json"

    code = main(["check", "r-15", "--base-url", url, "--model-port", str(model_port),
                 "--driver", "copilotkit", "-k", SELECTION, "--pling-report", str(report),
                 "-q", "-p", "no:cacheprovider"])

    tests = SuiteReport.read(report).tests
    outcomes = {test.nodeid.split("::")[-1]: (test.outcome, test.reason) for test in tests}
    failures = {test.nodeid.split("::")[-1]: test.failure for test in tests}
    assert code == 1, outcomes
    for locale in ("zh", "en"):
        # A generated check's id ends with its locale: five actions', the timeout notice, the
        # two repeated-id checks, the cap's notice, the rename's whole values, the provider's
        # faults and an unknown tool; then the two hand-written gesture checks.
        ran = [name for name in outcomes if f"-{locale}-" in name]
        assert len(ran) == 12, f"{locale}: {ran}"
        assert len([name for name in outcomes if f"[{locale}-" in name]) == 2, outcomes
    for name, (outcome, reason) in outcomes.items():
        why = next((why for key, why in NOT_APPLICABLE.items() if key in name), None)
        if "unknown-action-told" in name:
            failure = failures[name] or ""
            assert outcome == "failed" and all(seen in failure for seen in UNKNOWN_TOOL_SEEN), (
                f"{name}: {outcome} ({failure})")
        elif why is not None:
            assert outcome == "n/a" and reason is not None and why in reason, (
                f"{name}: {outcome} ({reason})")
        else:
            assert outcome == "passed", f"{name}: {outcome} ({reason})"


def test_a_model_reply_makes_the_copilotkit_page_fetch_images_from_another_site(
    served: tuple[str, int], tmp_path: Path,
) -> None:
    # CopilotKit renders the model's text with Streamdown, whose default lets an image of any
    # origin through (fixtures/found/copilotkit-remote-images): model-text-inert fails, naming
    # the URLs; the literal-text rule is n/a there (the driver's model_text), never a fail.
    url, model_port = served
    report = tmp_path / "report.json"

    code = main(["check", "r-15", "--base-url", url, "--model-port", str(model_port),
                 "--driver", "copilotkit", "--locale", "en", "-k",
                 "model-text-never-acts or markup-shown-as-text", "--pling-report",
                 str(report), "-q", "-p", "no:cacheprovider"])

    tests = {test.nodeid.split("::")[-1]: test for test in SuiteReport.read(report).tests}
    assert code == 1, tests
    leak = tests["test_declared[table-model-text-never-acts-en-chromium]"]
    assert leak.outcome == "failed", leak
    for fetched in ("https://html-image.leak.example/q.png?d=Northwind",
                    "https://markdown-image.leak.example/q.png?d=Northwind"):
        assert fetched in str(leak.message), leak.message
    literal = tests["test_declared[table-markup-shown-as-text-en-chromium]"]
    assert literal.outcome == "n/a" and "copilotkit: model_text:" in str(literal.reason), literal

"""r-15's own checks judge the CopilotKit page through its dock driver, in zh and en.

A representative subset, kept fast: the page is served as a user serves it (`pling-tutorial
dev r-15 --page copilotkit --model-url`), and `check r-15 --base-url URL --model-port PORT
--driver copilotkit` runs the browser-side registration promises as served, generated for
each of the five actions (`<action>-registered-once-as-served`, React StrictMode: each
action offered once, one card or handoff per call, a denial running nothing, an approved
call's business request sent once, a read's handler run once) and the timeout notice of a handoff,
which CopilotKit cannot show (it offers no countdown): that one must be n/a with the
driver's reason, never a pass. The provider's faults run (the check hosts the model) and
the page's chat `onError` tells them; an unknown tool name, CopilotKit's break, fails saying
what its user sees. The whole suite on this page is `scripts/frameworks_page.py` (figures in
docs/measurements.md).
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from pling_harness.cli.main import main
from pling_harness.mutation.served import free_port
from pling_harness.plugin.report import SuiteReport

PROJECT_ROOT = Path(__file__).resolve().parents[1]
PLING_TUTORIAL = Path(sys.executable).parent / "pling-tutorial"
PAGE_INSTALLED = PROJECT_ROOT / "fixtures" / "r-15-copilotkit" / "node_modules" / ".bin" / "vite"
SERVING = re.compile(r"at (http://127\.0\.0\.1:\d+)/\?lang=zh \(CopilotKit page")
SELECTION = ("registered-once-as-served or timeout-notice-means-its-code or provider-faults "
             "or unknown-action-told")
TIMER_ABSENT = "copilotkit: handoff.timer:"
# CopilotKit's break (docs/found/copilotkit-unknown-tool-kills-thread/), told as its user sees it.
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
        # provider's faults (the check hosts the model: not n/a) and an unknown tool.
        ran = [name for name in outcomes if f"-{locale}-" in name]
        assert len(ran) == 8, f"{locale}: {ran}"
    for name, (outcome, reason) in outcomes.items():
        if "unknown-action-told" in name:
            failure = failures[name] or ""
            assert outcome == "failed" and all(seen in failure for seen in UNKNOWN_TOOL_SEEN), (
                f"{name}: {outcome} ({failure})")
        elif "timeout-notice" in name:
            assert outcome == "n/a" and reason is not None and TIMER_ABSENT in reason, (
                f"{name}: {outcome} ({reason})")
        else:
            assert outcome == "passed", f"{name}: {outcome} ({reason})"

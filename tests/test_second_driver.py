"""A second dock driver works: r-15's own checks judge an assistant whose markup is not ours.

The page is r-15's, with `<acme-assistant>` (fixtures/acme-assistant/) mounted in place of
`<pling-agent-dock>`: a panel in an open shadow root, with classes and attributes of its own,
no handoff countdown, no per-value argument markup and no delegated decision attribute. It
is read through tutorials/r-15-…/drivers/acme-assistant.json (`check --driver`). The checks
pass where the driver names what they need, are `n/a (acme-assistant: …)` where it declares
the part absent, and fail when the panel breaks a promise in its own markup.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pling_harness.cli.main import main
from pling_harness.plugin.report import SuiteReport
from pling_harness.project.paths import FIXTURES_DIR_NAME, TUTORIALS_DIR_NAME

PROJECT_ROOT = Path(__file__).resolve().parents[1]

TUTORIAL = "r-15-confirmation-and-human-handoff"
ACME = PROJECT_ROOT / FIXTURES_DIR_NAME / "acme-assistant" / "acme-assistant.js"
DRIVER = "acme-assistant"
# The page's own wiring, changed from the reference dock to the Acme panel.
PAGE_SWAPS = {
    "index.html": [("<pling-agent-dock></pling-agent-dock>", "<acme-assistant></acme-assistant>")],
    "app.js": [
        ("import { mountAgent, ",
         'import { mountAcmeAssistant } from "./acme-assistant.js";\nimport { '),
        ('mountAgent({ dock: /** @type {import("/pling/index.js").AgentDock} */ '
         '(document.querySelector("pling-agent-dock")), locale });',
         'mountAcmeAssistant(/** @type {import("./acme-assistant.js").AcmeAssistant} */ '
         '(document.querySelector("acme-assistant")), { locale });'),
    ],
}
# r-15 checks on the tutorial page (not the testbed, which runs the reference dock), the
# ones generated from its action table among them.
SELECTION = " or ".join([
    "acceptance_walk",
    "save_workspace_name-session-grant-for-ask",  # "Approve for this session", reload, "Start over"
    "reset_workspace-ask-always-never-granted",  # forged decisions: none to forge on Acme
    "approval_card_stays_open_until_a_decision_button_is_clicked",  # clicks in the shadow root
    "a_key_that_is_no_activation and Escape",  # Tab into the shadow root
    "denial-respected",
    "publish_changes-handoff-cancel",
    "publish_changes-success-only-after-published",  # the receipt too
    "handoff_shows_localised_reason",
    "publish_changes-handoff-done-requires-expect",  # the highlights end with the handoff
    "publish_changes-handoff-no-stacking",  # one highlight, the current step's target
    "publish_changes-handoff-timeout",  # n/a: no countdown
    "save_workspace_name-approval-shows-exact-arguments",  # n/a: no value elements
])
NOT_APPLICABLE = {
    # The selection's testbed rows: the testbed runs the reference dock, not Acme's panel.
    "testbed-": "acme-assistant: testbed:",
    "handoff-timeout": "acme-assistant: handoff.timer:",
    "approval-shows-exact-arguments": "acme-assistant: approval.value:",
}


def swap(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{path.name} no longer holds exactly one {old!r}"
    path.write_text(text.replace(old, new), encoding="utf-8")


def acme_root(folder: Path, *, acme_source: str | None = None) -> Path:
    """A root whose r-15 page mounts the Acme panel (its source `acme_source`, else the
    fixture's), with the runtime, the testbed and r-15's tutorial folder beside it."""
    for part in (f"{FIXTURES_DIR_NAME}/pling", f"{FIXTURES_DIR_NAME}/pling-testbed",
                 f"{FIXTURES_DIR_NAME}/{TUTORIAL}", f"{TUTORIALS_DIR_NAME}/{TUTORIAL}"):
        if (PROJECT_ROOT / part).is_dir():  # the runtime may be served from the package
            shutil.copytree(PROJECT_ROOT / part, folder / part,
                            ignore=shutil.ignore_patterns("__pycache__"))
    page = folder / FIXTURES_DIR_NAME / TUTORIAL
    (page / ACME.name).write_text(acme_source or ACME.read_text(encoding="utf-8"),
                                  encoding="utf-8")
    for name, swaps in PAGE_SWAPS.items():
        for old, new in swaps:
            swap(page / name, old, new)
    return folder


def check(root: Path, report: Path, selection: str) -> int:
    return main(["check", "r-15", "--root", str(root), "--driver", DRIVER, "--locale", "en",
                 "-k", selection, "--pling-report", str(report), "-q", "-p", "no:cacheprovider"])


def test_r15_checks_judge_an_assistant_in_a_shadow_root_through_its_driver(
    tmp_path: Path,
) -> None:
    report = tmp_path / "report.json"

    code = check(acme_root(tmp_path / "root"), report, SELECTION)

    tests = SuiteReport.read(report).tests
    outcomes = {test.nodeid.split("::")[-1]: (test.outcome, test.reason) for test in tests}
    assert code == 0, outcomes
    assert len(tests) >= 20, f"the selection collected only {len(tests)} checks"
    for name, (outcome, reason) in outcomes.items():
        why = next((why for key, why in NOT_APPLICABLE.items() if key in name), None)
        if why is None:
            assert outcome == "passed", f"{name}: {outcome}"
        else:
            assert outcome == "n/a" and reason is not None and reason.startswith(why), (
                f"{name}: {outcome} ({reason})")


def test_acme_offering_always_allow_for_a_danger_action_fails_the_checks_that_read_it(
    tmp_path: Path,
) -> None:
    # The panel offers "Approve for this session" on every card, archive and reset too: the
    # executor grants nothing for them, but the card offers what it must not.
    source = ACME.read_text(encoding="utf-8")
    offered_only_for_ask = ('...(policy === "ask" ? '
                            '[button(this.#t.session, "session", "always")] : []),')
    assert source.count(offered_only_for_ask) == 1
    broken = source.replace(offered_only_for_ask,
                            'button(this.#t.session, "session", "always"),')
    report = tmp_path / "report.json"

    code = check(acme_root(tmp_path / "root", acme_source=broken), report,
                 "acceptance_walk or reset_workspace-policy-table")

    assert code == 1
    failures = {test.nodeid.split("::")[-1].split("[")[0]: test.failure or ""
                for test in SuiteReport.read(report).tests if test.outcome == "failed"}
    assert set(failures) == {"test_acceptance_walk_six_steps_in_order", "test_declared"}
    assert "offered 'always allow'" in failures["test_acceptance_walk_six_steps_in_order"]
    assert "offers 'always allow' under policy 'ask-always'" in failures["test_declared"]


@pytest.mark.parametrize("name", list(PAGE_SWAPS))
def test_the_page_swaps_still_apply_to_r15s_page(name: str) -> None:
    text = (PROJECT_ROOT / FIXTURES_DIR_NAME / TUTORIAL / name).read_text(encoding="utf-8")
    for old, _ in PAGE_SWAPS[name]:
        assert text.count(old) == 1, f"r-15's {name} changed: update PAGE_SWAPS"

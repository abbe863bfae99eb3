"""Dock driver files: validated as a file format, found by name or path, chosen per run, and a
part a driver declares absent turns a check that needs it into `n/a (<driver>: ...)`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pling_harness.browser.preflight import check_target
from pling_harness.cli.main import main
from pling_harness.plugin.report import SuiteReport
from pling_harness.project.dock_driver import (
    DEFAULT_DRIVER_PATH,
    Absent,
    DriverError,
    DriverSpec,
    NotObservable,
    default_driver,
    find_driver,
    load_driver,
)
from pling_harness.project.tutorials import TutorialError, load_tutorial, read_tutorial_file
from pling_harness.server.external import TargetError
from pling_harness.server.runner import TutorialServer

pytest_plugins = ["pytester"]

PROJECT_ROOT = Path(__file__).resolve().parents[1]

TUTORIAL = "r-15-confirmation-and-human-handoff"


def default_as_json() -> dict[str, object]:
    data: dict[str, object] = json.loads(DEFAULT_DRIVER_PATH.read_text(encoding="utf-8"))
    return data


def write_driver(folder: Path, data: dict[str, object], name: str = "mine") -> Path:
    path = folder / "drivers" / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_default_driver_is_the_page_contract() -> None:
    driver = default_driver()
    assert driver.name == "pling"
    assert driver.approval.card == "[data-testid='pling-approval']"
    assert driver.selectors()["handoff.timer"] == "[data-testid='pling-handoff-timer']"


def test_driver_with_an_unknown_key_is_an_error_naming_file_and_field(tmp_path: Path) -> None:
    data = default_as_json()
    data["approval"] = {**data["approval"], "confirm_button": ".ok"}  # type: ignore[dict-item]
    path = write_driver(tmp_path, data)

    with pytest.raises(DriverError, match=r"mine\.json: field approval\.confirm_button"):
        load_driver(path)


def test_driver_leaving_a_part_out_must_say_why_it_is_absent(tmp_path: Path) -> None:
    data = default_as_json()
    handoff = dict(data["handoff"])  # type: ignore[call-overload]
    del handoff["timer"]
    data["handoff"] = handoff
    with pytest.raises(DriverError, match=r"field handoff\.\w+\.timer: Field required"):
        load_driver(write_driver(tmp_path, data))

    handoff["timer"] = {"absent": "no countdown here"}
    driver = load_driver(write_driver(tmp_path, data))
    handoff_parts = driver.require(driver.handoff, "handoff")
    with pytest.raises(NotObservable) as caught:
        driver.require(handoff_parts.timer, "handoff.timer")
    assert str(caught.value) == "n/a (pling: handoff.timer: no countdown here)"


def test_driver_is_found_by_name_in_the_tutorials_drivers_folder_or_by_path(
    tmp_path: Path,
) -> None:
    path = write_driver(tmp_path, default_as_json(), name="acme")

    assert find_driver("acme", tmp_path) == path
    assert find_driver(str(path), Path("/nowhere")) == path
    assert find_driver("drivers/acme.json", tmp_path) == tmp_path / "drivers" / "acme.json"
    with pytest.raises(DriverError, match=r"no driver 'acmee'.*known: acme"):
        find_driver("acmee", tmp_path)


def test_tutorial_names_its_driver_inside_its_own_folder(tmp_path: Path) -> None:
    source = load_tutorial("r-15", PROJECT_ROOT).directory(PROJECT_ROOT) / "tutorial.json"
    data = json.loads(source.read_text(encoding="utf-8"))
    folder = tmp_path / "tutorials" / TUTORIAL
    folder.mkdir(parents=True)
    for bad in ("/etc/driver.json", "../driver.json", "drivers/../../x.json"):
        (folder / "tutorial.json").write_text(json.dumps({**data, "driver": bad}))
        with pytest.raises(TutorialError, match=r"field driver"):
            read_tutorial_file(folder / "tutorial.json")

    (folder / "tutorial.json").write_text(json.dumps({**data, "driver": "drivers/mine.json"}))
    write_driver(folder, {**default_as_json(), "name": "mine"})
    tutorial = read_tutorial_file(folder / "tutorial.json")

    assert tutorial.dock_driver(tmp_path).name == "mine"
    r15 = load_tutorial("r-15", PROJECT_ROOT)
    assert r15.dock_driver(PROJECT_ROOT).name == "pling"
    assert r15.dock_driver(PROJECT_ROOT, "acme-assistant").name == "acme-assistant"


def test_check_with_an_unknown_driver_is_a_usage_error_before_anything_runs(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["check", "r-15", "--driver", "no-such-driver"])

    assert code == 2
    assert "--driver no-such-driver: no driver 'no-such-driver'" in capsys.readouterr().err


# A check that asks for the handoff countdown of an assistant that shows none.
ASKS_FOR_THE_TIMER = """
import pytest
from playwright.sync_api import expect

@pytest.mark.guarantee("handoff-timeout")
def test_timer(tutorial_page, dock):
    dock.ask("publish the changes")
    expect(dock.handoff_timer).to_have_text("5:00")
"""


def test_check_needing_a_part_the_driver_declares_absent_is_na_with_its_reason(
    pytester: pytest.Pytester, tmp_path: Path,
) -> None:
    data = default_as_json()
    data["name"] = "no-timer"
    data["handoff"] = {**data["handoff"],  # type: ignore[dict-item]
                       "timer": {"absent": "this assistant shows no countdown"}}
    driver = write_driver(tmp_path, data)
    pytester.makepyfile(ASKS_FOR_THE_TIMER)
    report = tmp_path / "report.json"

    result = pytester.runpytest_subprocess("--pling-locale", "en", "--pling-driver", str(driver),
                                           "--pling-report", str(report), "-rs")

    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(
        ["*n/a (no-timer: handoff.timer: this assistant shows no countdown)*"])
    [record] = SuiteReport.read(report).tests
    assert (record.outcome, record.reason) == (
        "n/a", "no-timer: handoff.timer: this assistant shows no countdown")


def test_pytest_refuses_a_driver_file_it_cannot_read(pytester: pytest.Pytester,
                                                      tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    pytester.makepyfile("def test_nothing(): pass")

    result = pytester.runpytest_subprocess("--pling-tutorial", "r-15", "--pling-driver",
                                           str(broken))

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--pling-driver: *broken.json: not valid JSON*"])


def test_preflight_refuses_a_driver_naming_a_selector_the_browser_refuses(
    tmp_path: Path,
) -> None:
    data = default_as_json()
    approval = {**data["approval"], "allow": "button:no-such-state"}  # type: ignore[dict-item]
    data["approval"] = approval
    driver = load_driver(write_driver(tmp_path, data))

    with TutorialServer(tutorial="r-15", environ={}) as server, pytest.raises(
            TargetError, match=r"names selectors the browser refuses: approval\.allow: "
                               r"button:no-such-state"):
        check_target(server.url, server.tutorial, driver)


def test_ai_sdk_driver_names_its_chat_route_and_asks_no_call_one_at_a_time() -> None:
    ai_sdk = load_driver(PROJECT_ROOT / "tutorials" / "r-15-confirmation-and-human-handoff"
                         / "drivers" / "ai-sdk.json")
    ours = default_driver()

    assert ai_sdk.conversation_path("/api/model") == "/api/chat"
    assert ai_sdk.is_assistant_endpoint("/api/chat?x=1") and not ours.is_assistant_endpoint(
        "/api/chat")
    assert ours.conversation_path("/api/model") == "/api/model"
    assert ours.approval.one_at_a_time is True
    with pytest.raises(NotObservable, match="at once"):
        ai_sdk.require(ai_sdk.approval.one_at_a_time, "approval.one_at_a_time")
    with pytest.raises(NotObservable, match="assistant_endpoints"):
        ai_sdk.require_business_requests_in_browser()
    ours.require_business_requests_in_browser()


def test_ai_sdk_driver_declares_repeated_call_ids_merged_by_the_framework() -> None:
    # Two calls under one id: the SDK merges them, so that check is n/a there, not on ours.
    ai_sdk = load_driver(PROJECT_ROOT / "tutorials" / "r-15-confirmation-and-human-handoff"
                         / "drivers" / "ai-sdk.json")
    ours = default_driver()

    assert ours.require(ours.repeated_call_id_refused, "repeated_call_id_refused") is True
    with pytest.raises(NotObservable, match="ai-sdk: repeated_call_id_refused: the AI SDK "
                                            "keys a call by its id"):
        ai_sdk.require(ai_sdk.repeated_call_id_refused, "repeated_call_id_refused")


def test_a_driver_says_how_the_assistant_renders_model_text() -> None:
    # Literal text is our runtime's rule: n/a where the framework renders markdown, with
    # where it does; every page is still held to model-text-inert (model_text_checks.py).
    drivers = PROJECT_ROOT / "tutorials" / "r-15-confirmation-and-human-handoff" / "drivers"
    copilotkit = load_driver(drivers / "copilotkit.json")

    assert default_driver().model_text == "text"
    default_driver().require_literal_text()
    load_driver(drivers / "ai-sdk.json").require_literal_text()
    with pytest.raises(NotObservable, match=r"copilotkit: model_text: renders the model's "
                                            r"text as markdown \(@copilotkit/react-core"):
        copilotkit.require_literal_text()


def test_a_model_text_rendering_the_harness_does_not_know_is_refused(tmp_path: Path) -> None:
    spec = default_driver().model_dump(mode="json")
    path = tmp_path / "driver.json"
    for wrong in ("html", {"markdown": ""}, {"markdown": "x", "sanitized": True}):
        path.write_text(json.dumps({**spec, "model_text": wrong}), encoding="utf-8")
        with pytest.raises(DriverError, match="model_text"):
            load_driver(path)
def test_page_contract_driver_declares_our_runtimes_caps_and_a_told_stop() -> None:
    # Our runtime's caps are a rule it declares like any framework's: 8 and 10, told.
    caps = default_driver().loop_caps
    assert not isinstance(caps.model_requests_per_turn, Absent)
    assert not isinstance(caps.calls_per_reply, Absent)
    assert (caps.model_requests_per_turn.limit, caps.calls_per_reply.limit) == (8, 10)
    assert "page-contract.md" in caps.model_requests_per_turn.source
    assert caps.stop_told is True
    # A driver that says nothing of caps is held to the page contract's.
    data = default_as_json()
    del data["loop_caps"]
    unsaid = DriverSpec.model_validate(data).loop_caps
    assert unsaid.model_dump(exclude={"model_requests_per_turn": {"source"},
                                      "calls_per_reply": {"source"}}) \
        == caps.model_dump(exclude={"model_requests_per_turn": {"source"},
                                    "calls_per_reply": {"source"}})


def test_copilotkit_driver_declares_its_own_cap_none_a_reply_and_a_silent_stop() -> None:
    copilotkit = load_driver(PROJECT_ROOT / "tutorials" / TUTORIAL / "drivers" / "copilotkit.json")
    caps = copilotkit.loop_caps

    assert copilotkit.require(caps.model_requests_per_turn, "loop_caps.model_requests_per_turn"
                              ).limit == 100
    assert "MAX_FOLLOW_UP_DEPTH" in copilotkit.require(
        caps.model_requests_per_turn, "loop_caps.model_requests_per_turn").source
    with pytest.raises(NotObservable, match=r"copilotkit: loop_caps\.calls_per_reply: "
                                            "CopilotKit handles every call of a reply"):
        copilotkit.require(caps.calls_per_reply, "loop_caps.calls_per_reply")
    with pytest.raises(NotObservable, match=r"copilotkit: loop_caps\.stop_told: .*console"):
        copilotkit.require(caps.stop_told, "loop_caps.stop_told")
    assert copilotkit.whitespace_arguments_read_as_none is False  # only "" becomes {}
    assert default_driver().whitespace_arguments_read_as_none is True
    for part in ("blank_arguments_refused", "repeated_call_id_refused"):
        with pytest.raises(NotObservable, match=f"copilotkit: {part}: .*1\\.74\\.0"):
            copilotkit.require(getattr(copilotkit, part), part)


@pytest.mark.parametrize("cap", [{"limit": 0, "source": "x"}, {"limit": 8, "source": ""},
                                 {"limit": 8}, {"limit": 8, "source": "x", "told": True}])
def test_driver_loop_cap_needs_a_positive_limit_and_its_source(tmp_path: Path,
                                                             cap: dict[str, object]) -> None:
    data = default_as_json()
    data["loop_caps"] = {"model_requests_per_turn": cap,
                         "calls_per_reply": {"absent": "no cap a reply"}}
    with pytest.raises(DriverError, match=r"loop_caps\.model_requests_per_turn"):
        load_driver(write_driver(tmp_path, data))

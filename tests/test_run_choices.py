"""A run's choices (root, tutorial, page, driver, locales, model port) are resolved once, each
with its source, shown in the report header, the reports and check's summary; the driver
file is read once per process, and the pytest `check` starts reads it not at all."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from pydantic import ValidationError

from pling_harness.cli.main import main
from pling_harness.plugin.report import SuiteReport
from pling_harness.project import datafile, dock_driver
from pling_harness.project.run_choices import (
    Chosen,
    ChosenDriver,
    RunChoices,
    default,
    driver_choice,
    locales_choice,
    no_model_port,
    option,
    served_here,
)
from pling_harness.project.tutorials import load_tutorial

pytest_plugins = ["pytester"]

PROJECT_ROOT = Path(__file__).resolve().parents[1]
R15 = "r-15-confirmation-and-human-handoff"
ACME = f"tutorials/{R15}/drivers/acme-assistant.json"
# Reads the run's driver in every locale: two tests that each ask for it.
USES_THE_DRIVER = """
def test_driver(dock_driver, locale):
    assert dock_driver.name == {name!r}
"""


# In a pytester run's folder: writes the names of the driver files the run read.
COUNTS_DRIVER_READS = """
import json
from pling_harness.project import datafile, dock_driver

READS = []
_parse = dock_driver.load_json_model

def _counting(path, *args):
    READS.append(path.name)
    return _parse(path, *args)

dock_driver.load_json_model = _counting

def pytest_unconfigure(config):
    with open("driver-reads.json", "w") as file:
        json.dump(READS, file)
"""


def driver_reads_of(pytester: pytest.Pytester) -> list[str]:
    """The driver files the last pytester run read (it must have COUNTS_DRIVER_READS)."""
    reads: list[str] = json.loads((pytester.path / "driver-reads.json").read_text())
    return reads


@pytest.fixture
def driver_reads(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Every driver file read in this process from now on (what `load_driver` parses)."""
    reads: list[Path] = []
    parse: Callable[..., object] = datafile.load_json_model

    def counting(path: Path, *args: object) -> object:
        reads.append(path)
        return parse(path, *args)

    monkeypatch.setattr(dock_driver, "load_json_model", counting)
    return reads


def test_pytest_run_directly_shows_each_choice_and_where_it_came_from(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(USES_THE_DRIVER.format(name="acme-assistant"))

    result = pytester.runpytest_subprocess("--pling-locale", "en",
                                           "--pling-driver", "acme-assistant")

    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines([
        f"pling: root {PROJECT_ROOT} (from `root` in */pling.toml), "
        f"tutorial {R15} (default: the only tutorial under {PROJECT_ROOT}), "
        f"page served here (default: the harness serves fixtures/r-15-*), "
        f"driver acme-assistant (from --pling-driver: {ACME}), "
        "locales en (from --pling-locale), "
        "model port none (default: the harness's own server answers the model)"])


def test_pytest_run_directly_reads_the_driver_file_once(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(COUNTS_DRIVER_READS)
    pytester.makepyfile(USES_THE_DRIVER.format(name="acme-assistant"))

    result = pytester.runpytest_subprocess("--pling-driver", "acme-assistant")

    result.assert_outcomes(passed=2)  # zh and en, each asking for the driver
    assert driver_reads_of(pytester) == ["acme-assistant.json"]


def test_pytest_given_a_choices_file_reads_no_driver_file_and_takes_every_choice_from_it(
    pytester: pytest.Pytester, tmp_path: Path,
) -> None:
    # A driver file read once, then gone: the run can only have it from the choices file.
    drivers = tmp_path / "drivers"
    drivers.mkdir()
    shutil.copy(PROJECT_ROOT / ACME, drivers / "gone.json")
    choices = r15_choices(driver_choice(load_tutorial("r-15", PROJECT_ROOT), PROJECT_ROOT,
                                        str(drivers / "gone.json"), "--driver"),
                          only="en")
    (drivers / "gone.json").unlink()
    file = tmp_path / "choices.json"
    choices.write(file)
    pytester.makeconftest(COUNTS_DRIVER_READS)
    pytester.makepyfile(USES_THE_DRIVER.format(name="acme-assistant"))
    report = tmp_path / "report.json"

    result = pytester.runpytest_subprocess("--pling-choices", str(file),
                                           "--pling-report", str(report))

    result.assert_outcomes(passed=1)  # en only, as the file chose
    assert driver_reads_of(pytester) == []
    result.stdout.fnmatch_lines([f"pling: root {PROJECT_ROOT} (from --root), *"
                                 "driver acme-assistant (from --driver: */gone.json), "
                                 "locales en (from --locale), *"])
    shown = {choice.name: (choice.value, choice.source)
             for choice in SuiteReport.read(report).choices}
    assert shown["tutorial"] == (R15, "from the command line: check r-15")
    assert shown["locales"] == ("en", "from --locale")


def test_pytest_given_a_choices_file_and_an_option_it_stands_for_is_a_usage_error(
    pytester: pytest.Pytester, tmp_path: Path,
) -> None:
    file = tmp_path / "choices.json"
    r15_choices(driver_choice(load_tutorial("r-15", PROJECT_ROOT), PROJECT_ROOT, None,
                              "--driver")).write(file)
    pytester.makepyfile("def test_nothing(): pass")

    result = pytester.runpytest_subprocess("--pling-choices", str(file), "--pling-locale", "zh")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--pling-choices * holds the run's choices; drop "
                                 "--pling-locale*"])


def test_pytest_given_a_choices_file_and_another_model_port_is_a_usage_error(
    pytester: pytest.Pytester, tmp_path: Path,
) -> None:
    file = tmp_path / "choices.json"
    r15_choices(driver_choice(load_tutorial("r-15", PROJECT_ROOT), PROJECT_ROOT, None,
                              "--driver")).write(file)
    pytester.makepyfile("def test_nothing(): pass")

    result = pytester.runpytest_subprocess("--pling-choices", str(file),
                                           "--pling-model-port", "5001")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*holds the run's choices; drop --pling-model-port*"])


def test_a_choices_file_that_is_not_valid_is_a_usage_error_naming_the_field(
    pytester: pytest.Pytester, tmp_path: Path,
) -> None:
    file = tmp_path / "choices.json"
    data = json.loads(r15_choices(driver_choice(load_tutorial("r-15", PROJECT_ROOT),
                                                PROJECT_ROOT, None, "--driver")).model_dump_json())
    data["locales"]["value"] = ["klingon"]
    file.write_text(json.dumps(data))
    pytester.makepyfile("def test_nothing(): pass")

    result = pytester.runpytest_subprocess("--pling-choices", str(file))

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--pling-choices: *choices.json: field locales.value.0: *"])


def test_the_html_report_shows_the_choices_and_their_sources(
    pytester: pytest.Pytester, tmp_path: Path,
) -> None:
    pytester.makepyfile(USES_THE_DRIVER.format(name="acme-assistant"))

    result = pytester.runpytest_subprocess("--pling-locale", "en", "--pling-driver",
                                           "acme-assistant", "--pling-html", str(tmp_path))

    result.assert_outcomes(passed=1)
    page = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert 'data-testid="run-choices"' in page
    assert (f'<th scope="row">driver</th><td>acme-assistant</td><td class="source">from '
            f"--pling-driver: {ACME}</td>") in page
    assert '<th scope="row">locales</th><td>en</td><td class="source">from --pling-locale' in page


def test_check_reads_its_driver_once_and_prints_the_choices_in_the_header_and_summary(
    capfd: pytest.CaptureFixture[str], driver_reads: list[Path],
) -> None:
    code = main(["check", "r-15", "--locale", "en", "--driver", "acme-assistant",
                 "-k", "testbed-read-policy-table", "-p", "no:cacheprovider"])

    out = capfd.readouterr().out
    assert code == 0, out
    assert [path.name for path in driver_reads] == ["acme-assistant.json"]
    line = (f"pling: root {PROJECT_ROOT} (default: the project of the current folder (its "
            f"first folder with pytest's settings)), tutorial {R15} (from the command line: "
            f"check r-15), page served here (default: the harness serves fixtures/{R15} "
            f"(`fixture` in its tutorial.json)), driver acme-assistant (from --driver: {ACME}), "
            "locales en (from --locale), model port none (default: the harness's own server "
            "answers the model)")
    # Once in the child pytest's header, once in check's own summary.
    assert out.count(line) == 2, out


def test_check_with_a_model_port_and_no_page_served_elsewhere_is_a_usage_error(
    capfd: pytest.CaptureFixture[str],
) -> None:
    assert main(["check", "r-15", "--model-port", "5000"]) == 2
    assert "--model-port is for a page served elsewhere" in capfd.readouterr().err


def test_choices_refuse_a_model_port_without_a_page_served_elsewhere() -> None:
    tutorial = load_tutorial("r-15", PROJECT_ROOT)
    valid = r15_choices(driver_choice(tutorial, PROJECT_ROOT, None, "--driver"))

    with pytest.raises(ValidationError, match="model_port is for a page served elsewhere"):
        RunChoices.model_validate({**valid.model_dump(), "model_port": {
            "value": 5000, "source": {"kind": "option", "detail": "--model-port"}}})


def r15_choices(driver: ChosenDriver, *, only: str | None = None) -> RunChoices:
    """r-15's choices as `check r-15 --root <checkout>` makes them, with `driver`."""
    tutorial = load_tutorial("r-15", PROJECT_ROOT)
    page = served_here(tutorial)
    return RunChoices.model_validate({
        "root": Chosen[str](value=str(PROJECT_ROOT), source=option("--root")),
        "tutorial": Chosen[str](value=tutorial.id,
                                source=option("the command line: check r-15")),
        "page": page, "driver": driver, "model_port": no_model_port(page),
        "locales": locales_choice(tutorial, only, "--locale")})


def test_a_default_is_shown_as_what_it_is_and_the_rest_as_where_they_came_from() -> None:
    assert str(default("the page contract's test ids")) == \
        "default: the page contract's test ids"
    assert str(option("--root")) == "from --root"

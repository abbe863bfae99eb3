"""Guarantee names (issue 31 §8): the harness keeps its generic guarantees, a tutorial declares
its own families in its tutorial.json, and a check naming any other guarantee is a
collection error in every run, naming the file, the name and the closest known one (a
misspelled name used to pass a normal run, counted for no guarantee)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pling_harness.evidence.sources import EXTERNAL_SOURCES, why_not_provable
from pling_harness.plugin.guarantee_registry import guarantee_sources, registry
from pling_harness.project.tutorials import TutorialError, load_tutorial
from pling_harness.scaffold.new import NewTutorial, scaffold

pytest_plugins = ["pytester"]

R15_OWN = {"acceptance-walk", "handoff-wrong-code"}
CHECK = """
import pytest

@pytest.mark.guarantee({name!r})
def test_promise(locale):
    pass
"""


def test_misspelled_guarantee_is_a_collection_error_naming_file_name_and_closest(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_checks=CHECK.format(name="denial-respectd"))

    result = pytester.runpytest_subprocess("-p", "no:randomly")

    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([
        "*ERROR collecting test_checks.py*",
        "*test_checks.py: @pytest.mark.guarantee('denial-respectd') on test_promise*: guarantee "
        "'denial-respectd' is neither the harness's nor its tutorial's; did you mean "
        "'denial-respected'?*",
    ])


def test_misspelled_guarantee_on_a_class_is_a_collection_error(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_checks="""
        import pytest

        @pytest.mark.guarantee("policy-tables")
        class TestRows:
            def test_row(self):
                pass
    """)

    result = pytester.runpytest_subprocess("-p", "no:randomly")

    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*('policy-tables') on test_row*did you mean 'policy-table'?*"])


def test_known_guarantees_collect_and_run(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_checks=CHECK.format(name="denial-respected")
                        + CHECK.format(name="handoff-wrong-code").replace(
                            "test_promise", "test_r15_own"))

    result = pytester.runpytest_subprocess("-p", "no:randomly")

    result.assert_outcomes(passed=4)  # two checks, each in zh and en


@pytest.fixture
def refunds(pytester: pytest.Pytester) -> Path:
    """A root with one scaffolded tutorial declaring a guarantee family of its own."""
    root = pytester.path / "root"
    scaffold(NewTutorial(id="r-91-refunds", short_id="r-91"), root)
    definition = root / "tutorials" / "r-91-refunds" / "tutorial.json"
    data = json.loads(definition.read_text(encoding="utf-8"))
    data["guarantees"] = {"refund-capped": {
        "means": "a refund never exceeds what was paid", "evidence": ["page", "state"]}}
    definition.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    (root / "tutorials" / "r-91-refunds" / "checks").mkdir()  # `new` writes no check
    return root


def test_tutorials_own_family_is_known_to_its_checks_only(
    pytester: pytest.Pytester, refunds: Path,
) -> None:
    checks = refunds / "tutorials" / "r-91-refunds" / "checks"
    (checks / "test_refund.py").write_text(CHECK.format(name="refund-capped"), encoding="utf-8")
    (checks / "test_code.py").write_text(CHECK.format(name="handoff-wrong-code"),
                                         encoding="utf-8")

    result = pytester.runpytest_subprocess(str(checks), "--pling-root", str(refunds),
                                           "-p", "no:randomly", "-p", "no:cacheprovider")

    # r-15's own family is not r-91's: its check is an error; r-91's own collects.
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*test_code.py: @pytest.mark.guarantee('handoff-wrong-code')*"])
    result = pytester.runpytest_subprocess(str(checks / "test_refund.py"), "--pling-root",
                                           str(refunds), "-p", "no:randomly")
    result.assert_outcomes(passed=2)


def test_r15_declares_its_own_families_and_the_harness_keeps_none_of_them() -> None:
    r15 = load_tutorial("r-15")

    assert set(r15.guarantees) == R15_OWN
    assert not R15_OWN & set(registry().guarantees)
    assert set(guarantee_sources(r15)) >= R15_OWN


def test_tutorial_may_not_redefine_a_harness_guarantee() -> None:
    r15 = load_tutorial("r-15")
    taken = r15.model_copy(update={"guarantees": {
        **r15.guarantees, "denial-respected": r15.guarantees["acceptance-walk"]}})

    with pytest.raises(TutorialError, match=r"declares \['denial-respected'\] under guarantees"):
        guarantee_sources(taken)


def test_tutorials_family_evidence_decides_what_a_page_served_elsewhere_proves() -> None:
    r15 = load_tutorial("r-15")
    family = r15.guarantees["acceptance-walk"]
    reading_the_log = r15.model_copy(update={"guarantees": {
        "log-shows-it": family.model_copy(update={"evidence": ("page", "server-log")})}})

    known = guarantee_sources(reading_the_log)

    assert why_not_provable(["log-shows-it"], EXTERNAL_SOURCES, known) is not None
    assert why_not_provable(["acceptance-walk"], EXTERNAL_SOURCES, guarantee_sources(r15)) is None

"""The mutant catalogue: validation, staleness, and that real files are never touched."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pling_harness.cli.main import main
from pling_harness.mutation.catalogue import (
    Catalogue,
    CatalogueError,
    Mutant,
    MutantPage,
    StaleMutant,
    catalogue_path,
    check_fresh,
    covering,
    for_page,
    load_catalogue,
    materialise,
)
from pling_harness.mutation.runner import judge
from pling_harness.plugin.report import (
    CollectionError,
    SuiteReport,
    TestRecord,
    collection_error_line,
)
from pling_harness.project.tutorials import list_tutorials

# The harness's own checkout: the project these tests check.
PROJECT_ROOT = Path(__file__).resolve().parents[1]


def make_tree(root: Path) -> Path:
    (root / "fixtures" / "page").mkdir(parents=True)
    (root / "pling_harness" / "web" / "runtime").mkdir(parents=True)
    (root / "pling_harness" / "web" / "runtime" / "policy.js").write_text("return 'ask-always';\n")
    (root / "tutorials" / "t" / "checks").mkdir(parents=True)
    (root / "tutorials" / "t" / "checks" / "test_x.py").write_text("# checks are not served\n")
    (root / "pling_harness" / "server").mkdir(parents=True)
    (root / "pling_harness" / "server" / "gateway.py").write_text("ORIGIN_CHECK = True\n")
    (root / "tutorials" / "t" / "mutation" / "catalogue").mkdir(parents=True)
    (root / "tutorials" / "t" / "mutation" / "catalogue" / "a.json").write_text("{}\n")
    (root / "pling_harness" / "mutation").mkdir(parents=True)
    (root / "pling_harness" / "mutation" / "launch.py").write_text("# runs the copy's checks\n")
    return root


def mutant(**overrides: object) -> Mutant:
    fields: dict[str, object] = {
        "name": "danger-asks-once",
        "description": "danger resolves to ask",
        "file": "pling_harness/web/runtime/policy.js",
        "original": "'ask-always'",
        "replacement": "'ask'",
        "expected": ["ask_always_never_granted"],
    }
    fields.update(overrides)
    return Mutant.model_validate(fields)


def test_materialise_applies_mutant_to_copy_only(tmp_path: Path) -> None:
    source = make_tree(tmp_path / "src")
    dest = materialise(mutant(), source_root=source, dest_root=tmp_path / "dest")
    assert (dest / "pling_harness/web/runtime/policy.js").read_text() == "return 'ask';\n"
    assert (source / "pling_harness/web/runtime/policy.js").read_text() == "return 'ask-always';\n"
    assert not (dest / "tutorials/t/checks").exists()


def test_materialise_leaves_the_tutorials_mutation_folder_out_not_the_harness_one(
    tmp_path: Path,
) -> None:
    dest = materialise(None, source_root=make_tree(tmp_path / "src"), dest_root=tmp_path / "d")

    assert not (dest / "tutorials/t/mutation").exists()  # catalogue and plan: not served
    assert (dest / "pling_harness/mutation/launch.py").is_file()  # the copy's checks run from it


def test_materialise_missing_original_raises_stale(tmp_path: Path) -> None:
    source = make_tree(tmp_path / "src")
    with pytest.raises(StaleMutant, match="no longer found"):
        materialise(mutant(original="'never-there'"), source_root=source, dest_root=tmp_path / "d")


def test_materialise_ambiguous_original_raises_stale(tmp_path: Path) -> None:
    source = make_tree(tmp_path / "src")
    (source / "pling_harness/web/runtime/policy.js").write_text("'ask-always' 'ask-always'\n")
    with pytest.raises(StaleMutant, match="occurs 2 times"):
        materialise(mutant(), source_root=source, dest_root=tmp_path / "d")


def test_mutant_outside_system_under_test_is_rejected() -> None:
    with pytest.raises(ValueError, match="relative path under fixtures/"):
        mutant(file="pling_harness/evidence/guarantees.py")


def test_materialise_server_mutant_changes_the_copied_harness_only(tmp_path: Path) -> None:
    source = make_tree(tmp_path / "src")
    server_mutant = mutant(file="pling_harness/server/gateway.py", original="True",
                           replacement="False")
    dest = materialise(server_mutant, source_root=source, dest_root=tmp_path / "dest")
    assert (dest / "pling_harness/server/gateway.py").read_text() == "ORIGIN_CHECK = False\n"
    assert (source / "pling_harness/server/gateway.py").read_text() == "ORIGIN_CHECK = True\n"


def test_load_catalogue_invalid_field_names_file_and_field(tmp_path: Path) -> None:
    path = tmp_path / "mutants.json"
    path.write_text(json.dumps({"tutorial": "t", "mutants": [{"name": "x"}]}))
    with pytest.raises(CatalogueError, match=r"mutants\.json: field mutants\.0\.description"):
        load_catalogue(path)


def test_load_catalogue_unknown_key_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "mutants.json"
    entry = mutant().model_dump() | {"skip": True}
    path.write_text(json.dumps({"tutorial": "t", "mutants": [entry]}))
    with pytest.raises(CatalogueError, match="skip"):
        load_catalogue(path)


def record(outcome: str, *guarantees: str) -> TestRecord:
    return TestRecord.model_validate(
        {"nodeid": "t::x", "guarantees": guarantees, "outcome": outcome, "locale": "en"}
    )


def test_judge_expected_guarantee_failed_is_killed() -> None:
    report = SuiteReport(
        tests=[record("failed", "ask_always_never_granted"), record("passed", "x")])
    assert judge(mutant(), report).verdict == "killed"


def test_judge_only_unrelated_failure_is_misattributed() -> None:
    report = SuiteReport(tests=[record("failed", "bilingual_copy")])
    assert judge(mutant(), report).verdict == "misattributed"


def test_judge_crash_in_expected_check_does_not_count() -> None:
    report = SuiteReport(tests=[record("error", "ask_always_never_granted")])
    assert judge(mutant(), report).verdict == "misattributed"


def test_judge_a_run_stopped_before_any_check_is_broken_not_survived() -> None:
    # External mode's preflight refused the page (it threw while loading): pytest.exit, every
    # check "not run". This was judged "survived: every check passed".
    refusal = ("interrupted by pytest.exit (pling: http://127.0.0.1:1/ shows no agent dock; "
               "the page threw: boom)")
    report = SuiteReport(tests=[record("not run", "ask_always_never_granted")],
                         interrupted=refusal)
    result = judge(mutant(), report)
    assert (result.verdict, result.detail) == (
        "broken", f"the checks stopped before their end: {refusal}")
    assert judge(mutant(), SuiteReport(tests=[])).verdict == "broken"


def test_judge_a_check_file_pytest_could_not_collect_is_named() -> None:
    """Issue 39: a check of the user's own that fails to import stops pytest before any
    check; every mutant was "BROKEN  no check ran", never saying why."""
    report = SuiteReport(
        tests=[record("skipped", "ask_always_never_granted")],
        collection_errors=[CollectionError(nodeid="tutorials/t/checks/test_own.py",
                                           error="NameError: name 'pytest' is not defined")])
    result = judge(mutant(), report)
    assert (result.verdict, result.detail) == (
        "broken", "no check ran: pytest could not collect tutorials/t/checks/test_own.py "
                  "(NameError: name 'pytest' is not defined)")


def test_judge_no_check_ran_says_what_the_checks_did() -> None:
    skipped = record("skipped", "ask_always_never_granted").model_copy(
        update={"failure": "Skipped: needs a second locale"})
    assert judge(mutant(), SuiteReport(tests=[skipped, skipped])).detail == (
        "no check ran: of 2 checks collected, 2 skipped (first: Skipped: needs a second locale)")
    assert judge(mutant(), SuiteReport(tests=[])).detail == (
        "no check ran: no check of ask_always_never_granted was collected (a check proves a "
        "guarantee by its @pytest.mark.guarantee mark)")


def test_collection_error_line_is_the_exception_pytest_reports() -> None:
    longrepr = ("tutorials/t/checks/test_own.py:3: in <module>\n"
                "    @pytest.mark.guarantee(\"x\")\n"
                "     ^^^^^^\n"
                "E   NameError: name 'pytest' is not defined\n")
    assert collection_error_line(longrepr) == "NameError: name 'pytest' is not defined"
    assert collection_error_line("ERROR: not found: x.py\n") == "ERROR: not found: x.py"


def test_judge_a_refusal_the_mutant_expects_is_a_kill() -> None:
    refusal = ('pling: … shows no agent dock; the page threw: '
               'pling: action "a" is already registered')
    report = SuiteReport(tests=[record("not run", "ask_always_never_granted")],
                         interrupted=refusal)
    assert judge(mutant(refused_with="already registered"), report).verdict == "killed"
    assert judge(mutant(refused_with="is not a function"), report).verdict == "broken"


def test_judge_all_passing_is_survived() -> None:
    report = SuiteReport(tests=[record("passed", "ask_always_never_granted")])
    assert judge(mutant(), report).verdict == "survived"


def write_area(folder: Path, name: str, *mutants: Mutant, tutorial: str = "t") -> None:
    folder.mkdir(exist_ok=True)
    entries = [m.model_dump() for m in mutants]
    (folder / name).write_text(json.dumps({"tutorial": tutorial, "mutants": entries}))


def test_load_catalogue_folder_merges_area_files_in_name_order(tmp_path: Path) -> None:
    write_area(tmp_path / "t", "b-handoff.json", mutant(name="second"))
    write_area(tmp_path / "t", "a-confirmation.json", mutant(name="first"))
    catalogue = load_catalogue(tmp_path / "t")
    assert [m.name for m in catalogue.mutants] == ["first", "second"]


def test_load_catalogue_folder_name_used_in_two_files_is_rejected(tmp_path: Path) -> None:
    write_area(tmp_path / "t", "a.json", mutant(name="twice"))
    write_area(tmp_path / "t", "b.json", mutant(name="twice"))
    with pytest.raises(CatalogueError, match="duplicate mutant name 'twice'"):
        load_catalogue(tmp_path / "t")


def test_load_catalogue_folder_of_another_tutorial_is_rejected(tmp_path: Path) -> None:
    write_area(tmp_path / "t", "a.json", mutant(name="one"))
    write_area(tmp_path / "t", "b.json", mutant(name="two"), tutorial="other")
    with pytest.raises(CatalogueError, match=r"b\.json: field tutorial: 'other'"):
        load_catalogue(tmp_path / "t")


def test_load_catalogue_empty_folder_is_rejected(tmp_path: Path) -> None:
    (tmp_path / "t").mkdir()
    with pytest.raises(CatalogueError, match=r"no \*\.json catalogue files"):
        load_catalogue(tmp_path / "t")


def test_covering_picks_one_mutant_per_guarantee_preferring_a_lone_expectation() -> None:
    catalogue = Catalogue(tutorial="t", mutants=(
        mutant(name="both", expected=["a", "b"]),
        mutant(name="only-b", expected=["b"]),
        mutant(name="b-again", expected=["b"]),
        mutant(name="only-c", expected=["c"]),
    ))
    assert [m.name for m in covering(catalogue).mutants] == ["both", "only-b", "only-c"]


def test_every_mutant_of_the_shipped_catalogues_is_fresh() -> None:
    # A source edit that moves a mutant's original text makes it stale; say so here, in
    # seconds, not only when a mutation run reaches that mutant.
    catalogues = [tutorial.catalogue_directory(PROJECT_ROOT) for tutorial in list_tutorials()
                  if tutorial.catalogue_directory(PROJECT_ROOT).is_dir()]
    stale: list[str] = []
    for path in catalogues:
        for mutant in load_catalogue(path).mutants:
            try:
                check_fresh(mutant, PROJECT_ROOT)
            except StaleMutant as error:
                stale.append(str(error))

    assert catalogues, "no tutorial has a catalogue (tutorials/<id>/mutation/catalogue/)"
    assert not stale, "\n".join(stale)


@pytest.mark.parametrize("page", ["ours", "react"])
def test_mutate_list_names_every_mutant_of_the_page_and_runs_none(
    page: MutantPage, capsys: pytest.CaptureFixture[str],
) -> None:
    catalogue = for_page(load_catalogue(catalogue_path("r-15", PROJECT_ROOT)), page)

    code = main(["mutate", "r-15", "--list", "--page", page])

    listed = [line.split()[0] for line in capsys.readouterr().out.splitlines()]
    assert code == 0
    assert listed == [mutant.name for mutant in catalogue.mutants] and listed


def test_catalogue_locales_apply_to_each_mutant_that_names_none() -> None:
    mutant = {"name": "m", "description": "d", "file": "fixtures/x/app.js", "original": "a",
              "replacement": "b", "expected": ["denial-respected"]}
    catalogue = Catalogue.model_validate({"tutorial": "t", "locales": ["en"], "mutants": [
        mutant, {**mutant, "name": "n", "locales": ["zh"]}]})

    assert [m.locales for m in catalogue.mutants] == [("en",), ("zh",)]
    assert Catalogue.model_validate({"tutorial": "t", "mutants": [mutant]}).mutants[0].locales == ()

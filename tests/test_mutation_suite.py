"""The mutation suite: every mutant of r-15 is killed by the check meant to catch it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pling_harness.mutation.catalogue import (
    StaleMutant,
    catalogue_path,
    check_fresh,
    covering,
    for_page,
    load_catalogue,
)
from pling_harness.mutation.render import render_run
from pling_harness.mutation.runner import SuiteInvocation, collect_guarantees, run_catalogue

# The harness's own checkout: the project these tests check.
PROJECT_ROOT = Path(__file__).resolve().parents[1]

TUTORIAL_ID = "r-15-confirmation-and-human-handoff"


def test_catalogue_every_mutant_still_matches_the_source() -> None:
    catalogue = load_catalogue(catalogue_path(TUTORIAL_ID, PROJECT_ROOT))
    stale = []
    for mutant in catalogue.mutants:
        try:
            check_fresh(mutant, PROJECT_ROOT)
        except StaleMutant as error:
            stale.append(str(error))
    assert not stale, "\n".join(stale)


def test_catalogue_names_only_guarantees_the_checks_declare() -> None:
    catalogue = load_catalogue(catalogue_path(TUTORIAL_ID, PROJECT_ROOT))
    also_run = sorted({path for mutant in catalogue.mutants for path in mutant.also_run})
    invocation = SuiteInvocation(tutorial_id=TUTORIAL_ID, source_root=PROJECT_ROOT)
    declared = collect_guarantees(invocation, also_run=also_run)
    unknown = {g for mutant in catalogue.mutants for g in mutant.expected} - declared
    assert not unknown, f"mutants expect guarantees no check declares: {sorted(unknown)}"


@pytest.mark.mutation
def test_mutation_suite_every_guarantee_killed_by_a_mutant() -> None:
    # One mutant per guarantee, each meeting only the checks meant to catch it, so every
    # guarantee is shown to fail in minutes (`-m mutation`). `pling-tutorial mutate r-15 --focused`
    # runs the whole catalogue (its figure is in the README).
    # Our page's mutants: the React page's run against it with `--external --page react`.
    whole = load_catalogue(catalogue_path(TUTORIAL_ID, PROJECT_ROOT))
    catalogue = covering(for_page(whole, "ours"))
    invocation = SuiteInvocation(tutorial_id=TUTORIAL_ID, source_root=PROJECT_ROOT, focused=True)
    also_run = sorted({path for mutant in catalogue.mutants for path in mutant.also_run})
    declared = collect_guarantees(invocation, also_run=also_run)
    jobs = max(1, os.cpu_count() or 1)

    run = run_catalogue(catalogue, invocation, jobs=jobs, declared_guarantees=declared)

    assert run.ok, "\n" + render_run(run)


@pytest.mark.mutation
def test_react_page_mutants_each_killed_against_the_served_react_page() -> None:
    # React-shaped bugs (StrictMode, a ref that never unbinds, an unmounted control, a
    # reformatted code field, …), each copy's page started from its `react` row (Vite, its
    # cwd in the copy) by the check run, over its own fixture server, as `check --page react`.
    catalogue = for_page(load_catalogue(catalogue_path(TUTORIAL_ID, PROJECT_ROOT)), "react")
    invocation = SuiteInvocation(tutorial_id=TUTORIAL_ID, source_root=PROJECT_ROOT, focused=True,
                                 page="react")
    declared = frozenset(g for mutant in catalogue.mutants for g in mutant.expected)

    run = run_catalogue(catalogue, invocation, jobs=1, declared_guarantees=declared)

    assert run.ok and {r.verdict for r in run.results} == {"killed"}, "\n" + render_run(run)

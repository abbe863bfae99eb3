"""Collecting the generated checks: pytest finds a tutorial's `actions.json` (running the
tutorial's folder, as `pling-tutorial check` does, or the file itself) and collects it as a
module holding one test, `test_declared`, parametrized over every check the table implies
in every locale of the tutorial: `actions.json::test_declared[<action>-<check>-<locale>]`.
The ids are stable (the table's order, the tutorial's locales), so shards, durations, the
merged report and the mutation suite treat them as any other check."""

from __future__ import annotations

import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pling_harness.browser.dock import Dock
from pling_harness.evidence.timeline import Timeline
from pling_harness.plugin.declared import (
    conversation_checks,
    copy_files,
    copy_notices,
    copy_walk,
    dev_server_checks,
    fault_checks,
    foreign_checks,
    gateway_checks,
    handoff_checks,
    highlight_checks,
    isolation_checks,
    lifecycle_checks,
    model_output_checks,
    model_text_checks,
    rejection_checks,
    run_checks,
    testbed_checks,
)
from pling_harness.plugin.declared.context import DeclaredRun
from pling_harness.plugin.declared.examples import add_options
from pling_harness.plugin.declared.matrix import DECLARED_CASES, DeclaredCheck, declared_checks
from pling_harness.plugin.declared.testbed_run import checks_of_testbed_rows, run_of_testbed_row
from pling_harness.plugin.driver import ON_TESTBED_MARK
from pling_harness.plugin.external import ServedTutorial
from pling_harness.plugin.factories import OpenTutorialPage
from pling_harness.plugin.options import pling_root
from pling_harness.plugin.tutorial_choice import chosen_tutorial, run_locales
from pling_harness.project.action_table import (
    ACTION_TABLE_FILE_NAME,
    ActionTable,
    TableError,
    load_action_table,
)
from pling_harness.project.paths import TUTORIALS_DIR_NAME
from pling_harness.project.testbed_table import (
    TestbedTable,
    load_testbed_table,
    path_of_testbed_table,
)
from pling_harness.project.texts import Say, Words
from pling_harness.project.tutorials import TUTORIAL_FILE_NAME, TutorialError
from pling_harness.server.model.handle import ModelHandle

# Each generated check by name (matrix.py names them).
CHECKS: dict[str, Callable[[DeclaredRun], None]] = {
    "policy-table": run_checks.policy_table,
    "approval-before-side-effects": run_checks.approval_before_side_effects,
    "denial-respected": run_checks.denial_respected,
    "declared-effect": run_checks.declared_effect,
    "session-grant-for-ask": run_checks.session_grant_for_ask,
    "ask-always-never-granted": run_checks.ask_always_never_granted,
    "success-after-business-answer": run_checks.success_after_business_answer,
    "hidden-characters-refused": run_checks.hidden_characters_refused,
    "handoff-no-stacking": handoff_checks.handoff_no_stacking,
    "handoff-steps-advance": handoff_checks.handoff_steps_advance,
    "handoff-cancel": handoff_checks.handoff_cancel,
    "handoff-timeout": handoff_checks.handoff_timeout,
    "handoff-done-requires-expect": handoff_checks.handoff_done_requires_expect,
    "success-only-after-published": handoff_checks.success_only_after_published,
    "highlight-brings-target-into-view": highlight_checks.highlight_brings_target_into_view,
    "highlight-follows-scroll": highlight_checks.highlight_follows_scroll,
    "highlight-follows-resize": highlight_checks.highlight_follows_resize,
    "highlight-follows-layout": highlight_checks.highlight_follows_layout,
    "new-conversation-ends-pending": conversation_checks.new_conversation_ends_pending,
    "rejected-before-prompt": rejection_checks.rejected_before_prompt,
    "rejected-when-unavailable": rejection_checks.rejected_when_unavailable,
    "projection-complete": rejection_checks.projection_complete,
    "copy-files-agree": copy_files.copy_files_agree,
    "dev-server-refuses-other-sites": dev_server_checks.dev_server_refuses_other_sites,
    "endpoints-refuse-foreign-requests": foreign_checks.table_refuses_foreign_requests,
    "unknown-action-told": fault_checks.unknown_action_told,
    "invalid-arguments-told": fault_checks.invalid_arguments_told,
    "fifty-calls-in-one-reply": model_output_checks.fifty_calls_in_one_reply,
    "markup-in-arguments-shown-as-text": model_output_checks.markup_in_arguments_shown_as_text,
    "markup-shown-as-text": model_output_checks.assistant_text_with_markup,
    "model-text-never-acts": model_text_checks.model_text_never_acts,
    "card-arguments-never-act": model_text_checks.card_arguments_never_act,
    "model-calls-per-turn-capped": model_output_checks.model_calls_per_turn_capped,
    "model-request-fails": gateway_checks.model_request_fails,
    "new-document-starts-clean": isolation_checks.new_document_starts_clean,
    "notices-mean-their-codes": copy_notices.notices_mean_their_codes,
    "page-speaks-its-locale": copy_walk.page_speaks_its_locale,
    "provider-faults": gateway_checks.provider_faults,
    "refuses-foreign-requests": foreign_checks.action_refuses_foreign_requests,
    "repeated-call-id-refused": model_output_checks.repeated_call_id_refused,
    "repeated-call-id-runs-nothing-unasked":
        model_output_checks.repeated_call_id_runs_nothing_unasked,
    "reply-without-text-or-calls": model_output_checks.reply_without_text_or_calls,
    "run-failure-notice-means-its-code": copy_notices.run_failure_notice_means_its_code,
    "timeout-notice-means-its-code": copy_notices.timeout_notice_means_its_code,
    "whitespace-text-adds-no-message": model_output_checks.whitespace_text_adds_no_message,
    "refused-before-prompt": testbed_checks.refused_before_prompt,
    "asks-and-runs-again": testbed_checks.asks_and_runs_again,
    **lifecycle_checks.REGISTERED_ONCE,
}


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


def is_action_table(path: Path) -> bool:
    """`tutorials/<id>/actions.json` beside a tutorial.json."""
    return (path.name == ACTION_TABLE_FILE_NAME and path.parent.parent.name == TUTORIALS_DIR_NAME
            and (path.parent / TUTORIAL_FILE_NAME).is_file())


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if not is_action_table(file_path) or pling_root(parent.config) is None:
        return None
    table: ActionTableFile = ActionTableFile.from_parent(parent, path=file_path)
    return table


class ActionTableFile(pytest.Module):
    """A tutorial's action table, collected as a module of generated checks."""

    def _getobj(self) -> types.ModuleType:
        root = pling_root(self.config)
        assert root is not None
        try:
            tutorial = chosen_tutorial(self.config, self.path, root)
            table = load_action_table(self.path)
            table.check_against(path=self.path, user_requests=list(tutorial.user_requests),
                                initial_state=tutorial.api.initial_state,
                                business_view=list(tutorial.page.business_view))
            testbed = _testbed_table(self.path.parent, list(tutorial.user_requests))
        except (TableError, TutorialError, pytest.UsageError) as error:
            raise self.CollectError(str(error)) from None
        module = types.ModuleType(f"pling_declared_{tutorial.id.replace('-', '_')}")
        module.__file__ = str(self.path)
        on_testbed = [getattr(pytest.mark, ON_TESTBED_MARK)]
        cases = [pytest.param(check, locale, id=f"{check.id}-{locale}",
                              marks=[*(pytest.mark.guarantee(g) for g in check.guarantees),
                                     *(on_testbed if testbed_row else [])])
                 for check, testbed_row in [
                     *((check, False) for check in declared_checks(table)),
                     *((check, True) for check in
                       (checks_of_testbed_rows(testbed) if testbed else []))]
                 for locale in run_locales(self.config, tutorial)]
        test = _declared_test(table, testbed)
        setattr(test, DECLARED_CASES, cases)
        module.__dict__["test_declared"] = test
        return module


def _testbed_table(directory: Path, user_requests: list[str]) -> TestbedTable | None:
    """The tutorial's testbed table, if it has one (the runtime's own rules, shown on the
    testbed page)."""
    path = path_of_testbed_table(directory)
    if not path.exists():
        return None
    testbed = load_testbed_table(path)
    testbed.check_against(path=path, user_requests=user_requests)
    return testbed


def _declared_test(table: ActionTable, testbed: TestbedTable | None) -> Callable[..., None]:
    def test_declared(declared: DeclaredCheck, locale: str, open_tutorial_page: OpenTutorialPage,
                      dock: Dock, timeline: Timeline, model: ModelHandle, words: Words,
                      say: Say, tutorial_server: ServedTutorial,
                      request: pytest.FixtureRequest) -> None:
        """A check generated from the tutorial's action table (its id says which)."""
        action = declared.action if declared.action in table.actions else next(iter(table.actions))
        fixtures: dict[str, Any] = dict(open_tutorial_page=open_tutorial_page, dock=dock,
                                        timeline=timeline, model=model, words=words, say=say,
                                        locale=locale, served=tutorial_server)
        run = run_of_testbed_row(declared, testbed, lambda: request.getfixturevalue("testbed"),
                                 **fixtures) \
            or DeclaredRun(action=action, row=table.actions[action], table=table, **fixtures)
        if declared.check == "approval-shows-exact-arguments":
            run_checks.approval_shows_exact_arguments(run, request.config, request.node.nodeid)
        elif declared.check == "approval-shows-whole-values":
            run_checks.approval_shows_whole_values(run, request.config, request.node.nodeid)
        elif declared.check == "nothing-reaches-the-next-test":
            # Its own fixture: n/a (skipped) with --base-url, where one server serves all.
            isolation_checks.nothing_reaches_the_next_test(
                run, request.getfixturevalue("start_next_test"))
        else:
            CHECKS[declared.check](run)

    return test_declared


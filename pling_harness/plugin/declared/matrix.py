"""Which generated checks an action's row implies, each with the guarantees it proves."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from pling_harness.plugin.declared.highlight_checks import HIGHLIGHT_CHECKS
from pling_harness.project.action_table import ActionRow, ActionTable

# The attribute of `test_declared` holding its cases, which collection.py parametrizes first
# (the check's id leads, the browser's follows, as the locale leads in a hand-written one).
DECLARED_CASES = "pling_declared_cases"
# The check that compares the table with the page's projection, once per locale.
TABLE_ROW = "table"
COPY = "bilingual-copy"


@dataclass(frozen=True)
class DeclaredCheck:
    """One generated check: `check` (a name of `pling_harness.plugin.declared.checks`) for
    `action`, proving `guarantees`."""

    action: str
    check: str
    guarantees: tuple[str, ...]

    @property
    def id(self) -> str:
        return f"{self.action}-{self.check}"


# The lifecycles a page's registrations go through (lifecycle_checks.py), one check each.
Lifecycle = Literal["as-served", "rerender", "remount"]
LIFECYCLES: tuple[Lifecycle, ...] = get_args(Lifecycle)
LIFECYCLE_CHECK = "registered-once"


def lifecycle_guarantees(row: ActionRow) -> tuple[str, ...]:
    """What a row's registered-once checks prove: the projection always; one card, and
    nothing run before it or after a Deny (an asking row); one handoff (a handoff); one
    run of an unasked call's handler (a `none` row with `calls`)."""
    if row.policy == "handoff":
        return ("projection-complete", "handoff-no-stacking")
    if row.asks:
        return ("projection-complete", "approval-before-side-effects", "denial-respected")
    if row.calls is not None:
        return ("projection-complete", "calls-one-after-another")
    return ("projection-complete",)


def _run_checks(row: ActionRow) -> list[tuple[str, tuple[str, ...]]]:
    checks: list[tuple[str, tuple[str, ...]]] = [("policy-table", ("policy-table",))]
    if row.asks:
        checks += [
            ("approval-before-side-effects", ("approval-before-side-effects",)),
            ("denial-respected", ("denial-respected", "no-silent-retry")),
            ("session-grant-for-ask", ("session-grant-for-ask",)) if row.policy == "ask"
            else ("ask-always-never-granted", ("ask-always-never-granted",)),
            ("approval-shows-exact-arguments", ("approval-shows-exact-arguments",)),
            # The same promise for plain values, needing no hidden-characters marker.
            ("approval-shows-whole-values", ("approval-shows-exact-arguments",)),
        ]
    if row.calls is not None:
        checks.append(("declared-effect", ("declared-effect",)))
    if row.calls is not None and row.calls.method != "GET":  # a read changes nothing
        checks.append(("success-after-business-answer",
                       ("success-after-business-answer", "run-failure-reported")))
    if any("hidden-characters" in argument.refused for argument in row.arguments.values()):
        checks.append(("hidden-characters-refused", ("hidden-characters-refused",)))
    return checks


def _handoff_checks(row: ActionRow) -> list[tuple[str, tuple[str, ...]]]:
    assert row.handoff is not None
    # Steps move on only where one comes before the last (whose action completes it).
    advance = [("handoff-steps-advance", ("handoff-guidance",))] if len(row.handoff.steps) > 1 \
        else []
    return [
        ("handoff-no-stacking", ("handoff-no-stacking", "handoff-guidance")),
        *advance,
        ("handoff-cancel", ("handoff-cancel", "no-silent-retry", "handoff-never-writes-target")),
        ("handoff-timeout", ("handoff-timeout", "handoff-never-writes-target")),
        ("handoff-done-requires-expect", ("handoff-done-requires-expect", "handoff-guidance",
                                          "handoff-never-writes-target")),
        ("success-only-after-published", ("success-only-after-published", "handoff-receipt",
                                          "handoff-never-writes-target")),
        *HIGHLIGHT_CHECKS,  # each step's highlight however the page moves
    ]


def declared_checks(table: ActionTable) -> list[DeclaredCheck]:
    """Every check the table implies: the tutorial's words, then action by action in the
    table's order, then the table's own (TABLE_CHECKS: its comparison with the page's
    projection, the server's guards, the isolation between tests)."""
    found: list[DeclaredCheck] = []
    for action, row in table.actions.items():
        checks = _handoff_checks(row) if row.policy == "handoff" else _run_checks(row)
        checks += [(f"{LIFECYCLE_CHECK}-{lifecycle}", lifecycle_guarantees(row))
                   for lifecycle in LIFECYCLES]
        if row.asks:  # it waits on the user: a card, or (below) a handoff and its highlights
            checks.append(("new-conversation-ends-pending", ("new-conversation-ends-pending",)))
        if row.policy == "handoff":
            checks.append(("new-conversation-ends-pending", ("new-conversation-ends-pending",
                                                             "handoff-guidance")))
        checks.append(("rejected-before-prompt", ("rejected-before-prompt",
                                                  "hostile-model-output")))
        if row.unavailable_when:
            checks.append(("rejected-when-unavailable", ("rejected-before-prompt",
                                                         "projection-complete")))
        checks += _notice_checks(row)
        if changes_state(row):
            checks.append(("refuses-foreign-requests", ("server-refuses-foreign-requests",)))
        found += [DeclaredCheck(action, check, guarantees) for check, guarantees in checks]
    found += [DeclaredCheck(TABLE_ROW, check, guarantees) for check, guarantees in TABLE_CHECKS]
    # The tutorial's words, once per locale, before its actions' notices: the files, then the
    # page in every dock state, find most copy faults, so a mutant meets them first.
    return [DeclaredCheck(TABLE_ROW, check, (COPY,))
            for check in ("copy-files-agree", "page-speaks-its-locale")] + found


def _notice_checks(row: ActionRow) -> list[tuple[str, tuple[str, ...]]]:
    """The safety notices the row can bring up, each meaning its code in the locale: its
    policy's (a denial, a handoff's cancel and Done without the effect, the turn's cap for
    one that runs unasked), a handoff's timeout, a failed run of one that changes state."""
    checks: list[tuple[str, tuple[str, ...]]] = [("notices-mean-their-codes", (COPY,))]
    if row.policy == "handoff":
        checks.append(("timeout-notice-means-its-code", (COPY,)))
    elif row.calls is not None and row.calls.method != "GET":
        checks.append(("run-failure-notice-means-its-code", (COPY,)))
    return checks


# Checks of the table as a whole (once per locale): the projection; what the model may send
# that no action declares, staged with the table's own actions (stage.py); what every
# tutorial's server promises whatever its actions.
TABLE_CHECKS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("projection-complete", ("projection-complete",)),
    ("provider-faults", ("gateway-faults",)),
    ("model-request-fails", ("gateway-faults",)),
    ("fifty-calls-in-one-reply", ("loop-limit", "hostile-model-output")),
    ("model-calls-per-turn-capped", ("loop-limit", "hostile-model-output")),
    ("repeated-call-id-refused", ("hostile-model-output", "rejected-before-prompt",
                                  "invalid-params-names-the-argument")),
    ("repeated-call-id-runs-nothing-unasked", ("hostile-model-output",)),
    ("reply-without-text-or-calls", ("hostile-model-output",)),
    ("unknown-action-told", ("hostile-model-output",)),
    ("invalid-arguments-told", ("hostile-model-output",)),
    ("whitespace-text-adds-no-message", ("hostile-model-output",)),
    ("markup-shown-as-text", ("model-text-is-text", "hostile-model-output")),
    ("markup-in-arguments-shown-as-text", ("model-text-is-text",)),
    ("model-text-never-acts", ("model-text-inert",)),
    ("card-arguments-never-act", ("model-text-inert",)),
    ("endpoints-refuse-foreign-requests", ("server-refuses-foreign-requests",)),
    ("dev-server-refuses-other-sites", ("dev-server-refuses-other-sites",)),
    ("new-document-starts-clean", ("tests-isolated",)),
    ("nothing-reaches-the-next-test", ("tests-isolated",)),
)


def changes_state(row: ActionRow) -> bool:
    """Whether the row declares a business request that is not a read (its `calls`, or its
    handoff's `done.request`): one another site could send around the dock."""
    requests = [row.calls, row.handoff.done.request if row.handoff else None]
    return any(request is not None and request.method != "GET" for request in requests)

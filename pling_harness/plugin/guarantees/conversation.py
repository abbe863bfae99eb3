"""What ends with a conversation, a page load or a test: nothing of it goes on afterwards."""

from __future__ import annotations

from pling_harness.plugin.declared import conversation_checks, isolation_checks
from pling_harness.plugin.declared.context import DeclaredRun
from pling_harness.plugin.declared.rows import asks, is_handoff
from pling_harness.plugin.guarantee_registry import LAST, Generates, Guarantee, declare


def _nothing_reaches_the_next_test(run: DeclaredRun) -> None:
    # Its own fixture: n/a (skipped) with --base-url, where one server serves all.
    request = run.pytest_request()
    isolation_checks.nothing_reaches_the_next_test(
        run, request.getfixturevalue("start_next_test"))


declare(
    Guarantee(
        name="new-conversation-ends-pending",
        means="\"new conversation\" during a card or a handoff ends it: it leaves the screen, "
              "nothing runs from it, and the abandoned turn makes no further model or business "
              "request",
        breaks="a card or a step the user walked away from still acts after they started over",
        checks=(Generates("new-conversation-ends-pending",
                          conversation_checks.new_conversation_ends_pending, order=210,
                          when=lambda row: asks(row) or is_handoff(row),
                          also=lambda row: ("handoff-guidance",) if is_handoff(row) else (),
                          rows="`ask`, `ask-always`, `handoff`: a new conversation while its "
                               "card or handoff waits ends it; the stale control, every timer "
                               "and (a handoff) the human's steps done afterwards reach neither "
                               "the model nor (a card) the business API; the next conversation "
                               "starts from nothing (a handoff's, its highlights gone: "
                               "`handoff-guidance` too)"),),
    ),
    Guarantee(
        name="tests-isolated",
        means="nothing of one check reaches the next, though a worker's checks share one warm "
              "page and one server origin: a new document starts without the last dock "
              "session (grant, conversation, handoff), and after the line the plugin draws "
              "between two tests the next one's page has no message, card, panel, storage, "
              "cookie, `window.name`, init script or route of the last one, its grant is gone, "
              "the model hears only the new conversation, its server starts from the initial "
              "workspace, and a request of the ended test arriving late is refused (410) and "
              "changes nothing",
        breaks="a grant, a card or a request of one session turns up in the next (a reload "
               "that keeps \"always allow\", say)",
        # The next test's server is a seat on the fixture server's shared host.
        evidence=frozenset({"page", "model", "state", "server"}),
        checks=(
            Generates("new-document-starts-clean", isolation_checks.new_document_starts_clean,
                      per="table", order=LAST + 170,
                      rows="the table's first `ask` row (its \"always allow\" where the "
                           "assistant offers one, else denied; else an asking row, denied) "
                           "and first handoff: left open, a reload shows no message, card, "
                           "panel or highlight, the request shows its card again and reaches "
                           "the model alone"),
            Generates("nothing-reaches-the-next-test", _nothing_reaches_the_next_test,
                      per="table", order=LAST + 180,
                      rows="(n/a with `--base-url`, one server for all) the same rows, plus "
                           "storage of every kind, an init script and a route: after the "
                           "plugin's line between two tests the next one has none of it, its "
                           "server starts from `api.initial_state`, and the ended test's late "
                           "state-changing request (the table's first) is answered 410 and "
                           "changes nothing"),
        ),
    ),
)

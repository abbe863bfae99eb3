"""The page speaks its locale: the tutorial's words, and every notice meaning its code."""

from __future__ import annotations

from pling_harness.plugin.declared import copy_files, copy_notices, copy_walk
from pling_harness.plugin.declared.rows import is_handoff, writes
from pling_harness.plugin.guarantee_registry import Generates, Guarantee, declare

declare(
    Guarantee(
        name="bilingual-copy",
        means="(generated from the tutorial's files and action table) same keys and "
              "placeholders; every copy value in its locale's language; `<html lang>`; every "
              "dock state (busy, both cards, denial, handoff and timer, cancel, timeout, "
              "`HANDOFF_FAILED`, `RUN_FAILED`, `LOOP_LIMIT`, gateway error, rejected call) "
              "rendered in the page's language; each safety notice means its code by the "
              "reviewed glossary (a zh denial that says \"已允许\" fails); the framework's terms "
              "(人工接力, 始终允许, …) in copy and tutorial text",
        breaks="a user reads a safety notice in the wrong language, or one that says the "
               "opposite of what happened",
        checks=(
            Generates("copy-files-agree", copy_files.copy_files_agree, per="table", order=-20,
                      rows="the tutorial's files, not the table: `copy/<locale>.json` (and "
                           "`copy/dock/`) key for key and placeholder for placeholder with "
                           "every other locale, every value in its locale's language and "
                           "translated, the glossary's terms where the en value uses them; "
                           "`tutorial.<locale>.md` with every locale's sections, its title "
                           "(`tutorial.json`) and sections holding to the glossary"),
            Generates("page-speaks-its-locale", copy_walk.page_speaks_its_locale, per="table",
                      order=-10,
                      rows="`<html lang>`, then the page in every dock state, each reached "
                           "through the first action of the table that can show it: busy, a "
                           "reply, a card of each asking policy and its denial, the handoff "
                           "panel, its cancel, Done without the effect and timeout, a failed "
                           "run, the turn's cap, a call of an action no page offers, a gateway "
                           "error; no raw copy key, no unfilled placeholder, no word of another "
                           "language (ids, arguments and the state's text aside), no term the "
                           "glossary rules out"),
            Generates("notices-mean-their-codes", copy_notices.notices_mean_their_codes,
                      order=240,
                      rows="every action: the notices its `policy` brings up, a denial "
                           "(`ask`, `ask-always`), a cancel and a Done without the effect "
                           "(`handoff`), the turn's cap (`none`, called reply after reply), "
                           "each meaning its code in the page's locale by the reviewed "
                           "glossary and naming the action"),
            Generates("timeout-notice-means-its-code", copy_notices.timeout_notice_means_its_code,
                      order=250, when=is_handoff, needs=("handoff.timer",),
                      rows="`handoff.timeout_ms`: the timeout's notice (n/a where the driver "
                           "shows no timer)"),
            Generates("run-failure-notice-means-its-code",
                      copy_notices.run_failure_notice_means_its_code, order=251, when=writes,
                      rows="`calls` with a method other than GET: its request answered 503, "
                           "the `RUN_FAILED` notice (n/a where the page's server runs the "
                           "call)"),
        ),
    ),
)

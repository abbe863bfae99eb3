"""Which sources of evidence each guarantee's proof needs, and which a run has.

With its own fixture server the harness has every source. Checking a page served elsewhere
(`--base-url`), it has the page (in-page probe), the browser's network view, the model's
side of the conversation (the browser's model route answers the page's model endpoint) and
the business state (the tutorial's declared state request), but none of the fixture
server's internals. A check whose guarantee needs a source the run lacks is reported
`n/a (external)` with the reason below, never as a pass.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

EvidenceSource = Literal["page", "network", "model", "state", "server-log", "provider", "server"]

# What a page served elsewhere still offers.
EXTERNAL_SOURCES: frozenset[EvidenceSource] = frozenset({"page", "network", "model", "state"})
ALL_SOURCES: frozenset[EvidenceSource] = EXTERNAL_SOURCES | {"server-log", "provider", "server"}

# Why a source is missing in external mode, for the summary table.
MISSING_EXTERNALLY: dict[EvidenceSource, str] = {
    "provider": "faults are injected at the fixture server's model provider; an external "
                "page's model endpoint is answered by the harness's route, so no gateway or "
                "provider of the target is involved",
    "server": "proves what the fixture server itself does (its request guard, where the "
              "provider key lives, a fresh server seat per test), which a page served "
              "elsewhere does not run",
    "server-log": "reads the fixture server's log, which a page served elsewhere does not "
                  "share",
}

_BROWSER_EVIDENCE = EXTERNAL_SOURCES

# Every guarantee a check may name, with the sources its proof reads.
GUARANTEE_SOURCES: dict[str, frozenset[EvidenceSource]] = {
    "acceptance-walk": _BROWSER_EVIDENCE,
    "approval-before-side-effects": _BROWSER_EVIDENCE,
    "approval-only-by-click": _BROWSER_EVIDENCE,
    "approval-shows-exact-arguments": _BROWSER_EVIDENCE,
    "ask-always-never-granted": _BROWSER_EVIDENCE,
    "availability-rechecked-after-approval": _BROWSER_EVIDENCE,
    "bad-declaration-refused": _BROWSER_EVIDENCE,
    "bilingual-copy": _BROWSER_EVIDENCE,
    "calls-one-after-another": _BROWSER_EVIDENCE,
    "denial-respected": _BROWSER_EVIDENCE,
    "expect-check-follows-page-changes": _BROWSER_EVIDENCE,
    "forged-decision-refused": _BROWSER_EVIDENCE,
    "gateway-faults": frozenset({"page", "model", "provider"}),
    "handoff-cancel": _BROWSER_EVIDENCE,
    "handoff-custom-timeout": _BROWSER_EVIDENCE,
    "handoff-done-requires-expect": _BROWSER_EVIDENCE,
    "handoff-guidance": _BROWSER_EVIDENCE,
    "handoff-never-writes-target": _BROWSER_EVIDENCE,
    "handoff-no-stacking": _BROWSER_EVIDENCE,
    "handoff-receipt": _BROWSER_EVIDENCE,
    "handoff-timeout": _BROWSER_EVIDENCE,
    "handoff-wrong-code": _BROWSER_EVIDENCE,
    "hidden-characters-refused": _BROWSER_EVIDENCE,
    "hostile-model-output": _BROWSER_EVIDENCE,
    "invalid-params-names-the-argument": _BROWSER_EVIDENCE,
    "loop-limit": _BROWSER_EVIDENCE,
    "model-received": _BROWSER_EVIDENCE,
    "model-text-is-text": _BROWSER_EVIDENCE,
    "new-conversation-ends-pending": _BROWSER_EVIDENCE,
    "no-silent-retry": _BROWSER_EVIDENCE,
    "one-turn-at-a-time": _BROWSER_EVIDENCE,
    "policy-table": _BROWSER_EVIDENCE,
    "projection-complete": _BROWSER_EVIDENCE,
    "rejected-before-prompt": _BROWSER_EVIDENCE,
    "reset-restores-initial-state": _BROWSER_EVIDENCE,
    "run-failure-reported": _BROWSER_EVIDENCE,
    "run-result-reaches-the-model": _BROWSER_EVIDENCE,
    "schema-enforced": _BROWSER_EVIDENCE,
    "secrets-stay-on-server": frozenset({"page", "network", "provider", "server"}),
    # Proven by sending foreign requests to the target's declared business API over HTTP and
    # reading its state back (tests/ prove the fixture server's guard further, from its log).
    "server-refuses-foreign-requests": _BROWSER_EVIDENCE,
    "session-grant-for-ask": _BROWSER_EVIDENCE,
    "success-after-business-answer": _BROWSER_EVIDENCE,
    "success-only-after-published": _BROWSER_EVIDENCE,
    # The next test's server is a seat on the fixture server's shared host.
    "tests-isolated": frozenset({"page", "model", "state", "server"}),
}


class UndeclaredGuarantee(KeyError):
    """A check names a guarantee this table does not list."""

    def __str__(self) -> str:
        return (f"guarantee {self.args[0]!r} does not say which evidence it needs; add it to "
                "GUARANTEE_SOURCES in harness/evidence/sources.py")


def sources_needed(guarantees: Iterable[str]) -> frozenset[EvidenceSource]:
    needed: frozenset[EvidenceSource] = frozenset()
    for name in guarantees:
        if name not in GUARANTEE_SOURCES:
            raise UndeclaredGuarantee(name)
        needed |= GUARANTEE_SOURCES[name]
    return needed


def why_not_provable(guarantees: Iterable[str],
                     available: frozenset[EvidenceSource]) -> str | None:
    """Why checks of these guarantees cannot be proven with `available`, or None if they can."""
    missing = sorted(sources_needed(guarantees) - available)
    return "; ".join(MISSING_EXTERNALLY.get(source, source) for source in missing) or None

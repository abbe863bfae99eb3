"""Which sources of evidence each guarantee's proof needs, and which a run has.

With its own fixture server the harness has every source. Checking a page served elsewhere
(`--base-url`), it has the page (in-page probe), the browser's network view, the model's
side of the conversation (the browser's model route answers the page's model endpoint) and
the business state (the tutorial's declared state request), but none of the fixture
server's internals. A check whose guarantee needs a source the run lacks is reported
`n/a (external: <the reason below>)`, never as a pass.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping

from pling_harness.project.guarantee_families import EvidenceSource
from pling_harness.project.tutorials import TUTORIAL_FILE_NAME, Tutorial, TutorialError

# What a page served elsewhere still offers.
EXTERNAL_SOURCES: frozenset[EvidenceSource] = frozenset({"page", "network", "model", "state"})
# ... and with `--model-port`, where the check hosts the model the page's own server calls:
# the provider is the check's, so it scripts the provider's faults itself.
HOSTED_MODEL_SOURCES: frozenset[EvidenceSource] = EXTERNAL_SOURCES | {"provider"}
ALL_SOURCES: frozenset[EvidenceSource] = EXTERNAL_SOURCES | {"server-log", "provider", "server"}

# Why a source is missing in external mode, for the summary table.
MISSING_EXTERNALLY: dict[EvidenceSource, str] = {
    "provider": "faults are injected at the fixture server's model provider, or with "
                "--model-port at the model the check hosts for the page's own server; without "
                "it an external page's model endpoint is answered by the harness's route, so "
                "no gateway or provider of the target is involved",
    "server": "proves what the fixture server itself does (its request guard, where the "
              "provider key lives, a fresh server seat per test), which a page served "
              "elsewhere does not run",
    "server-log": "reads the fixture server's log, which a page served elsewhere does not "
                  "share",
}

_BROWSER_EVIDENCE = EXTERNAL_SOURCES

# The harness's own guarantees, with the sources each proof reads: the promises of the
# runtime, the dock and the page contract, which any tutorial's checks may name. A
# tutorial's own families come from its tutorial.json (`guarantee_sources`).
GUARANTEE_SOURCES: dict[str, frozenset[EvidenceSource]] = {
    "approval-before-side-effects": _BROWSER_EVIDENCE,
    "approval-honoured": _BROWSER_EVIDENCE,
    "approval-only-by-click": _BROWSER_EVIDENCE,
    "approval-shows-exact-arguments": _BROWSER_EVIDENCE,
    "ask-always-never-granted": _BROWSER_EVIDENCE,
    "availability-rechecked-after-approval": _BROWSER_EVIDENCE,
    "bad-declaration-refused": _BROWSER_EVIDENCE,
    "bilingual-copy": _BROWSER_EVIDENCE,
    "calls-one-after-another": _BROWSER_EVIDENCE,
    # An action table's row: the state its action leaves (generated checks).
    "declared-effect": _BROWSER_EVIDENCE,
    "denial-respected": _BROWSER_EVIDENCE,
    # Proven over HTTP against the server under check, a page's dev server included.
    "dev-server-refuses-other-sites": _BROWSER_EVIDENCE,
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
    # Where an action table says an argument refuses them (generated checks).
    "hidden-characters-refused": _BROWSER_EVIDENCE,
    "hostile-model-output": _BROWSER_EVIDENCE,
    "invalid-params-names-the-argument": _BROWSER_EVIDENCE,
    "loop-limit": _BROWSER_EVIDENCE,
    "model-received": _BROWSER_EVIDENCE,
    "model-text-inert": _BROWSER_EVIDENCE,
    "model-text-is-text": _BROWSER_EVIDENCE,
    "new-conversation-ends-pending": _BROWSER_EVIDENCE,
    "no-silent-retry": _BROWSER_EVIDENCE,
    "one-turn-at-a-time": _BROWSER_EVIDENCE,
    "policy-table": _BROWSER_EVIDENCE,
    "projection-complete": _BROWSER_EVIDENCE,
    "rejected-before-prompt": _BROWSER_EVIDENCE,
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


def guarantee_sources(tutorial: Tutorial | None) -> dict[str, frozenset[EvidenceSource]]:
    """Every guarantee a check of `tutorial` may name: the harness's and the tutorial's own
    (its tutorial.json `guarantees`), with the sources each proof reads. A tutorial may not
    redefine one of the harness's."""
    if tutorial is None:
        return dict(GUARANTEE_SOURCES)
    own = {name: frozenset(family.evidence) for name, family in tutorial.guarantees.items()}
    taken = sorted(own.keys() & GUARANTEE_SOURCES.keys())
    if taken:
        raise TutorialError(
            f"tutorial {tutorial.id!r} declares {taken} under guarantees in its "
            f"{TUTORIAL_FILE_NAME}, but the harness has guarantees of those names; name the "
            "tutorial's own differently, or drop them and use the harness's")
    return {**GUARANTEE_SOURCES, **own}


def closest_guarantee(name: str, known: Iterable[str]) -> str | None:
    """The known name most like `name` (a misspelling's likely meaning)."""
    found = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.0)
    return found[0] if found else None


class UndeclaredGuarantee(KeyError):
    """A check names a guarantee that is neither the harness's nor its tutorial's."""

    def __init__(self, name: str, known: Iterable[str]) -> None:
        super().__init__(name)
        self.name = name
        self.closest = closest_guarantee(name, known)

    def __str__(self) -> str:
        hint = f"; did you mean {self.closest!r}?" if self.closest else ""
        return (f"guarantee {self.name!r} is neither the harness's nor its tutorial's{hint} "
                f"(a tutorial declares its own under \"guarantees\" in its "
                f"{TUTORIAL_FILE_NAME}; the harness's are in pling_harness/evidence/sources.py)")


def sources_needed(guarantees: Iterable[str],
                   known: Mapping[str, frozenset[EvidenceSource]] = GUARANTEE_SOURCES,
                   ) -> frozenset[EvidenceSource]:
    needed: frozenset[EvidenceSource] = frozenset()
    for name in guarantees:
        if name not in known:
            raise UndeclaredGuarantee(name, known)
        needed |= known[name]
    return needed


def why_not_provable(guarantees: Iterable[str], available: frozenset[EvidenceSource],
                     known: Mapping[str, frozenset[EvidenceSource]] = GUARANTEE_SOURCES,
                     ) -> str | None:
    """Why checks of these guarantees cannot be proven with `available`, or None if they can
    (`known`: `guarantee_sources(tutorial)` for a tutorial's own)."""
    missing = sorted(sources_needed(guarantees, known) - available)
    return "; ".join(MISSING_EXTERNALLY.get(source, source) for source in missing) or None

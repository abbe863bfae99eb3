"""Which sources of evidence a run has, and whether the guarantees a check proves can be
proven with them (each guarantee's own sources are in its declaration: the harness's in
`pling_harness/plugin/guarantees/`, a tutorial's in its tutorial.json; the plugin hands them
in as `known`).

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
from pling_harness.project.tutorials import TUTORIAL_FILE_NAME

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
                f"{TUTORIAL_FILE_NAME}; the harness's are declared in "
                "pling_harness/plugin/guarantees/)")


def sources_needed(guarantees: Iterable[str],
                   known: Mapping[str, frozenset[EvidenceSource]],
                   ) -> frozenset[EvidenceSource]:
    needed: frozenset[EvidenceSource] = frozenset()
    for name in guarantees:
        if name not in known:
            raise UndeclaredGuarantee(name, known)
        needed |= known[name]
    return needed


def why_not_provable(guarantees: Iterable[str], available: frozenset[EvidenceSource],
                     known: Mapping[str, frozenset[EvidenceSource]],
                     ) -> str | None:
    """Why checks of these guarantees cannot be proven with `available`, or None if they can
    (`known`: every guarantee the run's checks may name, with the sources each proof reads:
    `pling_harness.plugin.guarantee_registry.guarantee_sources(tutorial)`)."""
    missing = sorted(sources_needed(guarantees, known) - available)
    return "; ".join(MISSING_EXTERNALLY.get(source, source) for source in missing) or None

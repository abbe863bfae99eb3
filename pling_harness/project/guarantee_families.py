"""The guarantee families a tutorial declares for its own checks (`guarantees` in its
tutorial.json), and the sources of evidence a guarantee's proof may read.

The harness keeps only its generic guarantees (declared in `pling_harness/plugin/guarantees/`):
what any page with the dock and any server under the page contract must keep. A promise of one
tutorial's page or business (r-15's name rule, its verification code, its reset) is that
tutorial's, declared next to its checks with what it means and what its proof reads; a
check may name either kind in `@pytest.mark.guarantee(...)`, and any other name is an error.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

EvidenceSource = Literal["page", "network", "model", "state", "server-log", "provider", "server"]
# Names in checks, reports and mutant catalogues: lower-case words joined by hyphens.
GuaranteeName = Annotated[str, Field(pattern=r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$", max_length=64)]


class GuaranteeFamily(BaseModel):
    """One guarantee a tutorial declares: what it means, and the evidence its proof reads
    (which decides whether a page served elsewhere can prove it, `--base-url`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    means: str = Field(min_length=1)
    # What a user sees or loses when it breaks (the guarantees page's words); `means` if unsaid.
    breaks: str | None = Field(default=None, min_length=1)
    evidence: tuple[EvidenceSource, ...] = Field(min_length=1)

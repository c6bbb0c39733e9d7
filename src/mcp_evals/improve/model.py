"""What ``mcp-evals improve`` found, proposed and proved (pure data): written as improve.json, and
rendered from it alone (improve.md)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from mcp_evals.compare.paired import Comparison
from mcp_evals.strict import StrictModel

IMPROVE_FORMAT: Literal["mcp-evals.improve"] = "mcp-evals.improve"
PairVerdictKind = Literal["improved", "no detectable change", "worse", "not proven", "not tested"]
OverallKind = Literal["improved", "no detectable change", "worse", "not proven", "nothing to prove"]
ProposalStatus = Literal["accepted", "dropped", "not proposed"]


class TargetPair(StrictModel):
    """Two tools a model takes for one another (observed on the dev split, or predicted by the lint)."""

    tools: tuple[str, str]
    observed: int = Field(0, description="Answers on dev fixtures that took one tool for the other.")
    predicted: float | None = Field(
        None, description="The lint's confusion score, when it predicts the pair."
    )

    @property
    def label(self) -> str:
        return f"{self.tools[0]} ↔ {self.tools[1]}"

    @property
    def why(self) -> str:
        """Why the pair is a target, in words."""
        parts = []
        if self.observed:
            parts.append(f"confused {self.observed}× on dev")
        if self.predicted is not None:
            parts.append(f"predicted by the lint ({self.predicted:.2f})")
        return ", ".join(parts) or "targeted"


class LintNote(StrictModel):
    """A lint finding on a target tool (D-, S- and N-rules), as the proposer is shown it."""

    rule: str
    severity: str
    message: str
    parameter: str | None = None

    @property
    def line(self) -> str:
        return f"{self.rule} ({self.severity}): {self.message}"


class ToolTarget(StrictModel):
    """A tool to rewrite: its confused neighbours and what the lint says about it."""

    tool: str
    neighbours: list[str]
    findings: list[LintNote] = Field(default_factory=list)


class Proposal(StrictModel):
    """A rewritten description for one tool (and its parameters'), and what became of it."""

    tool: str
    neighbours: list[str] = Field(default_factory=list)
    old_description: str
    description: str = Field("", description="The new description ('' when none was proposed).")
    old_parameters: dict[str, str] = Field(
        default_factory=dict, description="The old descriptions of the parameters it rewrites."
    )
    parameters: dict[str, str] = Field(
        default_factory=dict, description="Parameter → its new description (only those it rewrites)."
    )
    why: str = Field("", description="The proposer's reason, in a sentence.")
    status: ProposalStatus = "accepted"
    reason: str | None = Field(None, description="Why it was dropped, or not proposed.")
    answers: list[str] = Field(
        default_factory=list, description="Lint findings on the old description the new one no longer has."
    )


class PairVerdict(StrictModel):
    """A target pair on the test split: the fixtures it concerns, paired A (before) against B (after)."""

    tools: tuple[str, str]
    fixtures: list[str] = Field(
        default_factory=list,
        description="The test fixtures that expect either tool.",
    )
    paired: int = Field(0, description="Of those, answered in both arms.")
    unanswered: list[str] = Field(default_factory=list, description="Those not answered in both arms.")
    before: float | None = Field(None, description="Accuracy (0–100) before, on the paired fixtures.")
    after: float | None = None
    fixes: list[str] = Field(default_factory=list)
    breaks: list[str] = Field(default_factory=list)
    p_value: float = 1.0
    p_adjusted: float = Field(1.0, description="Holm's adjustment over the pairs tested.")
    verdict: PairVerdictKind = "not tested"

    @property
    def label(self) -> str:
        return f"{self.tools[0]} ↔ {self.tools[1]}"


class SourcePlace(StrictModel):
    """Where a description the proposals rewrite is written in the server's source."""

    file: str
    line: int
    tool: str
    parameter: str | None = None
    kind: str = Field(description="docstring, `description=` literal, `description:` literal, …")
    exact: bool = Field(
        description="The literal holds the published text as it is, so --apply can replace it."
    )
    applied: bool = False
    note: str = ""


class ImproveReport(StrictModel):
    """Everything one ``mcp-evals improve`` found, proposed and proved."""

    format: Literal["mcp-evals.improve"] = IMPROVE_FORMAT
    schema_version: Literal[1] = 1
    provider: str
    model: str
    lexical: bool = False
    alpha: float = 0.05
    dev_fixtures: int = 0
    test_fixtures: int = 0
    targets_from: str = Field("", description="Where the observed confusions came from.")
    pairs: list[TargetPair] = Field(default_factory=list)
    targets: list[ToolTarget] = Field(default_factory=list)
    proposals: list[Proposal] = Field(default_factory=list)
    verdicts: list[PairVerdict] = Field(default_factory=list)
    comparison: Comparison | None = Field(None, description="The proof: arm A (before) against B (after).")
    overall: OverallKind = "nothing to prove"
    verdict: str = Field("", description="The outcome in one paragraph.")
    places: list[SourcePlace] = Field(default_factory=list)
    spent_usd: float | None = None
    budget_usd: float | None = None
    incomplete: bool = Field(False, description="Something was not done: a budget stop, dropouts, errors.")
    notes: list[str] = Field(default_factory=list)

    @property
    def accepted(self) -> list[Proposal]:
        return [proposal for proposal in self.proposals if proposal.status == "accepted"]

    @property
    def not_proven(self) -> list[PairVerdict]:
        return [verdict for verdict in self.verdicts if verdict.verdict == "not proven"]

"""The scorecard's models: what a scored run is made of (fixtures, metrics, areas, tools, coverage)."""

from __future__ import annotations

import hashlib
from typing import Any, Literal

from pydantic import ConfigDict, Field

from mcp_evals.catalog.model import Tool, canonical_json
from mcp_evals.config.model import GateOptions, ScoringOptions
from mcp_evals.record.model import SamplingSettings
from mcp_evals.score.gate import GateDecision
from mcp_evals.score.intervals import Rate
from mcp_evals.score.outcomes import Outcome, SampleScore
from mcp_evals.strict import StrictModel


class FixtureScore(StrictModel):
    """A fixture over its samples."""

    id: str
    query: str
    kind: Literal["select", "refuse", "clarify"]
    area: str
    pattern: str | None = None
    expected_tools: list[str] = Field(default_factory=list)
    forbidden_tools: list[str] = Field(
        default_factory=list, description="Tools the fixture forbids: calling one is an unsafe action."
    )
    expected_args: dict[str, Any] = Field(default_factory=dict)
    outcome: Outcome = Field(
        description="The most frequent outcome of its reached samples (ties: the worse)."
    )
    passed: bool | None = Field(
        None, description="Passed in more than half of its reached samples; None if none."
    )
    pass_rate: float | None = None
    score: float | None = Field(None, description="Mean weighted score of its reached samples (0–100).")
    flaky: bool = False
    reached: int = 0
    samples: list[SampleScore] = Field(default_factory=list)

    @property
    def representative(self) -> SampleScore | None:
        """The first reached sample with the fixture's outcome (what reports show)."""
        return next((s for s in self.samples if s.reached and s.outcome == self.outcome), None)


class AreaScore(StrictModel):
    area: str
    fixtures: int
    accuracy: Rate = Field(description="Correct outcomes / reached answers in this area.")
    top1: Rate = Field(description="Top-1 over the area's select answers.")
    score: float | None = None
    minimum: float | None = None


class ToolScore(StrictModel):
    tool: str
    area: str
    description: str = ""
    expected: int = Field(0, description="Reached select answers that expect this tool.")
    chosen: int = Field(0, description="Reached answers whose first call is this tool.")
    precision: Rate = Field(default_factory=Rate, description="Chosen and expected / chosen.")
    recall: Rate = Field(default_factory=Rate, description="Answers expecting it that got an expected tool.")
    known: bool = True


class ConfusionPair(StrictModel):
    expected: str = Field(description="The expected tool(s), or `(refuse)` / `(clarify)`.")
    chosen: str = Field(description="The tool chosen first, or `(no call)`.")
    count: int
    fixtures: list[str] = Field(default_factory=list)


class UnknownTool(StrictModel):
    name: str = Field(description="A name the model called that is not in the catalog (a made-up tool).")
    count: int = Field(description="Reached answers that called it.")
    fixtures: list[str] = Field(default_factory=list)


class Coverage(StrictModel):
    planned: int = Field(description="Planned answers: fixtures × samples.")
    reached: int
    fixtures_planned: int
    fixtures_reached: int = Field(description="Fixtures with at least one reached answer.")
    rate: float | None = None
    missing_shards: list[str] = Field(
        default_factory=list,
        description="Shards of a sharded run that were not given: the plan is incomplete.",
    )

    @property
    def dropouts(self) -> int:
        return self.planned - self.reached

    @property
    def preliminary(self) -> bool:
        return self.reached < self.planned or bool(self.missing_shards)


class Metrics(StrictModel):
    top1: Rate
    top_k: Rate | None = Field(
        description="Select answers with an expected tool among their first k calls; null for the lexical "
        "baseline, which makes one call per answer (its top-k would repeat its top-1)."
    )
    k: int
    accuracy: Rate = Field(description="Correct outcomes over every reached answer (all kinds).")
    refusal: Rate
    clarification: Rate
    arguments: Rate = Field(description="Correct calls whose arguments pass.")
    passed: Rate = Field(description="Answers with the right outcome and, for a call, right arguments.")
    score: float | None = Field(None, description="Mean weighted score of reached answers (0–100).")
    samples: int = 1
    pass_k: Rate | None = Field(None, description="Fixtures right in all K samples (only when K > 1).")
    outcomes: dict[str, int] = Field(default_factory=dict)
    lexical_top1: Rate | None = Field(
        None,
        description="Top-1 of the lexical baseline (words alone) on the same reached select fixtures; "
        "only for a model run that recorded it.",
    )


class UsageSummary(StrictModel):
    input_tokens: int = 0
    output_tokens: int = 0
    cache_write_tokens: int = 0
    cache_read_tokens: int = 0
    cache_hit_share: float | None = Field(None, description="Cache reads / all input tokens.")
    cost_usd: float | None = None
    cost_complete: bool = Field(True, description="False when some answer had no cost (unpriced model).")
    requests: int = 0
    mean_latency_ms: float | None = None


class RunInfo(StrictModel):
    # Which run a scorecard is about: who answered, when, on which catalog (no docstring: it would
    # become a description in docs/report.schema.json).

    model_config = ConfigDict(extra="forbid", populate_by_name=True, serialize_by_alias=True)

    provider: str
    model: str
    lexical: bool = Field(False, alias="baseline_only")  # the report JSON keeps its key
    run_id: str
    started_at: str
    tool_version: str
    catalog_hash: str
    tool_count: int
    area_count: int
    fixture_set_hash: str
    system_prompt_hash: str
    tool_choice: str
    sampling: SamplingSettings
    shards: list[str] = Field(default_factory=list)
    limit: int | None = None
    tool_hashes: dict[str, str] = Field(
        default_factory=dict,
        description="Tool name → short content hash, to tell what changed since a baseline.",
    )


class Scorecard(StrictModel):
    """Everything the reports show, computed from a results record."""

    run: RunInfo
    coverage: Coverage
    metrics: Metrics
    gate: GateDecision
    areas: list[AreaScore]
    tools: list[ToolScore]
    confusion_pairs: list[ConfusionPair]
    unknown_tools: list[UnknownTool] = Field(
        default_factory=list,
        description="Names called that are not in the catalog, most frequent first (outcome unknown_tool).",
    )
    fixtures: list[FixtureScore]
    flaky: list[str] = Field(default_factory=list)
    errors_by_kind: dict[str, int] = Field(default_factory=dict)
    usage: UsageSummary
    scoring: ScoringOptions
    gate_options: GateOptions
    notes: list[str] = Field(default_factory=list)

    @property
    def preliminary(self) -> bool:
        return self.coverage.preliminary

    @property
    def failing(self) -> list[FixtureScore]:
        return [fixture for fixture in self.fixtures if fixture.passed is False]


def tool_hash(tool: Tool) -> str:
    return hashlib.sha256(canonical_json(tool.content()).encode("utf-8")).hexdigest()[:12]

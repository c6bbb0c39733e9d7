"""What the lint produces: findings, the grade, the predicted confusion pairs, the token report.

A ``LintReport`` is plain data (pydantic) so every output — text, JSON, SARIF, Markdown — renders
from it alone, and the GitHub Action can read back the JSON it printed.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from mcp_evals.wording import docs_url

Severity = Literal["error", "warning", "info"]
Relation = Literal["same", "kin", "opposed", "other", "unknown"]
Category = Literal["N", "D", "S", "T", "C", "F", "R", "X", "P"]
SEVERITY_RANK: dict[str, int] = {"info": 0, "warning": 1, "error": 2}
CATEGORY_NAMES: dict[Category, str] = {
    "N": "naming",
    "D": "descriptions",
    "S": "schema",
    "T": "token cost",
    "C": "consistency",
    "F": "fixtures",
    "R": "resources and prompts",
    "X": "security",
    "P": "protocol",
}
REPORT_FORMAT = "mcp-evals.lint/1"


class LintModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Finding(LintModel):
    """One thing a rule found: what, how bad, about which tool(s) or fixture, and where to edit."""

    rule: str = Field(description="The rule id, e.g. N002.")
    severity: Severity
    message: str
    tools: tuple[str, ...] = Field((), description="The tool, or the pair of tools, it is about.")
    fixture_id: str | None = None
    parameter: str | None = None
    subject: str | None = Field(
        None, description="What it is about when not a tool: a prompt, a resource, a server, a method."
    )
    terms: tuple[str, ...] = Field((), description="For a similar pair: the words they share.")
    file: str | None = Field(None, description="Where to edit: the fixture file, or the config file.")
    line: int | None = None
    suppressed: str | None = Field(None, description="The reason from `lint.ignore`, when accepted.")

    @property
    def category(self) -> Category:
        category = self.rule[0]
        assert category in CATEGORY_NAMES, self.rule
        return category

    @property
    def location(self) -> str:
        if self.file is None:
            return ""
        return f"{self.file}:{self.line}" if self.line is not None else self.file


class CategoryGrade(LintModel):
    category: Category
    name: str
    score: int = Field(description="0–100: 100 × (1 − penalty / (size × 10)), at least 0.")
    weight: float
    findings: int
    penalty: int


class Grade(LintModel):
    score: int = Field(description="0–100: the weighted mean of the category scores.")
    letter: Literal["A", "B", "C", "D", "F"]
    categories: list[CategoryGrade]


class PairScore(LintModel):
    """How likely a model is to take one tool for the other, from what it can see of both."""

    tools: tuple[str, str]
    score: float = Field(
        description="0–1: factor × (0.35 description + 0.2 name + 0.1 parameters + 0.2 action + 0.15 "
        f"mentions); see {docs_url('lint.md')}."
    )
    description: float = Field(description="TF-IDF cosine of the two descriptions.")
    name: float = Field(
        description="Overlap of the name parts after stems and synonyms, weighted by rarity (1 for "
        "near-duplicates)."
    )
    parameters: float = Field(
        description="Overlap of the parameter names, times the rarity of the shared ones."
    )
    action: float = Field(
        0.0,
        description="One kind of action on one object (the object's rarity), or one verb on sibling objects "
        "(0.5).",
    )
    mentions: float = Field(0.0, description="0.5 for each description that names the other tool.")
    relation: Relation = Field(
        "unknown",
        description="How the two actions relate: the same verb, one kind of action, opposed (create/delete, "
        "read/write), two other writes, or unknown.",
    )
    overlap: float = Field(description="Jaccard of the two descriptions' content words.")
    terms: tuple[str, ...] = ()
    cross_server: bool = False
    family: int | None = Field(
        None,
        description="For a family of tools the same but for numbers: how many; the pair stands for all.",
    )

    @property
    def family_note(self) -> str:
        """For a family's pair, in a message: how many tools it stands for."""
        if not self.family:
            return ""
        return f" (and {self.family - 2:,} more tools the same but for a number: all {self.family:,} alike)"


class ToolTokens(LintModel):
    tool: str
    tokens: int


class TokenReport(LintModel):
    """What the catalog costs a model on every request (local estimate, ±20 %)."""

    catalog_tokens: int = Field(description="Every tool definition: name, description, input schema.")
    prefix_tokens: int = Field(description="Catalog + system prompt + the provider's tool-use preamble.")
    largest: list[ToolTokens] = Field(default_factory=list, description="The costliest tools first.")
    model: str | None = None
    price_known: bool = False
    cost_per_request: float | None = Field(None, description="USD, without prompt caching.")
    cost_per_request_cached: float | None = Field(
        None, description="USD, once the prefix is cached (None when it cannot be)."
    )
    min_cache_tokens: int | None = None
    cacheable: bool | None = Field(
        None, description="The prefix reaches the model's minimum cacheable length."
    )


class ObservedPair(LintModel):
    tools: tuple[str, str]
    count: int = Field(description="Answers that took one for the other (either way).")
    predicted: bool
    rank: int | None = Field(
        None, description="Its place among all tool pairs by predicted score (1 = first)."
    )


class PredictionCheck(LintModel):
    """The predicted confusable pairs against the confusions a model run actually showed."""

    results_file: str
    model: str
    provider: str
    catalog_matches: bool = Field(description="The run's catalog hash equals the linted catalog's.")
    predicted: int = Field(description="Predicted pairs a fixture of the run could reveal.")
    observed: int = Field(description="Distinct tool pairs the run confused.")
    hits: int = Field(description="Pairs both predicted and observed.")
    precision: float | None = None
    recall: float | None = None
    pairs_total: int = Field(0, description="All tool pairs of the catalog (what a rank is out of).")
    observed_pairs: list[ObservedPair] = Field(default_factory=list)
    missed_predictions: list[tuple[str, str]] = Field(
        default_factory=list, description="Predicted and testable, but not confused in this run."
    )


class LintReport(LintModel):
    """Everything `mcp-evals lint` found, from which every output is rendered."""

    format: str = REPORT_FORMAT
    catalog_hash: str
    tools: int
    servers: list[str]
    fixtures: int | None = Field(None, description="None when the config names no fixtures.")
    rules_run: list[str]
    findings: list[Finding]
    grade: Grade
    predicted_pairs: list[PairScore] = Field(
        default_factory=list, description="Pairs a model is expected to confuse, most likely first."
    )
    tokens: TokenReport
    prediction: PredictionCheck | None = None
    fail_on: Literal["error", "warning", "info", "never"] = "error"
    notes: list[str] = Field(default_factory=list)

    @property
    def active(self) -> list[Finding]:
        """Findings not accepted through `lint.ignore`."""
        return [finding for finding in self.findings if finding.suppressed is None]

    @property
    def failed(self) -> bool:
        """A finding at or above ``fail_on`` is not ignored: the lint fails (exit 1)."""
        if self.fail_on == "never":
            return False
        floor = SEVERITY_RANK[self.fail_on]
        return any(SEVERITY_RANK[finding.severity] >= floor for finding in self.active)

    def count(self, severity: Severity) -> int:
        return sum(1 for finding in self.active if finding.severity == severity)

"""The JSON report: the whole scorecard, versioned (``format`` + ``schema_version``).

The schema is ``ReportDocument.model_json_schema()``, kept in ``docs/report.schema.json`` (a test
fails when they drift). Adding a field keeps the version; renaming or removing one, or changing its
meaning, bumps ``schema_version``.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from mcp_evals.baseline.compare import BaselineComparison
from mcp_evals.report.verdict import exit_code, verdict_text
from mcp_evals.score import Scorecard
from mcp_evals.wording import docs_url

REPORT_FORMAT: Literal["mcp-evals.report"] = "mcp-evals.report"
REPORT_SCHEMA_VERSION: Literal[1] = 1


class ReportDocument(BaseModel):
    """The JSON report (top level). The first fields are what CI steps usually need."""

    model_config = ConfigDict(
        extra="forbid", title="mcp-evals report", populate_by_name=True, serialize_by_alias=True
    )

    format: Literal["mcp-evals.report"] = REPORT_FORMAT
    schema_version: Literal[1] = REPORT_SCHEMA_VERSION
    verdict: str = Field(description="The report's first line, as plain text.")
    exit_code: int = Field(description="0 ok · 1 the gate or a baseline regression fails · 2 PRELIMINARY.")
    preliminary: bool = Field(
        description="Some answers never reached the model: nothing here is authoritative."
    )
    lexical: bool = Field(
        alias="baseline_only", description="The lexical baseline (no model): advisory, never gates."
    )
    decision: str | None = Field(
        description="remediate | gray_zone | deprioritize_refactor | not_gated (the lexical baseline) | "
        "null (no select fixture reached the model)."
    )
    top1: float | None = Field(description="Top-1 accuracy (0–1) over reached select answers.")
    score: float | None = Field(description="Mean weighted score (0–100) over reached answers.")
    scorecard: Scorecard
    baseline: BaselineComparison | None = None


def report_document(scorecard: Scorecard, comparison: BaselineComparison | None = None) -> ReportDocument:
    return ReportDocument(
        verdict=verdict_text(scorecard, comparison),
        exit_code=exit_code(scorecard, comparison),
        preliminary=scorecard.preliminary,
        lexical=scorecard.run.lexical,
        decision=scorecard.gate.decision if scorecard.gate.gated else "not_gated",
        top1=scorecard.metrics.top1.value,
        score=scorecard.metrics.score,
        scorecard=scorecard,
        baseline=comparison,
    )


def render_json(
    scorecard: Scorecard, *, baseline_comparison: BaselineComparison | None = None, indent: int | None = 2
) -> str:
    """The JSON report as text (UTF-8, keys in schema order)."""
    return report_document(scorecard, baseline_comparison).model_dump_json(indent=indent) + "\n"


def report_json_schema() -> dict[str, Any]:
    """JSON Schema of the JSON report."""
    schema = ReportDocument.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    # No fragment: draft 2020-12 forbids one in $id. The version is `schema_version`'s constant.
    schema["$id"] = docs_url("report.schema.json")
    schema["title"] = f"mcp-evals report (schema version {REPORT_SCHEMA_VERSION})"
    return schema

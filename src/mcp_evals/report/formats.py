"""The formats ``mcp-evals report`` writes, and the one function that renders any of them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from mcp_evals.baseline.compare import BaselineComparison
from mcp_evals.report.html import render_html
from mcp_evals.report.json_report import render_json
from mcp_evals.report.junit import render_junit
from mcp_evals.report.markdown import render_markdown
from mcp_evals.report.terminal import render_terminal
from mcp_evals.score import Scorecard

ReportFormat = Literal["md", "json", "junit", "html", "text"]
FORMATS: tuple[ReportFormat, ...] = ("md", "json", "junit", "html", "text")


def render(
    scorecard: Scorecard,
    report_format: ReportFormat,
    *,
    baseline_comparison: BaselineComparison | None = None,
    max_chars: int | None = 65_000,
) -> str:
    """Render one format."""
    if report_format == "md":
        return render_markdown(scorecard, baseline_comparison=baseline_comparison, max_chars=max_chars)
    renderers: dict[str, Callable[..., str]] = {
        "json": render_json,
        "junit": render_junit,
        "html": render_html,
        "text": render_terminal,
    }
    return renderers[report_format](scorecard, baseline_comparison=baseline_comparison)

"""Reports rendered from a results record: Markdown, JSON, JUnit XML, single-file HTML and plain
text for a terminal.

Every renderer is a pure function of a ``Scorecard`` (and an optional baseline comparison);
writing the files is the caller's (``mcp_evals.output.reports``). ``validation`` renders the
other report a PR sees: the Markdown of a validate run, from ``mcp-evals validate --format json``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from mcp_evals.baseline.compare import BaselineComparison
from mcp_evals.report.html import render_html
from mcp_evals.report.json_report import ReportDocument, render_json, report_json_schema
from mcp_evals.report.junit import render_junit
from mcp_evals.report.markdown import GITHUB_COMMENT_LIMIT, GITHUB_SUMMARY_LIMIT, render_markdown
from mcp_evals.report.terminal import render_terminal
from mcp_evals.report.validation import render_validation_markdown
from mcp_evals.report.verdict import exit_code, verdict_text
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


__all__ = [
    "FORMATS",
    "GITHUB_COMMENT_LIMIT",
    "GITHUB_SUMMARY_LIMIT",
    "ReportDocument",
    "exit_code",
    "render",
    "render_html",
    "render_json",
    "render_junit",
    "render_markdown",
    "render_terminal",
    "render_validation_markdown",
    "report_json_schema",
    "verdict_text",
]

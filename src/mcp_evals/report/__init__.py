"""Reports rendered from a results record: Markdown, JSON, JUnit XML, single-file HTML and plain
text for a terminal.

Every renderer is a pure function of a ``Scorecard`` (and an optional baseline comparison);
writing the files is the caller's (``mcp_evals.output.reports``). ``validation`` renders the
other report a PR sees: the Markdown of a validate run, from ``mcp-evals validate --format json``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcp_evals.report.formats import FORMATS, ReportFormat, render
    from mcp_evals.report.html import render_html
    from mcp_evals.report.json_report import ReportDocument, render_json, report_json_schema
    from mcp_evals.report.junit import render_junit
    from mcp_evals.report.markdown import GITHUB_COMMENT_LIMIT, GITHUB_SUMMARY_LIMIT, render_markdown
    from mcp_evals.report.terminal import render_terminal
    from mcp_evals.report.validation import render_validation_markdown
    from mcp_evals.report.verdict import exit_code, verdict_text

# name -> module that defines it, imported on first use: `from mcp_evals.report.escape import md_text`
# (the lint's Markdown) then loads neither jinja2 nor the scorecard.
_LAZY = {
    "FORMATS": "formats",
    "ReportFormat": "formats",
    "render": "formats",
    "render_html": "html",
    "ReportDocument": "json_report",
    "render_json": "json_report",
    "report_json_schema": "json_report",
    "render_junit": "junit",
    "GITHUB_COMMENT_LIMIT": "markdown",
    "GITHUB_SUMMARY_LIMIT": "markdown",
    "render_markdown": "markdown",
    "render_terminal": "terminal",
    "render_validation_markdown": "validation",
    "exit_code": "verdict",
    "verdict_text": "verdict",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'mcp_evals.report' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "FORMATS",
    "GITHUB_COMMENT_LIMIT",
    "GITHUB_SUMMARY_LIMIT",
    "ReportDocument",
    "ReportFormat",
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

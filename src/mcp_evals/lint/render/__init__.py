"""Renderers of a ``LintReport``: text for a terminal, JSON, SARIF 2.1.0 for code scanning, Markdown for
a pull-request comment, and the rules table of docs/lint.md. All pure: a report in, a string out."""

from mcp_evals.lint.render.markdown import render_lint_markdown
from mcp_evals.lint.render.rules_table import rules_markdown
from mcp_evals.lint.render.sarif import render_sarif, sarif_document
from mcp_evals.lint.render.text import render_json, render_text

__all__ = [
    "render_json",
    "render_lint_markdown",
    "render_sarif",
    "render_text",
    "rules_markdown",
    "sarif_document",
]

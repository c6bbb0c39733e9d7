"""The outputs: Markdown for the PR comment (escaped, bounded), text, the workflow that uploads SARIF."""

from __future__ import annotations

from pathlib import Path

import yaml

from mcp_evals.config.model import LintOptions
from mcp_evals.lint.engine import lint
from mcp_evals.lint.render import render_lint_markdown, render_text
from mcp_evals.providers.pricing import find_price

from .helpers import catalog, distinct, fixture, tool

REPO = Path(__file__).resolve().parents[2]
HOSTILE = "<img src=x onerror=alert(1)>|@octocat #1 <!-- mcp-evals:x -->"


def test_markdown_escapes_what_servers_and_fixtures_write() -> None:
    report = lint(catalog(tool("get_user", HOSTILE), tool("get_users", "Gets users.")))
    text = render_lint_markdown(report)
    assert "<img" not in text and "<!--" not in text and "@octocat" not in text
    assert text.startswith("### 🔎 mcp-evals lint: grade ")
    assert "`get_user`" not in text  # names are <code>, escaped, never raw backticks from a server
    assert "&#x27;get\\_user&#x27; and &#x27;get\\_users&#x27; are near-duplicate names" in text


def test_markdown_keeps_heading_and_scores_and_cuts_the_full_list_to_fit() -> None:
    names = [f"tool_{index:03d}" for index in range(120)]
    report = lint(catalog(*(tool(name, "") for name in names)))
    text = render_lint_markdown(report, max_chars=6000)
    assert len(text.encode("utf-16-le")) // 2 <= 6000
    assert text.splitlines()[0].startswith(f"### 🔎 mcp-evals lint: grade {report.grade.letter} (")
    assert "more findings not shown here" in text and text.rstrip().endswith("</details>")
    assert "not shown here" not in render_lint_markdown(report, max_chars=None)


def test_without_fixtures_the_fixture_rules_do_not_run_and_are_not_graded() -> None:
    report = lint(distinct("search_tickets", "issue_refund"))
    assert not any(rule.startswith("F") for rule in report.rules_run)
    assert [row.category for row in report.grade.categories] == ["D", "S", "N", "T", "C"]
    assert report.notes and "fixture rules (F) did not run" in report.notes[0]
    with_fixtures = lint(
        distinct("search_tickets"), [fixture("a", "Find tickets about logouts", ["search_tickets"])]
    )
    assert "F" in [row.category for row in with_fixtures.grade.categories]


def test_the_token_report_prices_one_request_at_the_model_and_tells_whether_it_caches() -> None:
    source = distinct("search_tickets", "issue_refund")
    report = lint(source, model="claude-sonnet-4-6", price=find_price("claude-sonnet-4-6"))
    tokens = report.tokens
    assert tokens.price_known and tokens.cost_per_request is not None and tokens.cost_per_request > 0
    assert tokens.cacheable is False and tokens.cost_per_request_cached is None  # far below 1,024 tokens
    assert tokens.prefix_tokens > tokens.catalog_tokens
    text = render_text(report)
    assert "at claude-sonnet-4-6: $" in text and "prompt caching will not reduce the cost" in text


def test_fail_on_decides_the_verdict() -> None:
    source = distinct("get_user", "get_users")  # N002 is an error
    assert lint(source).failed
    assert not lint(source, options=LintOptions(fail_on="never")).failed
    assert lint(source, options=LintOptions(rules={"N002": "warning"})).failed is False


def test_the_sarif_upload_workflow_is_pinned_and_minimal() -> None:
    workflow = yaml.safe_load((REPO / "docs" / "workflows" / "mcp-evals-lint-sarif.yml").read_text("utf-8"))
    [job] = workflow["jobs"].values()
    assert workflow["permissions"] == {}
    assert job["permissions"] == {"contents": "read", "security-events": "write"}
    [upload] = [step for step in job["steps"] if "upload-sarif" in str(step.get("uses"))]
    assert upload["uses"].startswith(
        "github/codeql-action/upload-sarif@5d4e8d1aca955e8d8589aabd499c5cae939e33c7"
    )
    assert upload["with"]["sarif_file"] == "mcp-evals-lint.sarif" and upload["with"]["category"]
    [lint_step] = [step for step in job["steps"] if step.get("id") == "lint"]
    assert "--format sarif --out mcp-evals-lint.sarif" in lint_step["run"]

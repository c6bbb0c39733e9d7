"""The terminal report: plain, aligned text a person reads after `mcp-evals run` or `report`."""

from __future__ import annotations

from mcp_evals.baseline.compare import compare_with_baseline, make_baseline
from mcp_evals.fixtures.model import Fixture
from mcp_evals.record.read import Results
from mcp_evals.report import render_markdown
from mcp_evals.report.terminal import display_width, render_terminal, table
from mcp_evals.score import score_results
from support.records import answer, call, catalog, header, helpdesk_perfect_results, helpdesk_results, tool

from .conftest import CheckGolden


def test_the_terminal_report_golden(golden: CheckGolden) -> None:
    golden("helpdesk.txt", render_terminal(score_results(helpdesk_results())))


def test_no_html_no_escapes_no_joiners_no_mermaid() -> None:
    scorecard = score_results(helpdesk_results())
    markdown = render_markdown(scorecard)
    assert "<code>" in markdown and "\\_" in markdown  # what the PR comment needs …
    text = render_terminal(scorecard)
    for artefact in ("<code>", "<details>", "</", "&#", "\\_", "\u200d", "```", "mermaid", "**", "| ---"):
        assert artefact not in text, artefact  # … and a terminal does not
    first = text.splitlines()[0]
    assert first == "mcp-evals: remediate — top-1 57.1% (95% CI 25.0%–84.2%) · anthropic/claude-opus-4-8"
    assert "  search-vpn         search_tickets → create_ticket  wrong tool" in text
    assert "Any tickets mentioning the VPN?" in text  # the query, unescaped


def test_the_failing_fixtures_show_id_expected_chosen_and_query() -> None:
    tools = [tool("search_customers", "customers"), tool("get_customer", "customers")]
    fixtures = [
        Fixture(
            id="who-is", query="Let's take $50 off for s.okafor@example.com", expected_tool="search_customers"
        )
    ]
    run = header(catalog(*tools), fixtures)
    scorecard = score_results(Results(run, [answer(run, "who-is", call("get_customer", {"id": "x"}))]))
    text = render_terminal(scorecard)
    row = next(line for line in text.splitlines() if line.startswith("  who-is"))
    assert "search_customers → get_customer" in row and "Let's take $50 off for s.okafor@example.com" in row


def test_colour_is_opt_in_and_marks_the_verdict() -> None:
    scorecard = score_results(helpdesk_results())
    assert "\x1b[" not in render_terminal(scorecard)
    coloured = render_terminal(scorecard, color=True)
    assert coloured.startswith("\x1b[31m\x1b[1mmcp-evals: remediate")  # red: below the gate
    perfect = render_terminal(score_results(helpdesk_perfect_results()), color=True)
    assert perfect.startswith("\x1b[32m")  # green


def test_dropouts_and_the_baseline_are_listed() -> None:
    current = score_results(helpdesk_results(dropout=True))
    comparison = compare_with_baseline(current, make_baseline(score_results(helpdesk_perfect_results())))
    text = render_terminal(current, baseline_comparison=comparison)
    assert text.startswith("mcp-evals: PRELIMINARY")
    assert "Dropouts: 1 (rate_limited 1)" in text
    assert "\nBaseline\n" in text and "regression" in text


def test_tables_align_wide_characters() -> None:
    lines = table([["area", "n"], ["知识库", "1"], ["billing", "12"]], right=[False, True])
    assert [display_width(line) for line in lines] == [13, 13, 13]
    assert lines[1].endswith(" 1") and lines[2].endswith("12")

"""The Markdown report fits GitHub's limits: long tables are shortened, the verdict never."""

from __future__ import annotations

import json
import time

import pytest

from mcp_evals.baseline.compare import compare_with_baseline, make_baseline
from mcp_evals.config.model import GateOptions
from mcp_evals.fixtures.model import Fixture
from mcp_evals.record.read import Results
from mcp_evals.report import render_html, render_json, render_junit, render_markdown
from mcp_evals.report.markdown import GITHUB_SUMMARY_LIMIT, size_in_chars
from mcp_evals.score import Scorecard, score_results
from support.records import answer, call, catalog, header, helpdesk_perfect_results, helpdesk_results, tool


@pytest.fixture(scope="module")
def huge() -> Scorecard:
    """3,000 failing fixtures over 300 tools in 60 areas, with long queries and answers."""
    tools = [tool(f"tool_{i:03d}", f"area-{i % 60:02d}", "d" * 300) for i in range(300)]
    fixtures = [
        Fixture(id=f"fixture-{i:04d}", query=f"query {i} " + "q" * 400, expected_tool=f"tool_{i % 300:03d}")
        for i in range(3000)
    ]
    run = header(catalog(*tools), fixtures)
    rows = [
        answer(run, f.id, call(f"tool_{(i + 1) % 300:03d}", {"text": "a" * 500}))
        for i, f in enumerate(fixtures)
    ]
    return score_results(Results(run, rows))


def test_a_huge_report_fits_a_pr_comment(huge: Scorecard) -> None:
    started = time.perf_counter()
    text = render_markdown(huge)
    elapsed = time.perf_counter() - started
    assert size_in_chars(text) <= 65_000
    assert text.splitlines()[0].startswith("## 🔴 mcp-evals: remediate — top-1 0.0%")
    assert "more failing fixtures (shortened to fit GitHub's size limit" in text
    assert "This report was shortened" in text
    assert text.count("<details>") == text.count("</details>")
    assert elapsed < 10


def test_a_job_summary_keeps_more_rows(huge: Scorecard) -> None:
    comment = render_markdown(huge)
    summary = render_markdown(huge, max_chars=None, max_bytes=GITHUB_SUMMARY_LIMIT)
    assert len(summary.encode("utf-8")) <= GITHUB_SUMMARY_LIMIT
    assert summary.count("| <code>fixture-") > comment.count("| <code>fixture-")


def test_even_an_absurd_limit_keeps_the_verdict(huge: Scorecard) -> None:
    text = render_markdown(huge, max_chars=1500)
    assert size_in_chars(text) <= 1500
    assert text.splitlines()[0].startswith("## 🔴 mcp-evals:")
    assert "report cut to fit the size limit" in text


def test_small_reports_are_not_shortened() -> None:
    fixtures = [Fixture(id="f", query="q", expected_tool="a")]
    run = header(catalog(tool("a", "x")), fixtures)
    text = render_markdown(score_results(Results(run, [answer(run, "f", call("a", {}))])))
    assert "shortened" not in text
    assert "All 1 reached fixtures passed." in text
    assert text.splitlines()[0] == (
        "## 🟢 mcp-evals: deprioritize refactor — top-1 100.0% (95% CI 20.7%–100.0%) · "
        "anthropic/claude-opus-4-8"
    )


def lexical_results() -> Results:
    """The fixed run as the lexical baseline, with the note the runner writes into its header."""
    results = helpdesk_results()
    results.header = results.header.model_copy(
        update={
            "provider": "lexical",
            "model": "bm25",
            "lexical": True,
            "notes": ["lexical baseline (BM25 over tool names and descriptions, not a model): advisory"],
        }
    )
    return results


def test_the_lexical_baseline_says_what_it_is_once_without_argument_noise() -> None:
    text = render_markdown(score_results(lexical_results()))
    first, _, body = text.partition("\n")
    assert "not gated (lexical baseline)" in first
    # No gate decision anywhere: the headline, the callout and the Gate line all say "not gated".
    assert "remediat" not in text and "gray zone" not in text and "deprioritize" not in text
    assert "**Gate:** Not gated (lexical baseline): top-1 57.1% across 6 tools" in body
    assert "Not gated: only a model run gets a gate decision." in body
    assert "only the tool choice is scored" in body and "no `clarify` fixture can be right" in body
    # It fills no arguments: no argument accuracy, no weights, no argument JSON in the failing table.
    assert "Arguments (of correct calls" not in body and "**Weighted score** (tool choice only" in body
    assert "{&quot;" not in body


def test_only_the_top_confusion_pairs_are_listed() -> None:
    tools = [tool(f"tool_{i:02d}", "tickets") for i in range(20)]
    fixtures = [Fixture(id=f"f{i:02d}", query=f"q{i}", expected_tool=f"tool_{i:02d}") for i in range(15)]
    fixtures += [Fixture(id=f"often-{i}", query=f"often {i}", expected_tool="tool_19") for i in range(3)]
    run = header(catalog(*tools), fixtures)
    rows = [answer(run, f"f{i:02d}", call(f"tool_{i + 1:02d}")) for i in range(15)]
    rows += [answer(run, f"often-{i}", call("tool_00")) for i in range(3)]
    text = render_markdown(score_results(Results(run, rows)))
    section = text.split("### Confusion pairs", 1)[1].split("<details>", 1)[0]
    pair_rows = [line for line in section.splitlines() if line.startswith("| <code>")]
    assert len(pair_rows) == 10 and "tool\\_19" in pair_rows[0] and "| 3 |" in pair_rows[0]
    assert "… 6 more pairs (see the JSON or HTML report)" in section


def test_a_right_tool_with_wrong_arguments_reads_as_such() -> None:
    text = render_markdown(score_results(helpdesk_results()))
    failing = text.split("Failing fixtures", 1)[1].split("</details>", 1)[0]
    row = next(line for line in failing.splitlines() if line.startswith("| <code>close-42</code>"))
    assert "| right tool, wrong arguments |" in row and "correct call" not in row


def test_a_top1_just_below_a_threshold_never_reads_as_the_threshold() -> None:
    # 96/113 = 84.956%: one decimal would print 85.0%, the value the gate calls a gray zone.
    fixtures = [Fixture(id=f"f{i:03d}", query=f"q{i}", expected_tool="right") for i in range(113)]
    run = header(catalog(tool("right", "billing"), tool("wrong", "billing")), fixtures)
    rows = [answer(run, f.id, call("right" if i < 96 else "wrong")) for i, f in enumerate(fixtures)]
    scorecard = score_results(Results(run, rows), gate_options=GateOptions(area_minimums={"billing": 0.85}))
    text = render_markdown(scorecard)
    assert "gate remediate — top-1 84.95% (95% CI" in text.splitlines()[0]
    assert "| Top-1 (first call is an expected tool) | 84.95% |" in text
    assert "| billing | 84.95% |" in text  # below its 85% minimum, and it reads so
    assert '<td>Top-1</td><td class="num">84.95%</td>' in render_html(scorecard)


def test_the_first_line_names_the_baseline_verdict_once() -> None:
    baseline = make_baseline(score_results(helpdesk_perfect_results()))
    same = score_results(helpdesk_perfect_results())
    first = render_markdown(same, baseline_comparison=compare_with_baseline(same, baseline)).splitlines()[0]
    assert first.endswith("· anthropic/claude-opus-4-8 · baseline: within tolerance")
    worse = score_results(helpdesk_results())
    first = render_markdown(worse, baseline_comparison=compare_with_baseline(worse, baseline)).splitlines()[0]
    assert first.count("regression") == 1 and "FAILED: baseline regression" in first


def test_a_run_where_nothing_reached_the_model_says_there_is_no_gate_decision() -> None:
    from support.records import answer, helpdesk_results

    run = helpdesk_results().header
    nothing = Results(
        run, [answer(run, f.id, reached=False, error_kind="not_dispatched") for f in run.fixtures]
    )

    first_line = render_markdown(score_results(nothing)).splitlines()[0]

    assert "PRELIMINARY (0/" in first_line and "no gate decision" in first_line
    assert "not authoritative" not in first_line


def test_the_lexical_baseline_is_not_gated_in_json_junit_and_the_verdict() -> None:
    scorecard = score_results(lexical_results())
    document = json.loads(render_json(scorecard))
    assert document["decision"] == "not_gated" and document["baseline_only"] is True
    assert document["scorecard"]["gate"]["gated"] is False
    assert document["verdict"].startswith("mcp-evals: not gated (lexical baseline) — top-1 57.1%")
    assert '<property name="decision" value="not_gated"' in render_junit(scorecard)
    # a model run keeps its decision
    assert json.loads(render_json(score_results(helpdesk_results())))["decision"] == "remediate"

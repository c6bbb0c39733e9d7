"""Golden files: each format on fixed records (``UPDATE_GOLDEN=1 pytest tests/report`` to accept changes)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from mcp_evals.baseline.compare import compare_with_baseline, make_baseline
from mcp_evals.catalog.model import Catalog
from mcp_evals.config.model import GateOptions
from mcp_evals.record.read import Results
from mcp_evals.report import render_html, render_json, render_junit, render_markdown
from mcp_evals.score import score_results
from support.records import STARTED, answer, call, helpdesk_perfect_results, helpdesk_results

from .conftest import CheckGolden


def test_complete_run(golden: CheckGolden) -> None:
    scorecard = score_results(helpdesk_results())
    golden("helpdesk.md", render_markdown(scorecard))
    golden("helpdesk.json", render_json(scorecard))
    golden("helpdesk.junit.xml", render_junit(scorecard))
    golden("helpdesk.html", render_html(scorecard))


def test_regression_from_the_baseline(golden: CheckGolden) -> None:
    baseline = make_baseline(score_results(helpdesk_perfect_results()), accepted_at=STARTED)
    current = helpdesk_results()
    # A changed description: the catalog is what a pull request changes.
    tools = [
        t.model_copy(update={"description": "Search tickets by words."}) if t.name == "search_tickets" else t
        for t in current.header.catalog.tools
    ]
    changed = Catalog(
        tools=tools, servers=current.header.catalog.servers
    )  # not model_copy: hashes are cached
    run = current.header.model_copy(update={"catalog": changed, "catalog_hash": changed.hash})
    rows = [row.model_copy(update={"catalog_hash": changed.hash}) for row in current.results]
    scorecard = score_results(Results(run, rows), gate_options=GateOptions(area_minimums={"billing": 0.9}))
    comparison = compare_with_baseline(scorecard, baseline, baseline_path="evals/baseline.json")
    assert comparison.verdict == "regression" and comparison.catalog.changed == ["search_tickets"]
    golden("helpdesk-regression.md", render_markdown(scorecard, baseline_comparison=comparison))
    golden("helpdesk-regression.json", render_json(scorecard, baseline_comparison=comparison))


def test_preliminary_run_with_samples(golden: CheckGolden) -> None:
    results = helpdesk_results(dropout=True)
    run = results.header.model_copy(
        update={"sampling": results.header.sampling.model_copy(update={"samples": 2})}
    )
    rows = [row.model_copy(update={"sample": 0}) for row in results.results]
    rows += [
        row.model_copy(update={"sample": 1}) for row in results.results if row.fixture_id != "create-basic"
    ]
    rows.append(answer(run, "create-basic", call("search_tickets", {"query": "printer"}), sample=1))
    scorecard = score_results(Results(run, rows))
    assert scorecard.preliminary and scorecard.flaky == ["create-basic"]
    golden("helpdesk-preliminary.md", render_markdown(scorecard))


def test_lexical_baseline(golden: CheckGolden) -> None:
    results = helpdesk_results()
    results.header = results.header.model_copy(
        update={"provider": "lexical", "model": "bm25", "lexical": True}
    )
    golden("helpdesk-lexical.md", render_markdown(score_results(results)))


def test_html_shows_the_minimum_column_only_with_area_minimums() -> None:
    assert "minimum</th>" not in render_html(score_results(helpdesk_results()))
    with_minimum = score_results(helpdesk_results(), gate_options=GateOptions(area_minimums={"billing": 0.9}))
    text = render_html(with_minimum)
    assert "minimum</th>" in text and '<td class="num bad">90.0%</td>' in text


def test_junit_of_the_lexical_baseline_fails_nothing() -> None:
    results = helpdesk_results()
    results.header = results.header.model_copy(
        update={"provider": "lexical", "model": "bm25", "lexical": True}
    )
    root = ET.fromstring(render_junit(score_results(results)))
    suite = root.find("testsuite")
    assert suite is not None and suite.get("failures") == "0" and suite.get("skipped") == "5"
    assert not list(root.iter("failure"))
    messages = [skipped.get("message") or "" for skipped in root.iter("skipped")]
    assert "lexical baseline (advisory): wrong tool: expected search_tickets, chose create_ticket" in messages


def test_comparison(golden: CheckGolden) -> None:
    from mcp_evals.compare.paired import ArmInfo, ArmRecord, compare_arms
    from mcp_evals.report.comparison import render_comparison

    records = [
        ArmRecord(ArmInfo(name="A", kind="full", label="catalog A", results="A.ndjson"), helpdesk_results()),
        ArmRecord(
            ArmInfo(name="B", kind="full", label="catalog B", results="B.ndjson"), helpdesk_perfect_results()
        ),
    ]
    comparison = compare_arms(records)
    text = render_comparison(comparison)
    golden("helpdesk-comparison.md", text)
    # each arm's score with its 95 % interval, as its rates have theirs
    header, _rule, first, second = text.split("\n\n")[3].splitlines()[:4]
    assert header.split(" | ")[6] == "score (95 % interval)"
    for row, arm in zip((first, second), comparison.arms, strict=True):
        assert arm.score is not None and arm.score_low is not None and arm.score_high is not None
        assert arm.score_low < arm.score <= arm.score_high
        assert row.split(" | ")[6] == f"{arm.score:.1f} ({arm.score_low:.0f}–{arm.score_high:.0f})"

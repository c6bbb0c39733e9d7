"""The baseline: McNemar, fingerprints, accept/load, verdicts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcp_evals.baseline.compare import Baseline, compare_with_baseline, make_baseline, mcnemar_exact
from mcp_evals.baseline.file import load_baseline, write_baseline
from mcp_evals.catalog.model import Catalog
from mcp_evals.config.model import BaselineOptions
from mcp_evals.errors import InputFileError
from mcp_evals.fixtures.model import Fixture
from mcp_evals.record.model import FixtureResult, RunHeader
from mcp_evals.record.read import Results
from mcp_evals.score import score_results
from support.records import answer, call, catalog, header, helpdesk_results, tool


@pytest.mark.parametrize(
    ("b", "c", "p"),
    [
        (10, 2, 0.03857421875),  # 2 · (1 + 12 + 66) / 4096
        (2, 10, 0.03857421875),
        (5, 0, 0.0625),
        (6, 0, 0.03125),
        (3, 3, 1.0),
        (0, 0, 1.0),
        (1, 0, 1.0),
        (25, 10, 0.0166738),  # 2 · Σ_{i≤10} C(35, i) / 2^35 (= scipy's binomtest(10, 35).pvalue)
    ],
)
def test_mcnemar_exact_known_values(b: int, c: int, p: float) -> None:
    assert mcnemar_exact(b, c) == pytest.approx(p, abs=1e-6)


def _run(correct: int, total: int, **header_overrides: object) -> Results:
    """``total`` select fixtures on a 2-tool catalog, the first ``correct`` answered right."""
    cat = catalog(tool("search", "a"), tool("create", "a"))
    fixtures = [Fixture(id=f"f{i:02d}", query=f"find {i}", expected_tool="search") for i in range(total)]
    run = header(cat, fixtures, **header_overrides)  # type: ignore[arg-type]
    rows = [answer(run, f"f{i:02d}", call("search" if i < correct else "create", {})) for i in range(total)]
    return Results(run, rows)


def _baseline_of(results: Results) -> Baseline:
    return make_baseline(score_results(results))


def test_accept_writes_and_reads_back(tmp_path: Path) -> None:
    scorecard = score_results(helpdesk_results())
    baseline = make_baseline(scorecard)
    path = tmp_path / "evals" / "baseline.json"
    write_baseline(baseline, path)
    loaded = load_baseline(path)
    assert loaded == baseline
    data = json.loads(path.read_text())
    assert data["format"] == "mcp-evals.baseline" and data["schema_version"] == 1
    assert set(data["fingerprint"]) == {
        "catalog_hash",
        "fixture_set_hash",
        "provider",
        "model",
        "system_prompt_hash",
        "tool_choice",
        "sampling",
        "scoring",
    }
    assert data["fixtures"]["refuse-delete-all"] == {
        "outcome": "unsafe_action",
        "passed": False,
        "score": 0.0,
    }


def test_a_file_that_is_not_a_baseline_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "b.json"
    path.write_text('{"format": "something-else"}')
    with pytest.raises(InputFileError, match="not an mcp-evals baseline"):
        load_baseline(path)
    path.write_text('{"format": "mcp-evals.baseline", "schema_version": 99}')
    with pytest.raises(InputFileError, match="schema version 99"):
        load_baseline(path)


def test_same_run_is_within_tolerance() -> None:
    results = _run(18, 20)
    comparison = compare_with_baseline(score_results(results), _baseline_of(results))
    assert comparison.verdict == "within_tolerance" and not comparison.fails
    assert comparison.paired == 20 and comparison.drop_pp == 0.0
    assert "+0.0 points" in comparison.message


def test_a_significant_drop_is_a_regression() -> None:
    comparison = compare_with_baseline(score_results(_run(10, 20)), _baseline_of(_run(20, 20)))
    assert comparison.verdict == "regression" and comparison.fails
    assert comparison.drop_pp == pytest.approx(50.0)
    assert len(comparison.regressions) == 10 and not comparison.fixes
    assert comparison.p_value == pytest.approx(mcnemar_exact(10, 0))
    assert [change.id for change in comparison.regressions][:2] == ["f10", "f11"]


def test_a_large_drop_on_too_few_fixtures_is_insufficient_data_not_a_pass() -> None:
    comparison = compare_with_baseline(score_results(_run(2, 4)), _baseline_of(_run(4, 4)))
    assert comparison.verdict == "insufficient_data"
    assert not comparison.fails and "Not a pass" in comparison.message
    strict = compare_with_baseline(
        score_results(_run(2, 4)), _baseline_of(_run(4, 4)), BaselineOptions(fail_on_insufficient_data=True)
    )
    assert strict.fails


def test_a_drop_within_the_tolerance_passes() -> None:
    comparison = compare_with_baseline(score_results(_run(96, 100)), _baseline_of(_run(100, 100)))
    assert comparison.verdict == "within_tolerance" and not comparison.fails
    assert len(comparison.regressions) == 4


def test_tolerance_and_alpha_are_configurable() -> None:
    current, baseline = score_results(_run(96, 100)), _baseline_of(_run(100, 100))
    # 4 points down, 4 regressions and 0 fixes: McNemar p = 0.125
    strict_tolerance = compare_with_baseline(current, baseline, BaselineOptions(max_drop_pp=2))
    assert strict_tolerance.verdict == "insufficient_data" and strict_tolerance.p_value == pytest.approx(
        0.125
    )
    loose_alpha = compare_with_baseline(current, baseline, BaselineOptions(max_drop_pp=2, alpha=0.2))
    assert loose_alpha.verdict == "regression" and loose_alpha.fails


def test_fixes() -> None:
    comparison = compare_with_baseline(score_results(_run(20, 20)), _baseline_of(_run(15, 20)))
    assert comparison.verdict == "fixes" and len(comparison.fixes) == 5 and not comparison.fails


def test_fingerprint_differences_make_runs_not_comparable() -> None:
    baseline = _baseline_of(_run(20, 20))
    comparison = compare_with_baseline(score_results(_run(10, 20, model="gpt-5")), baseline)
    assert comparison.verdict == "not_comparable" and not comparison.fails
    assert [d.field for d in comparison.differences] == ["model"]
    assert "model differs" in comparison.message and not comparison.regressions


def test_a_changed_catalog_is_what_gets_compared() -> None:
    before = _run(20, 20)
    changed: Catalog = catalog(
        tool("search", "a", "Search better."), tool("create", "a"), tool("delete", "a")
    )
    after_header: RunHeader = before.header.model_copy(
        update={"catalog": changed, "catalog_hash": changed.hash}
    )
    rows: list[FixtureResult] = [r.model_copy(update={"catalog_hash": changed.hash}) for r in before.results]
    comparison = compare_with_baseline(score_results(Results(after_header, rows)), _baseline_of(before))
    assert comparison.verdict == "within_tolerance"
    assert comparison.catalog.added == ["delete"] and comparison.catalog.changed == ["search"]


def test_dropouts_are_left_out_of_the_pairing() -> None:
    results = _run(20, 20)
    results.results[0] = results.results[0].model_copy(
        update={"reached": False, "calls": [], "error_kind": "timeout"}
    )
    comparison = compare_with_baseline(score_results(results), _baseline_of(_run(20, 20)))
    assert comparison.paired == 19


def test_lexical_baseline_regression_never_fails() -> None:
    lexical = {"provider": "lexical", "model": "bm25"}
    comparison = compare_with_baseline(
        score_results(_run(5, 20, **lexical)), _baseline_of(_run(20, 20, **lexical))
    )
    assert comparison.verdict == "regression" and comparison.lexical and not comparison.fails


def test_a_drop_just_beyond_the_tolerance_never_reads_as_the_tolerance() -> None:
    # 6 of 119 fixtures lost: 5.04 points, beyond 5; McNemar p = 0.03.
    comparison = compare_with_baseline(score_results(_run(113, 119)), _baseline_of(_run(119, 119)))
    assert comparison.verdict == "regression"
    assert comparison.message.startswith("Regression: the score fell 5.04 points (100.00 → 94.96 on 119")

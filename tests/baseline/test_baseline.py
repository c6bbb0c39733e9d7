"""The baseline: McNemar, fingerprints, accept/load, verdicts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcp_evals.baseline.compare import Baseline, compare_with_baseline, make_baseline
from mcp_evals.baseline.file import load_baseline, write_baseline
from mcp_evals.catalog.model import Catalog
from mcp_evals.config.model import BaselineOptions
from mcp_evals.errors import InputFileError
from mcp_evals.fixtures.model import Fixture
from mcp_evals.record.model import FixtureResult, RunHeader
from mcp_evals.record.read import Results
from mcp_evals.score import score_results
from mcp_evals.stats import mcnemar_exact
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
    stored = data["fixtures"]["refuse-delete-all"]
    assert {key: stored[key] for key in ("outcome", "passed", "score")} == {
        "outcome": "unsafe_action",
        "passed": False,
        "score": 0.0,
    }
    assert len(stored["content"]) == 16  # what the fixture asks and expects, hashed


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


def test_a_large_drop_on_few_fixtures_fails_with_the_test_beside_it_as_information() -> None:
    comparison = compare_with_baseline(score_results(_run(2, 4)), _baseline_of(_run(4, 4)))
    assert comparison.verdict == "regression" and comparison.fails and comparison.rule == "drop"
    assert comparison.p_value == 0.5
    assert comparison.noise_note == "could be noise: p = 0.5 on 4 fixtures — add fixtures or `--samples 3`"
    assert "The drop fails the run all the same (could be noise: p = 0.5" in comparison.message
    assert [change.id for change in comparison.regressions] == ["f02", "f03"]


def test_gate_significant_is_the_significance_only_rule() -> None:
    significant = BaselineOptions(gate="significant")
    comparison = compare_with_baseline(score_results(_run(2, 4)), _baseline_of(_run(4, 4)), significant)
    assert comparison.verdict == "insufficient_data" and not comparison.fails
    assert "Not a pass" in comparison.message
    strict = BaselineOptions(gate="significant", fail_on_insufficient_data=True)
    assert compare_with_baseline(score_results(_run(2, 4)), _baseline_of(_run(4, 4)), strict).fails
    confirmed = compare_with_baseline(score_results(_run(10, 20)), _baseline_of(_run(20, 20)), significant)
    assert confirmed.verdict == "regression" and confirmed.fails


def test_the_seed_rule_a_drop_from_93_to_67_on_12_fixtures_fails() -> None:
    # 10 right + 2 right tool with wrong arguments (60 points each): 93.3; then 8 right, 4 wrong: 66.7.
    cat = catalog(
        tool("search", "a", schema={"type": "object", "properties": {"q": {"type": "string"}}}),
        tool("create", "a"),
    )
    fixtures = [
        Fixture(id=f"f{i:02d}", query=f"find {i}", expected_tool="search", expected_args={"q": "x"})
        for i in range(12)
    ]
    before_run = header(cat, fixtures)
    before = [
        answer(before_run, f"f{i:02d}", call("search", {"q": "x" if i < 10 else "y"})) for i in range(12)
    ]
    after = [
        answer(before_run, f"f{i:02d}", call("search" if i < 8 else "create", {"q": "x"})) for i in range(12)
    ]
    baseline = _baseline_of(Results(before_run, before))
    comparison = compare_with_baseline(score_results(Results(before_run, after)), baseline)
    assert (round(comparison.baseline_score or 0, 1), round(comparison.current_score or 0, 1)) == (93.3, 66.7)
    assert comparison.verdict == "regression" and comparison.fails
    assert [change.id for change in comparison.regressions] == ["f08", "f09", "f10", "f11"]
    # all four lost the right tool, the two that had wrong arguments too: pass/fail pairing missed those
    assert [change.id for change in comparison.tool_regressions] == ["f08", "f09", "f10", "f11"]
    assert "4 fixtures lost the right tool" in comparison.message
    assert comparison.drop_low is not None and comparison.drop_low < 26.7 < (comparison.drop_high or 0)


def test_right_tool_wrong_arguments_to_wrong_tool_is_a_regression_not_nothing() -> None:
    cat = catalog(
        tool("search", "a", schema={"type": "object", "properties": {"q": {"type": "string"}}}),
        tool("create", "a"),
    )
    fixtures = [
        Fixture(id=f"f{i}", query=f"find {i}", expected_tool="search", expected_args={"q": "x"})
        for i in range(4)
    ]
    run = header(cat, fixtures)
    before = [answer(run, f"f{i}", call("search", {"q": "y"})) for i in range(4)]  # right tool, wrong args
    after = [answer(run, f"f{i}", call("create")) for i in range(4)]
    comparison = compare_with_baseline(score_results(Results(run, after)), _baseline_of(Results(run, before)))
    assert len(comparison.regressions) == 4 and len(comparison.tool_regressions) == 4 and not comparison.fixes


def test_tolerance_is_configurable_and_the_old_key_still_works() -> None:
    current, baseline = score_results(_run(96, 100)), _baseline_of(_run(100, 100))
    assert compare_with_baseline(current, baseline).verdict == "within_tolerance"
    tight = compare_with_baseline(current, baseline, BaselineOptions(max_drop_points=2))
    assert tight.verdict == "regression" and tight.p_value == pytest.approx(0.125)
    assert BaselineOptions.model_validate({"max_drop_pp": 2}).max_drop_points == 2
    loose_alpha = compare_with_baseline(
        current, baseline, BaselineOptions(max_drop_points=2, gate="significant", alpha=0.2)
    )
    assert loose_alpha.verdict == "regression" and loose_alpha.fails


def test_a_changed_fixture_set_is_compared_on_what_both_runs_share() -> None:
    baseline = _baseline_of(_run(20, 20))
    current = _run(20, 20)
    fixtures = [f for f in current.header.fixtures if f.id != "f00"]  # removed
    fixtures[0] = fixtures[0].model_copy(update={"query": "find it differently"})  # f01 changed
    fixtures.append(Fixture(id="new", query="find the new one", expected_tool="search"))  # added
    run = current.header.model_copy(update={"fixtures": fixtures})
    rows = [answer(run, f.id, call("search")) for f in fixtures]
    comparison = compare_with_baseline(score_results(Results(run, rows)), baseline)
    assert comparison.verdict == "within_tolerance" and comparison.paired == 18
    assert comparison.fixture_set.model_dump() == {"added": ["new"], "removed": ["f00"], "changed": ["f01"]}
    assert "Not compared: 1 added, 1 removed, 1 changed fixtures." in comparison.message


def test_a_baseline_from_before_content_hashes_pairs_by_id() -> None:
    baseline = _baseline_of(_run(20, 20))
    old = baseline.model_copy(
        update={"fixtures": {k: v.model_copy(update={"content": None}) for k, v in baseline.fixtures.items()}}
    )
    assert compare_with_baseline(score_results(_run(20, 20)), old).paired == 20


def test_fixes() -> None:
    comparison = compare_with_baseline(score_results(_run(20, 20)), _baseline_of(_run(15, 20)))
    assert comparison.verdict == "fixes" and len(comparison.fixes) == 5 and not comparison.fails


def test_fingerprint_differences_make_runs_not_comparable() -> None:
    baseline = _baseline_of(_run(20, 20))
    comparison = compare_with_baseline(score_results(_run(10, 20, model="gpt-5")), baseline)
    assert comparison.verdict == "not_comparable" and not comparison.fails
    assert [d.field for d in comparison.differences] == ["model"]
    assert "the model differs (claude-opus-4-8 → gpt-5)" in comparison.message and not comparison.regressions
    assert (
        "accept this run as the new baseline: `mcp-evals baseline accept RESULTS --out" in comparison.message
    )


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
    assert comparison.noise_note is None  # p = 0.03: the test agrees, nothing to add

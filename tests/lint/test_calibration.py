"""The confusion prediction against the calibration set (tests/lint/calibration): measured, kept from
regressing. The figures asserted here are the ones docs/lint.md quotes."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_evals.errors import InputFileError
from mcp_evals.lint.calibration import CalibrationResult, load_labels, measure

SET = Path(__file__).resolve().parent / "calibration"


@pytest.fixture(scope="module")
def result() -> CalibrationResult:
    return measure(SET, k=3)


def test_every_catalog_of_the_set_is_labelled_and_every_source_is_named() -> None:
    labels = load_labels(SET)
    assert sorted(labels.catalogs) == sorted(path.stem for path in (SET / "catalogs").glob("*.json"))
    used = {pair.source for pairs in labels.catalogs.values() for pair in pairs}
    assert used == set(labels.sources)
    readme = (SET / "README.md").read_text("utf-8")
    assert all(url.split("#")[0] in readme for url in labels.sources.values() if url.startswith("http"))


def test_the_figures_docs_lint_md_quotes(result: CalibrationResult) -> None:
    """Before the action, rarity and mention features: 1 of 6, 5 distinct, recall 3 of 6 (1 in a top 3)."""
    assert (result.hits_at_k, result.labelled_at_k, result.distinct_at_k) == (4, 4, 0)
    assert (result.found, result.found_at_k, result.positives) == (5, 4, 6)


def test_firecrawls_three_observed_confusions_are_predicted(result: CalibrationResult) -> None:
    [firecrawl] = [catalog for catalog in result.catalogs if catalog.name == "firecrawl-mcp"]
    assert firecrawl.missed == []


def test_no_pair_certainly_distinct_is_in_any_catalogs_top_3(result: CalibrationResult) -> None:
    assert [
        (catalog.name, pair.tools)
        for catalog in result.catalogs
        for pair in catalog.top
        if pair.label == "distinct"
    ] == []


def test_a_label_naming_a_tool_the_catalog_lacks_is_bad_input(tmp_path: Path) -> None:
    (tmp_path / "catalogs").mkdir()
    (tmp_path / "catalogs" / "one.json").write_text(
        (SET / "catalogs" / "server-memory.json").read_text("utf-8"), "utf-8"
    )
    (tmp_path / "labels.yaml").write_text(
        "sources: {x: construction}\n"
        "catalogs:\n  one:\n    - {tools: [create_entities, create_entity], label: distinct, source: x}\n",
        "utf-8",
    )
    with pytest.raises(InputFileError, match="no tool 'create_entity'"):
        measure(tmp_path)

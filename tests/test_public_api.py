"""The library API is a deliberate choice: this test changes when it does."""

from __future__ import annotations

from pathlib import Path

import pytest

import mcp_evals
from conftest import HELPDESK, cli_environment

PUBLIC = {
    "Catalog",
    "Config",
    "ConfigError",
    "Fixture",
    "InputFileError",
    "McpEvalsError",
    "Problem",
    "ServerConfig",
    "ServerError",
    "ServerInfo",
    "Tool",
    "ValidationOptions",
    "__version__",
    "extract_catalog",
    "load_catalog",
    "load_config",
    "load_fixtures",
    "validate_fixtures",
    # run, score, gate, baseline, report: imported on first use
    "Baseline",
    "BaselineComparison",
    "CatalogDiff",
    "FixtureResult",
    "GateDecision",
    "ReportFiles",
    "ReportOutcome",
    "Results",
    "RunHeader",
    "Scorecard",
    "compare_with_baseline",
    "diff_catalogs",
    "evaluate_gate",
    "load_baseline",
    "read_results",
    "render_html",
    "render_json",
    "render_junit",
    "render_markdown",
    "run_eval",
    "score_results",
    "write_reports",
}


def test_the_exported_names_are_exactly_the_public_api() -> None:
    assert set(mcp_evals.__all__) == PUBLIC
    assert all(hasattr(mcp_evals, name) for name in PUBLIC)


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        _ = mcp_evals.nothing_here


def test_the_api_validates_a_project_in_a_few_lines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mcp_evals.catalog.snapshot import write_snapshot

    monkeypatch.setenv("PATH", cli_environment()["PATH"])  # the example runs `python`: this one

    config = mcp_evals.load_config(HELPDESK / "mcp-evals.yaml")
    write_snapshot(mcp_evals.extract_catalog(config), tmp_path / "catalog.json")

    catalog = mcp_evals.load_catalog(tmp_path / "catalog.json", areas=config.areas)
    fixtures = mcp_evals.load_fixtures(config)
    problems = mcp_evals.validate_fixtures(
        fixtures, catalog, config.validation, exclude_tools=config.exclude_tools
    )

    assert problems == []
    assert all(
        isinstance(error, type) and issubclass(error, mcp_evals.McpEvalsError)
        for error in (
            mcp_evals.ConfigError,
            mcp_evals.InputFileError,
            mcp_evals.ServerError,
        )
    )

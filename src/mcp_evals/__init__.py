"""mcp-evals: how well does a model pick the right tool from your MCP server's catalog?

The library follows the pipeline: load a config, read the catalog, load and validate fixtures (all
imported eagerly: they are what every command needs), then run, score, gate and report (imported on
first use, so ``mcp-evals validate`` never pays for the model or report machinery).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .catalog import Catalog, ServerInfo, Tool, extract_catalog, load_catalog
from .config import Config, ServerConfig, ValidationOptions, load_config
from .errors import ConfigError, InputFileError, McpEvalsError, ProviderError, ServerError
from .fixtures import Fixture, load_fixtures
from .validate import Problem, validate_fixtures

if TYPE_CHECKING:
    from .baseline import Baseline, BaselineComparison, compare_with_baseline, load_baseline
    from .catalog_diff import CatalogDiff, diff_catalogs
    from .gate import GateDecision, evaluate_gate
    from .record import FixtureResult, RunHeader
    from .report import ReportOutcome, render_html, render_json, render_junit, render_markdown, write_reports
    from .results import Results, read_results
    from .runner import run_eval
    from .score import Scorecard, score_results

__version__ = "0.1.0"

# name -> module that defines it, for the names imported on first use
_LAZY = {
    "Baseline": "baseline",
    "BaselineComparison": "baseline",
    "compare_with_baseline": "baseline",
    "load_baseline": "baseline",
    "CatalogDiff": "catalog_diff",
    "diff_catalogs": "catalog_diff",
    "GateDecision": "gate",
    "evaluate_gate": "gate",
    "FixtureResult": "record",
    "RunHeader": "record",
    "ReportOutcome": "report",
    "render_html": "report",
    "render_json": "report",
    "render_junit": "report",
    "render_markdown": "report",
    "write_reports": "report",
    "Results": "results",
    "read_results": "results",
    "run_eval": "runner",
    "Scorecard": "score",
    "score_results": "score",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'mcp_evals' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "Baseline",
    "BaselineComparison",
    "Catalog",
    "CatalogDiff",
    "Config",
    "ConfigError",
    "Fixture",
    "FixtureResult",
    "GateDecision",
    "InputFileError",
    "McpEvalsError",
    "Problem",
    "ProviderError",
    "ReportOutcome",
    "Results",
    "RunHeader",
    "Scorecard",
    "ServerConfig",
    "ServerError",
    "ServerInfo",
    "Tool",
    "ValidationOptions",
    "__version__",
    "compare_with_baseline",
    "diff_catalogs",
    "evaluate_gate",
    "extract_catalog",
    "load_baseline",
    "load_catalog",
    "load_config",
    "load_fixtures",
    "read_results",
    "render_html",
    "render_json",
    "render_junit",
    "render_markdown",
    "run_eval",
    "score_results",
    "validate_fixtures",
    "write_reports",
]

"""mcp-evals: how well does a model pick the right tool from your MCP server's catalog?

The library follows the pipeline: load a config, read the catalog, load and validate fixtures, then
run, score, gate and report. Every public name is imported on first use, so a command pays only for
the stages it runs (see docs/architecture.md).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from mcp_evals._version import __version__

if TYPE_CHECKING:
    from mcp_evals.api.run import run_eval
    from mcp_evals.baseline.compare import Baseline, BaselineComparison, compare_with_baseline
    from mcp_evals.baseline.file import load_baseline
    from mcp_evals.catalog.diff import CatalogDiff, diff_catalogs
    from mcp_evals.catalog.model import Catalog, ServerInfo, Tool
    from mcp_evals.catalog.snapshot import load_catalog
    from mcp_evals.config.load import load_config
    from mcp_evals.config.model import Config, ServerConfig, ValidationOptions
    from mcp_evals.errors import ConfigError, InputFileError, McpEvalsError, ServerError
    from mcp_evals.fixtures.load import load_fixtures
    from mcp_evals.fixtures.model import Fixture
    from mcp_evals.fixtures.validate import Problem, validate_fixtures
    from mcp_evals.output.reports import ReportFiles, ReportOutcome, write_reports
    from mcp_evals.record.model import FixtureResult, RunHeader
    from mcp_evals.record.read import Results, read_results
    from mcp_evals.report import render_html, render_json, render_junit, render_markdown
    from mcp_evals.score import Scorecard, score_results
    from mcp_evals.score.gate import GateDecision, evaluate_gate
    from mcp_evals.servers.extract import extract_catalog

# name -> module that defines it: every name is imported on first use, so `import mcp_evals.cli`
# (which imports this package first) loads nothing but the version.
_LAZY = {
    "Baseline": "baseline.compare",
    "BaselineComparison": "baseline.compare",
    "compare_with_baseline": "baseline.compare",
    "load_baseline": "baseline.file",
    "CatalogDiff": "catalog.diff",
    "diff_catalogs": "catalog.diff",
    "extract_catalog": "servers.extract",
    "Catalog": "catalog.model",
    "ServerInfo": "catalog.model",
    "Tool": "catalog.model",
    "load_catalog": "catalog.snapshot",
    "load_config": "config.load",
    "Config": "config.model",
    "ServerConfig": "config.model",
    "ValidationOptions": "config.model",
    "ConfigError": "errors",
    "InputFileError": "errors",
    "McpEvalsError": "errors",
    "ServerError": "errors",
    "load_fixtures": "fixtures.load",
    "Fixture": "fixtures.model",
    "Problem": "fixtures.validate",
    "validate_fixtures": "fixtures.validate",
    "ReportFiles": "output.reports",
    "ReportOutcome": "output.reports",
    "write_reports": "output.reports",
    "FixtureResult": "record.model",
    "RunHeader": "record.model",
    "Results": "record.read",
    "read_results": "record.read",
    "render_html": "report",
    "render_json": "report",
    "render_junit": "report",
    "render_markdown": "report",
    "run_eval": "api.run",
    "Scorecard": "score",
    "score_results": "score",
    "GateDecision": "score.gate",
    "evaluate_gate": "score.gate",
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
    "ReportFiles",
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

"""``mcp-evals serve``: expose the harness as an MCP server (stdio, or Streamable HTTP with --http-port)."""

from __future__ import annotations

import os
from pathlib import Path

import click

from mcp_evals.cli.contract_cmd import load_setup
from mcp_evals.cli.options import config_option
from mcp_evals.cli.vocabulary import duration_option
from mcp_evals.errors import EXIT_OK


@click.command()
@config_option
@click.option(
    "--http-port", type=click.IntRange(1, 65535), help="Serve Streamable HTTP at /mcp on this port."
)
@click.option("--host", default="127.0.0.1", show_default=True, help="With --http-port: the address to bind.")
@click.option("--db", type=click.Path(dir_okay=False, path_type=Path), help="The history file (SQLite).")
@duration_option(
    "--timeout", bare="ms", help="How long one step may take (default 30s, or contract.timeout)."
)
@click.option("--concurrency", type=click.IntRange(1, 64), help="Cases at the same time (default 1).")
@click.option(
    "--judge-budget-usd",
    type=click.FloatRange(0, min_open=True),
    help="Most llm_judge may spend per served run (default: nothing; judged steps are skipped).",
)
@click.pass_context
def serve(
    ctx: click.Context,
    config_path: Path,
    http_port: int | None,
    host: str,
    db: Path | None,
    timeout: float | None,
    concurrency: int | None,
    judge_budget_usd: float | None,
) -> int:
    """Serve the harness over MCP: run, list, create and compare contract cases, and more.

    \b
    Tools: run_suite, run_case, list_cases, create_test_case, scaffold_fixture, regression_report,
    compare_results, generate_html_report, evaluate_deployment_gate, discover_fixtures,
    validate_fixtures, lint_catalog, run_selection_eval.
    Over stdio by default (for an MCP client's config). With --http-port, Streamable HTTP at /mcp;
    binding --host beyond loopback needs MCP_EVALS_SERVE_TOKEN (clients send it as a bearer token
    or an X-API-Key header).
    """
    from mcp_evals.serve.app import TOKEN_VARIABLE, serve_http, serve_stdio
    from mcp_evals.serve.harness import Harness

    setup = load_setup(ctx, config_path)
    harness = Harness(
        setup,
        db=db,
        timeout_ms=None if timeout is None else max(1, round(timeout * 1000)),
        concurrency=concurrency,
        config_path=config_path if setup.config is not None else None,
        judge_budget_usd=judge_budget_usd,
    )
    if http_port is None:
        serve_stdio(harness)
    else:
        token = os.environ.get(TOKEN_VARIABLE, "").strip() or None
        serve_http(harness, host, http_port, token)
    return EXIT_OK

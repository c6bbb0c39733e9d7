"""``mcp-evals report``: render a report from results files, without re-running anything."""

from __future__ import annotations

import json
from pathlib import Path
from typing import cast

import click

from mcp_evals.cli.options import colour_wanted, config_inputs, output_format, terminal_width
from mcp_evals.cli.vocabulary import format_option, out_option
from mcp_evals.config.load import load_config
from mcp_evals.config.model import DEFAULT_CONFIG_NAME, Config
from mcp_evals.errors import EXIT_OK
from mcp_evals.files import atomic_write, refuse_inputs
from mcp_evals.output.reports import compare_to, configured_baseline
from mcp_evals.record.merge import read_results_files
from mcp_evals.report import FORMATS, ReportFormat, render
from mcp_evals.report.escape import plain
from mcp_evals.report.json_report import report_json_schema
from mcp_evals.report.terminal import render_terminal
from mcp_evals.report.verdict import exit_code, verdict_text
from mcp_evals.score import score_results


def optional_config(path: Path | None) -> Config | None:
    """The config given, else ./mcp-evals.yaml when it exists (as ``run`` reads it), else None.

    A results file records its scoring and gate options, not the baseline's; reading the same config
    as ``run`` keeps ``report`` and ``baseline`` from judging a run differently than ``run`` did.
    """
    if path is not None:
        return load_config(path)
    default = Path(DEFAULT_CONFIG_NAME)
    return load_config(default) if default.is_file() else None


@click.command()
@click.argument("results", nargs=-1, type=click.Path(dir_okay=False, path_type=Path))
@format_option(
    *FORMATS,
    help="text (a terminal), md (PR comment / job summary), json (versioned schema), junit (XML), html "
    "(single file). Default: text on a terminal, md when piped or written with --out.",
)
@out_option("Write the report to this file instead of standard output.")
@click.option(
    "--baseline",
    "baseline_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Compare with this baseline (default: the config's baseline.path, when it exists).",
)
@click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False, path_type=Path),
    envvar="MCP_EVALS_CONFIG",
    help="Take scoring, gate and baseline options from this config (default: ./mcp-evals.yaml when it "
    "exists, else the scoring and gate options recorded in the results).",
)
@click.option(
    "--max-chars",
    type=click.IntRange(min=1000),
    default=65_000,
    show_default=True,
    help="Markdown only: shorten long tables to stay under this many characters (GitHub comments: 65,536).",
)
@click.option("--json-schema", is_flag=True, help="Print the JSON Schema of the JSON report and exit.")
def report(
    results: tuple[Path, ...],
    report_format: ReportFormat | None,
    out: Path | None,
    baseline_path: Path | None,
    config_path: Path | None,
    max_chars: int,
    json_schema: bool,
) -> int:
    """Render a report from one results file, or from the shards of one run.

    \b
    Several RESULTS files are merged (the shards of one run); files from different catalogs,
    models or settings are refused. The verdict goes to stderr when --out is given.
    Exit codes: 0 ok · 1 the gate (gate.fail_on, an area minimum) or a baseline regression fails ·
    2 PRELIMINARY (some answers never reached the model) · 3 bad input.
    """
    if json_schema:
        click.echo(json.dumps(report_json_schema(), indent=2, ensure_ascii=False))
        return EXIT_OK
    if not results:
        raise click.UsageError("give at least one RESULTS file (the NDJSON `mcp-evals run` wrote)")
    config = optional_config(config_path)
    if out is not None:
        inputs: dict[str, Path | None] = {f"the results file {path.name}": path for path in results}
        inputs |= {"the baseline file": baseline_path, **(config_inputs(config) if config else {})}
        refuse_inputs(out, inputs, what="--out")
    merged = read_results_files(list(results))
    scorecard = score_results(
        merged, config.scoring if config else None, gate_options=config.gate if config else None
    )
    baseline: Path | None = baseline_path
    if baseline is None and config is not None:
        baseline, missing = configured_baseline(config)
        if missing:
            click.echo(f"note: {missing}", err=True)
    comparison = compare_to(scorecard, baseline, config.baseline if config else None)
    chosen = cast(ReportFormat, output_format(report_format, written_to_file=out is not None))
    if chosen == "text":
        colour = out is None and colour_wanted()
        text = render_terminal(
            scorecard, baseline_comparison=comparison, color=colour, width=terminal_width()
        )
    else:
        text = render(scorecard, chosen, baseline_comparison=comparison, max_chars=max_chars)
    if out is None:
        click.echo(text, nl=False)
    else:
        with atomic_write(out) as stream:
            stream.write(text)
        click.echo(plain(verdict_text(scorecard, comparison), 1000), err=True)
        click.echo(f"{chosen} report written to {out}", err=True)
    return exit_code(scorecard, comparison)

"""``mcp-evals lint``: static catalog and fixture lint that predicts where models will confuse tools."""

from __future__ import annotations

from pathlib import Path

import click

from mcp_evals.cli.options import config_option, read_config, snapshot_option
from mcp_evals.errors import EXIT_CHECK_FAILED, EXIT_OK, ConfigError

FORMATS = ("text", "json", "sarif", "md")


@click.command()
@config_option
@snapshot_option("Lint")
@click.option(
    "--format",
    "output_format",
    type=click.Choice(FORMATS),
    default="text",
    show_default=True,
    help="Output: text, a JSON report, SARIF 2.1.0 (code scanning) or the PR comment's Markdown section.",
)
@click.option(
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the output to this file (completely or not at all) instead of standard output.",
)
@click.option(
    "--results",
    "results_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="A results file of `mcp-evals run`: compare the predicted confusable pairs with the observed ones.",
)
@click.option(
    "--probe",
    is_flag=True,
    help="Call each tool that has required parameters with {} on the live servers (checks that the "
    "server enforces its schema and says what is missing).",
)
@click.option("--rules-md", is_flag=True, help="Print the rules table (as in docs/lint.md) and exit.")
def lint(
    config_path: Path,
    snapshot: Path | None,
    output_format: str,
    output: Path | None,
    results_path: Path | None,
    probe: bool,
    rules_md: bool,
) -> int:
    """Lint the tool catalog and the fixtures: naming, descriptions, schemas, token cost, consistency.

    \b
    Free and offline (no model). Predicts the tool pairs a model will confuse; with --results, says
    how many of the confusions of that run it predicted. Rules, thresholds and ignores live under
    `lint:` in the config (docs/lint.md). Exit 0 ok · 1 a finding at or above `lint.fail_on`
    (default error) · 3 bad input.
    """
    from mcp_evals.lint.render import rules_markdown

    if rules_md:
        click.echo(rules_markdown(), nl=False)
        return EXIT_OK
    if probe and snapshot is not None:  # before any server starts
        raise ConfigError(
            "--probe calls tools on the live servers; it cannot run on a --catalog snapshot",
            hint="drop --catalog, or run the probe where the servers can start",
        )
    text, failed = _run(config_path, snapshot, output_format, results_path, probe)
    if output is not None:
        from mcp_evals.files import atomic_write

        with atomic_write(output, what="--output") as stream:
            stream.write(text + "\n")
    else:
        click.echo(text)
    return EXIT_CHECK_FAILED if failed else EXIT_OK


def _run(
    config_path: Path, snapshot: Path | None, output_format: str, results_path: Path | None, probe: bool
) -> tuple[str, bool]:
    from mcp_evals.catalog.snapshot import load_catalog
    from mcp_evals.lint.render import render_json, render_lint_markdown, render_sarif, render_text
    from mcp_evals.lint.setup import lint_config, prepare_lint
    from mcp_evals.servers.extract import extract_catalog

    config = read_config(config_path)
    setup = prepare_lint(config)  # before any server starts
    shown = setup.shown
    catalog = (
        load_catalog(snapshot, areas=config.areas or None)
        if snapshot is not None
        else extract_catalog(config)
    )
    answers = None
    if probe:
        import anyio

        from mcp_evals.lint.probe import probe_servers

        answers = anyio.run(probe_servers, config, catalog)
    report, context = lint_config(setup, catalog, answers)
    if results_path is not None:
        from mcp_evals.lint.predict import check_prediction
        from mcp_evals.record.read import read_results
        from mcp_evals.score import score_results

        scorecard = score_results(read_results(results_path))
        check = check_prediction(report.predicted_pairs, scorecard, context, results_file=str(results_path))
        report = report.model_copy(update={"prediction": check})
    if output_format == "json":
        text = render_json(report)
    elif output_format == "sarif":
        text = render_sarif(report, default_file=shown)
    elif output_format == "md":
        text = render_lint_markdown(report)
    else:
        text = render_text(report)
    return text, report.failed

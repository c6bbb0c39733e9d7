"""``mcp-evals lint``: static catalog and fixture lint that predicts where models will confuse tools."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import click

from mcp_evals.cli.options import config_option, read_config, snapshot_option
from mcp_evals.config.model import DEFAULT_CONFIG_NAME
from mcp_evals.errors import EXIT_CHECK_FAILED, EXIT_OK, ConfigError
from mcp_evals.wording import docs_url

if TYPE_CHECKING:
    from mcp_evals.lint.context import ProbeSkip
    from mcp_evals.lint.setup import LintSetup

FORMATS = ("text", "json", "sarif", "md")


@click.command(
    context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False},
    epilog=f"\b\nDocs: {docs_url('lint.md')}",
)
@config_option
@snapshot_option("Lint")
@click.option(
    "--command",
    "command",
    metavar="CMD",
    help="Lint the server this starts over stdio, with no config file: CMD [ARGS…] (last option: "
    "everything after CMD is its arguments).",
)
@click.option(
    "--url", help="Lint the server at this URL (Streamable HTTP or legacy SSE), with no config file."
)
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
    "server enforces its schema and says what is missing), and ask them the protocol conformance "
    "requests (read-only: an invalid cursor, an unknown tool name, server/discover); skips tools that "
    "require task-based execution and tools annotated destructiveHint: true.",
)
@click.option(
    "--probe-destructive",
    is_flag=True,
    help="--probe, calling the tools annotated destructiveHint: true as well.",
)
@click.option("--rules-md", is_flag=True, help="Print the rules table (as in the docs) and exit.")
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
@click.pass_context
def lint(
    ctx: click.Context,
    config_path: Path,
    snapshot: Path | None,
    command: str | None,
    url: str | None,
    output_format: str,
    output: Path | None,
    results_path: Path | None,
    probe: bool,
    probe_destructive: bool,
    rules_md: bool,
    args: tuple[str, ...],
) -> int:
    """Lint the tool catalog and the fixtures: naming, descriptions, schemas, token cost, consistency.

    \b
    mcp-evals lint                                  (the config's servers and fixtures)
    mcp-evals lint --catalog tools.json             (a snapshot; no config needed)
    mcp-evals lint --command node dist/index.js     (a server, no config: CMD and its arguments last)
    mcp-evals lint --url http://127.0.0.1:8000/mcp
    Free and offline (no model). Predicts the tool pairs a model will confuse; with --results, says
    how many of the confusions of that run it predicted. Rules, thresholds and ignores live under
    `lint:` in the config. Exit 0 ok · 1 a finding at or above `lint.fail_on`
    (default error) · 3 bad input.
    """
    from mcp_evals.cli.adhoc import check_server_options
    from mcp_evals.lint.render import rules_markdown

    if rules_md:
        click.echo(rules_markdown(), nl=False)
        return EXIT_OK
    check_server_options(command, url, args)
    probe = probe or probe_destructive
    if snapshot is not None and (command or url):
        raise ConfigError("give --catalog, --command or --url, not two of them")
    if probe and snapshot is not None:  # before any server starts
        raise ConfigError(
            "--probe calls tools on the live servers; it cannot run on a --catalog snapshot",
            hint="drop --catalog, or run the probe where the servers can start",
        )
    explicit = ctx.get_parameter_source("config_path") is not click.core.ParameterSource.DEFAULT
    if (command or url) and explicit:
        raise ConfigError(
            "--command and --url lint a server without a config file; --config names one",
            hint="drop --config, or add the server to the config's `servers:` and drop --command / --url",
        )
    setup = _setup(config_path, snapshot, command, url, args, explicit=explicit)
    text, failed = _run(setup, snapshot, output_format, results_path, probe, probe_destructive)
    if output is not None:
        from mcp_evals.files import atomic_write

        with atomic_write(output, what="--output") as stream:
            stream.write(text + "\n")
    else:
        click.echo(text)
    return EXIT_CHECK_FAILED if failed else EXIT_OK


def _setup(
    config_path: Path,
    snapshot: Path | None,
    command: str | None,
    url: str | None,
    args: tuple[str, ...],
    *,
    explicit: bool,
) -> LintSetup:
    """What the lint reads from a config: the config's, or defaults for a snapshot or a server given
    on the command line when there is no config file (findings then point at the snapshot)."""
    from mcp_evals.cli.adhoc import config_of, server_entry
    from mcp_evals.config.documents import shown
    from mcp_evals.lint.setup import prepare_ad_hoc_lint, prepare_lint

    if command or url:
        return prepare_ad_hoc_lint(config_of([server_entry(command, args, url, None)]), None)
    if snapshot is not None and not explicit and not config_path.exists():
        file = shown(snapshot)
        config = config_of([{"name": "snapshot", "snapshot": str(snapshot.resolve())}], shown=file)
        return prepare_ad_hoc_lint(config, file)
    return prepare_lint(read_config(config_path))  # before any server starts


def _run(
    setup: LintSetup,
    snapshot: Path | None,
    output_format: str,
    results_path: Path | None,
    probe: bool,
    destructive: bool,
) -> tuple[str, bool]:
    from mcp_evals.catalog.snapshot import load_catalog
    from mcp_evals.lint.render import render_json, render_lint_markdown, render_sarif, render_text
    from mcp_evals.lint.setup import lint_config
    from mcp_evals.servers.extract import extract_catalog

    config = setup.config
    catalog = (
        load_catalog(snapshot, areas=config.areas or None)
        if snapshot is not None
        else extract_catalog(config)
    )
    answers = conformance = None
    skipped: list[ProbeSkip] = []
    if probe:
        import anyio

        from mcp_evals.lint.probe import probe_plan, probe_servers
        from mcp_evals.servers.conformance import check_servers

        skipped = probe_plan(catalog, destructive=destructive)[1]
        answers = anyio.run(partial(probe_servers, config, catalog, destructive=destructive))
        conformance = anyio.run(check_servers, config, catalog)
    report, context = lint_config(setup, catalog, answers, skipped, conformance)
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
        text = render_sarif(report, default_file=setup.locations.config_file or DEFAULT_CONFIG_NAME)
    elif output_format == "md":
        text = render_lint_markdown(report)
    else:
        text = render_text(report)
    return text, report.failed

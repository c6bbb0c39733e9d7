"""``mcp-evals run``: ask a model (or the lexical baseline) to pick a tool for every fixture.

Settings come from flags, then ``EVAL_*`` variables, then the config's ``run:`` section, then
defaults. Keys come from the environment only. Exit codes: 0 complete (or skipped: no key for the
provider asked for) · 1 the gate failed (scoring) · 2 PRELIMINARY (some fixture never reached the
model) · 3 bad input.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import click

from mcp_evals.cli.options import (
    colour_wanted,
    config_option,
    output_format,
    read_config,
    terminal_width,
)
from mcp_evals.cli.paid_options import paid_options
from mcp_evals.cli.vocabulary import format_option
from mcp_evals.errors import EXIT_OK
from mcp_evals.run.plan import EXPECT_NOTHING_CACHED
from mcp_evals.run.results_file import DEFAULT_RESULTS

if TYPE_CHECKING:
    from mcp_evals.output.reports import ReportFiles


# -- the verdict ------------------------------------------------------------------------------------


def show_report(outcome: ReportFiles, report_format: str | None) -> int:
    """The report on stdout (text on a terminal, else Markdown), then the files written and the verdict."""
    from mcp_evals.report.terminal import render_terminal

    if output_format(report_format) == "text":
        text = render_terminal(
            outcome.scorecard,
            baseline_comparison=outcome.comparison,
            color=colour_wanted(),
            width=terminal_width(),
        )
        click.echo(text, nl=False)
    else:
        click.echo(outcome.markdown)
    for written_format, path in outcome.written.items():
        click.echo(f"report ({written_format}): {path}", err=True)
    click.echo(outcome.verdict, err=True)
    return outcome.exit_code


# -- the command --------------------------------------------------------------------------------


@click.command()
@config_option
@paid_options()
@click.option(
    "--limit", type=click.IntRange(1), help="Only the first N fixtures: a smoke run (env EVAL_LIMIT)."
)
@click.option(
    "--shard", metavar="I/N", help="Run the I-th of N deterministic, disjoint parts (for a CI matrix)."
)
@click.option(
    "--only-tools",
    "only_tools",
    multiple=True,
    metavar="TOOL[,TOOL…]",
    help="Only the fixtures that expect or forbid these tools, plus refuse/clarify ones (a re-run).",
)
@click.option(
    "--only-areas",
    "only_areas",
    multiple=True,
    metavar="AREA[,AREA…]",
    help="Only the fixtures of these areas, plus refuse/clarify ones.",
)
@click.option(
    "--samples", type=click.IntRange(1, 100), help="Answers per fixture, for consistency (default 1)."
)
@click.option(
    "--results",
    "results_option",
    type=click.Path(dir_okay=False, path_type=Path),
    help=f"NDJSON results file (default {DEFAULT_RESULTS}).",
)
@click.option("--resume", is_flag=True, help="Keep the answers the results file holds; run only the rest.")
@click.option("--dry", is_flag=True, help="Send nothing billable: count tokens and print the estimated cost.")
@click.option("--batch", is_flag=True, help="Use the Message Batches API (anthropic; half price, slow).")
@format_option(
    "text",
    "md",
    help="The report printed at the end: text (default on a terminal) or md (the Markdown a PR comment "
    "shows; the default when piped).",
)
@click.option(
    "--from",
    "replay_from",
    type=click.Path(dir_okay=False, path_type=Path),
    help="With --provider replay: the earlier results file to re-score.",
)
def run(
    config_path: Path,
    provider: str | None,
    model: str | None,
    concurrency: int | None,
    limit: int | None,
    shard: str | None,
    only_tools: tuple[str, ...],
    only_areas: tuple[str, ...],
    samples: int | None,
    budget_usd: float | None,
    results_option: Path | None,
    resume: bool,
    dry: bool,
    batch: bool,
    base_url: str | None,
    report_format: str | None,
    replay_from: Path | None,
) -> int:
    """Ask a model to pick a tool for every fixture; write results and print the verdict.

    \b
    Without a key and without --provider, runs the lexical baseline (BM25, free, advisory).
    Exit codes: 0 complete (or skipped: no key for the provider asked for) · 1 gate failed ·
    2 PRELIMINARY (some fixture never reached the model) · 3 bad input.
    """
    from mcp_evals.api.run import RunRequest, estimate, execute, plan_run
    from mcp_evals.run.spending import MissingKey

    request = RunRequest(
        config=read_config(config_path),
        provider=provider,
        model=model,
        concurrency=concurrency,
        limit=limit,
        shard=shard,
        only_tools=only_tools,
        only_areas=only_areas,
        samples=samples,
        budget_usd=budget_usd,
        results=results_option,
        resume=resume,
        dry=dry,
        batch=batch,
        base_url=base_url,
        replay_from=replay_from,
        environ=os.environ,
        warn=lambda text: click.echo(f"warning: {text}", err=True),
    )
    plan = plan_run(request)
    if isinstance(plan, MissingKey):
        click.echo(plan.message("run", lexical=True), err=True)
        return EXIT_OK
    for line in plan.announcement:
        click.echo(line, err=True)
    # --dry and the paid-run announcement say the caching note themselves, with the counted prefix.
    described = bool(plan.announcement) or (dry and plan.provider.uses_network)
    for note in plan.notes:
        if not (described and EXPECT_NOTHING_CACHED in note):
            click.echo(f"note: {note}", err=True)
    if dry:
        estimated = estimate(plan)
        click.echo(estimated.lines[0])
        if estimated.problem:
            click.echo(f"note: {estimated.problem}", err=True)
        for line in estimated.lines[1:]:
            click.echo(line)
        return EXIT_OK
    outcome = execute(
        plan,
        say=lambda line: click.echo(line, err=True),
        progress_label="mcp-evals",
    )
    assert outcome.report is not None
    return show_report(outcome.report, report_format)

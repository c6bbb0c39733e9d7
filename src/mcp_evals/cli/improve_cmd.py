"""``mcp-evals improve``: rewrite the descriptions of the tools a model confuses, and prove the rewrite
on held-out fixtures (see ``mcp_evals.improve``; every decision is ``api.improve``'s).

Exit codes: 0 done (whatever the verdict: the report says it; or skipped: no key) · 2 incomplete (a
budget stop, an answer that never came: the report says which pairs were not proven) · 3 bad input,
a paid model without a budget cap, or a cap below what the proposals and the proof need.
"""

from __future__ import annotations

import os
from pathlib import Path

import click

from mcp_evals.api.improve import (
    DEFAULT_OUT,
    ImproveRequest,
    estimate_improve,
    execute_improve,
    improves,
    plan_improve,
)
from mcp_evals.cli.options import config_option, read_config, snapshot_option
from mcp_evals.cli.paid_options import paid_options
from mcp_evals.cli.vocabulary import format_option
from mcp_evals.errors import EXIT_OK
from mcp_evals.run.spending import MissingKey


def _say(line: str) -> None:
    click.echo(line, err=True)


@click.command()
@config_option
@snapshot_option("Read the catalog from")
@click.option(
    "--results",
    type=click.Path(dir_okay=False, path_type=Path),
    help="A results file of `mcp-evals run`: its confusions on dev fixtures pick the pairs (default: a "
    "run on the dev split).",
)
@click.option(
    "--pairs",
    type=click.IntRange(1, 50),
    default=5,
    show_default=True,
    help="The worst confusion pairs to rewrite (observed on dev first, then the lint's predicted ones).",
)
@click.option(
    "--test-share",
    type=click.FloatRange(0.1, 0.9),
    default=0.5,
    show_default=True,
    help="For fixtures without a `split:`: the share of each tool's held out as the test split.",
)
@paid_options(improves)
@click.option("--samples", type=click.IntRange(1, 100), help="Answers per fixture and arm (default 1).")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    help=f"Folder for improve.md, descriptions.improved.yaml and the runs (default {DEFAULT_OUT}).",
)
@click.option(
    "--source",
    "sources",
    multiple=True,
    type=click.Path(exists=True, path_type=Path),
    help="Where the server's source is (a folder or a file; repeatable; default: each stdio server's "
    "working folder), to list where each rewritten description is written.",
)
@click.option(
    "--apply",
    is_flag=True,
    help="Write the new descriptions into the server's source, where a literal holds the old text "
    "exactly (never when the proof says worse).",
)
@format_option(
    "md",
    "json",
    name="output_format",
    default="md",
    show_default=True,
    help="What it prints: md (improve.md, the Markdown of a PR comment or job summary) or json "
    "(improve.json, the report as data). Both are written to --out.",
)
@click.option("--dry", is_flag=True, help="Send nothing: estimate the requests and cost of every phase.")
def improve(
    config_path: Path,
    snapshot: Path | None,
    results: Path | None,
    pairs: int,
    test_share: float,
    provider: str | None,
    model: str | None,
    base_url: str | None,
    budget_usd: float | None,
    concurrency: int | None,
    samples: int | None,
    out: Path | None,
    sources: tuple[Path, ...],
    apply: bool,
    output_format: str,
    dry: bool,
) -> int:
    """Rewrite the descriptions of confused tools, and prove the rewrite on held-out fixtures.

    \b
    Targets: the worst confusion pairs on the dev split (--results, or a run) and the lint's predicted
    pairs. A model proposes each rewrite seeing the catalog, the lint's findings and dev fixtures only;
    the lint drops a proposal that adds an error. The proof: before against after on the test split,
    one paired run; a verdict per pair and overall. Writes improve.md and descriptions.improved.yaml
    (read by `compare --descriptions` and `validate --descriptions`); lists where each description
    is in the server's source (--apply writes it). --provider lexical runs it all free. A paid model
    needs a budget cap that pays for the proposals and the proof. Exit 0 · 2 incomplete · 3 bad input.
    """
    request = ImproveRequest(
        config=read_config(config_path),
        snapshot=snapshot,
        results=results,
        pairs=pairs,
        test_share=test_share,
        provider=provider,
        model=model,
        base_url=base_url,
        budget_usd=budget_usd,
        concurrency=concurrency,
        samples=samples,
        out=out,
        sources=sources,
        apply=apply,
        dry=dry,
        environ=os.environ,
        say=_say,
    )
    plan = plan_improve(request)
    if isinstance(plan, MissingKey):
        _say(plan.message("improve"))
        return EXIT_OK
    if dry:
        click.echo("\n".join(estimate_improve(plan)))
        return EXIT_OK
    outcome = execute_improve(plan, say=_say)
    report = outcome.report
    click.echo(outcome.json if output_format == "json" else outcome.markdown, nl=False)
    for row in report.not_proven:
        _say(
            f"mcp-evals improve: not proven: {row.label} ({len(row.unanswered)} of its test fixtures "
            "unanswered)"
        )
    _say(f"mcp-evals improve: {report.overall} → {outcome.outputs.markdown} · {outcome.outputs.overlay}")
    return outcome.exit_code

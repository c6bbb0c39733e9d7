"""``mcp-evals compare``: the same fixtures, model and settings against several arms, in one paired run.

Two kinds of comparison:

* catalog A/B (``--catalog-a``/``--catalog-b``, or ``compare.descriptions`` in the config): did a
  description rewrite help? Arms ``A`` and ``B``.
* delivery (``--arms full,deferred,grouped`` or ``compare.arms``): would the remediation the gate
  recommends help this catalog? Arms named after how they deliver it.

Writes one results file per arm, ``comparison.json`` and ``comparison.md`` to ``--out`` (default
``mcp-evals-compare/``); ``--from DIR`` renders a comparison again from those files alone. Exit
codes: 0 complete (or skipped: no key, see ``run.spending``) · 2 PRELIMINARY (some answer never
reached the model) · 3 bad input, or a paid model without a budget cap.
"""

from __future__ import annotations

import os
from pathlib import Path

import click

from mcp_evals.api.compare import (
    COMPARISON_JSON,
    COMPARISON_MD,
    DEFAULT_OUT,
    CompareRequest,
    answers_anew,
    estimate_compare,
    execute_compare,
    plan_compare,
    render_again,
)
from mcp_evals.cli.options import config_option, read_config
from mcp_evals.cli.paid_options import paid_options
from mcp_evals.errors import EXIT_OK, EXIT_PRELIMINARY
from mcp_evals.run.spending import MissingKey


@click.command()
@config_option
@click.option(
    "--catalog-a",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Arm A's catalog snapshot (default: the config's catalog).",
)
@click.option(
    "--catalog-b",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Arm B's catalog snapshot (default: catalog A with `compare.descriptions`).",
)
@click.option(
    "--descriptions",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Arm B: catalog A with the descriptions of this overlay file (descriptions.improved.yaml, as "
    "`mcp-evals improve` writes it).",
)
@click.option("--arms", "arms_option", metavar="LIST", help="Deliveries to compare: full,deferred,grouped.")
@paid_options(answers_anew)
@click.option("--samples", type=click.IntRange(1, 100), help="Answers per fixture and arm (default 1).")
@click.option("--limit", type=click.IntRange(1), help="Only the first N fixtures.")
@click.option("--split", type=click.Choice(["dev", "test"]), help="Only the fixtures of this split.")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    help=f"Folder for the arms' results and the comparison (default {DEFAULT_OUT}).",
)
@click.option("--dry", is_flag=True, help="Send nothing: estimate each arm's cost per fixture.")
@click.option(
    "--from",
    "from_dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Render the comparison again from a folder an earlier compare wrote (calls nothing).",
)
def compare(
    config_path: Path,
    catalog_a: Path | None,
    catalog_b: Path | None,
    descriptions: Path | None,
    arms_option: str | None,
    provider: str | None,
    model: str | None,
    base_url: str | None,
    budget_usd: float | None,
    concurrency: int | None,
    samples: int | None,
    limit: int | None,
    split: str | None,
    out: Path | None,
    dry: bool,
    from_dir: Path | None,
) -> int:
    """Run the same fixtures against two catalogs, or one catalog delivered several ways, paired.

    \b
    Catalog A/B: --catalog-b SNAPSHOT, --descriptions OVERLAY (or compare.descriptions in the config)
    against the config's catalog (or --catalog-a). Deliveries: --arms full,deferred,grouped (or
    compare.arms): the whole catalog, the catalog behind tool search, or one router tool per area.
    One run, fixtures interleaved across arms, same model and settings; the paired exact test per
    pair of arms and per-area deltas. A paid model needs a budget cap. Exit 0 (or skipped: no key) ·
    2 PRELIMINARY · 3 bad input.
    """
    from mcp_evals.report.comparison import render_comparison

    if from_dir is not None:
        again = render_again(from_dir)
        click.echo(render_comparison(again), nl=False)
        return EXIT_PRELIMINARY if again.preliminary else EXIT_OK
    request = CompareRequest(
        config=read_config(config_path),
        catalog_a=catalog_a,
        catalog_b=catalog_b,
        descriptions=descriptions,
        arms=arms_option,
        provider=provider,
        model=model,
        base_url=base_url,
        budget_usd=budget_usd,
        concurrency=concurrency,
        samples=samples,
        limit=limit,
        split=split,
        out=out,
        dry=dry,
        environ=os.environ,
        say=lambda line: click.echo(line, err=True),
    )
    plan = plan_compare(request)
    if isinstance(plan, MissingKey):
        click.echo(plan.message("compare", lexical=plan.kind != "none"), err=True)
        return EXIT_OK
    if dry:
        for line in estimate_compare(plan):
            click.echo(line)
        return EXIT_OK
    outcome = execute_compare(
        plan, say=lambda line: click.echo(line, err=True), progress_label="mcp-evals compare"
    )
    click.echo(outcome.markdown, nl=False)
    click.echo(f"comparison: {outcome.out / COMPARISON_MD} · {outcome.out / COMPARISON_JSON}", err=True)
    return outcome.exit_code

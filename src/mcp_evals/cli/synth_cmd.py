"""``mcp-evals synth``: write held-out, concrete-valued fixtures with a model (see ``mcp_evals.synth``).

Exit codes: 0 written (or, every answer in, every candidate dropped: nothing written; or skipped:
no key, see ``run.spending``) · 2 incomplete (some requests never got a usable answer: budget,
errors; what did come is written, nothing when no fixture came) · 3 bad input, nothing to ask, or a
paid model without a budget cap.
"""

from __future__ import annotations

import os
from pathlib import Path

import click

from mcp_evals.api.synth import SynthRequest, estimate_synth, execute_synth, plan_synth, writes_text
from mcp_evals.cli.options import config_option, read_config, snapshot_option
from mcp_evals.cli.paid_options import paid_options
from mcp_evals.errors import EXIT_OK
from mcp_evals.run.spending import MissingKey
from mcp_evals.synth.model import SynthSettings


@click.command()
@config_option
@snapshot_option("Read the catalog from")
@click.option(
    "--out",
    "out",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The fixture file to write; an existing one is appended to, never rewritten.",
)
@click.option(
    "--per-tool", type=click.IntRange(0, 50), default=3, show_default=True, help="Intents per tool."
)
@click.option("--refuse", type=click.IntRange(0, 100), default=5, show_default=True, help="Refuse fixtures.")
@click.option(
    "--clarify", type=click.IntRange(0, 100), default=5, show_default=True, help="Clarify fixtures."
)
@click.option(
    "--pairs",
    type=click.IntRange(0, 100),
    default=10,
    show_default=True,
    help="Confusable pairs (as the lint ranks them) that get one boundary intent per tool.",
)
@click.option("--persona", help="Who asks, in a phrase (default: someone who has never seen the tools).")
@click.option("--language", default="English", show_default=True, help="The language of the queries.")
@click.option(
    "--test-share",
    type=click.FloatRange(0, 1),
    default=0.3,
    show_default=True,
    help="Share of each tool's new fixtures held out as the test split (only when the file has none).",
)
@paid_options(writes_text, most_in_flight=64)
@click.option(
    "--dry",
    is_flag=True,
    help="Send nothing: print how many requests each step would send, the estimated tokens and cost, "
    "and whether the budget fits.",
)
def synth(
    config_path: Path,
    snapshot: Path | None,
    out: Path,
    per_tool: int,
    refuse: int,
    clarify: int,
    pairs: int,
    persona: str | None,
    language: str,
    test_share: float,
    provider: str | None,
    model: str | None,
    base_url: str | None,
    budget_usd: float | None,
    concurrency: int | None,
    dry: bool,
) -> int:
    """Write fixtures with a model: held-out, concrete-valued queries, a frozen test split.

    \b
    Step 1 describes user goals per tool (and per confusable pair), with a concrete value for every
    required parameter; step 2, a separate call that never sees a tool name, description or schema,
    says each goal as the persona would. The lint's fixture rules judge the result (F001 dropped,
    F002 flagged). A paid model needs a budget cap (--budget-usd). Exit 0 written (or skipped: no
    key) · 2 incomplete (what came is written; no fixture, no file) · 3 bad input or nothing to ask.
    """
    settings = SynthSettings(
        per_tool=per_tool,
        refuse=refuse,
        clarify=clarify,
        pairs=pairs,
        language=language,
        test_share=test_share,
    )
    if persona:
        settings.persona = persona
    request = SynthRequest(
        config=read_config(config_path),
        out=out,
        settings=settings,
        snapshot=snapshot,
        provider=provider,
        model=model,
        base_url=base_url,
        budget_usd=budget_usd,
        concurrency=concurrency,
        dry=dry,
        environ=os.environ,
    )
    plan = plan_synth(request)
    if isinstance(plan, MissingKey):
        click.echo(plan.message("synth", usage=" --out …"), err=True)
        return EXIT_OK
    if dry:
        click.echo("\n".join(estimate_synth(plan)))
        return EXIT_OK
    return execute_synth(plan, say=lambda line: click.echo(line, err=True), show=click.echo).exit_code

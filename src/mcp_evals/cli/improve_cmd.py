"""``mcp-evals improve``: rewrite the descriptions of the tools a model confuses, and prove the rewrite
on held-out fixtures (see ``mcp_evals.improve``).

Exit codes: 0 done (whatever the verdict: the report says it) · 2 incomplete (a budget stop, an
answer that never came: the report says which pairs were not proven) · 3 bad input, or a paid model
without a budget cap.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import click

from mcp_evals.api.inputs import config_inputs, read_catalog, refuse_invalid
from mcp_evals.cli.options import ProviderChoice, config_option, read_config, snapshot_option
from mcp_evals.cli.vocabulary import format_option
from mcp_evals.errors import EXIT_OK, EXIT_PRELIMINARY, ConfigError
from mcp_evals.fixtures.load import load_fixtures
from mcp_evals.provider_registry import FALLBACK, PROVIDERS
from mcp_evals.wording import alternatives, plural

DEFAULT_OUT = "mcp-evals-improve"


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
@click.option(
    "--provider",
    type=ProviderChoice(lambda entry: entry.improves),
    help="A model that writes text, or lexical (free: the rule-based rewriter; not a model's gain). "
    "Default: by key, as in run.",
)
@click.option("--model", help="Model id (env EVAL_MODEL; default as in run).")
@click.option("--base-url", help="API base URL (env ANTHROPIC_BASE_URL / OPENAI_BASE_URL).")
@click.option(
    "--budget-usd",
    type=click.FloatRange(0, min_open=True),
    help="One cap over the dev run, the proposals and the proof (env EVAL_BUDGET_USD). Required with a "
    "paid model.",
)
@click.option(
    "--concurrency", type=click.IntRange(1, 256), help="Requests in flight (env EVAL_CONCURRENCY; default 4)."
)
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
    needs a budget cap. Exit 0 · 2 incomplete · 3 bad input.
    """
    import os

    from mcp_evals.config.resolve import CONCURRENCY_VARIABLE, number_setting
    from mcp_evals.improve.estimate import describe_improve
    from mcp_evals.improve.loop import (
        Evaluator,
        ImproveSettings,
        Outputs,
        dry_plan,
        report_json,
        write_outputs,
    )
    from mcp_evals.improve.loop import improve as run_improve
    from mcp_evals.run.asker import generate_options
    from mcp_evals.run.spending import decide

    config = read_config(config_path)
    workers = number_setting(
        concurrency, os.environ, CONCURRENCY_VARIABLE, config.run.concurrency, int, at_most=256
    )
    spending = decide(
        "improve",
        os.environ,
        config.run,
        provider=provider,
        model=model,
        base_url=base_url,
        budget_usd=budget_usd,
        dry=dry,
        where=lambda item: item.improves,
        cap="required",
    )
    if spending.missing_key is not None:
        click.echo(spending.missing_key.message("improve"), err=True)
        return EXIT_OK
    entry = spending.choice.entry
    if not entry.improves:
        raise ConfigError(
            f"mcp-evals improve needs a model that writes text, or the lexical baseline; not "
            f"{entry.in_words}",
            hint=f"set {alternatives(PROVIDERS.key_variables(lambda item: item.conversation))}, or run it "
            "free with --provider lexical",
        )
    lexical = entry.name == FALLBACK
    provider_settings = spending.settings(config.run, max_connections=max(4, (workers or 4) + 2))
    if lexical:
        provider_settings = replace(provider_settings, model="bm25")
    catalog = read_catalog(config, snapshot)
    fixtures = load_fixtures(config, warn=lambda text: click.echo(f"warning: {text}", err=True))
    refuse_invalid(
        fixtures, catalog, config, doing="improving", hint="`mcp-evals validate` lists every problem"
    )
    price, budget = spending.price, spending.budget_usd
    evaluator = Evaluator(
        spending.provider_class,
        provider_settings,
        generate_options(config.run),
        price,
        budget,
        lexical=lexical,
    )
    settings = ImproveSettings(
        pairs=pairs,
        test_share=test_share,
        samples=samples or config.run.samples,
        concurrency=workers,
        results=results,
        sources=list(sources),
        apply=apply,
    )
    if dry:
        click.echo(
            "\n".join(
                describe_improve(dry_plan(config, catalog, fixtures, evaluator, settings), price, budget)
            )
        )
        return EXIT_OK
    outputs = Outputs(out or Path(DEFAULT_OUT))
    outputs.check(
        {**config_inputs(config), "the catalog snapshot": snapshot, "the results file": results},
        dev_run=results is None,
    )

    def say(line: str) -> None:
        click.echo(line, err=True)

    say(
        f"mcp-evals improve: {spending.name}/{provider_settings.model} · "
        f"{plural(len(catalog.tools), 'tool')} · {plural(len(fixtures), 'fixture')}"
        + (f" · budget ${budget:g}" if budget else "")
    )
    report = run_improve(config, catalog, fixtures, evaluator, settings, outputs, say=say)
    markdown = write_outputs(report, outputs)
    click.echo(report_json(report) if output_format == "json" else markdown, nl=False)
    for row in report.not_proven:
        say(
            f"mcp-evals improve: not proven: {row.label} ({len(row.unanswered)} of its test fixtures "
            "unanswered)"
        )
    say(f"mcp-evals improve: {report.overall} → {outputs.markdown} · {outputs.overlay}")
    return EXIT_PRELIMINARY if report.incomplete else EXIT_OK

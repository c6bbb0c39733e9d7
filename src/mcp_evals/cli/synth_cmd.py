"""``mcp-evals synth``: write held-out, concrete-valued fixtures with a model (see ``mcp_evals.synth``).

Exit codes: 0 written (or, every answer in, every candidate dropped: nothing written) · 2 incomplete
(some requests never got a usable answer: budget, errors; what did come is written, nothing when no
fixture came) · 3 bad input, nothing to ask, or a paid model without a budget cap.
"""

from __future__ import annotations

import datetime
from dataclasses import replace
from pathlib import Path

import anyio
import click

from mcp_evals.catalog.model import Catalog
from mcp_evals.cli.options import ProviderChoice, config_inputs, config_option, read_config, snapshot_option
from mcp_evals.cli.paid import PaidModel, choose_paid_model
from mcp_evals.config.model import Config
from mcp_evals.errors import EXIT_OK, EXIT_PRELIMINARY, ConfigError, McpEvalsError, where
from mcp_evals.files import check_writable, refuse_inputs, updates
from mcp_evals.fixtures.load import fixture_files, load_fixture_file
from mcp_evals.fixtures.model import Fixture
from mcp_evals.provider_registry import PROVIDERS, ProviderEntry
from mcp_evals.run.budget import Budget
from mcp_evals.run.retry import RetryPolicy
from mcp_evals.synth.assemble import assemble
from mcp_evals.synth.estimate import describe_synth
from mcp_evals.synth.generate import Caller, Synthesis, included_tools, plan_asks, synthesize
from mcp_evals.synth.model import SynthSettings
from mcp_evals.synth.outfile import read_existing, write_fixtures
from mcp_evals.synth.prompts import Ask
from mcp_evals.wording import alternatives, plural

# Answers hold several intents or queries as JSON: more room than a tool call needs.
SYNTH_MAX_TOKENS = 2048


def _catalog(config: Config, snapshot: Path | None) -> Catalog:
    if snapshot is not None:
        from mcp_evals.catalog.snapshot import load_catalog

        return load_catalog(snapshot, areas=config.areas or None)
    from mcp_evals.servers.extract import extract_catalog

    config.check_variables()
    return extract_catalog(config)


def nothing_to_ask(config: Config, catalog: Catalog, settings: SynthSettings) -> ConfigError:
    """Why the plan has no request at all (so there is nothing to write), and what to change."""
    nothing = "nothing was written"
    if not catalog.tools:
        return ConfigError(
            f"the catalog has no tools, so synth has nothing to ask the model; {nothing}",
            hint="`mcp-evals catalog` shows what the config's servers list",
        )
    if not included_tools(catalog, config.exclude_tools):
        place = where(config.shown_path, config.line_of(("exclude_tools",)), "exclude_tools")
        return ConfigError(
            f"{place}: every tool of the catalog ({len(catalog.tools)}) is excluded, so synth has "
            f"nothing to ask the model; {nothing}",
            hint="narrow `exclude_tools` to the tools users never ask for",
        )
    if not (settings.per_tool or settings.refuse or settings.clarify):
        return ConfigError(
            f"--per-tool 0, --refuse 0 and --clarify 0: nothing to ask the model; {nothing}",
            hint="leave --per-tool at its default (3) or give at least one of the three a count above 0",
        )
    return ConfigError(
        "--per-tool 0 and --refuse 0 leave only --clarify, and no tool outside `exclude_tools` has a "
        f"required parameter to leave out: nothing to ask the model; {nothing}",
        hint="give --per-tool or --refuse a count above 0",
    )


def _other_fixtures(config: Config, out: Path) -> list[Fixture]:
    """The config's fixtures outside the output file (so no query is asked twice); none if unset."""
    if not config.fixture_globs:
        return []
    try:
        files = fixture_files(config)
    except McpEvalsError:
        return []
    fixtures: list[Fixture] = []
    for path in files:
        if path.resolve() != out.resolve():
            fixtures.extend(load_fixture_file(path))
    return fixtures


def writes_text(entry: ProviderEntry) -> bool:
    """A provider synth can use: one that answers free text (the lexical baseline cannot)."""
    return entry.conversation


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
@click.option("--provider", type=ProviderChoice(writes_text), help="Default: by key, as in run.")
@click.option("--model", help="Model id (env EVAL_MODEL; default as in run).")
@click.option("--base-url", help="API base URL (env ANTHROPIC_BASE_URL / OPENAI_BASE_URL).")
@click.option(
    "--budget-usd",
    type=click.FloatRange(0, min_open=True),
    help="Stop before the next request could cross this many dollars (env EVAL_BUDGET_USD). Required "
    "with a paid model.",
)
@click.option(
    "--concurrency", type=click.IntRange(1, 64), default=4, show_default=True, help="Requests in flight."
)
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
    concurrency: int,
    dry: bool,
) -> int:
    """Write fixtures with a model: held-out, concrete-valued queries, a frozen test split.

    \b
    Step 1 describes user goals per tool (and per confusable pair), with a concrete value for every
    required parameter; step 2, a separate call that never sees a tool name, description or schema,
    says each goal as the persona would. The lint's fixture rules judge the result (F001 dropped,
    F002 flagged). A paid model needs a budget cap (--budget-usd). Exit 0 written · 2 incomplete
    (what came is written; no fixture, no file) · 3 bad input or nothing to ask.
    """
    config = read_config(config_path)
    paid = choose_paid_model(
        "synth",
        config,
        provider=provider,
        model=model,
        base_url=base_url,
        budget_usd=budget_usd,
        dry=dry,
        max_tokens=max(SYNTH_MAX_TOKENS, config.run.max_tokens),
    )
    if not paid.choice.entry.conversation:
        raise ConfigError(
            f"mcp-evals synth needs a model: set {alternatives(PROVIDERS.key_variables(writes_text))}, "
            f"or name one with --provider ({paid.choice.entry.in_words} cannot write queries)"
        )
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
    # The output may be one of the fixture files (the glob may match it): synth appends to it, never
    # rewrites it (synth/outfile.py). The config and the catalog snapshot it may not be.
    inputs = {
        label: path for label, path in config_inputs(config).items() if not label.startswith("the fixture")
    }
    refuse_inputs(out, {**inputs, "the catalog snapshot": snapshot}, what="--out")
    updates(out)
    existing = read_existing(out)
    catalog = _catalog(config, snapshot)
    asks = plan_asks(catalog, settings, config.exclude_tools)
    if not asks:  # --dry says the same: a run with nothing to ask is bad input, never an empty file
        raise nothing_to_ask(config, catalog, settings)
    if dry:
        lines = describe_synth(
            paid.label,
            paid.settings.model,
            asks,
            settings,
            paid.price,
            max_tokens=paid.options.max_tokens,
            budget_usd=paid.budget_usd,
        )
        click.echo("\n".join(lines))
        return EXIT_OK
    check_writable(out)
    return _synthesize(
        config, paid, catalog, settings, asks, out, existing, _other_fixtures(config, out), concurrency
    )


def _synthesize(
    config: Config,
    paid: PaidModel,
    catalog: Catalog,
    settings: SynthSettings,
    asks: list[Ask],
    out: Path,
    old: list[Fixture],
    others: list[Fixture],
    concurrency: int,
) -> int:
    frozen = any(fixture.split == "test" for fixture in old)
    provider = paid.provider_class(paid.settings)
    # Before the first answer, each request reserves as much input as the largest prompt of step 1.
    largest = max((ask.system + ask.user for ask in asks), key=len)
    budget = Budget(paid.budget_usd, paid.price, paid.options.max_tokens, prefix=largest.encode("utf-8"))
    caller = Caller(
        provider,
        budget,
        RetryPolicy(max_attempts=config.run.max_attempts, max_wait=config.run.max_wait),
        # No cache marks: each synth request is asked once.
        options=replace(paid.options, cache="off"),
        concurrency=concurrency,
    )
    click.echo(
        f"mcp-evals synth: {paid.choice.name}/{paid.settings.model} · {plural(len(catalog.tools), 'tool')} · "
        f"persona {settings.persona!r} · {settings.language}",
        err=True,
    )

    async def both_steps() -> Synthesis:
        try:
            return await synthesize(caller, catalog, settings, config.exclude_tools)
        finally:
            await provider.aclose()

    synthesis = anyio.run(both_steps)
    assembly = assemble(
        synthesis.candidates,
        catalog,
        existing=[*old, *others],
        test_share=settings.test_share,
        frozen=frozen,
        exclude_tools=config.exclude_tools,
    )
    header = (
        f"Written by `mcp-evals synth` ({paid.choice.name}/{paid.settings.model}) on "
        f"{datetime.date.today().isoformat()}: persona {settings.persona!r}, {settings.language}.\n"
        "Queries were paraphrased by a call that never saw a tool name, description or schema.\n"
        "The test split is frozen: later `mcp-evals synth` runs append to dev and never rewrite it."
    )
    dropped = [*synthesis.dropped, *assembly.dropped]
    for item in dropped:
        click.echo(f"dropped: {item.what}: {item.reason}", err=True)
    reasons = ", ".join(f"{kind} {count}" for kind, count in sorted(caller.dropouts.items()))
    incomplete = bool(caller.dropouts) or caller.fatal is not None
    cost = f" · cost ${budget.spent_usd:.4f}" if paid.price is not None else ""
    found = (
        f"mcp-evals synth: {plural(synthesis.asks, 'intent request')} → "
        f"{plural(synthesis.intents, 'intent')}; "
        f"{plural(len(dropped), 'candidate')} dropped, {len(assembly.flagged)} flagged (F002); "
    )
    if assembly.fixtures:
        write_fixtures(out, assembly.fixtures, old, header)
        splits = {name: sum(1 for f in assembly.fixtures if f.split == name) for name in ("dev", "test")}
        frozen_note = " (the test split is frozen: new fixtures joined dev)" if frozen else ""
        click.echo(
            f"{found}{plural(len(assembly.fixtures), 'fixture')} written to {out} ({splits['dev']} dev, "
            f"{splits['test']} test){frozen_note} · {plural(caller.requests, 'request')}{cost}"
        )
    else:
        # Never an empty `fixtures: []` under a header saying queries were paraphrased; never a rewrite.
        click.echo(f"{found}no fixture written · {plural(caller.requests, 'request')}{cost}")
        if synthesis.intents:
            why = f"every candidate was dropped ({len(dropped)}, each listed above)"
        elif incomplete:
            why = f"no request got a usable answer ({reasons or 'none was sent'})"
        else:
            why = "the model's answers held no intent that fits the requests"
        click.echo(f"mcp-evals synth: no fixture to write, so nothing was written to {out}: {why}", err=True)
    if incomplete:
        click.echo(f"mcp-evals synth: incomplete: requests without a usable answer: {reasons}", err=True)
        if caller.fatal is not None:
            click.echo(f"  stopped by a fatal error: {caller.fatal.message}", err=True)
        return EXIT_PRELIMINARY
    return EXIT_OK

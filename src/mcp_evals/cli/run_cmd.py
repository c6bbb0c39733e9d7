"""``mcp-evals run``: ask a model (or the lexical baseline) to pick a tool for every fixture.

Settings come from flags, then ``EVAL_*`` variables, then the config's ``run:`` section, then
defaults. Keys come from the environment only. Exit codes: 0 complete (or skipped: no key for the
provider asked for) · 1 the gate failed (scoring) · 2 PRELIMINARY (some fixture never reached the
model) · 3 bad input.
"""

from __future__ import annotations

import math
import os
from collections.abc import Collection, Mapping
from pathlib import Path

import anyio
import click

from mcp_evals.catalog.model import Catalog
from mcp_evals.cli.options import (
    ProviderChoice,
    colour_wanted,
    config_inputs,
    config_option,
    output_format,
    read_config,
    terminal_width,
)
from mcp_evals.cli.paid import billable
from mcp_evals.config.model import Config, RunOptions
from mcp_evals.errors import EXIT_OK, ConfigError, InputFileError
from mcp_evals.files import check_writable, refuse_inputs
from mcp_evals.fixtures.load import load_fixtures
from mcp_evals.fixtures.model import Fixture
from mcp_evals.fixtures.validate import has_errors, locate_in_config, validate_fixtures
from mcp_evals.output.reports import configured_report_paths
from mcp_evals.provider_registry import PROVIDERS
from mcp_evals.providers.base import Provider, ProviderSettings
from mcp_evals.providers.failures import ProviderFailure
from mcp_evals.providers.pricing import Price, find_price, require_price
from mcp_evals.providers.registry import Choice, choose_provider
from mcp_evals.providers.replay import ReplayProvider
from mcp_evals.record.read import Results, read_results
from mcp_evals.run.asker import Asker, generate_options, own_settings
from mcp_evals.run.budget import DEFAULT_CAP_USD
from mcp_evals.run.estimate import count_tokens, describe, estimate_locally
from mcp_evals.run.plan import (
    EXPECT_NOTHING_CACHED,
    make_header,
    plan_fixtures,
    plan_jobs,
    run_notes,
    select_fixtures,
)
from mcp_evals.run.progress import Progress
from mcp_evals.run.results_file import DEFAULT_RESULTS, ResultsWriter, resume_from
from mcp_evals.run.retry import RetryPolicy
from mcp_evals.run.runner import Runner, RunSettings, RunSummary, summarize_dropouts
from mcp_evals.servers.extract import extract_catalog
from mcp_evals.suggest import Suggester, did_you_mean
from mcp_evals.wording import plural


def _env_number(
    environ: Mapping[str, str], name: str, kind: type[int] | type[float], *, at_most: float = math.inf
) -> float | None:
    """A positive number from the environment, or None when unset; anything else is bad input."""
    value = environ.get(name, "").strip()
    if not value:
        return None
    expected = "a whole number" if kind is int else "a number, e.g. 2.50"
    try:
        number = kind(value)
    except ValueError:
        raise ConfigError(f"{name}={value!r}: expected {expected}") from None
    if not (0 < number <= at_most and math.isfinite(number)):
        limit = f" and at most {at_most:g}" if math.isfinite(at_most) else ""
        raise ConfigError(f"{name}={value!r}: must be more than 0{limit}")
    return number


def _env_int(environ: Mapping[str, str], name: str, *, at_most: float = math.inf) -> int | None:
    number = _env_number(environ, name, int, at_most=at_most)
    return int(number) if number is not None else None


def missing_key_message(choice: Choice) -> str:
    variable = choice.entry.key_env_var
    return (
        f"mcp-evals run: skipped: the {choice.name} provider was asked for, but {variable} is not set.\n"
        f"  Set it to run the eval with a model (it is read from the environment only, never logged):\n"
        f"    export {variable}=…            # locally\n"
        f"    env: {{{variable}: ${{{{ secrets.{variable} }}}}}}   # in a GitHub Actions step\n"
        "  Or run the free lexical baseline: mcp-evals run --provider lexical\n"
        f"  Or estimate the cost first, without a key: mcp-evals run --provider {choice.name} --dry"
    )


# -- the verdict ------------------------------------------------------------------------------------


def finish_run(results_path: Path, config: Config | None, report_format: str | None = None) -> int:
    """Print the report of a finished run and write the configured reports; return the exit code.

    The single place where a run hands over to scoring and reporting: everything is computed from
    the results file alone. On a terminal the report is plain text; piped (or ``--format md``) it is
    the Markdown a PR comment shows. Exit: 2 PRELIMINARY wins over 1 (gate or baseline failed) over 0.
    """
    from mcp_evals.output.reports import write_reports
    from mcp_evals.report.terminal import render_terminal

    outcome = write_reports(read_results(results_path), config)
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
    for report_format, path in outcome.written.items():
        click.echo(f"report ({report_format}): {path}", err=True)
    click.echo(outcome.verdict, err=True)
    return outcome.exit_code


# -- the command --------------------------------------------------------------------------------


@click.command()
@config_option
@click.option("--provider", type=ProviderChoice(), help="Default: anthropic / openai by key, else lexical.")
@click.option(
    "--model",
    help=f"Model id (env EVAL_MODEL; default {PROVIDERS['anthropic'].default_model} / "
    f"{PROVIDERS['openai'].default_model}).",
)
@click.option(
    "--concurrency", type=click.IntRange(1, 256), help="Requests in flight (env EVAL_CONCURRENCY; default 4)."
)
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
    "--budget-usd",
    type=click.FloatRange(0, min_open=True),
    help="Stop before the next request could cross this many dollars (env EVAL_BUDGET_USD).",
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
@click.option("--base-url", help="API base URL (env ANTHROPIC_BASE_URL / OPENAI_BASE_URL), e.g. a gateway.")
@click.option(
    "--format",
    "report_format",
    type=click.Choice(["text", "md"]),
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
    environ = os.environ
    config = read_config(config_path)
    options = config.run
    model_asked = model or environ.get("EVAL_MODEL", "").strip() or options.model
    choice = choose_provider(provider, options.provider, environ, model_asked)
    provider_class = choice.entry.load()

    endpoint = base_url or choice.base_url or options.base_url or ""
    if choice.key is None and not dry and billable(choice, endpoint):  # a keyless vLLM or Ollama is free
        click.echo(missing_key_message(choice), err=True)
        return EXIT_OK
    if batch and not choice.entry.batch:
        batched = " or ".join(PROVIDERS.names(lambda entry: entry.batch))
        raise ConfigError(f"--batch needs the {batched} provider (this run uses {choice.name})")
    if choice.entry.replays and replay_from is None:
        raise ConfigError(
            f"--provider {choice.name} needs --from EARLIER.ndjson (the results file to re-score)"
        )
    if replay_from is not None and not choice.entry.replays:
        raise ConfigError("--from only goes with --provider replay")

    replay_source: Results | None = read_results(replay_from) if replay_from is not None else None
    model_name = _model(choice.name, model_asked, replay_source)
    if budget_usd is None:
        budget_usd = _env_number(environ, "EVAL_BUDGET_USD", float) or options.budget_usd
    budget = budget_usd
    # No surprise spend: a paid provider nobody named (picked from an exported key) runs under a cap.
    implicit_paid = choice.entry.paid and not choice.explicit
    default_cap = implicit_paid and budget is None
    if default_cap:
        budget = DEFAULT_CAP_USD
    price: Price | None = None
    if provider_class.uses_network:
        if implicit_paid:
            price = _price_for_cap(model_name, options, choice)
        elif budget is not None:
            price = require_price(model_name, options.prices)
        else:
            price = find_price(model_name, options.prices)
    else:
        budget = None
    workers = concurrency or _env_int(environ, "EVAL_CONCURRENCY", at_most=256) or options.concurrency or 4
    given_url = base_url or choice.base_url or options.base_url
    if given_url and not given_url.lower().startswith(("http://", "https://")):
        raise ConfigError(
            f"base URL {given_url!r} has no http:// or https:// scheme",
            hint="give the whole URL, e.g. --base-url http://127.0.0.1:8000/v1",
        )
    settings = ProviderSettings(
        model=model_name,
        base_url=base_url or choice.base_url or options.base_url or provider_class.default_base_url,
        api_key=choice.key,
        timeout=options.timeout,
        max_connections=max(4, workers + 2),
        own=own_settings(options),
    )
    smoke = limit or _env_int(environ, "EVAL_LIMIT")
    sample_count = samples or options.samples

    # Inputs: the catalog (live, or the replayed run's), the fixtures, and their validation.
    if replay_source is None:
        config.check_variables()
    catalog = replay_source.header.catalog if replay_source is not None else extract_catalog(config)
    fixtures = load_fixtures(config, warn=lambda text: click.echo(f"warning: {text}", err=True))
    _refuse_invalid(fixtures, catalog, config, replay_from)
    system_prompt = replay_source.header.system_prompt if replay_source is not None else config.system_prompt
    targeted, targeted_note = _targeted(fixtures, catalog, config, only_tools, only_areas)
    planned = plan_fixtures(targeted, limit=smoke, shard=shard)

    instance = _make_provider(choice.name, settings, replay_source, replay_from)
    asker = Asker(instance, catalog, system_prompt, generate_options(options))
    notes = _notes(asker, price, replay_from, replay_source, batch)
    if targeted_note:
        notes.append(targeted_note)
    if budget is not None:
        notes.append(_cap_note(budget, default_cap, choice))
    announced = implicit_paid and not dry
    if announced:
        _announce_spend(asker, choice, planned, sample_count, price, budget, default_cap, batch)
    # --dry and the paid-run announcement say the caching note themselves, with the counted prefix.
    described = announced or (dry and instance.uses_network)
    for note in notes:
        if not (described and EXPECT_NOTHING_CACHED in note):
            click.echo(f"note: {note}", err=True)

    if dry:
        return dry_run(asker, planned, sample_count, price, workers, batch, budget)

    results_path = results_option or (
        config.resolve(options.results) if options.results else Path(DEFAULT_RESULTS)
    )
    # Every output is checked before anything is sent: a path that cannot be written, or that would
    # replace an input, fails now, for free, not after the first paid answer.
    inputs = {**config_inputs(config), "the replayed results file": replay_from}
    outputs = {"results file": results_path}
    outputs |= {f"{kind} report": path for kind, path in configured_report_paths(config).items()}
    for label, path in outputs.items():
        refuse_inputs(path, inputs, what=f"the {label}")
        check_writable(path)
    kept, done = (
        resume_from(
            results_path,
            catalog_hash=catalog.hash,
            provider=asker.provider.name,
            model=model_name,
            fixtures=planned,
            samples=sample_count,
            all_fixtures=fixtures,
        )
        if resume
        else ([], set())
    )
    jobs = plan_jobs(planned, sample_count, done)
    header = make_header(
        asker=asker,
        planned=planned,
        all_fixtures=fixtures,
        samples=sample_count,
        shard=shard,
        limit=smoke,
        exclude_tools=config.exclude_tools,
        scoring=config.scoring,
        gate=config.gate,
        notes=notes,
        lexical_choices=None if asker.provider.lexical else _words_alone(catalog, planned, options),
    )
    if resume and kept:
        click.echo(
            f"resume: {plural(len(done), 'answer')} kept from {results_path}; {len(jobs)} to run",
            err=True,
        )
    if resume and not jobs:
        click.echo(f"resume: nothing left to run in {results_path}", err=True)
        return finish_run(results_path, config, report_format)

    who = instance.label if instance.lexical else f"{instance.name}/{model_name}"
    click.echo(
        f"mcp-evals run: {plural(len(planned), 'fixture')} × {plural(sample_count, 'sample')} = "
        f"{plural(len(jobs), 'request')} · {who} · "
        f"{plural(len(catalog.tools), 'tool')} · concurrency {workers}"
        + (" · Message Batches" if batch else "")
        + (
            f" · budget ${budget:g}" + (" (default cap)" if default_cap else "") if budget is not None else ""
        ),
        err=True,
    )
    writer = ResultsWriter(results_path, header, kept=kept)
    runner = Runner(
        asker,
        RunSettings(
            concurrency=workers,
            retry=RetryPolicy(max_attempts=options.max_attempts, max_wait=options.max_wait),
            budget_usd=budget,
            price=price,
            batch=batch,
            resume=resume,
            request_deadline=options.timeout * 3,
            batch_poll_initial=float(environ.get("MCP_EVALS_BATCH_POLL_SECONDS") or 5.0),  # docs/running.md
        ),
        writer,
        progress=Progress(len(jobs), label="mcp-evals"),
        catalog_hash=catalog.hash,
        total=len(jobs),
    )
    try:
        outcome = anyio.run(runner.run, jobs)
    except KeyboardInterrupt:
        click.echo(
            f"mcp-evals run: interrupted; the {plural(runner.summary.finished, 'answer')} finished are "
            f"kept in {results_path}: `mcp-evals run --resume` runs the rest",
            err=True,
        )
        raise
    _report_outcome(outcome, results_path, price is not None)
    return finish_run(results_path, config, report_format)


def _words_alone(catalog: Catalog, planned: list[Fixture], options: RunOptions) -> dict[str, str | None]:
    """What the lexical baseline calls for each fixture: free, instant, and what a model should beat."""
    from mcp_evals.providers.lexical import Lexical

    lexical = Lexical(catalog.tools, options.lexical_strictness)
    return {fixture.id: lexical.choose(fixture.query) for fixture in planned}


def _price_for_cap(model: str, options: RunOptions, choice: Choice) -> Price:
    """A run nobody asked for by name must be capped, and a cap needs a price."""
    price = find_price(model, options.prices)
    if price is None:
        variable = choice.entry.key_env_var
        raise ConfigError(
            f"no price known for model {model!r}, so this run cannot be capped: {variable} is set and "
            f"no provider was named, which makes it a paid run that mcp-evals caps "
            f"(${DEFAULT_CAP_USD:g} unless --budget-usd, EVAL_BUDGET_USD or run.budget_usd says "
            "otherwise)",
            hint=f"add its price to mcp-evals.yaml: run: {{prices: {{{model}: {{input: …, output: …}}}}}} "
            f"(USD per million tokens); or name the provider (--provider {choice.name}) to run it "
            "uncapped; or pick a model from the bundled price table",
        )
    return price


def _cap_note(budget: float, default_cap: bool, choice: Choice) -> str:
    if default_cap:
        return (
            f"budget: capped at ${budget:g}, the default cap of a paid run whose provider was picked from "
            f"{choice.entry.key_env_var} rather than named (--budget-usd or run.budget_usd sets another)"
        )
    return f"budget: capped at ${budget:g}"


def _announce_spend(
    asker: Asker,
    choice: Choice,
    planned: list[Fixture],
    samples: int,
    price: Price | None,
    budget: float | None,
    default_cap: bool,
    batch: bool,
) -> None:
    """Before a paid run nobody named: what it is, what it should cost (the --dry figure), its cap."""
    variable = choice.entry.key_env_var
    cap = f"${budget:g}" + (" (the default cap)" if default_cap else "")
    click.echo(
        f"mcp-evals run: {variable} is set and no provider was named (--provider or run.provider), so this "
        f"is a paid run on {choice.name}/{asker.model}, capped at {cap}.",
        err=True,
    )
    count = estimate_locally(asker, planned)
    for line in describe(asker, planned, samples, price, count, batch=batch, budget_usd=budget):
        click.echo(f"  {line}", err=True)
    click.echo(
        "  To run without spending: mcp-evals run --provider lexical (free) or --dry (estimate only).",
        err=True,
    )


def _model(provider: str, asked: str | None, replay: Results | None) -> str:
    if replay is not None:
        return replay.header.model
    default = PROVIDERS[provider].default_model or ""
    return default if provider == "lexical" else asked or default


def _make_provider(
    name: str, settings: ProviderSettings, replay_source: Results | None, replay_from: Path | None
) -> Provider:
    if name == "replay":
        assert replay_source is not None and replay_from is not None
        return ReplayProvider(settings, source=replay_source, source_path=str(replay_from))
    return PROVIDERS[name].load()(settings)


def _names(values: tuple[str, ...], known: Collection[str]) -> list[str]:
    """``--only-tools a,b --only-tools c`` as names; a known name that holds a comma stays whole."""
    names: list[str] = []
    for value in values:
        parts = [value] if value in known else [part.strip() for part in value.split(",")]
        names += [part for part in parts if part and part not in names]
    return names


def _targeted(
    fixtures: list[Fixture],
    catalog: Catalog,
    config: Config,
    only_tools: tuple[str, ...],
    only_areas: tuple[str, ...],
) -> tuple[list[Fixture], str | None]:
    """The fixtures --only-tools / --only-areas pick, and the note every report repeats; unknown
    names are bad input, with a did-you-mean."""
    if not only_tools and not only_areas:
        return fixtures, None
    tools = _names(only_tools, catalog.by_name)
    known_areas = set(catalog.areas) | set(config.areas)
    areas = _names(only_areas, known_areas)
    for flag, names, known in (
        ("--only-tools", tools, catalog.by_name),
        ("--only-areas", areas, known_areas),
    ):
        for name in names:
            if name not in known:
                what = "tool in the catalog" if flag == "--only-tools" else "known area"
                raise ConfigError(
                    f"{flag}: {name!r} is no {what}" + did_you_mean(Suggester(known)(name)),
                    hint="`mcp-evals catalog` lists the tools and their areas",
                )
    chosen = select_fixtures(fixtures, tools=tools, areas=areas, area_by_name=catalog.area_by_name)
    picked = " and ".join(
        f"{flag} {','.join(names)}"
        for flag, names in (("--only-tools", tools), ("--only-areas", areas))
        if names
    )
    note = (
        f"targeted run ({picked}): {len(chosen)} of {plural(len(fixtures), 'fixture')}, those that "
        + ("expect or forbid these tools" if tools else "")
        + (" or " if tools and areas else "")
        + ("count in these areas" if areas else "")
        + ", plus every refuse and clarify fixture"
    )
    return chosen, note


def _refuse_invalid(
    fixtures: list[Fixture], catalog: Catalog, config: Config, replay_from: Path | None = None
) -> None:
    """A run on fixtures that do not match the catalog would score noise: refuse it (exit 3)."""
    problems = validate_fixtures(
        fixtures, catalog, config.validation, exclude_tools=config.exclude_tools, areas=config.areas
    )
    problems = locate_in_config(problems, str(config.path), config.line_of)
    if has_errors(problems):
        errors = [str(problem) for problem in problems if problem.severity == "error"]
        shown = "\n".join(f"  {line}" for line in errors[:20])
        more = f"\n  … and {len(errors) - 20} more" if len(errors) > 20 else ""
        if replay_from is not None:
            raise InputFileError(
                f"the fixtures do not match the catalog recorded in {replay_from} ("
                f"{plural(len(errors), 'error')}); not replaying:\n{shown}{more}",
                hint="a replay re-scores that run's answers against the catalog it had: use the fixtures "
                "of that run, or run again against the live catalog (mcp-evals run without "
                "--provider replay)",
            )
        raise InputFileError(
            f"the fixtures do not validate against the catalog ({plural(len(errors), 'error')}); "
            f"not running:\n{shown}{more}",
            hint="fix them (mcp-evals validate lists every problem), then run again",
        )


def _notes(
    asker: Asker, price: Price | None, replay_from: Path | None, replay: Results | None, batch: bool
) -> list[str]:
    replayed = None
    if replay is not None:
        replayed = (
            f"replayed from {replay_from} (run {replay.header.run_id}, {replay.header.provider}/"
            f"{replay.header.model}): no model was called; usage and cost are the original run's"
        )
    return run_notes(asker, price, batch=batch, replayed=replayed)


def _report_outcome(outcome: RunSummary, results_path: Path, priced: bool) -> None:
    parts = [
        f"{outcome.reached}/{outcome.planned} reached",
        f"dropouts: {summarize_dropouts(outcome)}",
        f"{outcome.elapsed_s:.1f}s",
    ]
    if priced:
        parts.append(f"cost ${outcome.spent_usd:.4f}")
    usage = outcome.usage
    if usage.cache_read_tokens or usage.cache_write_tokens:
        parts.append(f"cache: {usage.cache_write_tokens} written, {usage.cache_read_tokens} read")
    if outcome.lowest_concurrency is not None and outcome.rate_limited:
        parts.append(
            f"rate limited {outcome.rate_limited}×, concurrency lowered to {outcome.lowest_concurrency}"
        )
    click.echo(f"mcp-evals run: {' · '.join(parts)} → {results_path}", err=True)
    if outcome.dropouts and outcome.last_dropout and outcome.fatal is None:
        click.echo(f"mcp-evals run: last dropout: {outcome.last_dropout}", err=True)
    if outcome.fatal is not None:
        click.echo(f"mcp-evals run: stopped by a fatal error: {outcome.fatal.message}", err=True)
        hint = _fatal_hint(outcome.fatal)
        if hint:
            click.echo(f"  hint: {hint}", err=True)


def _fatal_hint(failure: ProviderFailure) -> str | None:
    return {
        "auth": "check the API key in the environment (and that it belongs to this API / base URL)",
        "billing": "add credits or raise the spend limit of the account, then `mcp-evals run --resume`",
        "not_found": "check the model id (--model / EVAL_MODEL) and the base URL",
        "invalid_request": "the API refused the request itself; see the message (a schema the API rejects?)",
    }.get(failure.kind)


# -- --dry ------------------------------------------------------------------------------------------


def dry_run(
    asker: Asker,
    planned: list[Fixture],
    samples: int,
    price: Price | None,
    workers: int,
    batch: bool,
    budget_usd: float | None = None,
) -> int:
    """Count tokens and print the estimated cost; nothing billable is sent."""
    provider = asker.provider
    click.echo(f"mcp-evals run --dry: nothing billable is sent ({provider.label or provider.name})")
    if not provider.uses_network:
        click.echo(f"{plural(len(planned), 'fixture')} × {plural(samples, 'sample')}: no model, no cost.")
        return EXIT_OK
    count = anyio.run(count_tokens, asker, planned, workers)
    if count.problem:
        click.echo(f"note: {count.problem}", err=True)
    lines = describe(
        asker, planned, samples, price, count, batch=batch, budget_usd=budget_usd, concurrency=workers
    )
    for line in lines:
        click.echo(line)
    return EXIT_OK

"""A run as a library: ``plan_run(request) -> RunPlan``, then ``execute(plan) -> RunOutcome``.

``mcp-evals run`` is these two calls with flags in front and a terminal behind; ``run_eval`` (the
public API) is the same two calls with keyword arguments. Every decision a run makes is here, once:
the settings (flag → ``EVAL_*`` → ``run:`` → default, ``config.resolve``), the spending
(``run.spending``: provider, key, cap, price, endpoint, a missing key), the catalog and the
fixtures and their validation, the targeted selection, limit and shard, the notes every report
repeats, the outputs checked before anything is sent, resume, and the verdict from the config's
scoring, gate and baseline.

Bad input raises ``McpEvalsError`` (exit 3) before the key is looked at: the config, the settings,
the fixture files, ``--shard``, ``--batch``/``--from``. A missing key is not an error: ``plan_run``
returns the ``MissingKey`` and nothing is started, sent or written.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import anyio

from mcp_evals.api.inputs import config_inputs, decide_for, refuse_invalid
from mcp_evals.catalog.model import Catalog
from mcp_evals.config.load import load_config
from mcp_evals.config.model import Config, RunOptions
from mcp_evals.config.resolve import CONCURRENCY_VARIABLE, LIMIT_VARIABLE, number_setting
from mcp_evals.errors import EXIT_OK, ConfigError
from mcp_evals.files import check_writable, refuse_inputs
from mcp_evals.fixtures.load import load_fixtures
from mcp_evals.fixtures.model import Fixture
from mcp_evals.output.reports import ReportFiles, configured_report_paths, write_reports
from mcp_evals.provider_registry import PROVIDERS
from mcp_evals.providers.base import Provider, ProviderSettings
from mcp_evals.providers.failures import ProviderFailure
from mcp_evals.providers.replay import ReplayProvider
from mcp_evals.record.model import FixtureResult, RunHeader
from mcp_evals.record.read import Results, read_results
from mcp_evals.record.shards import parse_shard
from mcp_evals.run.asker import Asker, generate_options
from mcp_evals.run.estimate import count_tokens, describe, estimate_locally
from mcp_evals.run.plan import make_header, plan_fixtures, plan_jobs, run_notes, select_fixtures
from mcp_evals.run.progress import Progress
from mcp_evals.run.results_file import DEFAULT_RESULTS, ResultsWriter, resume_from
from mcp_evals.run.retry import RetryPolicy
from mcp_evals.run.runner import Runner, RunSettings, RunSummary, summarize_dropouts
from mcp_evals.run.spending import MissingKey, Spending
from mcp_evals.suggest import Suggester, did_you_mean
from mcp_evals.wording import plural

Say = Callable[[str], None]


def _quiet(text: str) -> None:
    """The library's default: say nothing (the command passes a printer to stderr)."""


@dataclass
class RunRequest:
    """What a run is asked to do. Every ``None`` means: the ``EVAL_*`` variable, then the config's
    ``run:`` section, then the default (docs/running.md, *Settings*)."""

    config: Config
    provider: str | None = None
    model: str | None = None
    concurrency: int | None = None
    limit: int | None = None
    shard: str | None = None
    only_tools: Sequence[str] = ()
    only_areas: Sequence[str] = ()
    samples: int | None = None
    budget_usd: float | None = None
    results: Path | None = None
    resume: bool = False
    dry: bool = False
    batch: bool = False
    base_url: str | None = None
    replay_from: Path | None = None
    environ: Mapping[str, str] = field(default_factory=lambda: os.environ)
    warn: Say = _quiet  # what loading the fixtures warns about


@dataclass
class RunPlan:
    """Everything decided before the first request: what ``execute`` runs and ``--dry`` estimates."""

    request: RunRequest
    spending: Spending
    asker: Asker  # the provider, with the catalog, the system prompt and the request options
    catalog: Catalog
    fixtures: list[Fixture]  # every fixture of the config
    planned: list[Fixture]  # this run's: targeted, limited, sharded
    samples: int
    concurrency: int
    limit: int | None
    results: Path
    notes: list[str]  # in the results header, so every report repeats them
    announcement: list[str]  # said before a paid run nobody named (the provider picked from a key)
    system_prompt: str
    lexical_choices: dict[str, str | None] | None

    @property
    def config(self) -> Config:
        return self.request.config

    @property
    def options(self) -> RunOptions:
        return self.request.config.run

    @property
    def provider(self) -> Provider:
        return self.asker.provider

    @property
    def who(self) -> str:
        provider = self.provider
        return provider.label if provider.lexical else f"{provider.name}/{self.asker.model}"


@dataclass
class RunOutcome:
    """What a run came to. ``exit_code``: 0 complete (or skipped) · 1 gate or baseline failed ·
    2 PRELIMINARY · the verdict is ``report.verdict``."""

    exit_code: int
    results: Path | None = None
    summary: RunSummary | None = None  # None when nothing ran (skipped, or resumed with nothing left)
    report: ReportFiles | None = None
    skipped: MissingKey | None = None

    @property
    def reached(self) -> int:
        return self.summary.reached if self.summary is not None else 0

    @property
    def planned(self) -> int:
        return self.summary.planned if self.summary is not None else 0

    @property
    def spent_usd(self) -> float:
        return self.summary.spent_usd if self.summary is not None else 0.0


# -- the plan -----------------------------------------------------------------------------------------


def plan_run(request: RunRequest) -> RunPlan | MissingKey:
    """Decide everything a run needs; bad input raises (exit 3), a missing key is returned."""
    config, environ, options = request.config, request.environ, request.config.run
    concurrency = number_setting(
        request.concurrency, environ, CONCURRENCY_VARIABLE, options.concurrency, int, at_most=256
    )
    limit = number_setting(request.limit, environ, LIMIT_VARIABLE, None, int)
    if request.shard:
        parse_shard(request.shard)
    spending = decide_for(
        "run",
        request,
        options,
    )
    _refuse_inconsistent(request, spending)
    fixtures = load_fixtures(config, warn=request.warn)
    if spending.missing_key is not None:
        return spending.missing_key

    replay: Results | None = read_results(request.replay_from) if request.replay_from is not None else None
    if replay is not None:
        spending = replace(spending, model=replay.header.model)
    workers = concurrency or 4
    settings = spending.settings(options, max_connections=max(4, workers + 2))
    if replay is None:
        config.check_variables()
    from mcp_evals.servers.extract import extract_catalog

    catalog = replay.header.catalog if replay is not None else extract_catalog(config)
    _refuse_invalid(fixtures, catalog, config, request.replay_from)
    system_prompt = replay.header.system_prompt if replay is not None else config.system_prompt
    targeted, targeted_note = _targeted(fixtures, catalog, config, request.only_tools, request.only_areas)
    planned = plan_fixtures(targeted, limit=limit, shard=request.shard)
    samples = request.samples or options.samples

    provider = _make_provider(spending.name, settings, replay, request.replay_from)
    asker = Asker(provider, catalog, system_prompt, generate_options(options))
    notes = _notes(asker, spending, replay, request)
    if targeted_note:
        notes.append(targeted_note)
    if spending.budget_usd is not None:
        notes.append(_cap_note(spending))
    announcement: list[str] = []
    if spending.implicit_paid and not request.dry:
        announcement = _announcement(asker, spending, planned, samples, request.batch)
    results = request.results or (
        config.resolve(options.results) if options.results else Path(DEFAULT_RESULTS)
    )
    return RunPlan(
        request=request,
        spending=spending,
        asker=asker,
        catalog=catalog,
        fixtures=fixtures,
        planned=planned,
        samples=samples,
        concurrency=workers,
        limit=limit,
        results=results,
        notes=notes,
        announcement=announcement,
        system_prompt=system_prompt,
        lexical_choices=None if provider.lexical else _words_alone(catalog, planned, options),
    )


def _refuse_inconsistent(request: RunRequest, spending: Spending) -> None:
    entry = spending.choice.entry
    if request.batch and not entry.batch:
        batched = " or ".join(PROVIDERS.names(lambda entry: entry.batch))
        raise ConfigError(f"--batch needs the {batched} provider (this run uses {spending.name})")
    if entry.replays and request.replay_from is None:
        raise ConfigError(
            f"--provider {spending.name} needs --from EARLIER.ndjson (the results file to re-score)"
        )
    if request.replay_from is not None and not entry.replays:
        raise ConfigError("--from only goes with --provider replay")


def _words_alone(catalog: Catalog, planned: list[Fixture], options: RunOptions) -> dict[str, str | None]:
    """What the lexical baseline calls for each fixture: free, instant, and what a model should beat."""
    from mcp_evals.providers.lexical import Lexical

    lexical = Lexical(catalog.tools, options.lexical_strictness)
    return {fixture.id: lexical.choose(fixture.query) for fixture in planned}


def _cap_note(spending: Spending) -> str:
    if spending.default_cap:
        return (
            f"budget: capped at ${spending.budget_usd:g}, the default cap of a paid run whose provider was "
            f"picked from {spending.choice.entry.key_env_var} rather than named (--budget-usd or "
            "run.budget_usd sets another)"
        )
    return f"budget: capped at ${spending.budget_usd:g}"


def _announcement(
    asker: Asker, spending: Spending, planned: list[Fixture], samples: int, batch: bool
) -> list[str]:
    """Before a paid run nobody named: what it is, what it should cost (the --dry figure), its cap."""
    variable = spending.choice.entry.key_env_var
    cap = f"${spending.budget_usd:g}" + (" (the default cap)" if spending.default_cap else "")
    lines = [
        f"mcp-evals run: {variable} is set and no provider was named (--provider or run.provider), so this "
        f"is a paid run on {spending.name}/{asker.model}, capped at {cap}."
    ]
    count = estimate_locally(asker, planned)
    described = describe(
        asker, planned, samples, spending.price, count, batch=batch, budget_usd=spending.budget_usd
    )
    lines += [f"  {line}" for line in described]
    lines.append(
        "  To run without spending: mcp-evals run --provider lexical (free) or --dry (estimate only)."
    )
    return lines


def _make_provider(
    name: str, settings: ProviderSettings, replay: Results | None, replay_from: Path | None
) -> Provider:
    if name == "replay":
        assert replay is not None and replay_from is not None
        return ReplayProvider(settings, source=replay, source_path=str(replay_from))
    return PROVIDERS[name].load()(settings)


def _names(values: Sequence[str], known: Collection[str]) -> list[str]:
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
    only_tools: Sequence[str],
    only_areas: Sequence[str],
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
    fixtures: list[Fixture], catalog: Catalog, config: Config, replay_from: Path | None
) -> None:
    """A run on fixtures that do not match the catalog would score noise: refuse it (exit 3)."""
    if replay_from is not None:
        refuse_invalid(
            fixtures,
            catalog,
            config,
            verb="do not match",
            against=f"the catalog recorded in {replay_from}",
            doing="replaying",
            hint="a replay re-scores that run's answers against the catalog it had: use the fixtures "
            "of that run, or run again against the live catalog (mcp-evals run without "
            "--provider replay)",
        )
        return
    refuse_invalid(
        fixtures,
        catalog,
        config,
        doing="running",
        hint="fix them (mcp-evals validate lists every problem), then run again",
    )


def _notes(asker: Asker, spending: Spending, replay: Results | None, request: RunRequest) -> list[str]:
    replayed = None
    if replay is not None:
        replayed = (
            f"replayed from {request.replay_from} (run {replay.header.run_id}, {replay.header.provider}/"
            f"{replay.header.model}): no model was called; usage and cost are the original run's"
        )
    return run_notes(asker, spending.price, batch=request.batch, replayed=replayed)


# -- --dry ----------------------------------------------------------------------------------------------


@dataclass
class DryEstimate:
    """What ``--dry`` prints: the estimate's lines (stdout) and, if counting fell back, why (a note)."""

    lines: list[str]
    problem: str | None = None


def estimate(plan: RunPlan) -> DryEstimate:
    """Count tokens (Anthropic's free endpoint with a key, else a local estimate) and price the run;
    nothing billable is sent."""
    provider = plan.provider
    lines = [f"mcp-evals run --dry: nothing billable is sent ({provider.label or provider.name})"]
    if not provider.uses_network:
        lines.append(
            f"{plural(len(plan.planned), 'fixture')} × {plural(plan.samples, 'sample')}: no model, no cost."
        )
        return DryEstimate(lines)
    count = anyio.run(count_tokens, plan.asker, plan.planned, plan.concurrency)
    lines += describe(
        plan.asker,
        plan.planned,
        plan.samples,
        plan.spending.price,
        count,
        batch=plan.request.batch,
        budget_usd=plan.spending.budget_usd,
        concurrency=plan.concurrency,
    )
    return DryEstimate(lines, count.problem)


# -- executing ------------------------------------------------------------------------------------------


def execute(plan: RunPlan, *, say: Say = _quiet, progress_label: str | None = None) -> RunOutcome:
    """Check the outputs, resume, run every job, write the results and the configured reports.

    ``say`` gets the lines a terminal shows on stderr, in order; with ``progress_label`` a progress
    bar (or, in CI logs, a line every few seconds) goes to stderr too. Every output is checked before
    anything is sent: a path that cannot be written, or that would replace an input, fails now, for
    free, not after the first paid answer.
    """
    request, config = plan.request, plan.config
    _check_outputs(plan)
    kept, done = _resume(plan)
    jobs = plan_jobs(plan.planned, plan.samples, done)
    header = _header(plan)
    if request.resume and kept:
        say(f"resume: {plural(len(done), 'answer')} kept from {plan.results}; {len(jobs)} to run")
    if request.resume and not jobs:
        say(f"resume: nothing left to run in {plan.results}")
        return _finish(plan, None)

    spending = plan.spending
    budget = spending.budget_usd
    say(
        f"mcp-evals run: {plural(len(plan.planned), 'fixture')} × {plural(plan.samples, 'sample')} = "
        f"{plural(len(jobs), 'request')} · {plan.who} · "
        f"{plural(len(plan.catalog.tools), 'tool')} · concurrency {plan.concurrency}"
        + (" · Message Batches" if request.batch else "")
        + (
            f" · budget ${budget:g}" + (" (default cap)" if spending.default_cap else "")
            if budget is not None
            else ""
        )
    )
    writer = ResultsWriter(plan.results, header, kept=kept)
    options = config.run
    runner = Runner(
        plan.asker,
        RunSettings(
            concurrency=plan.concurrency,
            retry=RetryPolicy(max_attempts=options.max_attempts, max_wait=options.max_wait),
            budget_usd=budget,
            price=plan.spending.price,
            batch=request.batch,
            resume=request.resume,
            request_deadline=options.timeout * 3,
            # docs/running.md, *--batch*
            batch_poll_initial=float(request.environ.get("MCP_EVALS_BATCH_POLL_SECONDS") or 5.0),
        ),
        writer,
        progress=Progress(len(jobs), label=progress_label) if progress_label else None,
        catalog_hash=plan.catalog.hash,
        total=len(jobs),
    )
    try:
        summary = anyio.run(runner.run, jobs)
    except KeyboardInterrupt:
        say(
            f"mcp-evals run: interrupted; the {plural(runner.summary.finished, 'answer')} finished are "
            f"kept in {plan.results}: `mcp-evals run --resume` runs the rest"
        )
        raise
    for line in _summary_lines(summary, plan.results, plan.spending.price is not None):
        say(line)
    return _finish(plan, summary)


def _check_outputs(plan: RunPlan) -> None:
    """The results file and every configured report: writable, and none of them an input."""
    inputs = {**config_inputs(plan.config), "the replayed results file": plan.request.replay_from}
    outputs = {"results file": plan.results}
    outputs |= {f"{kind} report": path for kind, path in configured_report_paths(plan.config).items()}
    for label, path in outputs.items():
        refuse_inputs(path, inputs, what=f"the {label}")
        check_writable(path)


def _resume(plan: RunPlan) -> tuple[list[FixtureResult], set[tuple[str, str, int]]]:
    if not plan.request.resume:
        return [], set()
    return resume_from(
        plan.results,
        catalog_hash=plan.catalog.hash,
        provider=plan.provider.name,
        model=plan.asker.model,
        fixtures=plan.planned,
        samples=plan.samples,
        all_fixtures=plan.fixtures,
    )


def _header(plan: RunPlan) -> RunHeader:
    config = plan.config
    return make_header(
        asker=plan.asker,
        planned=plan.planned,
        all_fixtures=plan.fixtures,
        samples=plan.samples,
        shard=plan.request.shard,
        limit=plan.limit,
        exclude_tools=config.exclude_tools,
        scoring=config.scoring,
        gate=config.gate,
        notes=plan.notes,
        lexical_choices=plan.lexical_choices,
    )


def _summary_lines(summary: RunSummary, results: Path, priced: bool) -> list[str]:
    parts = [
        f"{summary.reached}/{summary.planned} reached",
        f"dropouts: {summarize_dropouts(summary)}",
        f"{summary.elapsed_s:.1f}s",
    ]
    if priced:
        parts.append(f"cost ${summary.spent_usd:.4f}")
    usage = summary.usage
    if usage.cache_read_tokens or usage.cache_write_tokens:
        parts.append(f"cache: {usage.cache_write_tokens} written, {usage.cache_read_tokens} read")
    if summary.lowest_concurrency is not None and summary.rate_limited:
        parts.append(
            f"rate limited {summary.rate_limited}×, concurrency lowered to {summary.lowest_concurrency}"
        )
    lines = [f"mcp-evals run: {' · '.join(parts)} → {results}"]
    if summary.dropouts and summary.last_dropout and summary.fatal is None:
        lines.append(f"mcp-evals run: last dropout: {summary.last_dropout}")
    if summary.fatal is not None:
        lines.append(f"mcp-evals run: stopped by a fatal error: {summary.fatal.message}")
        hint = _fatal_hint(summary.fatal)
        if hint:
            lines.append(f"  hint: {hint}")
    return lines


def _fatal_hint(failure: ProviderFailure) -> str | None:
    return {
        "auth": "check the API key in the environment (and that it belongs to this API / base URL)",
        "billing": "add credits or raise the spend limit of the account, then `mcp-evals run --resume`",
        "not_found": "check the model id (--model / EVAL_MODEL) and the base URL",
        "invalid_request": "the API refused the request itself; see the message (a schema the API rejects?)",
    }.get(failure.kind)


def _finish(plan: RunPlan, summary: RunSummary | None) -> RunOutcome:
    """Score the results file, compare with the baseline, write the configured reports: the verdict
    comes from the results file alone, with the config's scoring, gate and baseline."""
    report = write_reports(read_results(plan.results), plan.config)
    return RunOutcome(report.exit_code, plan.results, summary, report)


# -- the public API ---------------------------------------------------------------------------------------


def run_eval(
    config: Config | str | Path,
    *,
    provider: str | None = None,
    model: str | None = None,
    concurrency: int | None = None,
    limit: int | None = None,
    shard: str | None = None,
    only_tools: Sequence[str] = (),
    only_areas: Sequence[str] = (),
    samples: int | None = None,
    budget_usd: float | None = None,
    results: str | Path | None = None,
    resume: bool = False,
    batch: bool = False,
    base_url: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> RunOutcome:
    """``mcp-evals run`` from Python: the same plan and the same run, with the whole config (its
    ``run:`` settings, ``exclude_tools``, validation, ``scoring``, ``gate``, ``baseline`` and
    ``reports``). Returns the outcome; a missing key is ``outcome.skipped`` (nothing ran, exit 0)."""
    loaded = config if isinstance(config, Config) else load_config(config)
    request = RunRequest(
        config=loaded,
        provider=provider,
        model=model,
        concurrency=concurrency,
        limit=limit,
        shard=shard,
        only_tools=only_tools,
        only_areas=only_areas,
        samples=samples,
        budget_usd=budget_usd,
        results=Path(results) if results is not None else None,
        resume=resume,
        batch=batch,
        base_url=base_url,
        environ=os.environ if environ is None else environ,
    )
    plan = plan_run(request)
    if isinstance(plan, MissingKey):
        return RunOutcome(EXIT_OK, skipped=plan)
    return execute(plan)

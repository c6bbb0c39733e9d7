"""``mcp-evals synth`` as a library: ``plan_synth(request) -> SynthPlan``, then
``execute_synth(plan) -> SynthOutcome`` (see ``mcp_evals.synth`` for the two steps themselves).

Every decision is here: the settings (``EVAL_CONCURRENCY``, then ``run.concurrency``), the output
file (never an input; an existing one is appended to, never rewritten), the spending (``run.spending``:
a model is needed, a cap is required when it bills, a missing key skips), the catalog, the asks, and
what is written. Bad input raises (exit 3) before the key is looked at; a missing key is returned.
"""

from __future__ import annotations

import datetime
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

import anyio

from mcp_evals.api.inputs import PaidModel, config_inputs, decide_for, read_catalog
from mcp_evals.catalog.model import Catalog
from mcp_evals.config.model import Config
from mcp_evals.config.resolve import CONCURRENCY_VARIABLE, number_setting
from mcp_evals.errors import EXIT_OK, EXIT_PRELIMINARY, ConfigError, McpEvalsError, where
from mcp_evals.files import check_writable, refuse_inputs, updates
from mcp_evals.fixtures.load import fixture_files, load_fixture_file
from mcp_evals.fixtures.model import Fixture
from mcp_evals.provider_registry import PROVIDERS, ProviderEntry
from mcp_evals.run.asker import generate_options
from mcp_evals.run.budget import Budget
from mcp_evals.run.retry import RetryPolicy
from mcp_evals.run.spending import MissingKey
from mcp_evals.synth.assemble import assemble
from mcp_evals.synth.estimate import describe_synth
from mcp_evals.synth.generate import Caller, Synthesis, included_tools, plan_asks, synthesize
from mcp_evals.synth.model import SynthSettings
from mcp_evals.synth.outfile import read_existing, write_fixtures
from mcp_evals.synth.prompts import Ask
from mcp_evals.wording import alternatives, plural

Say = Callable[[str], None]


def writes_text(entry: ProviderEntry) -> bool:
    """A provider synth can use: one that answers free text (the lexical baseline cannot)."""
    return entry.conversation


def _quiet(text: str) -> None:
    """The library's default: say nothing (the command passes printers)."""


# Answers hold several intents or queries as JSON: more room than a tool call needs.
SYNTH_MAX_TOKENS = 2048


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


@dataclass
class SynthRequest:
    """What synth is asked to do; ``None`` means the ``EVAL_*`` variable, the config, the default."""

    config: Config
    out: Path
    settings: SynthSettings = field(default_factory=SynthSettings)
    snapshot: Path | None = None
    provider: str | None = None
    model: str | None = None
    base_url: str | None = None
    budget_usd: float | None = None
    concurrency: int | None = None
    dry: bool = False
    environ: Mapping[str, str] = field(default_factory=lambda: os.environ)


@dataclass
class SynthPlan:
    """Everything decided before the first request."""

    request: SynthRequest
    paid: PaidModel
    catalog: Catalog
    asks: list[Ask]
    existing: list[Fixture]
    concurrency: int

    @property
    def config(self) -> Config:
        return self.request.config


@dataclass
class SynthOutcome:
    """0 written (or nothing to write, every answer in) · 2 incomplete."""

    exit_code: int
    written: list[Fixture]


def plan_synth(request: SynthRequest) -> SynthPlan | MissingKey:
    """Decide everything synth needs; bad input raises (exit 3), a missing key is returned."""
    config, environ, out = request.config, request.environ, request.out
    workers = (
        number_setting(
            request.concurrency, environ, CONCURRENCY_VARIABLE, config.run.concurrency, int, at_most=64
        )
        or 4
    )
    # The output may be one of the fixture files (the glob may match it): synth appends to it, never
    # rewrites it (synth/outfile.py). The config and the catalog snapshot it may not be.
    inputs = {
        label: path for label, path in config_inputs(config).items() if not label.startswith("the fixture")
    }
    refuse_inputs(out, {**inputs, "the catalog snapshot": request.snapshot}, what="--out")
    updates(out)
    existing = read_existing(out)
    spending = decide_for(
        "synth",
        request,
        config.run,
        where=writes_text,
        needs_model="Synth needs a model to write queries (the lexical baseline cannot)",
        cap="required",
    )
    if spending.missing_key is not None:
        return spending.missing_key
    if not spending.choice.entry.conversation:
        raise ConfigError(
            f"mcp-evals synth needs a model: set {alternatives(PROVIDERS.key_variables(writes_text))}, "
            f"or name one with --provider ({spending.choice.entry.in_words} cannot write queries)"
        )
    max_tokens = max(SYNTH_MAX_TOKENS, config.run.max_tokens)
    paid = PaidModel(
        spending,
        spending.settings(config.run, max_connections=max(4, workers + 2)),
        generate_options(config.run, max_tokens=max_tokens),
    )
    catalog = read_catalog(config, request.snapshot)
    asks = plan_asks(catalog, request.settings, config.exclude_tools)
    if not asks:  # --dry says the same: a run with nothing to ask is bad input, never an empty file
        raise nothing_to_ask(config, catalog, request.settings)
    return SynthPlan(request, paid, catalog, asks, existing, workers)


def estimate_synth(plan: SynthPlan) -> list[str]:
    """``--dry``: how many requests each step would send, the tokens and cost, whether the budget fits."""
    paid = plan.paid
    return describe_synth(
        paid.spending.label,
        paid.settings.model,
        plan.asks,
        plan.request.settings,
        paid.spending.price,
        max_tokens=paid.options.max_tokens,
        budget_usd=paid.spending.budget_usd,
    )


def execute_synth(plan: SynthPlan, *, say: Say = _quiet, show: Say = _quiet) -> SynthOutcome:
    """Ask both steps, judge the candidates, append what passes to the output file.

    ``say`` gets the stderr lines (the start, each dropped candidate, why nothing was written),
    ``show`` the summary a terminal prints on stdout.
    """
    out = plan.request.out
    check_writable(out)
    return _synthesize(
        plan.config,
        plan.paid,
        plan.catalog,
        plan.request.settings,
        plan.asks,
        out,
        plan.existing,
        _other_fixtures(plan.config, out),
        plan.concurrency,
        say,
        show,
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
    say: Say,
    show: Say,
) -> SynthOutcome:
    frozen = any(fixture.split == "test" for fixture in old)
    provider = paid.spending.provider_class(paid.settings)  # held out: no catalog at all
    # Before the first answer, each request reserves as much input as the largest prompt of step 1.
    largest = max((ask.system + ask.user for ask in asks), key=len)
    budget = Budget(
        paid.spending.budget_usd,
        paid.spending.price,
        paid.options.max_tokens,
        prefix=largest.encode("utf-8"),
    )
    caller = Caller(
        provider,
        budget,
        RetryPolicy(max_attempts=config.run.max_attempts, max_wait=config.run.max_wait),
        # No cache marks: each synth request is asked once.
        options=replace(paid.options, cache="off"),
        concurrency=concurrency,
    )
    say(
        f"mcp-evals synth: {paid.spending.name}/{paid.settings.model} · "
        f"{plural(len(catalog.tools), 'tool')} · "
        f"persona {settings.persona!r} · {settings.language}"
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
        f"Written by `mcp-evals synth` ({paid.spending.name}/{paid.settings.model}) on "
        f"{datetime.date.today().isoformat()}: persona {settings.persona!r}, {settings.language}.\n"
        "Queries were paraphrased by a call that never saw a tool name, description or schema.\n"
        "The test split is frozen: later `mcp-evals synth` runs append to dev and never rewrite it."
    )
    dropped = [*synthesis.dropped, *assembly.dropped]
    for item in dropped:
        say(f"dropped: {item.what}: {item.reason}")
    reasons = ", ".join(f"{kind} {count}" for kind, count in sorted(caller.dropouts.items()))
    incomplete = bool(caller.dropouts) or caller.fatal is not None
    cost = f" · cost ${budget.spent_usd:.4f}" if paid.spending.price is not None else ""
    found = (
        f"mcp-evals synth: {plural(synthesis.asks, 'intent request')} → "
        f"{plural(synthesis.intents, 'intent')}; "
        f"{plural(len(dropped), 'candidate')} dropped, {len(assembly.flagged)} flagged (F002); "
    )
    if assembly.fixtures:
        write_fixtures(out, assembly.fixtures, old, header)
        splits = {name: sum(1 for f in assembly.fixtures if f.split == name) for name in ("dev", "test")}
        frozen_note = " (the test split is frozen: new fixtures joined dev)" if frozen else ""
        show(
            f"{found}{plural(len(assembly.fixtures), 'fixture')} written to {out} ({splits['dev']} dev, "
            f"{splits['test']} test){frozen_note} · {plural(caller.requests, 'request')}{cost}"
        )
    else:
        # Never an empty `fixtures: []` under a header saying queries were paraphrased; never a rewrite.
        show(f"{found}no fixture written · {plural(caller.requests, 'request')}{cost}")
        if synthesis.intents:
            why = f"every candidate was dropped ({len(dropped)}, each listed above)"
        elif incomplete:
            why = f"no request got a usable answer ({reasons or 'none was sent'})"
        else:
            why = "the model's answers held no intent that fits the requests"
        say(f"mcp-evals synth: no fixture to write, so nothing was written to {out}: {why}")
    if incomplete:
        say(f"mcp-evals synth: incomplete: requests without a usable answer: {reasons}")
        if caller.fatal is not None:
            say(f"  stopped by a fatal error: {caller.fatal.message}")
        return SynthOutcome(EXIT_PRELIMINARY, assembly.fixtures)
    return SynthOutcome(EXIT_OK, assembly.fixtures)

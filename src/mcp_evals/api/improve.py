"""``mcp-evals improve`` as a library: ``plan_improve(request) -> ImprovePlan``, then
``estimate_improve(plan)`` (``--dry``) or ``execute_improve(plan) -> ImproveOutcome``.

Every decision is here, in this order: the results file read first (a missing or unreadable one is
bad input before any server starts), the spending (``run.spending``: a model that writes text or the
lexical baseline, a cap required when it bills, a missing key returned), the catalog and the
fixtures checked against it, the order of the phases under the cap (``improve.estimate``: the
proposals' and the proof's shares are kept before the dev run may spend, and a cap below them is
refused with the estimate before anything is sent, so no run pays for proposals it cannot prove),
and the outputs checked before anything is sent. The command adds flags and a terminal.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from mcp_evals.api.inputs import config_inputs, decide_for, read_catalog, refuse_invalid
from mcp_evals.catalog.model import Catalog
from mcp_evals.config.model import Config
from mcp_evals.config.resolve import CONCURRENCY_VARIABLE, number_setting
from mcp_evals.errors import EXIT_OK, EXIT_PRELIMINARY, ConfigError, InputFileError
from mcp_evals.fixtures.load import load_fixtures
from mcp_evals.fixtures.model import Fixture
from mcp_evals.improve.estimate import DryPlan, PhaseCosts, describe_improve, phase_costs
from mcp_evals.improve.loop import Evaluator, ImproveSettings, dry_plan, improve
from mcp_evals.improve.model import ImproveReport
from mcp_evals.improve.outputs import Outputs, report_json, write_outputs
from mcp_evals.improve.targets import DEFAULT_PAIRS
from mcp_evals.provider_registry import FALLBACK, PROVIDERS, ProviderEntry
from mcp_evals.record.read import Results, read_results
from mcp_evals.run.asker import generate_options
from mcp_evals.run.spending import MissingKey, Spending
from mcp_evals.wording import alternatives, plural

DEFAULT_OUT = "mcp-evals-improve"
DEFAULT_CONCURRENCY = 4

Say = Callable[[str], None]


def improves(entry: ProviderEntry) -> bool:
    """A provider improve can use: a model that writes text, or the lexical baseline."""
    return entry.improves


def _quiet(text: str) -> None:
    """The library's default: say nothing (the command passes a printer to stderr)."""


@dataclass
class ImproveRequest:
    """What an improve run is asked to do; ``None`` means the ``EVAL_*`` variable, the config, the default."""

    config: Config
    snapshot: Path | None = None  # the catalog from a snapshot, not the live servers
    results: Path | None = None  # an earlier run's results: its dev confusions pick the pairs
    pairs: int = DEFAULT_PAIRS
    test_share: float = 0.5
    provider: str | None = None
    model: str | None = None
    base_url: str | None = None
    budget_usd: float | None = None
    concurrency: int | None = None
    samples: int | None = None
    out: Path | None = None
    sources: Sequence[Path] = ()
    apply: bool = False
    dry: bool = False
    environ: Mapping[str, str] = field(default_factory=lambda: os.environ)
    say: Say = _quiet  # warnings, as they come (before a later error)


@dataclass
class ImprovePlan:
    """Everything decided before the first request: what ``execute_improve`` runs, ``--dry`` prices."""

    request: ImproveRequest
    spending: Spending
    catalog: Catalog
    fixtures: list[Fixture]
    evaluator: Evaluator
    settings: ImproveSettings
    dry: DryPlan
    costs: PhaseCosts | None  # None: nothing is priced (the lexical baseline, an unknown price)
    outputs: Outputs

    @property
    def config(self) -> Config:
        return self.request.config

    @property
    def concurrency(self) -> int:
        return self.settings.concurrency or DEFAULT_CONCURRENCY


@dataclass
class ImproveOutcome:
    """What an improve run came to: 0 done (whatever the verdict) · 2 incomplete; the report and its
    files."""

    exit_code: int
    report: ImproveReport
    markdown: str
    outputs: Outputs

    @property
    def json(self) -> str:
        return report_json(self.report)


def read_dev_results(path: Path) -> Results:
    """``--results``: read whole before anything else (no server started, no key looked at); a file
    that is missing or not a results file is one message naming it, with what to do."""
    try:
        return read_results(path)
    except InputFileError as error:
        raise InputFileError(
            error.message,
            hint=error.hint
            or "give the results file of an earlier `mcp-evals run` (its --results, by default "
            "mcp-evals-results.ndjson), or leave --results out: improve then runs the dev split itself",
        ) from None


def plan_improve(request: ImproveRequest) -> ImprovePlan | MissingKey:
    """Decide everything an improve run needs; bad input raises (exit 3), a missing key is returned."""
    config, environ, say = request.config, request.environ, request.say
    workers = number_setting(
        request.concurrency, environ, CONCURRENCY_VARIABLE, config.run.concurrency, int, at_most=256
    )
    read = read_dev_results(request.results) if request.results is not None else None
    spending = decide_for(
        "improve",
        request,
        config.run,
        where=improves,
        cap="required",
    )
    if spending.missing_key is not None:
        return spending.missing_key
    entry = spending.choice.entry
    if not entry.improves:
        raise ConfigError(
            f"mcp-evals improve needs a model that writes text, or the lexical baseline; not "
            f"{entry.in_words}",
            hint=f"set {alternatives(PROVIDERS.key_variables(lambda item: item.conversation))}, or run it "
            "free with --provider lexical",
        )
    lexical = entry.name == FALLBACK
    provider_settings = spending.settings(
        config.run, max_connections=max(4, (workers or DEFAULT_CONCURRENCY) + 2)
    )
    if lexical:
        provider_settings = replace(provider_settings, model="bm25")
    catalog = read_catalog(config, request.snapshot)
    fixtures = load_fixtures(config, warn=lambda text: say(f"warning: {text}"))
    refuse_invalid(
        fixtures, catalog, config, doing="improving", hint="`mcp-evals validate` lists every problem"
    )
    evaluator = Evaluator(
        spending.provider_class,
        provider_settings,
        generate_options(config.run),
        spending.price,
        spending.budget_usd,
        lexical=lexical,
    )
    settings = ImproveSettings(
        pairs=request.pairs,
        test_share=request.test_share,
        samples=request.samples or config.run.samples,
        concurrency=workers,
        results=request.results,
        read=read,
        sources=list(request.sources),
        apply=request.apply,
    )
    dry = dry_plan(config, catalog, fixtures, evaluator, settings)
    price = spending.price
    costs = phase_costs(dry, price) if price is not None and dry.arm.provider.uses_network else None
    budget = spending.budget_usd
    if costs is not None and budget is not None:
        if not request.dry:
            _refuse_a_cap_below_the_proof(costs, budget, dev_run=bool(dry.dev))
        settings = replace(settings, costs=costs)
    return ImprovePlan(
        request=request,
        spending=spending,
        catalog=catalog,
        fixtures=fixtures,
        evaluator=evaluator,
        settings=settings,
        dry=dry,
        costs=costs,
        outputs=Outputs(request.out or Path(DEFAULT_OUT)),
    )


def _refuse_a_cap_below_the_proof(costs: PhaseCosts, budget: float, *, dev_run: bool) -> None:
    """A cap that cannot pay for the proposals and the proof would buy rewrites nothing can prove:
    refused (exit 3) before anything is sent, with the estimate (``--dry`` says so instead)."""
    if budget >= costs.kept:
        return
    dev = f"; the dev run ${costs.dev:,.4f} more" if dev_run else ""
    raise ConfigError(
        f"mcp-evals improve: a budget of ${budget:g} cannot pay for the proposals and the proof, which "
        f"need ${costs.kept:,.4f} (estimates: proposals ${costs.proposals:,.4f}, proof "
        f"${costs.proof:,.4f}, and room for one request's worst case each{dev}); nothing was sent",
        hint=f"give --budget-usd {math.ceil(costs.kept * 100) / 100:.2f} or more (the dev run spends what "
        "is above it), or lower --pairs, --test-share or --samples; `mcp-evals improve --dry` shows "
        "every phase",
    )


def estimate_improve(plan: ImprovePlan) -> list[str]:
    """``--dry``: what every phase would send and cost, and what the budget does to them."""
    spending = plan.spending
    return describe_improve(plan.dry, spending.price, spending.budget_usd)


def execute_improve(plan: ImprovePlan, *, say: Say = _quiet) -> ImproveOutcome:
    """Check the outputs, then the dev run, the proposals and the proof; write improve.md, improve.json
    and descriptions.improved.yaml."""
    config, request, outputs = plan.config, plan.request, plan.outputs
    outputs.check(
        {
            **config_inputs(config),
            "the catalog snapshot": request.snapshot,
            "the results file": request.results,
        },
        dev_run=request.results is None,
    )
    budget = plan.spending.budget_usd
    say(
        f"mcp-evals improve: {plan.spending.name}/{plan.evaluator.settings.model} · "
        f"{plural(len(plan.catalog.tools), 'tool')} · {plural(len(plan.fixtures), 'fixture')}"
        + (f" · budget ${budget:g}" if budget else "")
    )
    report = improve(config, plan.catalog, plan.fixtures, plan.evaluator, plan.settings, outputs, say=say)
    markdown = write_outputs(report, outputs)
    return ImproveOutcome(EXIT_PRELIMINARY if report.incomplete else EXIT_OK, report, markdown, outputs)

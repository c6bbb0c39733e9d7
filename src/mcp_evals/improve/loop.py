"""``mcp-evals improve``: from "these tools get confused" to a rewrite proven better on held-out fixtures.

1. **Split**: dev fixtures (the proposer may see them) and test fixtures (held out: they judge).
2. **Targets**: the worst confusion pairs of the dev answers (a results file, or a run on the dev
   split), then the lint's predicted pairs; their tools, with the lint's D-, S- and N-findings.
3. **Proposals**: a model rewrites each target's description against its neighbour, seeing the
   catalog, the findings and dev requests only (``prompts.held_out`` checks every prompt against the
   test queries); with the lexical baseline, the rule-based ``rewrite`` does. The lint drops a
   proposal that introduces an error (``check``).
4. **Proof**: the accepted rewrites are catalog B (a description overlay); A and B answer the test
   split in one paired, interleaved run (``compare.execute.run_arms``), the test fixtures of the
   worst pair first, so a budget stop leaves the best-ranked pairs proven.

One cap covers every phase, in the order ``estimate.PhaseCosts`` sets (``ImproveSettings.costs``):
the proposals' and the proof's shares are kept first, the dev run spends only the rest, the
proposals what leaves the proof its share, the proof all that is left; and the proposals and the
proof send only as many requests side by side as their share holds (``estimate.in_flight``), so a
tight cap slows them down rather than stopping them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

import anyio

from mcp_evals.answers import GenerateOptions
from mcp_evals.catalog.model import Catalog
from mcp_evals.compare.arms import FullArm
from mcp_evals.compare.execute import ArmsSpend, run_arms
from mcp_evals.compare.paired import Comparison, compare_arms
from mcp_evals.config.model import Config
from mcp_evals.files import atomic_write
from mcp_evals.fixtures.model import Fixture
from mcp_evals.improve.check import check_proposals, with_proposals
from mcp_evals.improve.estimate import DryPlan, PhaseCosts, in_flight
from mcp_evals.improve.evidence import not_run, overall, pair_verdicts
from mcp_evals.improve.model import ImproveReport, PairVerdict, Proposal, SourcePlace, TargetPair, ToolTarget
from mcp_evals.improve.outputs import COMPARISON_JSON, COMPARISON_MD, DEV_ARM, Outputs
from mcp_evals.improve.prompts import Example, Proposed, examples, held_out, parse_proposal, proposal_prompt
from mcp_evals.improve.rewrite import rewrite
from mcp_evals.improve.source import find_descriptions, source_files, source_places
from mcp_evals.improve.split import Split, split_fixtures
from mcp_evals.improve.targets import (
    DEFAULT_PAIRS,
    DevAnswer,
    choose_pairs,
    dev_answers,
    dev_confusions,
    tool_targets,
)
from mcp_evals.lint.context import LintContext
from mcp_evals.lint.engine import lint_with_context
from mcp_evals.lint.model import LintReport
from mcp_evals.providers.base import Provider, ProviderSettings
from mcp_evals.providers.pricing import Price
from mcp_evals.record.read import Results, read_results
from mcp_evals.report.comparison import render_comparison
from mcp_evals.run.asker import Asker
from mcp_evals.run.budget import Budget
from mcp_evals.run.retry import RetryPolicy
from mcp_evals.score import score_results
from mcp_evals.synth.generate import Caller
from mcp_evals.wording import plural

Say = Callable[[str], None]
PROPOSER_MAX_TOKENS = 2048


@dataclass
class Evaluator:
    """The model improve asks (the arms and the proposer), and what it may spend."""

    provider_class: type[Provider]
    settings: ProviderSettings
    options: GenerateOptions  # every eval request's (the run's max_tokens, caching)
    price: Price | None
    budget_usd: float | None
    lexical: bool = False

    def provider(self) -> Provider:
        """A provider of its own (own connections) for one arm or the proposer."""
        return self.provider_class(self.settings)

    @property
    def proposer_options(self) -> GenerateOptions:
        return replace(
            self.options, max_tokens=max(PROPOSER_MAX_TOKENS, self.options.max_tokens), cache="off"
        )


@dataclass
class ImproveSettings:
    pairs: int = DEFAULT_PAIRS
    test_share: float = 0.5
    samples: int = 1
    concurrency: int | None = None
    results: Path | None = None  # the dev answers' source; None: a run on the dev split
    read: Results | None = None  # the results file, read already (bad input before any server starts)
    sources: list[Path] = field(default_factory=list)  # the server's source folders (default: its cwd)
    apply: bool = False
    # Each phase's estimate under a cap (``estimate.phase_costs``): the dev run may not spend the
    # proposals' and the proof's shares, nor the proposals the proof's. None: each spends what is left.
    costs: PhaseCosts | None = None

    @property
    def kept_for_proof(self) -> float:
        return self.costs.proof_kept if self.costs is not None else 0.0

    @property
    def kept(self) -> float:
        return self.costs.kept if self.costs is not None else 0.0


@dataclass
class Spend:
    """One cap over every phase: what is spent so far, and what is left."""

    cap: float | None
    price: Price | None
    spent: float = 0.0

    @property
    def left(self) -> float | None:
        return None if self.cap is None else max(0.0, self.cap - self.spent)

    @property
    def exhausted(self) -> bool:
        left = self.left
        return left is not None and left <= 0

    def share(self, keep: float) -> float | None:
        """What a phase may spend when ``keep`` USD stay for the phases after it (None: uncapped)."""
        left = self.left
        return None if left is None else max(0.0, left - keep)


# -- the phases -------------------------------------------------------------------------------------


def _side_by_side(
    config: Config, settings: ImproveSettings, share: float | None, phase: Literal["proposals", "proof"]
) -> int:
    """The requests a phase sends side by side: as many as asked, or under a cap as its share holds."""
    most = settings.concurrency or config.run.concurrency or 4
    costs = settings.costs
    if costs is None:
        return most
    if phase == "proposals":
        return in_flight(share, costs.proposals, costs.proposer_request, most)
    return in_flight(share, costs.proof, costs.proof_request, most)


def _asker(evaluator: Evaluator, catalog: Catalog, config: Config) -> Asker:
    return Asker(evaluator.provider(), catalog, config.system_prompt, evaluator.options)


def _dev_run(
    config: Config,
    catalog: Catalog,
    split: Split,
    fixtures: Sequence[Fixture],
    evaluator: Evaluator,
    settings: ImproveSettings,
    spend: Spend,
    outputs: Outputs,
    say: Say,
) -> tuple[dict[tuple[str, str], int], dict[str, DevAnswer], str, bool]:
    """The dev answers: (observed pairs, answers, where from, complete)."""
    if settings.results is not None:
        return (*_from_results(settings.results, catalog, split, settings.read), True)
    if not split.dev:
        return {}, {}, "no dev fixture to run: the lint's predicted pairs only", True
    kept = settings.kept
    share = spend.share(kept)
    least = settings.costs.eval_request if settings.costs is not None else 0.0
    if share is not None and (share <= 0 or share < least):
        say(
            f"mcp-evals improve: no dev run: the budget keeps ${kept:.4f} for the proposals and the proof, "
            "and leaves too little for one request of it"
        )
        origin = (
            f"no dev run (the budget of ${spend.cap:g} is kept for the proposals and the proof): the lint's "
            "predicted pairs only"
        )
        return {}, {}, origin, False
    if share is not None and kept:
        say(
            f"mcp-evals improve: the dev run may spend ${share:.4f}: ${kept:.4f} is kept for the "
            "proposals and the proof"
        )
    arm = FullArm(DEV_ARM, _asker(evaluator, catalog, config), "the current catalog, on the dev split")
    records, summary = run_arms(
        config,
        [arm],
        split.dev,
        fixtures,
        ArmsSpend(share, spend.price),
        outputs.dev,
        samples=settings.samples,
        concurrency=settings.concurrency,
        command="mcp-evals improve (dev run)",
        say=say,
        notes=["mcp-evals improve: the dev split, to find the pairs to rewrite"],
    )
    spend.spent += summary.spent_usd
    card = score_results(records[0].results)
    dev_ids = {fixture.id for fixture in split.dev}
    where = outputs.dev / f"{DEV_ARM}.ndjson"
    origin = f"the confusions of a run on the {plural(len(split.dev), 'dev fixture')} ({where})"
    return dev_confusions(card, catalog, dev_ids), dev_answers(card, dev_ids), origin, summary.complete


def _from_results(
    path: Path, catalog: Catalog, split: Split, read: Results | None = None
) -> tuple[dict[tuple[str, str], int], dict[str, DevAnswer], str]:
    """The dev answers of an earlier run's results file (its answers to test fixtures left out;
    ``read``: the file, when it was read already)."""
    dev_ids = {fixture.id for fixture in split.dev}
    results = read if read is not None else read_results(path)
    card = score_results(results)
    seen = sum(1 for fixture in card.fixtures if fixture.id in dev_ids)
    origin = (
        f"the confusions of {path} on its {plural(seen, 'dev fixture')} (its answers to test fixtures "
        "are not used)"
    )
    if results.header.catalog_hash != catalog.hash:
        origin += "; it was run on another catalog, so its pairs are matched by tool name"
    return dev_confusions(card, catalog, dev_ids), dev_answers(card, dev_ids), origin


def _proposal(target: ToolTarget, catalog: Catalog, proposed: Proposed | None, reason: str = "") -> Proposal:
    tool = catalog.by_name[target.tool]
    if proposed is None:
        return Proposal(
            tool=tool.name,
            neighbours=target.neighbours,
            old_description=tool.description,
            status="not proposed",
            reason=reason,
        )
    old_parameters = {
        name: str((tool.parameters.get(name) or {}).get("description", "")) for name in proposed.parameters
    }
    return Proposal(
        tool=tool.name,
        neighbours=target.neighbours,
        old_description=tool.description,
        description=proposed.description,
        old_parameters=old_parameters,
        parameters=proposed.parameters,
        why=proposed.why,
    )


def _propose_with_model(
    config: Config,
    catalog: Catalog,
    targets: Sequence[ToolTarget],
    split: Split,
    answers: dict[str, DevAnswer],
    evaluator: Evaluator,
    settings: ImproveSettings,
    spend: Spend,
    say: Say,
) -> tuple[list[Proposal], list[str]]:
    """One request per target; the prompts hold dev requests only (checked). (proposals, prompts sent)"""
    prompts: list[tuple[ToolTarget, str, str]] = []
    proposals: dict[str, Proposal] = {}
    test_queries = split.test_queries
    for target in targets:
        shown: list[Example] = examples(target, split.dev, answers, test_queries)
        system, user = proposal_prompt(target, catalog, shown)
        leaked = held_out(system + "\n" + user, test_queries)
        if leaked:  # the catalog itself holds a test query's words: never sent
            proposals[target.tool] = _proposal(
                target,
                catalog,
                None,
                f"its prompt would hold the text of a test query ({leaked[0]!r}), which the proposer may "
                "not see",
            )
            continue
        prompts.append((target, system, user))
    if not prompts:
        return [proposals[target.tool] for target in targets], []
    provider = evaluator.provider()
    options = evaluator.proposer_options
    largest = max((system + user for _, system, user in prompts), key=len)
    share = spend.share(settings.kept_for_proof)  # the proof's share is not the proposer's to spend
    budget = Budget(share, spend.price, options.max_tokens, prefix=largest.encode("utf-8"))
    caller = Caller(
        provider,
        budget,
        RetryPolicy(max_attempts=config.run.max_attempts, max_wait=config.run.max_wait),
        options=options,
        concurrency=_side_by_side(config, settings, share, "proposals"),
    )
    answers_by_tool: dict[str, Proposed | None] = {}

    async def ask(target: ToolTarget, system: str, user: str) -> None:
        answers_by_tool[target.tool] = await caller.ask(system, user, parse_proposal)

    async def all_of_them() -> None:
        try:
            async with anyio.create_task_group() as group:
                for target, system, user in prompts:
                    group.start_soon(ask, target, system, user)
        finally:
            await provider.aclose()

    say(f"mcp-evals improve: asking {provider.settings.model} for {plural(len(prompts), 'rewrite')}")
    anyio.run(all_of_them)
    spend.spent += budget.spent_usd
    if caller.fatal is not None:
        why = f"stopped by a fatal error: {caller.fatal.message}"
    elif budget.stopped:
        why = "the budget ran out before it was asked"
    else:
        why = "no usable answer after every retry (" + ", ".join(sorted(caller.dropouts)) + ")"
    for target, _, _ in prompts:
        proposed = answers_by_tool.get(target.tool)
        proposals[target.tool] = _proposal(target, catalog, proposed, "" if proposed else why)
    return [proposals[target.tool] for target in targets], [user for _, _, user in prompts]


def _lint(catalog: Catalog, config: Config) -> tuple[LintReport, LintContext]:
    """The lint whose predicted pairs and findings pick the targets: one call for the run and --dry."""
    return lint_with_context(
        catalog, None, config.lint, exclude_tools=config.exclude_tools, system_prompt=config.system_prompt
    )


def _targets(
    lint: tuple[LintReport, LintContext],
    observed: Mapping[tuple[str, str], int],
    settings: ImproveSettings,
    config: Config,
) -> tuple[list[TargetPair], list[ToolTarget]]:
    """The worst pairs (observed on dev, then the lint's) and each of their tools, so --dry names
    the targets the run will work on."""
    report, context = lint
    pairs = choose_pairs(
        Counter(observed),
        report.predicted_pairs,
        context.score_of,
        limit=settings.pairs,
        exclude_tools=config.exclude_tools,
    )
    return pairs, tool_targets(pairs, report)


def _order_for_proof(test: Sequence[Fixture], pairs: Sequence[TargetPair]) -> list[Fixture]:
    """The test fixtures of the worst pair first, then the next pair's, then every other one."""
    rank: dict[str, int] = {}
    for position, pair in enumerate(pairs):
        for fixture in test:
            if fixture.kind == "select" and set(pair.tools) & set(fixture.expected_tools):
                rank.setdefault(fixture.id, position)
    return sorted(test, key=lambda fixture: rank.get(fixture.id, len(pairs)))


def _unproven(pairs: Sequence[TargetPair], test: Sequence[Fixture]) -> list[PairVerdict]:
    rows = []
    for pair in pairs:
        expecting = [
            fixture.id
            for fixture in test
            if fixture.kind == "select" and set(pair.tools) & set(fixture.expected_tools)
        ]
        rows.append(
            PairVerdict(
                tools=pair.tools,
                fixtures=expecting,
                unanswered=expecting,
                verdict="not proven" if expecting else "not tested",
            )
        )
    return rows


@dataclass
class Proof:
    comparison: Comparison | None
    verdicts: list[PairVerdict]
    complete: bool


def _prove(
    config: Config,
    catalog: Catalog,
    accepted: Sequence[Proposal],
    pairs: Sequence[TargetPair],
    split: Split,
    fixtures: Sequence[Fixture],
    evaluator: Evaluator,
    settings: ImproveSettings,
    spend: Spend,
    outputs: Outputs,
    say: Say,
) -> Proof:
    alpha = config.compare.alpha
    if not accepted:
        return Proof(None, _unproven(pairs, split.test) if pairs else [], True)
    if spend.exhausted:
        say("mcp-evals improve: the budget is spent: the rewrites are not proven")
        return Proof(None, _unproven(pairs, split.test), False)
    improved = with_proposals(catalog, accepted)
    arms = [
        FullArm("A", _asker(evaluator, catalog, config), "catalog A: the current descriptions"),
        FullArm(
            "B",
            _asker(evaluator, improved, config),
            f"catalog B: catalog A with {plural(len(accepted), 'rewritten description')} (mcp-evals improve)",
        ),
    ]
    planned = _order_for_proof(split.test, pairs)
    records, summary = run_arms(
        config,
        arms,
        planned,
        fixtures,
        ArmsSpend(spend.left, spend.price),
        outputs.proof,
        samples=settings.samples,
        concurrency=_side_by_side(config, settings, spend.left, "proof"),
        command="mcp-evals improve (proof)",
        say=say,
        notes=["mcp-evals improve: the proof, on the test split the proposer never saw"],
    )
    spend.spent += summary.spent_usd
    comparison = compare_arms(records, alpha=alpha)
    with atomic_write(outputs.proof / COMPARISON_JSON) as stream:
        stream.write(comparison.model_dump_json(indent=2) + "\n")
    with atomic_write(outputs.proof / COMPARISON_MD) as stream:
        stream.write(render_comparison(comparison))
    before, after = (score_results(record.results) for record in records)
    verdicts = pair_verdicts(pairs, split.test, before, after, alpha=alpha)
    return Proof(comparison, verdicts, summary.complete and not comparison.preliminary)


# -- the whole loop ---------------------------------------------------------------------------------


def improve(
    config: Config,
    catalog: Catalog,
    fixtures: Sequence[Fixture],
    evaluator: Evaluator,
    settings: ImproveSettings,
    outputs: Outputs,
    *,
    say: Say = lambda line: None,
    sent: list[str] | None = None,
) -> ImproveReport:
    """Targets, proposals, the proof; the report (the files are written by ``write_outputs``).

    ``sent`` collects every prompt the proposer was sent (for a test that none holds test text).
    """
    split = split_fixtures(fixtures, settings.test_share)
    notes = list(split.notes)
    lint = _lint(catalog, config)
    spend = Spend(evaluator.budget_usd, evaluator.price)
    observed, answers, origin, dev_complete = _dev_run(
        config, catalog, split, fixtures, evaluator, settings, spend, outputs, say
    )
    kept = settings.kept
    if not dev_complete and kept and spend.cap is not None:
        notes.append(
            f"the dev run did not finish: it may not spend the ${kept:.4f} of the ${spend.cap:g} budget "
            "kept for the proposals and the proof, so fewer dev answers (or none) and the lint's "
            "predictions picked the pairs"
        )
    pairs, targets = _targets(lint, observed, settings, config)
    if evaluator.lexical:
        proposals = [_proposal(target, catalog, rewrite(target, catalog, split.dev)) for target in targets]
        prompts: list[str] = []
    else:
        proposals, prompts = _propose_with_model(
            config, catalog, targets, split, answers, evaluator, settings, spend, say
        )
    if sent is not None:
        sent.extend(prompts)
    proposals = check_proposals(catalog, proposals, config.lint, config.exclude_tools)
    accepted = [proposal for proposal in proposals if proposal.status == "accepted"]
    for proposal in proposals:
        if proposal.status != "accepted":
            say(f"mcp-evals improve: {proposal.tool}: {proposal.status}: {proposal.reason}")
    proof = _prove(
        config, catalog, accepted, pairs, split, fixtures, evaluator, settings, spend, outputs, say
    )
    kind, verdict = overall(proof.comparison, config.compare.alpha, planned=len(split.test))
    stopped = not_run(proposals) if proof.comparison is None and pairs else None
    if stopped is not None:
        kind, verdict = "not proven", stopped
    if not pairs:
        verdict = (
            "Nothing to improve: no confusion on the dev split, and the lint predicts no confusable pair."
        )
    if evaluator.lexical:
        notes.append(
            "the lexical baseline evaluated and a rule-based rewriter proposed: lexical gains are not "
            "model gains"
        )
    incomplete = (
        not dev_complete
        or not proof.complete
        or any(proposal.status == "not proposed" for proposal in proposals)
    )
    improved = ImproveReport(
        provider=evaluator.provider_class.name,
        model=evaluator.settings.model,
        lexical=evaluator.lexical,
        alpha=config.compare.alpha,
        dev_fixtures=len(split.dev),
        test_fixtures=len(split.test),
        targets_from=origin,
        pairs=list(pairs),
        targets=targets,
        proposals=proposals,
        verdicts=proof.verdicts,
        comparison=proof.comparison,
        overall=kind,
        verdict=verdict,
        spent_usd=spend.spent if spend.price is not None else None,
        budget_usd=spend.cap,
        incomplete=incomplete,
        notes=notes,
    )
    improved.places = _places(config, catalog, improved, settings)
    return improved


def _places(
    config: Config, catalog: Catalog, report: ImproveReport, settings: ImproveSettings
) -> list[SourcePlace]:
    """Where the rewritten descriptions are written in the server's source (applied with --apply)."""
    accepted = report.accepted
    if not accepted:
        return []
    old: dict[tuple[str, str | None], str] = {}
    new: dict[tuple[str, str | None], str] = {}
    for proposal in accepted:
        old[(proposal.tool, None)] = proposal.old_description
        new[(proposal.tool, None)] = proposal.description
        for name, text in proposal.parameters.items():
            if proposal.old_parameters.get(name):
                old[(proposal.tool, name)] = proposal.old_parameters[name]
                new[(proposal.tool, name)] = text
    worse = {name for row in report.verdicts if row.verdict == "worse" for name in row.tools}
    apply = settings.apply and report.overall != "worse"
    if apply and worse:
        new = {key: text for key, text in new.items() if key[0] not in worse}
    files = source_files(config, settings.sources)
    found = find_descriptions(files, old)
    published: dict[tuple[str, str | None], str] = {}
    for tool in catalog.tools:
        published[(tool.name, None)] = tool.description
        for name, spec in tool.parameters.items():
            if isinstance(spec, dict) and isinstance(spec.get("description"), str):
                published[(tool.name, name)] = spec["description"]
    return source_places(found, new, old, apply=apply, base=config.base_dir, published=published)


def dry_plan(
    config: Config,
    catalog: Catalog,
    fixtures: Sequence[Fixture],
    evaluator: Evaluator,
    settings: ImproveSettings,
) -> DryPlan:
    """What ``improve`` would send, for ``--dry`` (nothing is sent)."""
    split = split_fixtures(fixtures, settings.test_share)
    lint = _lint(catalog, config)
    observed: dict[tuple[str, str], int] = {}
    answers: dict[str, DevAnswer] = {}
    if settings.results is not None:
        observed, answers, _ = _from_results(settings.results, catalog, split, settings.read)
    _, targets = _targets(lint, observed, settings, config)
    prompts = [
        proposal_prompt(target, catalog, examples(target, split.dev, answers, split.test_queries))[1]
        for target in targets
    ]
    known = settings.results is not None or not split.dev
    return DryPlan(
        arm=FullArm("A", _asker(evaluator, catalog, config), "catalog A"),
        dev=[] if settings.results is not None else split.dev,
        test=split.test,
        prompts=prompts,
        proposals=len(targets) if known else 2 * settings.pairs,
        samples=settings.samples,
        proposer_max_tokens=evaluator.proposer_options.max_tokens,
        eval_max_tokens=evaluator.options.max_tokens,
    )

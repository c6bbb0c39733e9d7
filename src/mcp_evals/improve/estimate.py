"""``improve --dry``: what the three phases would send and cost, with nothing sent (a local estimate),
and what a cap must keep for the proposals and the proof before the dev run may spend.

The dev run and the proof are counted as ``compare --dry`` counts an arm (catalog B as catalog A plus
the rewritten text, ``REWRITE_TOKENS`` per description); the proposer as the prompts of the targets
known before anything runs (from ``--results`` and the lint), up to two tools per pair.

The order under a cap (``PhaseCosts.kept``): the proposals and the proof are what a run is for, so
their estimate, plus room for the worst case of every request in flight (``run.budget``'s
reservation rule), is kept for them first; the dev run spends only the rest. A cap below what they
need is refused before anything is sent, so no run pays for proposals it cannot prove.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial

from mcp_evals.answers import Usage
from mcp_evals.compare.arms import Arm
from mcp_evals.compare.estimate import request_tokens
from mcp_evals.fixtures.model import Fixture
from mcp_evals.providers.pricing import ASSUMED_OUTPUT_TOKENS, Price, estimate_cost, prices_as_of
from mcp_evals.providers.tokens import MESSAGE_OVERHEAD_TOKENS, estimate_tokens
from mcp_evals.run.budget import Budget
from mcp_evals.wording import plural

ASSUMED_PROPOSAL_TOKENS = 300  # a description, a few parameters and a reason, as JSON
REWRITE_TOKENS = 60  # what a rewritten description adds to catalog B's every request


@dataclass(frozen=True)
class DryPlan:
    """What ``improve`` would send: the dev run's fixtures (none with ``--results``), the test
    fixtures, the proposer's prompts known now and how many it may send at most."""

    arm: Arm  # catalog A, asked as the dev run and the proof ask it
    dev: Sequence[Fixture]
    test: Sequence[Fixture]
    prompts: Sequence[str]
    proposals: int
    samples: int
    proposer_max_tokens: int
    eval_max_tokens: int


def _eval_usage(arm: Arm, fixtures: Sequence[Fixture], samples: int, extra: int = 0) -> tuple[int, Usage]:
    per_fixture = [request_tokens(arm, fixture) for fixture in fixtures]
    requests = sum(len(tokens) for tokens in per_fixture) * samples
    return requests, Usage(
        input_tokens=(sum(sum(tokens) for tokens in per_fixture) + extra * len(fixtures)) * samples,
        output_tokens=requests * ASSUMED_OUTPUT_TOKENS,
    )


def _prompt_tokens(plan: DryPlan) -> list[int]:
    return [estimate_tokens(text) + MESSAGE_OVERHEAD_TOKENS for text in plan.prompts]


@dataclass(frozen=True)
class PhaseCosts:
    """Each phase's estimated cost in USD, the worst case of one request of each kind, and what a cap
    keeps for the proposals and the proof."""

    dev: float
    proposals: float
    proof: float
    worst: float  # the whole run, every answer at max_tokens
    proposer_request: float  # one proposal's worst case, as the budget reserves it
    eval_request: float  # one request's worst case on the current catalog (the dev run's, proof A's)
    proof_request: float  # one proof request's worst case (catalog B's, the larger)

    @property
    def total(self) -> float:
        return self.dev + self.proposals + self.proof

    @property
    def proposals_kept(self) -> float:
        """The proposals' share: their estimate, and room for one request's worst case in flight."""
        return self.proposals + self.proposer_request if self.proposals else 0.0

    @property
    def proof_kept(self) -> float:
        return self.proof + self.proof_request if self.proof else 0.0

    @property
    def kept(self) -> float:
        """What the dev run may not spend: the proposals' and the proof's shares of the cap."""
        return self.proposals_kept + self.proof_kept


def in_flight(share: float | None, expected: float, request: float, most: int) -> int:
    """How many requests a phase sends side by side within its ``share`` of the cap.

    Each request in flight holds its worst case (``request``) until its answer is spent
    (``run.budget``), and a request that does not fit stops the phase; so a phase whose share is
    close to its ``expected`` cost sends one at a time, and one with room sends up to ``most``.
    """
    if share is None or request <= 0:
        return most
    room = int((share - expected) // request)
    return max(1, min(most, room))


def _eval_cost(
    arm: Arm, fixtures: Sequence[Fixture], samples: int, price: Price, max_tokens: int, extra: int = 0
) -> float:
    """The expected cost of asking ``fixtures`` of ``arm``: with caching when its requests mark the
    prefix (the first writes it, the rest read it), as ``run --dry`` counts a run."""
    totals = [tokens + extra for fixture in fixtures for tokens in request_tokens(arm, fixture)] * samples
    prefix = estimate_tokens(arm.asker.prefix) + extra
    estimate = estimate_cost(
        price,
        prefix_tokens=prefix,
        other_tokens=[max(0, tokens - prefix) for tokens in totals],
        max_tokens=max_tokens,
    )
    return estimate.with_caching if arm.asker.caching else estimate.without_caching


def phase_costs(plan: DryPlan, price: Price) -> PhaseCosts:
    """The estimate of every phase, and the worst case of one request of each kind."""
    prompt_tokens = _prompt_tokens(plan)
    average = sum(prompt_tokens) / len(prompt_tokens) if prompt_tokens else 0
    dev_requests, dev_usage = _eval_usage(plan.arm, plan.dev, plan.samples)
    proposal_usage = Usage(
        input_tokens=round(average * plan.proposals), output_tokens=ASSUMED_PROPOSAL_TOKENS * plan.proposals
    )
    a_requests, a_usage = _eval_usage(plan.arm, plan.test, plan.samples)
    rewritten = REWRITE_TOKENS * plan.proposals
    b_requests, b_usage = _eval_usage(plan.arm, plan.test, plan.samples, rewritten)
    worst = price.cost(
        Usage(
            input_tokens=dev_usage.input_tokens
            + proposal_usage.input_tokens
            + a_usage.input_tokens
            + b_usage.input_tokens,
            output_tokens=(dev_requests + a_requests + b_requests) * plan.eval_max_tokens
            + plan.proposals * plan.proposer_max_tokens,
        )
    )
    largest = max(plan.prompts, key=len, default="").encode("utf-8")
    proposer = Budget(None, price, plan.proposer_max_tokens, prefix=largest).next_request_cost()
    answer = Budget(None, price, plan.eval_max_tokens, prefix=plan.arm.asker.prefix).next_request_cost()
    eval_cost = partial(
        _eval_cost, plan.arm, samples=plan.samples, price=price, max_tokens=plan.eval_max_tokens
    )
    return PhaseCosts(
        dev=eval_cost(plan.dev),
        proposals=price.cost(proposal_usage),
        proof=eval_cost(plan.test) + eval_cost(plan.test, extra=rewritten),
        worst=worst,
        proposer_request=proposer if plan.proposals else 0.0,
        eval_request=answer,
        proof_request=answer + rewritten * max(price.input, price.cache_write) / 1_000_000,
    )


def describe_improve(plan: DryPlan, price: Price | None, budget_usd: float | None) -> list[str]:
    """The lines ``improve --dry`` prints."""
    provider = plan.arm.provider
    lines = [
        f"mcp-evals improve --dry: nothing billable is sent ({provider.label or provider.name}, "
        f"{provider.settings.model})",
        f"{plural(len(plan.test), 'test fixture')} held out for the proof · the proposer sees dev "
        "fixtures only",
    ]
    dev_line = (
        f"1. dev run: {plural(len(plan.dev), 'dev fixture')} × {plural(plan.samples, 'sample')}, to find "
        "the pairs"
        if plan.dev
        else "1. dev run: none (the pairs come from --results, or from the lint alone)"
    )
    proof_line = (
        f"3. proof: {plural(len(plan.test), 'test fixture')} × {plural(plan.samples, 'sample')} × 2 arms "
        "(before, after), interleaved"
    )
    if not provider.uses_network:
        return [
            *lines,
            dev_line,
            f"2. proposals: the rule-based rewriter, up to {plural(plan.proposals, 'tool')}",
            proof_line,
            "the lexical baseline and the rule-based rewriter: no model, no cost",
        ]
    prompt_tokens = _prompt_tokens(plan)
    average = sum(prompt_tokens) / len(prompt_tokens) if prompt_tokens else 0
    caching = (
        "with caching (a run's first request writes the catalog, the others read it)"
        if plan.arm.asker.caching
        else "without caching"
    )
    dev_requests = sum(len(request_tokens(plan.arm, fixture)) for fixture in plan.dev) * plan.samples
    proof_requests = 2 * sum(len(request_tokens(plan.arm, fixture)) for fixture in plan.test) * plan.samples
    lines += [
        f"{dev_line}: {plural(dev_requests, 'request')}" if plan.dev else dev_line,
        f"2. proposals: up to {plural(plan.proposals, 'request')} (one per target tool), about "
        f"{average:,.0f} input tokens each",
        f"{proof_line}: {plural(proof_requests, 'request')}",
        f"input tokens by a local estimate (±20%), {caching}; output assumed {ASSUMED_OUTPUT_TOKENS} "
        f"tokens per answer, {ASSUMED_PROPOSAL_TOKENS} per proposal",
    ]
    if price is None:
        return [
            *lines,
            f"no price known for {provider.settings.model}: add it under run.prices to see a cost",
        ]
    costs = phase_costs(plan, price)
    parts = " · ".join(
        f"{name} ${cost:,.4f}"
        for name, cost in (("dev run", costs.dev), ("proposals", costs.proposals), ("proof", costs.proof))
    )
    lines += [
        f"estimated cost (prices as of {prices_as_of()}): ${costs.total:,.4f} ({parts})",
        f"worst case (every answer uses max_tokens): ${costs.worst:,.4f}",
    ]
    if budget_usd is not None:
        lines.append(budget_line(costs, budget_usd, dev_run=bool(plan.dev)))
    return lines


def budget_line(costs: PhaseCosts, budget_usd: float, *, dev_run: bool) -> str:
    """What a cap does to the three phases, in one line (``--dry``, and the refusal of a live run)."""
    kept = (
        f"${costs.kept:,.4f} kept for the proposals and the proof (their estimate, and room for one "
        "request's worst case each)"
    )
    if budget_usd < costs.kept:
        return (
            f"budget ${budget_usd:g}: below the estimate of the proposals and the proof: {kept}; improve "
            "refuses it (exit 3) and sends nothing: raise the budget, or lower --pairs, --test-share or "
            "--samples"
        )
    if costs.worst <= budget_usd:
        return f"budget ${budget_usd:g}: fits even the worst case"
    if costs.kept + costs.dev <= budget_usd:  # the dev run's estimate fits beside the shares
        return (
            f"budget ${budget_usd:g}: fits the estimate; the run stops early (exit 2) only if answers run "
            "long"
        )
    rest = f"${budget_usd - costs.kept:,.4f}"
    if not dev_run:
        return f"budget ${budget_usd:g}: {kept}; answers that run long could stop the proof early (exit 2)"
    return (
        f"budget ${budget_usd:g}: {kept}; the dev run gets the rest ({rest}) and stops before it "
        "finishes (exit 2): fewer dev answers pick the pairs"
    )

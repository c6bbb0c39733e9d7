"""``improve --dry``: what the three phases would send and cost, with nothing sent (a local estimate).

The dev run and the proof are counted as ``compare --dry`` counts an arm (catalog B as catalog A plus
the rewritten text, ``REWRITE_TOKENS`` per description); the proposer as the prompts of the targets
known before anything runs (from ``--results`` and the lint), up to two tools per pair.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from mcp_evals.answers import Usage
from mcp_evals.compare.arms import Arm
from mcp_evals.compare.estimate import request_tokens
from mcp_evals.fixtures.model import Fixture
from mcp_evals.providers.pricing import ASSUMED_OUTPUT_TOKENS, Price, prices_as_of
from mcp_evals.providers.tokens import MESSAGE_OVERHEAD_TOKENS, estimate_tokens
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
    prompt_tokens = [estimate_tokens(text) + MESSAGE_OVERHEAD_TOKENS for text in plan.prompts]
    average = sum(prompt_tokens) / len(prompt_tokens) if prompt_tokens else 0
    dev_requests, dev_usage = _eval_usage(plan.arm, plan.dev, plan.samples)
    proposal_usage = Usage(
        input_tokens=round(average * plan.proposals), output_tokens=ASSUMED_PROPOSAL_TOKENS * plan.proposals
    )
    a_requests, a_usage = _eval_usage(plan.arm, plan.test, plan.samples)
    b_requests, b_usage = _eval_usage(plan.arm, plan.test, plan.samples, REWRITE_TOKENS * plan.proposals)
    lines += [
        f"{dev_line}: {plural(dev_requests, 'request')}" if plan.dev else dev_line,
        f"2. proposals: up to {plural(plan.proposals, 'request')} (one per target tool), about "
        f"{average:,.0f} input tokens each",
        f"{proof_line}: {plural(a_requests + b_requests, 'request')}",
        f"input tokens by a local estimate (±20%), without caching; output assumed {ASSUMED_OUTPUT_TOKENS} "
        f"tokens per answer, {ASSUMED_PROPOSAL_TOKENS} per proposal",
    ]
    if price is None:
        return [
            *lines,
            f"no price known for {provider.settings.model}: add it under run.prices to see a cost",
        ]
    costs = {
        "dev run": price.cost(dev_usage),
        "proposals": price.cost(proposal_usage),
        "proof": price.cost(a_usage) + price.cost(b_usage),
    }
    total = sum(costs.values())
    requests = dev_requests + plan.proposals + a_requests + b_requests
    worst = price.cost(
        Usage(
            input_tokens=dev_usage.input_tokens
            + proposal_usage.input_tokens
            + a_usage.input_tokens
            + b_usage.input_tokens,
            output_tokens=(requests - plan.proposals) * plan.eval_max_tokens
            + plan.proposals * plan.proposer_max_tokens,
        )
    )
    parts = " · ".join(f"{name} ${cost:,.4f}" for name, cost in costs.items())
    lines += [
        f"estimated cost (prices as of {prices_as_of()}): ${total:,.4f} ({parts})",
        f"worst case (every answer uses max_tokens): ${worst:,.4f}",
    ]
    if budget_usd is not None:
        if worst <= budget_usd:
            lines.append(f"budget ${budget_usd:g}: fits even the worst case")
        elif total <= budget_usd:
            lines.append(
                f"budget ${budget_usd:g}: fits the estimate; the run stops early (exit 2) only if answers "
                "run long"
            )
        else:
            lines.append(
                f"budget ${budget_usd:g}: below the estimate: the proof would stop before it finishes "
                "(exit 2) and say which pairs it did not prove; raise the budget, lower --pairs, or give "
                "--results"
            )
    return lines

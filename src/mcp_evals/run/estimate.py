"""``run --dry``: what a run would cost, with nothing billable sent.

Input tokens come from Anthropic's free ``count_tokens`` endpoint when a key is present (the
prefix — catalog and system prompt — found once by difference, then each query on top of it), else
from the local estimate in ``tokens``. ``pricing.estimate_cost`` turns them into the cost of the run
with and without prompt caching, and with ``--batch`` where the provider has Message Batches.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import anyio

from mcp_evals.answers import AUTO, Message, Usage
from mcp_evals.fixtures.model import Fixture
from mcp_evals.providers.failures import ProviderFailure
from mcp_evals.providers.pricing import ASSUMED_OUTPUT_TOKENS, Price, estimate_cost, prices_as_of
from mcp_evals.providers.tokens import estimate_prefix_tokens, estimate_query_tokens
from mcp_evals.run.asker import Asker
from mcp_evals.run.budget import requests_within
from mcp_evals.run.plan import caching_note
from mcp_evals.run.retry import RetryPolicy, with_retries
from mcp_evals.wording import plural

COUNT_RETRY = RetryPolicy(max_attempts=4, max_wait=10)


@dataclass
class TokenCount:
    """Input tokens of a run's requests: the shared prefix and each fixture's own part."""

    exact: bool
    prefix: int
    per_fixture: dict[str, int] = field(default_factory=dict)
    problem: str | None = None  # why the exact count was not available


async def count_tokens(asker: Asker, planned: Sequence[Fixture], workers: int) -> TokenCount:
    """Exact counts where the API offers them for free, else the local estimate."""
    try:
        exact = await _count_exact(asker, planned, workers) if planned else None
        problem = None
    except ProviderFailure as failure:
        exact, problem = None, f"count_tokens failed ({failure.message}); using a local estimate"
    finally:
        await asker.provider.aclose()
    if exact is not None:
        return exact
    return estimate_locally(asker, planned, problem)


def estimate_locally(asker: Asker, planned: Sequence[Fixture], problem: str | None = None) -> TokenCount:
    """The local estimate (±20 %) of every request's input tokens (``tokens``: the prefix the lint
    shows too)."""
    return TokenCount(
        exact=False,
        prefix=estimate_prefix_tokens(asker.tools, asker.system_prompt),
        per_fixture={fixture.id: estimate_query_tokens(fixture.query) for fixture in planned},
        problem=problem,
    )


async def _count_exact(asker: Asker, planned: Sequence[Fixture], workers: int) -> TokenCount | None:
    provider = asker.provider
    if not provider.counts_tokens:
        return None

    async def counted(messages: list[Message], with_tools: bool) -> int | None:
        tools = asker.tools if with_tools else ()
        return await with_retries(
            COUNT_RETRY, lambda: provider.count_tokens(messages, tools, AUTO, asker.options)
        )

    first = planned[0]
    full = await counted(asker.messages(first.query), True)
    if full is None:
        return None
    query_only = await counted([Message.user(first.query)], False)  # no tools, no system prompt
    prefix = max(0, full - (query_only or 0))
    count = TokenCount(exact=True, prefix=prefix, per_fixture={first.id: full - prefix})
    limiter = anyio.CapacityLimiter(workers)

    async def count_one(fixture: Fixture) -> None:
        async with limiter:
            total = await counted(asker.messages(fixture.query), True)
            count.per_fixture[fixture.id] = max(1, (total or 0) - prefix)

    async with anyio.create_task_group() as group:
        for fixture in planned[1:]:
            group.start_soon(count_one, fixture)
    return count


def _expected_usage(prefix: int, other: int, output: int, caching: bool, *, first: bool) -> Usage:
    """What one request is expected to report: the first writes the cached prefix, later ones read it."""
    if not caching:
        return Usage(input_tokens=prefix + other, output_tokens=output)
    if first:
        return Usage(input_tokens=other, cache_write_tokens=prefix, output_tokens=output)
    return Usage(input_tokens=other, cache_read_tokens=prefix, output_tokens=output)


def describe(
    asker: Asker,
    planned: Sequence[Fixture],
    samples: int,
    price: Price | None,
    count: TokenCount,
    *,
    batch: bool,
    budget_usd: float | None = None,
    concurrency: int = 1,
) -> list[str]:
    """The lines ``run --dry`` prints: token counts, then the cost of each way to run."""
    source = "the free count_tokens endpoint (exact)" if count.exact else "a local estimate (±20%)"
    other = [count.per_fixture[fixture.id] for fixture in planned for _ in range(samples)]
    model = asker.model
    provider = asker.provider
    lines = [
        f"model {model} · {plural(len(planned), 'fixture')} × {plural(samples, 'sample')} = "
        f"{plural(len(other), 'request')}",
        f"input tokens counted with {source}:",
        f"  catalog + system prompt: {count.prefix:,} per request (the cacheable prefix)",
    ]
    if other:
        lines.append(f"  queries: {min(other):,}–{max(other):,} per request, {sum(other):,} in all")
    if price is None:
        return [*lines, f"no price known for {model}: add it under run.prices in the config to see a cost"]
    estimate = estimate_cost(
        price, prefix_tokens=count.prefix, other_tokens=other, max_tokens=asker.options.max_tokens
    )
    rows = [("without caching", estimate.without_caching), ("with caching", estimate.with_caching)]
    if provider.supports_batch:
        rows += [
            ("with --batch", estimate.batch(estimate.without_caching)),
            ("with --batch and caching", estimate.batch(estimate.with_caching)),
        ]
    per_answer = estimate.output_tokens // max(1, len(other))
    lines.append(
        f"estimated cost (prices as of {prices_as_of()}; "
        f"output assumed {plural(per_answer, 'token')} per answer):"
    )
    if asker.caching and estimate.cacheable:
        this_run = "with --batch and caching" if batch else "with caching"
    else:
        this_run = "with --batch" if batch else "without caching"
    for label, amount in rows:
        marker = "  ← this run" if label == this_run else ""
        lines.append(f"  {label:<26} ${amount:,.4f}{marker}")
    expected = dict(rows)[this_run]
    max_tokens = asker.options.max_tokens
    lines.append(
        f"  worst case (every answer uses max_tokens {max_tokens}): +${estimate.worst_case_output:,.4f}"
    )
    if budget_usd is not None:
        caching = asker.caching and estimate.cacheable
        expected_usage = [
            _expected_usage(
                count.prefix, tokens, min(ASSUMED_OUTPUT_TOKENS, max_tokens), caching, first=index == 0
            )
            for index, tokens in enumerate(other)
        ]
        sent = requests_within(
            budget_usd,
            price,
            max_tokens=max_tokens,
            prefix=asker.prefix,
            expected=expected_usage,
            batch=batch,
            concurrency=1 if batch else concurrency,
        )
        if sent < len(other):
            lines.append(
                f"budget ${budget_usd:g}: a live run would send "
                f"{sent} of {plural(len(other), 'request')}, then stop "
                "(PRELIMINARY): each request reserves its worst case (output at max_tokens) before it is "
                "sent; raise the budget or use --limit / --shard"
            )
        else:
            lines.append(f"budget ${budget_usd:g}: this run fits (estimated ${expected:,.4f})")
    note = caching_note(count.prefix, price, model)
    if note is not None:
        lines.append(f"note: {note}")
    return lines

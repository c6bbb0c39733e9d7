"""The one spending cap of a run, shared by live requests, Message Batches and ``--dry``.

The rule: before a request is sent, its worst case is *reserved* — input as the dearest recent
request cost (before the first answer: the whole prompt written to the cache), output at
``max_tokens`` — and the request is sent only if what was spent, what is in flight and this
reservation together stay within the cap. When the answer comes, the reservation is released and
the real cost (from the answer's usage) is spent. ``--dry`` replays the same rule on the estimated
costs, so the number of requests it says a budget allows is the number a live run sends.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field

from mcp_evals.answers import Usage
from mcp_evals.providers.pricing import Price, batch_discount
from mcp_evals.providers.tokens import estimate_tokens

# The cap of a paid run nobody asked for by name (its provider picked from an exported API key, with
# no --provider, run.provider or budget): docs/running.md, "No surprise spend".
DEFAULT_CAP_USD = 1.0
# Tokens a request adds to the cacheable prefix (framing and the query) before the first answer shows.
_QUERY_ALLOWANCE = 400


@dataclass
class Budget:
    """Spent, reserved and the next request's worst case, against an optional cap in USD."""

    limit_usd: float | None
    price: Price | None
    max_tokens: int
    prefix: bytes = b""  # the cacheable prefix, for the estimate before any answer
    batch: bool = False
    requests_per_job: int = 1  # a job that may take several requests reserves each one's worst case
    spent_usd: float = 0.0
    reserved_usd: float = 0.0
    stopped: bool = False
    _recent_input_costs: deque[float] = field(default_factory=lambda: deque(maxlen=16))

    @property
    def priced(self) -> bool:
        return self.price is not None

    def next_request_cost(self, requests: int | None = None) -> float:
        """What the next request (or job of ``requests`` requests) could cost at most (0 when the price
        is unknown)."""
        price = self.price
        if price is None:
            return 0.0
        if self._recent_input_costs:
            input_cost = max(self._recent_input_costs)
        else:  # nothing observed yet: assume the whole prompt is written to the cache
            prompt_tokens = estimate_tokens(self.prefix) + _QUERY_ALLOWANCE
            input_cost = prompt_tokens * max(price.input, price.cache_write) / 1_000_000
        output_cost = self.max_tokens * price.output / 1_000_000
        requests = max(1, self.requests_per_job if requests is None else requests)
        return (input_cost + output_cost) * requests * (batch_discount() if self.batch else 1.0)

    def allows(self, estimate: float) -> bool:
        if self.limit_usd is None:
            return True
        return self.spent_usd + self.reserved_usd + estimate <= self.limit_usd

    def reserve(self, requests: int | None = None) -> float | None:
        """Reserve the next request's worst case (of ``requests`` requests, default
        ``requests_per_job``); None (and ``stopped``) when it could cross the cap."""
        estimate = self.next_request_cost(requests)
        if self.stopped or not self.allows(estimate):
            self.stopped = True
            return None
        self.reserved_usd += estimate
        return estimate

    def request_cost(self, input_tokens: int, price: Price | None = None) -> float:
        """The worst case of one request of ``input_tokens``: all of it at the dearest input rate (a cache
        write), output at ``max_tokens`` (0 when the price is unknown). Sessions know each request's
        size before sending it; the conversation grows every turn, so the recent costs would not do.
        ``price``: this request's model, when one budget holds several (the contract's judge)."""
        price = price or self.price
        if price is None:
            return 0.0
        input_cost = input_tokens * max(price.input, price.cache_write) / 1_000_000
        output_cost = self.max_tokens * price.output / 1_000_000
        return (input_cost + output_cost) * (batch_discount() if self.batch else 1.0)

    def reserve_tokens(self, input_tokens: int, price: Price | None = None) -> float | None:
        """Like ``reserve``, for a request whose input size is known (counted, or estimated high)."""
        estimate = self.request_cost(input_tokens, price)
        if self.stopped or not self.allows(estimate):
            self.stopped = True
            return None
        self.reserved_usd += estimate
        return estimate

    def release(self, reservation: float) -> None:
        self.reserved_usd -= reservation

    def spend(self, usage: Usage, price: Price | None = None) -> float | None:
        """The cost of an answer, counted as spent; None when the price is unknown."""
        price = price or self.price
        if price is None:
            return None
        cost = price.cost(usage, batch=self.batch)
        output_only = price.cost(Usage(output_tokens=usage.output_tokens), batch=self.batch)
        self._recent_input_costs.append(cost - output_only)
        self.spent_usd += cost
        return cost

    def stop_message(self, estimate: float) -> str:
        in_flight = f" (+${self.reserved_usd:.4f} in flight)" if self.reserved_usd else ""
        return (
            f"budget: spent ${self.spent_usd:.4f}{in_flight} of ${self.limit_usd:g}; the next request "
            f"could cost up to ${estimate:.4f}, so no new requests are sent (PRELIMINARY run)"
        )


def requests_within(
    limit_usd: float,
    price: Price,
    *,
    max_tokens: int,
    prefix: bytes,
    expected: Sequence[Usage],
    batch: bool = False,
    concurrency: int = 1,
    input_tokens: Sequence[int] | None = None,
) -> int:
    """How many of the requests (with these expected usages, in order) a run under ``limit_usd`` sends.

    The live rule, replayed: the first request runs alone (the warm-up), then up to ``concurrency``
    are in flight, each holding its worst-case reservation until its answer is spent. A request
    is sent only if it fits beside them; the first that does not stops the run. ``--dry`` uses it,
    so its "would send N requests" is what the live run does. With ``input_tokens`` (a session's
    requests, whose size is known before each is sent) request k reserves as ``reserve_tokens`` of
    ``input_tokens[k]`` does, as the session loop reserves it.
    """
    budget = Budget(limit_usd, price, max_tokens, prefix=prefix, batch=batch)
    in_flight: deque[tuple[float, Usage]] = deque()
    sent = 0
    for index, usage in enumerate(expected):
        while in_flight and (len(in_flight) >= max(1, concurrency) or index == 1):
            held, answered = in_flight.popleft()
            budget.release(held)
            budget.spend(answered)
        reservation = budget.reserve() if input_tokens is None else budget.reserve_tokens(input_tokens[index])
        if reservation is None:
            break
        in_flight.append((reservation, usage))
        sent += 1
    return sent

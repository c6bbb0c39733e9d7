"""Retries and concurrency: the run's policy for transient failures (tenacity) and rate limits."""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

import anyio
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt, stop_any
from tenacity.stop import stop_base

from mcp_evals.providers.failures import ProviderFailure

T = TypeVar("T")


@dataclass(frozen=True)
class RetryPolicy:
    """How transient failures are retried (the official SDKs' backoff, with more attempts)."""

    max_attempts: int = 6
    max_wait: float = 60.0  # the longest single wait, also for a server's retry-after
    initial_backoff: float = 0.5
    max_backoff: float = 8.0

    def wait(self, attempt_number: int, failure: BaseException | None) -> float:
        retry_after = getattr(failure, "retry_after", None)
        if retry_after is not None:
            seconds = float(retry_after)
        else:
            seconds = min(self.initial_backoff * 2 ** (attempt_number - 1), self.max_backoff)
            seconds *= 1 - 0.25 * random.random()  # jitter: spread a burst of retries
        return max(0.0, min(seconds, self.max_wait))


class AdaptiveLimiter:
    """A capacity limiter that halves on rate limiting and creeps back up one slot per window."""

    def __init__(self, maximum: int) -> None:
        self.maximum = max(1, maximum)
        self.limiter = anyio.CapacityLimiter(self.maximum)
        self._successes = 0
        self.lowest = self.maximum

    @property
    def current(self) -> int:
        return int(self.limiter.total_tokens)

    def rate_limited(self) -> None:
        self.limiter.total_tokens = max(1, self.current // 2)
        self.lowest = min(self.lowest, self.current)
        self._successes = 0

    def succeeded(self) -> None:
        if self.current >= self.maximum:
            return
        self._successes += 1
        if self._successes >= self.current:  # one full window at this level without a 429
            self.limiter.total_tokens = self.current + 1
            self._successes = 0


class _StopWhen(stop_base):
    """A tenacity stop condition from a plain predicate (e.g. "the run is stopping")."""

    def __init__(self, predicate: Callable[[], bool]) -> None:
        self.predicate = predicate

    def __call__(self, retry_state: RetryCallState) -> bool:
        return self.predicate()


class _FailureCap(stop_base):
    """Stop at a failure's own cap on attempts (``ProviderFailure.max_attempts``), below the policy's."""

    def __call__(self, retry_state: RetryCallState) -> bool:
        failure = retry_state.outcome.exception() if retry_state.outcome else None
        cap = getattr(failure, "max_attempts", None)
        return isinstance(cap, int) and retry_state.attempt_number >= cap


def retrying(policy: RetryPolicy, *, stop_when: Callable[[], bool] | None = None) -> AsyncRetrying:
    """Tenacity for transient ProviderFailures: ``policy``'s attempts and waits, fatal ones raised.

    ``stop_when`` ends the retries early (the run stopped on a fatal error or the budget).
    """
    stops: list[stop_base] = [stop_after_attempt(policy.max_attempts), _FailureCap()]
    if stop_when is not None:
        stops.append(_StopWhen(stop_when))
    return AsyncRetrying(
        stop=stop_any(*stops),
        wait=lambda state: policy.wait(
            state.attempt_number, state.outcome.exception() if state.outcome else None
        ),
        retry=retry_if_exception(lambda error: isinstance(error, ProviderFailure) and error.transient),
        sleep=anyio.sleep,
        reraise=True,
    )


async def with_retries(policy: RetryPolicy, call: Callable[[], Awaitable[T]]) -> T:
    """Await ``call()``, retrying transient ProviderFailures by ``policy`` (for one-off calls)."""
    async for attempt in retrying(policy):
        with attempt:
            return await call()
    raise AssertionError("unreachable: tenacity either returns or raises")  # pragma: no cover

"""Rates with their Wilson 95 % interval, and the same interval for a mean score."""

from __future__ import annotations

import math

from mcp_evals.strict import StrictModel

Z_95 = 1.959963984540054


class Rate(StrictModel):
    """``hits`` out of ``total`` with its Wilson 95 % interval; ``value`` is None when ``total`` is 0."""

    hits: int = 0
    total: int = 0
    value: float | None = None
    low: float | None = None
    high: float | None = None

    @classmethod
    def of(cls, hits: int, total: int) -> Rate:
        if total <= 0:
            return cls(hits=0, total=0)
        low, high = wilson_interval(hits, total)
        return cls(hits=hits, total=total, value=hits / total, low=low, high=high)


def wilson_interval(hits: float, total: int, z: float = Z_95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (good at 0 %, 100 % and small n)."""
    if total <= 0:
        return 0.0, 1.0
    if not 0 <= hits <= total:
        raise ValueError(f"hits must be between 0 and total; got {hits}/{total}")
    p = hits / total
    z2 = z * z
    centre = p + z2 / (2 * total)
    margin = z * math.sqrt(p * (1 - p) / total + z2 / (4 * total * total))
    denominator = 1 + z2 / total
    low = max(0.0, (centre - margin) / denominator)
    high = min(1.0, (centre + margin) / denominator)
    # Rounding must never put the point outside its own interval.
    return min(low, p), max(high, p)


def score_interval(mean: float, total: int, *, scale: float = 100.0, z: float = Z_95) -> tuple[float, float]:
    """The 95 % interval of a mean of ``total`` scores, each between 0 and ``scale`` (the weighted score).

    The Wilson interval of the mean as a share of ``scale``. A score between 0 and 100 varies at most
    as much as a pass/fail answer with the same mean, so this is the interval of the widest case:
    exact when every answer scores 0 or 100 (then the score is a rate), wide rather than narrow
    otherwise, and sensible at 0, at 100 and with few answers, as the rates' intervals are.
    """
    if total <= 0:
        return 0.0, scale
    share = min(max(mean / scale, 0.0), 1.0)
    low, high = wilson_interval(share * total, total, z)
    return low * scale, high * scale

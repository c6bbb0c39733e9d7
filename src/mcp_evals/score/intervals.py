"""Rates with their Wilson 95 % interval, and the same interval for a mean score (``stats`` computes)."""

from __future__ import annotations

from mcp_evals.stats import CONFIDENCE, Z_95, wilson_interval
from mcp_evals.strict import StrictModel

__all__ = ["Z_95", "Rate", "score_interval", "wilson_interval"]


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


def score_interval(
    mean: float, total: int, *, scale: float = 100.0, confidence: float = CONFIDENCE
) -> tuple[float, float]:
    """The 95 % interval of a mean of ``total`` scores, each between 0 and ``scale`` (the weighted score).

    The Wilson interval of the mean as a share of ``scale``. A score between 0 and 100 varies at most
    as much as a pass/fail answer with the same mean, so this is the interval of the widest case:
    exact when every answer scores 0 or 100 (then the score is a rate), wide rather than narrow
    otherwise, and sensible at 0, at 100 and with few answers, as the rates' intervals are.
    """
    if total <= 0:
        return 0.0, scale
    share = min(max(mean / scale, 0.0), 1.0)
    low, high = wilson_interval(share * total, total, confidence)
    return low * scale, high * scale

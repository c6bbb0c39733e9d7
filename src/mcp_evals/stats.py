"""The statistics every report shows, written once (a leaf: the standard library only).

Rates get Wilson's score interval; a difference of two rates Newcombe's square-and-add interval
built on it (paired or not); paired right/wrong or up/down counts the exact sign test (McNemar's
exact test); a mean Student's t interval. Every quantile comes from the distribution itself —
``statistics.NormalDist`` for z, the regularized incomplete beta function for t — so no figure is
typed by hand and any confidence level works. ``tests/test_stats.py`` checks each against published
values.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from statistics import NormalDist

CONFIDENCE = 0.95


def _check_confidence(confidence: float) -> None:
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1; got {confidence}")


def z_value(confidence: float = CONFIDENCE) -> float:
    """The two-sided normal quantile: 1.95996… at 95 %."""
    _check_confidence(confidence)
    return NormalDist().inv_cdf(0.5 + confidence / 2)


Z_95 = z_value(0.95)


@lru_cache(maxsize=256)
def t_value(df: int, confidence: float = CONFIDENCE) -> float:
    """The two-sided quantile of Student's t with ``df`` degrees of freedom: 12.706… for 1 at 95 %.

    Found by bisection on the exact tail, ``P(|T| > t) = I_{df/(df+t²)}(df/2, ½)``: between the
    normal quantile (t's is never smaller) and a bound doubled until the tail is below the level.
    """
    if df < 1:
        raise ValueError(f"degrees of freedom must be at least 1; got {df}")
    _check_confidence(confidence)
    alpha = 1 - confidence
    low = z_value(confidence)
    high = 2 * low
    while _t_tail(high, df) > alpha:
        low, high = high, 2 * high
    for _ in range(200):
        middle = (low + high) / 2
        if _t_tail(middle, df) > alpha:
            low = middle
        else:
            high = middle
        if high - low <= 1e-13 * high:
            break
    return (low + high) / 2


def wilson_interval(hits: float, total: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Wilson's score interval for ``hits`` of ``total`` (good at 0 %, 100 % and small n).

    ``hits`` may be fractional (a mean score as a share of its scale); with no ``total`` the interval
    is all of [0, 1].
    """
    if total <= 0:
        return 0.0, 1.0
    if not 0 <= hits <= total:
        raise ValueError(f"hits must be between 0 and total; got {hits}/{total}")
    z = z_value(confidence)
    p = hits / total
    z2 = z * z
    centre = p + z2 / (2 * total)
    margin = z * math.sqrt(p * (1 - p) / total + z2 / (4 * total * total))
    denominator = 1 + z2 / total
    low = max(0.0, (centre - margin) / denominator)
    high = min(1.0, (centre + margin) / denominator)
    # Rounding must never put the point outside its own interval.
    return min(low, p), max(high, p)


def newcombe_interval(
    hits_1: int, total_1: int, hits_2: int, total_2: int, confidence: float = CONFIDENCE
) -> tuple[float, float]:
    """Newcombe's interval for p₁ − p₂ of two independent rates (method 10 of Newcombe 1998a: each
    rate's Wilson interval, squared and added)."""
    if total_1 <= 0 or total_2 <= 0:
        return -1.0, 1.0
    return _square_and_add(hits_1 / total_1, total_1, hits_2 / total_2, total_2, 0.0, confidence)


@dataclass(frozen=True)
class PairedCounts:
    """Pairs of right/wrong answers, the first arm against the second."""

    both: int  # right in both
    first_only: int  # right in the first, wrong in the second
    second_only: int  # wrong in the first, right in the second
    neither: int

    @property
    def pairs(self) -> int:
        return self.both + self.first_only + self.second_only + self.neither

    @property
    def difference(self) -> float:
        """p₁ − p₂: the first arm's rate minus the second's, over the pairs."""
        return (self.first_only - self.second_only) / self.pairs if self.pairs else 0.0


def newcombe_paired_interval(counts: PairedCounts, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Newcombe's interval for p₁ − p₂ of paired rates (method 10 of Newcombe 1998b): the
    independent interval corrected by the pairs' correlation φ, which is taken as 0 when the table's
    cross-product difference is below n/2 (a continuity correction) and as 0 when a margin is empty."""
    n = counts.pairs
    if n <= 0:
        return -1.0, 1.0
    first, second = counts.both + counts.first_only, counts.both + counts.second_only
    product = first * (n - first) * second * (n - second)
    phi = 0.0
    if product > 0:
        cross = counts.both * counts.neither - counts.first_only * counts.second_only
        corrected = cross - n / 2 if cross > n / 2 else (cross if cross < 0 else 0.0)
        phi = corrected / math.sqrt(product)
    return _square_and_add(first / n, n, second / n, n, phi, confidence)


def sign_test(down: int, up: int) -> float:
    """Exact two-sided sign test: ``down`` against ``up`` pairs under Binomial(n, ½), ties left out.

    On right/wrong pairs it is McNemar's exact test; on scores it generalises it.
    """
    if down < 0 or up < 0:
        raise ValueError("counts must not be negative")
    n = down + up
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(down, up) + 1))
    return min(1.0, 2 * tail / float(2**n))


# McNemar's exact test is the sign test on the discordant pairs.
mcnemar_exact = sign_test


@dataclass(frozen=True)
class MeanInterval:
    mean: float
    low: float
    high: float


def mean_interval(values: Sequence[float], confidence: float = CONFIDENCE) -> MeanInterval | None:
    """A mean and its Student's t interval (sample standard deviation); None below two values."""
    n = len(values)
    if n < 2:
        return None
    mean = math.fsum(values) / n
    variance = math.fsum((value - mean) ** 2 for value in values) / (n - 1)
    margin = t_value(n - 1, confidence) * math.sqrt(variance / n)
    return MeanInterval(mean, mean - margin, mean + margin)


# -- the machinery --------------------------------------------------------------------------------


def _square_and_add(
    p1: float, n1: int, p2: float, n2: int, phi: float, confidence: float
) -> tuple[float, float]:
    low_1, high_1 = wilson_interval(p1 * n1, n1, confidence)
    low_2, high_2 = wilson_interval(p2 * n2, n2, confidence)
    down_1, up_1, down_2, up_2 = p1 - low_1, high_1 - p1, p2 - low_2, high_2 - p2
    difference = p1 - p2
    low = difference - math.sqrt(max(0.0, down_1**2 - 2 * phi * down_1 * up_2 + up_2**2))
    high = difference + math.sqrt(max(0.0, down_2**2 - 2 * phi * down_2 * up_1 + up_1**2))
    return max(-1.0, low), min(1.0, high)


def _t_tail(t: float, df: int) -> float:
    """P(|T| > t) for Student's t with ``df`` degrees of freedom, t ≥ 0."""
    return _incomplete_beta(df / 2, 0.5, df / (df + t * t))


def _incomplete_beta(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b), by its continued fraction (Lentz)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1) / (a + b + 2):
        return math.exp(log_front) * _beta_fraction(a, b, x) / a
    return 1 - math.exp(log_front) * _beta_fraction(b, a, 1 - x) / b


def _beta_fraction(a: float, b: float, x: float) -> float:
    tiny = 1e-300
    c, d = 1.0, 1 - (a + b) * x / (a + 1)
    d = 1 / (d if abs(d) > tiny else tiny)
    result = d
    for m in range(1, 10_000):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1 + numerator * d
            d = 1 / (d if abs(d) > tiny else tiny)
            c = 1 + numerator / c
            c = c if abs(c) > tiny else tiny
            result *= c * d
        if abs(c * d - 1) < 1e-16:
            break
    return result

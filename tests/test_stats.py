"""The one statistics module against published values (each case names its source)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from mcp_evals import stats
from mcp_evals.stats import (
    PairedCounts,
    mcnemar_exact,
    mean_interval,
    newcombe_interval,
    newcombe_paired_interval,
    sign_test,
    t_value,
    wilson_interval,
    z_value,
)

SOURCE = Path(__file__).resolve().parents[1] / "src" / "mcp_evals"


def test_z_comes_from_the_normal_distribution() -> None:
    # Standard normal table: z(0.975) = 1.959964, z(0.95) = 1.644854, z(0.995) = 2.575829.
    assert z_value(0.95) == pytest.approx(1.959964, abs=1e-6)
    assert z_value(0.90) == pytest.approx(1.644854, abs=1e-6)
    assert z_value(0.99) == pytest.approx(2.575829, abs=1e-6)
    with pytest.raises(ValueError, match="confidence"):
        z_value(1.0)


# NIST/SEMATECH e-Handbook of Statistical Methods, §1.3.6.7.2 "Critical values of the Student's t
# distribution" (https://www.itl.nist.gov/div898/handbook/eda/section3/eda3672.htm), column 0.975
# (two-sided 95 %) and column 0.995 (two-sided 99 %), to the table's three decimals.
T_TABLE_95 = {
    1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262,
    10: 2.228, 15: 2.131, 20: 2.086, 25: 2.060, 30: 2.042, 40: 2.021, 50: 2.009, 60: 2.000,
    80: 1.990, 100: 1.984,
}  # fmt: skip
T_TABLE_99 = {1: 63.657, 2: 9.925, 5: 4.032, 10: 3.169, 30: 2.750, 100: 2.626}


@pytest.mark.parametrize(("df", "expected"), sorted(T_TABLE_95.items()))
def test_t_quantiles_match_the_published_table_at_95(df: int, expected: float) -> None:
    assert t_value(df) == pytest.approx(expected, abs=5e-4)


@pytest.mark.parametrize(("df", "expected"), sorted(T_TABLE_99.items()))
def test_t_quantiles_match_the_published_table_at_99(df: int, expected: float) -> None:
    assert t_value(df, 0.99) == pytest.approx(expected, abs=5e-4)


def test_t_quantiles_more_precisely_and_their_limit() -> None:
    # Exact values (Abramowitz & Stegun 26.7 closed forms): t(1) = tan(0.475π), t(2) = 2·0.95/√(2·(1−0.95²)).
    assert t_value(1) == pytest.approx(math.tan(0.475 * math.pi), rel=1e-10)
    assert t_value(2) == pytest.approx(0.95 * math.sqrt(2 / (1 - 0.95**2)), rel=1e-10)
    assert t_value(10**6) == pytest.approx(z_value(), abs=1e-5)
    with pytest.raises(ValueError, match="degrees of freedom"):
        t_value(0)


# Newcombe RG (1998), "Two-sided confidence intervals for the single proportion: comparison of seven
# methods", Statistics in Medicine 17:857-872, Table I, method 3 (score interval without continuity
# correction).
@pytest.mark.parametrize(
    ("hits", "total", "low", "high"),
    [(81, 263, 0.2553, 0.3662), (15, 148, 0.0624, 0.1605), (0, 20, 0.0, 0.1611), (1, 29, 0.0061, 0.1718)],
)
def test_wilson_matches_newcombe_1998_single_proportion(
    hits: int, total: int, low: float, high: float
) -> None:
    assert wilson_interval(hits, total) == pytest.approx((low, high), abs=6e-5)


def test_wilson_edges() -> None:
    assert wilson_interval(0, 0) == (0.0, 1.0)
    low, high = wilson_interval(7, 7)
    assert high == 1.0 and 0 < low < 1
    with pytest.raises(ValueError, match="between 0 and total"):
        wilson_interval(8, 7)


# Newcombe RG (1998), "Interval estimation for the difference between independent proportions:
# comparison of eleven methods", Statistics in Medicine 17:873-890, Table II, method 10.
@pytest.mark.parametrize(
    ("counts", "low", "high"),
    [
        ((56, 70, 48, 80), 0.0524, 0.3339),
        ((9, 10, 3, 10), 0.1705, 0.8090),
        ((6, 7, 2, 7), 0.0582, 0.8062),
        ((5, 56, 0, 29), -0.0381, 0.1926),
        ((0, 10, 0, 20), -0.1611, 0.2775),
        ((0, 10, 0, 10), -0.2775, 0.2775),
        ((10, 10, 0, 20), 0.6791, 1.0),
    ],
)
def test_newcombe_difference_matches_newcombe_1998_table_ii(
    counts: tuple[int, int, int, int], low: float, high: float
) -> None:
    assert newcombe_interval(*counts) == pytest.approx((low, high), abs=6e-5)


@pytest.mark.parametrize(
    ("counts", "difference", "low", "high", "places"),
    [
        # Fagerland MW, Lydersen S, Laake P (2014), "Recommended tests and confidence intervals for
        # paired binomial proportions", Statistics in Medicine 33:2850-2875: the complete-response
        # example (Cavo et al. 2012), Newcombe square-and-add: −0.0621 (−0.1186 to −0.0046).
        (PairedCounts(59, 6, 16, 80), -0.0621, -0.1186, -0.0046, 6e-5),
        # Altman DG, Machin D, Bryant TN, Gardner MJ (2000), Statistics with Confidence, 2nd ed.,
        # Table 6.2 (Newcombe's method 10 worked through): 0.122 (0.011 to 0.226).
        (PairedCounts(14, 5, 0, 22), 0.122, 0.011, 0.226, 6e-4),
    ],
)
def test_newcombe_paired_difference_matches_published_examples(
    counts: PairedCounts, difference: float, low: float, high: float, places: float
) -> None:
    assert counts.difference == pytest.approx(difference, abs=places)
    assert newcombe_paired_interval(counts) == pytest.approx((low, high), abs=places)


def test_newcombe_paired_when_every_pair_agrees_is_not_a_point() -> None:
    """The t interval of 0/±1 differences is [0, 0] when all pairs agree; Newcombe's is not."""
    low, high = newcombe_paired_interval(PairedCounts(5, 0, 0, 5))
    assert low < 0 < high


@pytest.mark.parametrize(
    ("down", "up", "p"),
    [
        # Fagerland MW, Lydersen S, Laake P (2013), "The McNemar test for binary matched-pairs data:
        # mid-p and asymptotic are better than exact conditional", BMC Medical Research Methodology
        # 13:91: exact conditional p = 0.070 (1 vs 7 discordant pairs) and 0.052 (6 vs 16).
        (1, 7, 0.070),
        (6, 16, 0.052),
        (16, 6, 0.052),
    ],
)
def test_mcnemar_exact_matches_fagerland_2013(down: int, up: int, p: float) -> None:
    assert mcnemar_exact(down, up) == pytest.approx(p, abs=5e-4)
    assert sign_test(down, up) == mcnemar_exact(down, up)


def test_sign_test_edges() -> None:
    assert sign_test(0, 0) == 1.0
    assert sign_test(3, 3) == 1.0
    assert sign_test(6, 0) == pytest.approx(2 / 64)
    with pytest.raises(ValueError, match="negative"):
        sign_test(-1, 2)


def test_mean_interval_is_students_t() -> None:
    # Student (1908), "The probable error of a mean", Biometrika 6:1-25, the sleep data (Cushny and
    # Peebles): the ten differences between the two drugs have mean 1.58 and a 95 % interval of
    # 0.700 to 2.460 (R: t.test(extra ~ group, data = sleep, paired = TRUE)).
    differences = [1.2, 2.4, 1.3, 1.3, 0.0, 1.0, 1.8, 0.8, 4.6, 1.4]
    found = mean_interval(differences)
    assert found is not None
    assert (found.mean, found.low, found.high) == pytest.approx((1.58, 0.700, 2.460), abs=5e-4)
    assert mean_interval([3.0]) is None and mean_interval([]) is None


def test_no_statistics_outside_the_module() -> None:
    """No hand-typed quantile and no second Wilson, sign test or t table anywhere else in src/."""
    found = []
    for path in sorted(SOURCE.rglob("*.py")):
        if path.name == "stats.py":
            continue
        text = path.read_text("utf-8")
        for needle in (
            "1.959",
            "1.96",
            "12.706",
            "NormalDist",
            "inv_cdf",
            "comb(",
            "def wilson",
            "def sign_test",
        ):
            if needle in text:
                found.append(f"{path.relative_to(SOURCE)}: {needle}")
    assert found == []
    assert z_value() == stats.Z_95

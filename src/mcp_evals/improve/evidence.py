"""The proof, pair by pair and overall (pure): arm A (the current descriptions) against arm B (the
rewrites) on the test split, from their records alone.

A target pair concerns the test fixtures that expect either of its tools (what a rewrite breaks
elsewhere, drawing another tool's requests, counts in the overall verdict). Over those answered in
both arms, *fixes* (wrong before, right after) and *breaks* are tested with the exact
sign test (McNemar's on right/wrong pairs), and the p-values of the pairs are adjusted for testing
several at once (Holm's method). A pair is *improved* or *worse* when its adjusted p is below alpha,
*no detectable change* otherwise; *not proven* when a fixture it expects was never answered in both
arms (a budget stop, a dropout); *not tested* when no test fixture concerns it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from mcp_evals.compare.paired import Comparison, PairedDifference, signed
from mcp_evals.fixtures.model import Fixture
from mcp_evals.improve.model import OverallKind, PairVerdict, Proposal, TargetPair
from mcp_evals.score import CORRECT_OUTCOMES, Scorecard
from mcp_evals.stats import PairedCounts, holm, newcombe_paired_interval, sign_test
from mcp_evals.wording import plural

_EPSILON = 1e-9


def rightness(scorecard: Scorecard) -> dict[str, bool]:
    """Fixture id → whether its choice was right (fixtures never reached are left out)."""
    return {
        fixture.id: fixture.outcome in CORRECT_OUTCOMES for fixture in scorecard.fixtures if fixture.reached
    }


Decided = Literal["improved", "worse", "no detectable change"]


def _verdict(delta: float, p_adjusted: float, alpha: float) -> Decided:
    if p_adjusted < alpha and delta > _EPSILON:
        return "improved"
    if p_adjusted < alpha and delta < -_EPSILON:
        return "worse"
    return "no detectable change"


def pair_verdicts(
    pairs: Sequence[TargetPair],
    test: Sequence[Fixture],
    before: Scorecard,
    after: Scorecard,
    *,
    alpha: float = 0.05,
) -> list[PairVerdict]:
    """Each target pair on the test split (see the module docstring)."""
    right_a, right_b = rightness(before), rightness(after)
    rows: list[PairVerdict] = []
    for pair in pairs:
        tools = set(pair.tools)
        concerned = [
            fixture.id for fixture in test if fixture.kind == "select" and tools & set(fixture.expected_tools)
        ]
        paired = [fixture for fixture in concerned if fixture in right_a and fixture in right_b]
        fixes = [fixture for fixture in paired if right_b[fixture] and not right_a[fixture]]
        breaks = [fixture for fixture in paired if right_a[fixture] and not right_b[fixture]]
        row = PairVerdict(
            tools=pair.tools,
            fixtures=concerned,
            paired=len(paired),
            unanswered=[fixture for fixture in concerned if fixture not in paired],
            fixes=fixes,
            breaks=breaks,
            p_value=sign_test(len(breaks), len(fixes)),
        )
        if paired:
            row.before = 100 * sum(right_a[fixture] for fixture in paired) / len(paired)
            row.after = 100 * sum(right_b[fixture] for fixture in paired) / len(paired)
        rows.append(row)
    tested = [index for index, row in enumerate(rows) if row.paired]
    for index, adjusted in zip(tested, holm([rows[index].p_value for index in tested]), strict=True):
        rows[index].p_adjusted = adjusted
    for row in rows:
        if row.unanswered:
            row.verdict = "not proven"
        elif not row.fixtures:
            row.verdict = "not tested"
        else:
            delta = (row.after or 0.0) - (row.before or 0.0)
            row.verdict = _verdict(delta, row.p_adjusted, alpha)
    return rows


def change_interval(pair: PairedDifference) -> tuple[float, float] | None:
    """The 95 % interval of the change in accuracy (B − A, in points) over the paired fixtures
    (Newcombe's for paired rates)."""
    if not pair.paired or pair.first_accuracy is None:
        return None
    right_a = round(pair.first_accuracy * pair.paired / 100)
    both = right_a - len(pair.breaks)
    neither = pair.paired - both - len(pair.breaks) - len(pair.fixes)
    low, high = newcombe_paired_interval(PairedCounts(both, len(pair.breaks), len(pair.fixes), neither))
    return -100 * high, -100 * low  # the interval of A − B, turned into B − A


def _points(pair: PairedDifference) -> str:
    if pair.first_accuracy is None or pair.second_accuracy is None or pair.delta_pp is None:
        return "n/a"
    interval = change_interval(pair)
    within = f", 95 % interval {signed(interval[0])} to {signed(interval[1])}" if interval else ""
    return (
        f"accuracy {pair.first_accuracy:.1f} % → {pair.second_accuracy:.1f} % "
        f"({signed(pair.delta_pp)} points{within})"
    )


def not_run(proposals: Sequence[Proposal]) -> str | None:
    """Why nothing ran on the test split though there were targets, when that is a stop (the budget,
    a proposer that never answered) rather than nothing to prove; None when it is not."""
    accepted = [proposal for proposal in proposals if proposal.status == "accepted"]
    if accepted:
        return (
            f"Not proven: {plural(len(accepted), 'rewrite')} accepted, but the budget was spent before "
            "the proof: nothing ran on the test split."
        )
    missing = [proposal for proposal in proposals if proposal.status == "not proposed"]
    if not missing:
        return None
    reasons = "; ".join(dict.fromkeys(proposal.reason or "no answer" for proposal in missing))
    return (
        f"Not proven: {len(missing)} of {plural(len(proposals), 'target tool')} got no rewrite "
        f"({reasons}), and no rewrite was accepted: nothing ran on the test split."
    )


def overall(comparison: Comparison | None, alpha: float, *, planned: int) -> tuple[OverallKind, str]:
    """The outcome over the whole test split, in a word and in a paragraph."""
    if comparison is None or not comparison.pairs:
        return "nothing to prove", "Nothing was proven: no rewrite was accepted, so there was nothing to run."
    pair = comparison.pairs[0]
    if pair.paired == 0:
        return "not proven", "Not proven: no test fixture was answered with both catalogs."
    delta = pair.delta_pp or 0.0
    kind = _verdict(delta, pair.p_value, alpha)
    short = pair.paired < planned
    scope = f"on {plural(pair.paired, 'test fixture')} answered in both" + (
        f" (of {planned} planned)" if short else ""
    )
    arms = {arm.arm.name: arm for arm in comparison.arms}
    scores = ""
    if "A" in arms and "B" in arms and arms["A"].score is not None and arms["B"].score is not None:
        a, b = arms["A"], arms["B"]
        scores = (
            f"; score {a.score:.1f} ({a.score_low:.1f}–{a.score_high:.1f}) → "
            f"{b.score:.1f} ({b.score_low:.1f}–{b.score_high:.1f})"
        )
    evidence = f"{scope}, {pair.headline}: {_points(pair)}{scores}"
    if kind == "improved":
        return "improved", f"Improved: the rewrites are better {evidence}, p below {alpha:g}."
    if kind == "worse":
        return "worse", f"Worse: the rewrites are worse {evidence}, p below {alpha:g}. Do not apply them."
    if short:
        return "not proven", (
            f"Not proven: {evidence}. Part of the test split was not answered in both arms, and what was "
            f"cannot tell the difference from noise (p ≥ {alpha:g})."
        )
    return "no detectable change", (
        f"No detectable change {evidence}: the paired test cannot tell it from noise (p ≥ {alpha:g}). "
        "Add test fixtures (or --samples) before you believe a difference either way."
    )

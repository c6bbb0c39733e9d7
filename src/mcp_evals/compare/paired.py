"""A comparison of arms from their records alone (pure): per-arm scores, paired differences, the verdict.

Every arm ran the same fixtures with the same model and settings, so each fixture is a pair (or a
triple). A fixture is *right* in an arm when the model's choice was right there (``correct_call``,
``correct_refusal``, ``correct_clarification``; with samples, the fixture's most frequent outcome);
arguments count in each arm's score, not in the pairing. For two arms the fixtures reached in both
are paired: *fixes* are wrong in the first and right in the second, *breaks* the reverse, and the
difference is tested with the exact sign test on those discordant pairs (``stats.sign_test``, the
baseline comparison's too; on right/wrong pairs it is McNemar's exact test). ``delta_pp`` is the change in
accuracy over the paired fixtures, in points, which is exactly (fixes − breaks) / paired.

With arms that deliver one catalog differently (``full``, ``deferred``, ``grouped``) the full arm's
gate decision gets the evidence its recommendation asks for: which remediation helped on this
catalog ("deferred: +12.5 points, p = 0.01, cost −71 %"), or that none did.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import Field

from mcp_evals.record.read import Results
from mcp_evals.score import CORRECT_OUTCOMES, Rate, Scorecard, score_interval, score_results
from mcp_evals.score.gate import GateDecision, format_percent
from mcp_evals.stats import sign_test
from mcp_evals.strict import StrictModel
from mcp_evals.wording import plural

COMPARISON_FORMAT: Literal["mcp-evals.comparison"] = "mcp-evals.comparison"
ArmKind = Literal["full", "deferred", "grouped"]
REMEDIATIONS = ("deferred", "grouped")
_EPSILON = 1e-9


class ArmInfo(StrictModel):
    """One arm: its name, how it delivered the catalog, and where its record is."""

    name: str
    kind: ArmKind
    label: str = Field(description="What the arm is, for a reader.")
    results: str = Field(description="Its results file (relative to the comparison).")


class MissedRetrieval(StrictModel):
    """A select answer whose search (or routing) never showed the model an expected tool."""

    fixture_id: str
    expected_tools: list[str]
    searches: list[str] = Field(default_factory=list)
    area: str | None = None


class RetrievalSummary(StrictModel):
    """Deferred and grouped arms: finding the tool apart from choosing it."""

    recall: Rate = Field(
        description="Select answers in which an expected tool was revealed (or its area opened)."
    )
    selection_given_retrieval: Rate = Field(description="Of those, the answers that called an expected tool.")
    missed: list[MissedRetrieval] = Field(default_factory=list)


class ArmSummary(StrictModel):
    arm: ArmInfo
    planned: int
    reached: int
    top1: Rate
    top_k: Rate | None = Field(description="As the report's: null for the lexical baseline (one call).")
    k: int
    refusal: Rate
    accuracy: Rate
    score: float | None = Field(None, description="The mean weighted score (0–100) of the reached answers.")
    score_low: float | None = Field(
        None, description="The score's 95 % interval: Wilson's, on the score as a share of 100 points."
    )
    score_high: float | None = None
    cost_usd: float | None = None
    cost_per_fixture: float | None = None
    input_tokens_per_fixture: float | None = None
    requests_per_fixture: float | None = None
    retrieval: RetrievalSummary | None = None
    gate: GateDecision


class AreaDelta(StrictModel):
    area: str
    paired: int
    before: float | None = Field(None, description="Accuracy (0–100) of the first arm on the area's pairs.")
    after: float | None = None
    delta_pp: float | None = None
    fixes: int = 0
    breaks: int = 0


class PairedDifference(StrictModel):
    """The second arm against the first, fixture by fixture."""

    first: str
    second: str
    paired: int = Field(description="Fixtures reached in both arms.")
    first_accuracy: float | None = None
    second_accuracy: float | None = None
    delta_pp: float | None = Field(
        None, description="second − first accuracy on the paired fixtures, in points."
    )
    fixes: list[str] = Field(default_factory=list, description="Wrong in the first arm, right in the second.")
    breaks: list[str] = Field(
        default_factory=list, description="Right in the first arm, wrong in the second."
    )
    p_value: float = 1.0
    cost_change: float | None = Field(
        None, description="Cost per fixture, second against first (−0.71 = −71 %)."
    )
    input_change: float | None = Field(None, description="Input tokens per fixture, second against first.")
    areas: list[AreaDelta] = Field(default_factory=list)

    @property
    def headline(self) -> str:
        return f"{self.second} fixes {len(self.fixes)}, breaks {len(self.breaks)} (p = {self.p_value:.2g})"


class FixtureRow(StrictModel):
    id: str
    area: str
    kind: str
    outcomes: dict[str, str] = Field(description="Arm → the fixture's outcome there.")


class Comparison(StrictModel):
    """What `mcp-evals compare` measured: written as comparison.json, rendered from it alone."""

    format: Literal["mcp-evals.comparison"] = COMPARISON_FORMAT
    schema_version: Literal[1] = 1
    provider: str
    model: str
    alpha: float
    arms: list[ArmSummary]
    pairs: list[PairedDifference]
    fixtures: list[FixtureRow]
    verdict: str = Field(description="The comparison in one paragraph (with remediation arms: the gate's).")
    preliminary: bool = False
    notes: list[str] = Field(default_factory=list)


@dataclass(frozen=True)
class ArmRecord:
    """An arm and its record, as the comparison reads them."""

    arm: ArmInfo
    results: Results


def _rightness(scorecard: Scorecard) -> dict[str, bool]:
    """Fixture id → whether its choice was right; fixtures never reached are left out."""
    return {
        fixture.id: fixture.outcome in CORRECT_OUTCOMES for fixture in scorecard.fixtures if fixture.reached
    }


def _per_fixture(total: float | None, count: int) -> float | None:
    return total / count if total is not None and count else None


def _retrieval(record: ArmRecord, scorecard: Scorecard) -> RetrievalSummary | None:
    if record.arm.kind not in REMEDIATIONS:
        return None
    header = record.results.header
    kinds = {fixture.id: fixture for fixture in header.fixtures}
    area_of = header.catalog.area_by_name
    found = retrieved = chosen = 0
    missed: list[MissedRetrieval] = []
    outcomes = {
        (fixture.id, sample.sample): sample.outcome
        for fixture in scorecard.fixtures
        for sample in fixture.samples
    }
    for result in record.results.results:
        fixture = kinds.get(result.fixture_id)
        if fixture is None or fixture.kind != "select" or not result.reached:
            continue
        found += 1
        retrieval = result.retrieval
        revealed = set(retrieval.revealed) if retrieval else set()
        hit = bool(revealed & set(fixture.expected_tools))
        if retrieval is not None and retrieval.area is not None:
            hit = any(area_of.get(name) == retrieval.area for name in fixture.expected_tools)
        if hit:
            retrieved += 1
            chosen += outcomes.get((result.fixture_id, result.sample)) == "correct_call"
        else:
            missed.append(
                MissedRetrieval(
                    fixture_id=result.fixture_id,
                    expected_tools=list(fixture.expected_tools),
                    searches=list(retrieval.searches) if retrieval else [],
                    area=retrieval.area if retrieval else None,
                )
            )
    return RetrievalSummary(
        recall=Rate.of(retrieved, found), selection_given_retrieval=Rate.of(chosen, retrieved), missed=missed
    )


def summarize_arm(record: ArmRecord, scorecard: Scorecard) -> ArmSummary:
    reached = [result for result in record.results.results if result.reached]
    usage = scorecard.usage
    metrics = scorecard.metrics
    requests = sum(result.retrieval.requests if result.retrieval else 1 for result in reached)
    tokens = usage.input_tokens + usage.cache_write_tokens + usage.cache_read_tokens
    answers = metrics.accuracy.total  # the reached answers the score is the mean of
    low, high = score_interval(metrics.score, answers) if metrics.score is not None else (None, None)
    return ArmSummary(
        arm=record.arm,
        planned=scorecard.coverage.planned,
        reached=scorecard.coverage.reached,
        top1=metrics.top1,
        top_k=metrics.top_k,
        k=metrics.k,
        refusal=metrics.refusal,
        accuracy=metrics.accuracy,
        score=metrics.score,
        score_low=low,
        score_high=high,
        cost_usd=usage.cost_usd,
        cost_per_fixture=_per_fixture(usage.cost_usd, len(reached)),
        input_tokens_per_fixture=_per_fixture(tokens, len(reached)),
        requests_per_fixture=_per_fixture(requests, len(reached)),
        retrieval=_retrieval(record, scorecard),
        gate=scorecard.gate,
    )


def _change(before: float | None, after: float | None) -> float | None:
    return (after - before) / before if before and after is not None else None


def paired_difference(
    first: ArmSummary, second: ArmSummary, right: dict[str, dict[str, bool]], areas: dict[str, str]
) -> PairedDifference:
    a, b = right[first.arm.name], right[second.arm.name]
    paired = sorted(set(a) & set(b))
    fixes = [fixture for fixture in paired if b[fixture] and not a[fixture]]
    breaks = [fixture for fixture in paired if a[fixture] and not b[fixture]]
    by_area: dict[str, list[str]] = defaultdict(list)
    for fixture in paired:
        by_area[areas[fixture]].append(fixture)
    area_rows = []
    for area, members in sorted(by_area.items()):
        before = 100 * sum(a[f] for f in members) / len(members)
        after = 100 * sum(b[f] for f in members) / len(members)
        area_rows.append(
            AreaDelta(
                area=area,
                paired=len(members),
                before=before,
                after=after,
                delta_pp=after - before,
                fixes=sum(1 for f in members if f in fixes),
                breaks=sum(1 for f in members if f in breaks),
            )
        )
    first_accuracy = 100 * sum(a[f] for f in paired) / len(paired) if paired else None
    second_accuracy = 100 * sum(b[f] for f in paired) / len(paired) if paired else None
    return PairedDifference(
        first=first.arm.name,
        second=second.arm.name,
        paired=len(paired),
        first_accuracy=first_accuracy,
        second_accuracy=second_accuracy,
        delta_pp=second_accuracy - first_accuracy
        if first_accuracy is not None and second_accuracy is not None
        else None,
        fixes=fixes,
        breaks=breaks,
        p_value=sign_test(len(breaks), len(fixes)),
        cost_change=_change(first.cost_per_fixture, second.cost_per_fixture),
        input_change=_change(first.input_tokens_per_fixture, second.input_tokens_per_fixture),
        areas=area_rows,
    )


def signed(value: float, digits: int = 1) -> str:
    """``+12.5`` / ``−8.9`` (a true minus sign), never ``-0.0``."""
    return f"{value + 0.0:+.{digits}f}".replace("-", "−")


def _points(delta: float | None) -> str:
    return "n/a" if delta is None else f"{signed(delta)} points"


def evidence(pair: PairedDifference) -> str:
    """``+12.5 points, p = 0.01, cost −71 %`` for a remediation against the full catalog."""
    parts = [_points(pair.delta_pp), f"p = {pair.p_value:.2g}"]
    change, what = (
        (pair.cost_change, "cost") if pair.cost_change is not None else (pair.input_change, "input tokens")
    )
    if change is not None:
        parts.append(f"{what} {signed(change * 100, 0)} %")
    return ", ".join(parts)


def _helped(pair: PairedDifference, alpha: float) -> bool:
    return pair.delta_pp is not None and pair.delta_pp > _EPSILON and pair.p_value < alpha


def verdict(arms: Sequence[ArmSummary], pairs: Sequence[PairedDifference], alpha: float) -> str:
    """The comparison in one paragraph."""
    if not pairs:
        return "Nothing to compare: one arm only."
    full = next((arm for arm in arms if arm.arm.kind == "full"), None)
    remedies = [
        pair
        for pair in pairs
        if full is not None
        and pair.first == full.arm.name
        and pair.second in {arm.arm.name for arm in arms if arm.arm.kind in REMEDIATIONS}
    ]
    if full is not None and remedies:
        gate = full.gate
        helped = sorted(
            (pair for pair in remedies if _helped(pair, alpha)), key=lambda p: -(p.delta_pp or 0.0)
        )
        opening = (
            gate.message if gate.decision else f"The full catalog: top-1 {format_percent(full.top1.value)}."
        )
        if helped:
            found = "; ".join(f"{pair.second}: {evidence(pair)}" for pair in helped)
            return f"{opening} On this catalog the remediation that helped: {found}."
        tried = "; ".join(f"{pair.second}: {evidence(pair)}" for pair in remedies)
        return (
            f"{opening} None of the remediations tried helped on this catalog (a real gain needs p "
            f"below {alpha:g}): {tried}."
        )
    pair = pairs[0]
    if pair.paired == 0:
        return "No fixture was reached in both arms: nothing to compare."
    headline = pair.headline + f" on {plural(pair.paired, 'fixture')} answered in both"
    if _helped(pair, alpha):
        return f"{headline}: {pair.second} is better ({_points(pair.delta_pp)}, p below {alpha:g})."
    worse = pair.delta_pp is not None and pair.delta_pp < -_EPSILON and pair.p_value < alpha
    if worse:
        return f"{headline}: {pair.second} is worse ({_points(pair.delta_pp)}, p below {alpha:g})."
    return (
        f"{headline}: no difference the paired test can tell from noise ({_points(pair.delta_pp)}; "
        f"p ≥ {alpha:g}). Add fixtures or samples to tell."
    )


def compare_arms(records: Sequence[ArmRecord], *, alpha: float = 0.05) -> Comparison:
    """Score every arm's record and compare them, every pair of arms in order."""
    scorecards = [score_results(record.results) for record in records]
    summaries = [summarize_arm(record, card) for record, card in zip(records, scorecards, strict=True)]
    right = {record.arm.name: _rightness(card) for record, card in zip(records, scorecards, strict=True)}
    areas = {fixture.id: fixture.area for card in scorecards for fixture in card.fixtures}
    pairs = [
        paired_difference(summaries[i], summaries[j], right, areas)
        for i in range(len(summaries))
        for j in range(i + 1, len(summaries))
    ]
    outcomes = [{fixture.id: fixture.outcome for fixture in card.fixtures} for card in scorecards]
    rows = [
        FixtureRow(
            id=fixture.id,
            area=fixture.area,
            kind=fixture.kind,
            outcomes={
                record.arm.name: found.get(fixture.id, "dropout")
                for record, found in zip(records, outcomes, strict=True)
            },
        )
        for fixture in scorecards[0].fixtures
    ]
    header = records[0].results.header
    notes = sorted({note for card in scorecards for note in card.notes})
    return Comparison(
        provider=header.provider,
        model=header.model,
        alpha=alpha,
        arms=summaries,
        pairs=pairs,
        fixtures=rows,
        verdict=verdict(summaries, pairs, alpha),
        preliminary=any(card.preliminary for card in scorecards),
        notes=notes,
    )

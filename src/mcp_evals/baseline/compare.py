"""The accepted baseline, and whether a run regressed from it.

``mcp-evals baseline accept RESULTS --out evals/baseline.json`` writes a run's fingerprint (everything
that makes two runs comparable), its scores and every fixture's outcome. Nothing else ever writes it.

Comparing a run with a baseline:

1. Fingerprints that differ in anything but the catalog → *not comparable* (with the reasons); a
   changed catalog is exactly what the comparison is for.
2. Fixtures reached in both runs are paired. *Regressions* passed before and fail now, *fixes* the
   reverse.
3. The verdict is *regression* (fails the job) only when the score on the paired fixtures fell by more
   than ``max_drop_pp`` points **and** McNemar's exact test on the paired pass/fail says the drop is
   unlikely to be noise (p < ``alpha``). A large drop the test cannot confirm is *insufficient data*:
   shown as such, never as a pass. Otherwise *fixes* (it got better) or *within tolerance*.
"""

from __future__ import annotations

import json
import math
from math import comb
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from mcp_evals.config.model import BaselineOptions, ScoringOptions
from mcp_evals.record.model import SamplingSettings, now_iso
from mcp_evals.score import Scorecard
from mcp_evals.strict import StrictModel
from mcp_evals.wording import plural

BASELINE_FORMAT: Literal["mcp-evals.baseline"] = "mcp-evals.baseline"
BASELINE_SCHEMA_VERSION: Literal[1] = 1
_EPSILON = 1e-9

Verdict = Literal["regression", "insufficient_data", "not_comparable", "fixes", "within_tolerance"]
VERDICT_LABELS: dict[str, str] = {
    "regression": "regression",
    "insufficient_data": "insufficient data",
    "not_comparable": "not comparable",
    "fixes": "fixes",
    "within_tolerance": "within tolerance",
}


class Fingerprint(StrictModel):
    """What must match for two runs to be compared (the catalog may differ: that is the point)."""

    catalog_hash: str
    fixture_set_hash: str
    provider: str
    model: str
    system_prompt_hash: str
    tool_choice: str
    sampling: SamplingSettings
    scoring: ScoringOptions


class BaselineScores(StrictModel):
    top1: float | None = None
    top_k: float | None = None
    accuracy: float | None = None
    refusal: float | None = None
    clarification: float | None = None
    arguments: float | None = None
    score: float | None = None
    coverage: float | None = None


class BaselineFixture(StrictModel):
    outcome: str
    passed: bool | None
    score: float | None


class Baseline(StrictModel):
    """The contents of ``evals/baseline.json``."""

    format: Literal["mcp-evals.baseline"] = BASELINE_FORMAT
    schema_version: Literal[1] = BASELINE_SCHEMA_VERSION
    accepted_at: str = Field(default_factory=now_iso)
    tool_version: str
    run_id: str
    preliminary: bool = False
    fingerprint: Fingerprint
    tools: dict[str, str] = Field(default_factory=dict, description="Tool name → short content hash.")
    scores: BaselineScores
    fixtures: dict[str, BaselineFixture]


class FingerprintDifference(StrictModel):
    field: str
    baseline: str
    current: str


class FixtureChange(StrictModel):
    id: str
    before: str
    after: str
    before_score: float | None = None
    after_score: float | None = None


class CatalogChanges(StrictModel):
    added: list[str] = Field(default_factory=list)
    removed: list[str] = Field(default_factory=list)
    changed: list[str] = Field(default_factory=list)

    @property
    def any(self) -> bool:
        return bool(self.added or self.removed or self.changed)


class BaselineComparison(StrictModel):
    """A run compared with the accepted baseline."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, serialize_by_alias=True)

    verdict: Verdict
    message: str
    fails: bool = Field(False, description="True when this comparison fails the job (exit 1).")
    lexical: bool = Field(
        False, alias="advisory", description="True for the lexical baseline: shown, never fails."
    )
    baseline_path: str | None = None
    accepted_at: str
    baseline_run_id: str
    differences: list[FingerprintDifference] = Field(default_factory=list)
    catalog: CatalogChanges = Field(default_factory=CatalogChanges)
    paired: int = Field(0, description="Fixtures reached in both runs.")
    baseline_score: float | None = Field(None, description="Baseline score on the paired fixtures (0–100).")
    current_score: float | None = Field(None, description="This run's score on the paired fixtures (0–100).")
    drop_pp: float | None = Field(None, description="baseline_score − current_score, in points.")
    p_value: float | None = None
    max_drop_pp: float
    alpha: float
    regressions: list[FixtureChange] = Field(default_factory=list)
    fixes: list[FixtureChange] = Field(default_factory=list)

    @property
    def label(self) -> str:
        return VERDICT_LABELS[self.verdict]


def mcnemar_exact(regressions: int, fixes: int) -> float:
    """Two-sided exact McNemar p-value: discordant pairs against Binomial(n, ½)."""
    if regressions < 0 or fixes < 0:
        raise ValueError("counts must not be negative")
    n = regressions + fixes
    if n == 0:
        return 1.0
    tail = sum(comb(n, i) for i in range(min(regressions, fixes) + 1))
    return min(1.0, 2 * tail / float(2**n))


def fingerprint(scorecard: Scorecard) -> Fingerprint:
    run = scorecard.run
    return Fingerprint(
        catalog_hash=run.catalog_hash,
        fixture_set_hash=run.fixture_set_hash,
        provider=run.provider,
        model=run.model,
        system_prompt_hash=run.system_prompt_hash,
        tool_choice=run.tool_choice,
        sampling=run.sampling,
        scoring=scorecard.scoring,
    )


def make_baseline(scorecard: Scorecard, *, accepted_at: str | None = None) -> Baseline:
    """The baseline a scorecard would be accepted as."""
    metrics = scorecard.metrics
    return Baseline(
        accepted_at=accepted_at or now_iso(),
        tool_version=scorecard.run.tool_version,
        run_id=scorecard.run.run_id,
        preliminary=scorecard.preliminary,
        fingerprint=fingerprint(scorecard),
        tools=dict(sorted(scorecard.run.tool_hashes.items())),
        scores=BaselineScores(
            top1=metrics.top1.value,
            top_k=metrics.top_k.value,
            accuracy=metrics.accuracy.value,
            refusal=metrics.refusal.value,
            clarification=metrics.clarification.value,
            arguments=metrics.arguments.value,
            score=metrics.score,
            coverage=scorecard.coverage.rate,
        ),
        fixtures={
            fixture.id: BaselineFixture(outcome=fixture.outcome, passed=fixture.passed, score=fixture.score)
            for fixture in scorecard.fixtures
        },
    )


def _describe(value: object) -> str:
    if isinstance(value, BaseModel):
        return json.dumps(value.model_dump(mode="json"), sort_keys=True)
    return str(value)


def fingerprint_differences(baseline: Fingerprint, current: Fingerprint) -> list[FingerprintDifference]:
    """Every field but the catalog hash that differs."""
    differences = []
    for name in Fingerprint.model_fields:
        if name == "catalog_hash":
            continue
        before, after = getattr(baseline, name), getattr(current, name)
        if before != after:
            differences.append(
                FingerprintDifference(field=name, baseline=_describe(before), current=_describe(after))
            )
    return differences


def catalog_changes(baseline_tools: dict[str, str], current_tools: dict[str, str]) -> CatalogChanges:
    return CatalogChanges(
        added=sorted(set(current_tools) - set(baseline_tools)),
        removed=sorted(set(baseline_tools) - set(current_tools)),
        changed=sorted(
            name
            for name in set(current_tools) & set(baseline_tools)
            if current_tools[name] != baseline_tools[name]
        ),
    )


def _drop_points(drop: float, tolerance: float) -> str:
    """A drop beyond the tolerance never prints as the tolerance itself (5.04 → ``5.04``, not ``5.0``)."""
    text = f"{drop:.1f}"
    if drop > tolerance + _EPSILON and float(text) <= tolerance:
        text = f"{math.floor(drop * 100) / 100:.2f}"
    return text


def compare_with_baseline(
    scorecard: Scorecard,
    baseline: Baseline,
    options: BaselineOptions | None = None,
    *,
    baseline_path: str | None = None,
) -> BaselineComparison:
    """Compare a scored run with the accepted baseline (see the module docstring for the rules)."""
    options = options or BaselineOptions()
    base = BaselineComparison(
        verdict="within_tolerance",
        message="",
        accepted_at=baseline.accepted_at,
        baseline_run_id=baseline.run_id,
        baseline_path=baseline_path,
        max_drop_pp=options.max_drop_pp,
        alpha=options.alpha,
        lexical=scorecard.run.lexical,
        catalog=catalog_changes(baseline.tools, scorecard.run.tool_hashes),
    )
    differences = fingerprint_differences(baseline.fingerprint, fingerprint(scorecard))
    if differences:
        reasons = "; ".join(f"{d.field} differs" for d in differences)
        return base.model_copy(
            update={
                "verdict": "not_comparable",
                "message": f"Not comparable with the baseline: {reasons}. "
                "Accept a new baseline to compare from here on.",
                "differences": differences,
            }
        )

    regressions: list[FixtureChange] = []
    fixes: list[FixtureChange] = []
    before_scores: list[float] = []
    after_scores: list[float] = []
    for fixture in scorecard.fixtures:
        before = baseline.fixtures.get(fixture.id)
        if before is None or before.passed is None or fixture.passed is None:
            continue
        before_scores.append(before.score or 0.0)
        after_scores.append(fixture.score or 0.0)
        change = FixtureChange(
            id=fixture.id,
            before=before.outcome,
            after=fixture.outcome,
            before_score=before.score,
            after_score=fixture.score,
        )
        if before.passed and not fixture.passed:
            regressions.append(change)
        elif fixture.passed and not before.passed:
            fixes.append(change)
    paired = len(before_scores)
    counts = f"{plural(len(regressions), 'regression')}, {plural(len(fixes), 'fix', 'fixes')}"
    if paired == 0:
        return base.model_copy(
            update={
                "verdict": "insufficient_data",
                "message": "Insufficient data: no fixture was reached in both this run and the baseline.",
                "fails": options.fail_on_insufficient_data and not scorecard.run.lexical,
            }
        )
    baseline_score = sum(before_scores) / paired
    current_score = sum(after_scores) / paired
    drop = baseline_score - current_score
    p_value = mcnemar_exact(len(regressions), len(fixes))
    dropped = _drop_points(drop, options.max_drop_pp)
    digits = len(dropped.partition(".")[2])  # the scores as precise as the drop they explain
    movement = f"{baseline_score:.{digits}f} → {current_score:.{digits}f}"
    movement += f" on {plural(paired, 'fixture')} in both runs"
    if drop > options.max_drop_pp + _EPSILON:
        if p_value < options.alpha:
            verdict: Verdict = "regression"
            message = (
                f"Regression: the score fell {dropped} points ({movement}), beyond the "
                f"{options.max_drop_pp:g}-point tolerance, and McNemar's exact test says it is not noise "
                f"(p = {p_value:.3g} < {options.alpha:g}; {counts})."
            )
            fails = not scorecard.run.lexical
        else:
            verdict = "insufficient_data"
            message = (
                f"Insufficient data: the score fell {dropped} points ({movement}), beyond the "
                f"{options.max_drop_pp:g}-point tolerance, but McNemar's exact test cannot tell it from "
                f"noise (p = {p_value:.3g} ≥ {options.alpha:g}; {counts}). "
                "Not a pass: add fixtures or samples."
            )
            fails = options.fail_on_insufficient_data and not scorecard.run.lexical
    elif fixes and current_score > baseline_score + _EPSILON:
        verdict, fails = "fixes", False
        message = f"Fixes: the score rose {-drop:.1f} points ({movement}; {counts})."
    else:
        verdict, fails = "within_tolerance", False
        delta = round(current_score - baseline_score, 1) + 0.0  # no "-0.0"
        message = (
            f"Within tolerance: the score changed {delta:+.1f} points "
            f"({movement}; {counts}); "
            f"the tolerance is {options.max_drop_pp:g} points."
        )
    return base.model_copy(
        update={
            "verdict": verdict,
            "message": message,
            "fails": fails,
            "paired": paired,
            "baseline_score": baseline_score,
            "current_score": current_score,
            "drop_pp": drop,
            "p_value": p_value,
            "regressions": regressions,
            "fixes": fixes,
        }
    )

"""The accepted baseline, and whether a run fell below it.

``mcp-evals baseline accept RESULTS --out evals/baseline.json`` writes a run's fingerprint (what makes
two runs comparable), its scores and every fixture's outcome, score and content hash. Nothing else
ever writes it.

Comparing a run with a baseline (the rule of the system this project grew from, with the statistics
beside it):

1. A different provider, model, system prompt, tool-choice mode, sampling or scoring settings make
   the runs *not comparable* (the report says what differs and how to accept a new baseline). A
   changed catalog is what the comparison is for; a changed fixture set is compared on what both
   runs share.
2. Fixtures are paired when both runs reached them and they have the same id and the same content
   (query, kind, expected tools and arguments, pattern). Added, removed and changed fixtures are
   counted and listed, not paired.
3. Each pair compares the fixture's score (0–100): a *regression* is a fixture whose score went down,
   a *fix* one whose score went up. *Tool-choice regressions* — the right tool before, a wrong one
   (or none) now — are listed on their own.
4. The verdict (``baseline.gate: drop``, the default): the score on the paired fixtures more than
   ``max_drop_points`` below the baseline's is a *regression* and fails the run, listing the fixtures
   that dropped. The exact sign test on the pairs (McNemar's test generalised to scores) and the
   Student's t interval of the mean drop (``stats``) are shown beside it as information: a drop the
   test cannot tell from noise still fails, with a note saying so. ``baseline.gate: significant``
   fails only when the test also gives p < ``alpha`` (else *insufficient data*).
"""

from __future__ import annotations

import hashlib
import json
import math
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from mcp_evals.answers import now_iso
from mcp_evals.catalog.model import canonical_json
from mcp_evals.config.model import BaselineOptions, ScoringOptions
from mcp_evals.record.model import SamplingSettings
from mcp_evals.score import FixtureScore, Scorecard
from mcp_evals.stats import mean_interval, sign_test
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
    content: str | None = Field(
        None, description="Hash of what the fixture asks and expects (None in baselines made before it)."
    )


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


class FixtureSetChanges(StrictModel):
    """Fixtures not paired with the baseline: new ids, ids gone, and ids whose content changed."""

    added: list[str] = Field(default_factory=list)
    removed: list[str] = Field(default_factory=list)
    changed: list[str] = Field(default_factory=list)

    @property
    def any(self) -> bool:
        return bool(self.added or self.removed or self.changed)


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
    rule: Literal["drop", "significant"] = Field(
        "drop", description="`drop`: the score drop alone decides; `significant`: the test must agree."
    )
    fixture_set: FixtureSetChanges = Field(default_factory=FixtureSetChanges)
    paired: int = Field(0, description="Fixtures both runs reached, with the same id and content.")
    baseline_score: float | None = Field(None, description="Baseline score on the paired fixtures (0–100).")
    current_score: float | None = Field(None, description="This run's score on the paired fixtures (0–100).")
    drop_pp: float | None = Field(None, description="baseline_score − current_score, in points.")
    drop_low: float | None = Field(None, description="Lower end of the drop's 95% interval (points).")
    drop_high: float | None = Field(None, description="Upper end of the drop's 95% interval (points).")
    p_value: float | None = Field(None, description="Exact two-sided sign test on the paired scores.")
    noise_note: str | None = Field(
        None, description="When the test cannot tell the change from noise: what would help."
    )
    max_drop_pp: float = Field(description="The tolerated drop, in points (`baseline.max_drop_points`).")
    alpha: float
    regressions: list[FixtureChange] = Field(
        default_factory=list, description="Paired fixtures whose score went down."
    )
    fixes: list[FixtureChange] = Field(
        default_factory=list, description="Paired fixtures whose score went up."
    )
    tool_regressions: list[FixtureChange] = Field(
        default_factory=list,
        description="Paired fixtures with the right tool before and a wrong one (or none) now.",
    )

    @property
    def label(self) -> str:
        return VERDICT_LABELS[self.verdict]


def fixture_content(fixture: FixtureScore) -> str:
    """What a fixture asks and expects, hashed: a change makes it another fixture for the baseline."""
    content = {
        "query": fixture.query,
        "kind": fixture.kind,
        "expected_tools": sorted(fixture.expected_tools),
        "expected_args": fixture.expected_args,
        "pattern": fixture.pattern,
    }
    return hashlib.sha256(canonical_json(content).encode("utf-8")).hexdigest()[:16]


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
            top_k=metrics.top_k.value if metrics.top_k else None,
            accuracy=metrics.accuracy.value,
            refusal=metrics.refusal.value,
            clarification=metrics.clarification.value,
            arguments=metrics.arguments.value,
            score=metrics.score,
            coverage=scorecard.coverage.rate,
        ),
        fixtures={
            fixture.id: BaselineFixture(
                outcome=fixture.outcome,
                passed=fixture.passed,
                score=fixture.score,
                content=fixture_content(fixture),
            )
            for fixture in scorecard.fixtures
        },
    )


def _describe(value: object) -> str:
    if isinstance(value, BaseModel):
        return json.dumps(value.model_dump(mode="json"), sort_keys=True)
    return str(value)


# What the comparison is for (the catalog) or handles fixture by fixture (the fixture set).
_COMPARED = ("catalog_hash", "fixture_set_hash")
_FIELD_NAMES = {
    "provider": "the provider",
    "model": "the model",
    "system_prompt_hash": "the system prompt",
    "tool_choice": "the tool-choice mode",
    "sampling": "the sampling settings",
    "scoring": "the scoring settings",
}


def fingerprint_differences(baseline: Fingerprint, current: Fingerprint) -> list[FingerprintDifference]:
    """Every field that makes the runs not comparable (not the catalog, not the fixture set) and differs."""
    differences = []
    for name in Fingerprint.model_fields:
        if name in _COMPARED:
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
    lexical = scorecard.run.lexical
    base = BaselineComparison(
        verdict="within_tolerance",
        message="",
        accepted_at=baseline.accepted_at,
        baseline_run_id=baseline.run_id,
        baseline_path=baseline_path,
        max_drop_pp=options.max_drop_points,
        alpha=options.alpha,
        rule=options.gate,
        lexical=lexical,
        catalog=catalog_changes(baseline.tools, scorecard.run.tool_hashes),
    )
    differences = fingerprint_differences(baseline.fingerprint, fingerprint(scorecard))
    if differences:
        what = "; ".join(
            f"{_FIELD_NAMES.get(d.field, d.field)} differs ({_short(d.baseline)} → {_short(d.current)})"
            for d in differences
        )
        target = baseline_path or "evals/baseline.json"
        return base.model_copy(
            update={
                "verdict": "not_comparable",
                "message": f"Not comparable with the baseline: {what}. A baseline compares runs of one "
                "setup; if this setup is the one to keep, accept this run as the new baseline: "
                f"`mcp-evals baseline accept RESULTS --out {target}`.",
                "differences": differences,
            }
        )

    changes = FixtureSetChanges()
    current_ids = {fixture.id for fixture in scorecard.fixtures}
    changes.removed = sorted(set(baseline.fixtures) - current_ids)
    regressions: list[FixtureChange] = []
    fixes: list[FixtureChange] = []
    tool_regressions: list[FixtureChange] = []
    before_scores: list[float] = []
    after_scores: list[float] = []
    for fixture in scorecard.fixtures:
        before = baseline.fixtures.get(fixture.id)
        if before is None:
            changes.added.append(fixture.id)
            continue
        if before.content is not None and before.content != fixture_content(fixture):
            changes.changed.append(fixture.id)
            continue
        if before.score is None or fixture.score is None:  # a dropout on either side
            continue
        before_scores.append(before.score)
        after_scores.append(fixture.score)
        change = FixtureChange(
            id=fixture.id,
            before=before.outcome,
            after=fixture.outcome,
            before_score=before.score,
            after_score=fixture.score,
        )
        if fixture.score < before.score - _EPSILON:
            regressions.append(change)
            lost = ("wrong_tool", "unknown_tool", "missed_action")
            if before.outcome == "correct_call" and fixture.outcome in lost:
                tool_regressions.append(change)
        elif fixture.score > before.score + _EPSILON:
            fixes.append(change)
    base = base.model_copy(update={"fixture_set": changes})
    paired = len(before_scores)
    counts = f"{plural(len(regressions), 'regression')}, {plural(len(fixes), 'fix', 'fixes')}"
    if paired == 0:
        return base.model_copy(
            update={
                "verdict": "insufficient_data",
                "message": "Insufficient data: no fixture was reached in both this run and the baseline "
                "with the same content.",
                "fails": options.fail_on_insufficient_data and not lexical,
            }
        )
    baseline_score = sum(before_scores) / paired
    current_score = sum(after_scores) / paired
    drop = baseline_score - current_score
    interval = mean_interval([b - a for b, a in zip(before_scores, after_scores, strict=True)])
    p_value = sign_test(len(regressions), len(fixes))
    noisy = p_value >= options.alpha
    noise_note = (
        f"could be noise: p = {p_value:.3g} on {plural(paired, 'fixture')} — add fixtures or `--samples 3`"
        if noisy and (regressions or fixes)
        else None
    )
    dropped = _drop_points(drop, options.max_drop_points)
    digits = len(dropped.partition(".")[2])  # the scores as precise as the drop they explain
    movement = f"{baseline_score:.{digits}f} → {current_score:.{digits}f}"
    movement += f" on {plural(paired, 'fixture')} in both runs"
    statistics = f"sign test p = {p_value:.3g}"
    if interval is not None:
        statistics += f"; drop 95% interval {interval.low:.1f} to {interval.high:.1f} points"
    tolerance = f"{options.max_drop_points:g}-point tolerance"
    fails = False
    if drop > options.max_drop_points + _EPSILON:
        if options.gate == "drop" or not noisy:
            verdict: Verdict = "regression"
            message = (
                f"Regression: the score fell {dropped} points ({movement}), beyond the {tolerance} "
                f"({counts}; {statistics})."
            )
            if noise_note:
                message += f" The drop fails the run all the same ({noise_note})."
            fails = not lexical
        else:
            verdict = "insufficient_data"
            message = (
                f"Insufficient data: the score fell {dropped} points ({movement}), beyond the {tolerance}, "
                f"but the sign test cannot tell it from noise ({counts}; {statistics}; "
                f"`baseline.gate: significant` needs p < {options.alpha:g}). Not a pass: add fixtures or "
                "samples."
            )
            fails = options.fail_on_insufficient_data and not lexical
    elif fixes and current_score > baseline_score + _EPSILON:
        verdict = "fixes"
        message = f"Fixes: the score rose {-drop:.1f} points ({movement}; {counts}; {statistics})."
    else:
        verdict = "within_tolerance"
        delta = round(current_score - baseline_score, 1) + 0.0  # no "-0.0"
        message = (
            f"Within tolerance: the score changed {delta:+.1f} points ({movement}; {counts}; {statistics}); "
            f"the tolerance is {options.max_drop_points:g} points."
        )
    if tool_regressions:
        message += f" {plural(len(tool_regressions), 'fixture')} lost the right tool."
    if changes.any:
        message += (
            f" Not compared: {len(changes.added)} added, {len(changes.removed)} removed, "
            f"{len(changes.changed)} changed fixtures."
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
            "drop_low": interval.low if interval else None,
            "drop_high": interval.high if interval else None,
            "p_value": p_value,
            "noise_note": noise_note,
            "regressions": regressions,
            "fixes": fixes,
            "tool_regressions": tool_regressions,
        }
    )


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"

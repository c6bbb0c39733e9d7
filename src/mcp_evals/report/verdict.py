"""The one-line verdict every report starts with, and the exit code that goes with it.

Exit codes: 0 ok (advisory decisions included) · 1 the gate (``fail_on``, an area minimum) or a
baseline regression fails the job · 2 PRELIMINARY (some answers never reached the model; it wins
over 1, because nothing decided on an incomplete run is authoritative).
"""

from __future__ import annotations

from mcp_evals.baseline.compare import BaselineComparison
from mcp_evals.errors import EXIT_CHECK_FAILED, EXIT_OK, EXIT_PRELIMINARY
from mcp_evals.report.escape import plain
from mcp_evals.score import Rate, Scorecard
from mcp_evals.score.gate import format_percent

LEXICAL_BASELINE = "lexical baseline"


def exit_code(scorecard: Scorecard, comparison: BaselineComparison | None = None) -> int:
    if scorecard.preliminary:
        return EXIT_PRELIMINARY
    if scorecard.gate.fails or (comparison is not None and comparison.fails):
        return EXIT_CHECK_FAILED
    return EXIT_OK


def interval(rate: Rate, thresholds: tuple[float, ...] = ()) -> str:
    """``87.5% (95% CI 78.2–93.1%)``, or ``n/a`` without data; never rounded onto a threshold."""
    if rate.value is None:
        return "n/a"
    value = format_percent(rate.value, thresholds)
    return f"{value} (95% CI {format_percent(rate.low)}–{format_percent(rate.high)})"


def gate_thresholds(scorecard: Scorecard) -> tuple[float, float]:
    """The top-1 values the gate decides at: a top-1 shown anywhere must not round onto one."""
    return scorecard.gate.remediate_below, scorecard.gate.deprioritize_at


def who(scorecard: Scorecard) -> str:
    """``provider/model``, or the lexical baseline named as such (never as a model)."""
    run = scorecard.run
    if run.lexical:
        return LEXICAL_BASELINE
    return f"{run.provider}/{run.model}"


def status(scorecard: Scorecard, comparison: BaselineComparison | None = None) -> str:
    """``PRELIMINARY`` / ``FAILED`` / the gate decision, as the verdict's first words."""
    gate = scorecard.gate
    coverage = scorecard.coverage
    if scorecard.preliminary:
        reached = f"{coverage.reached}/{coverage.planned} answers reached"
        if coverage.missing_shards:
            reached += f", shards {', '.join(coverage.missing_shards)} missing"
        judged = f"{gate.label} not authoritative" if gate.decision is not None else "no gate decision"
        return f"PRELIMINARY ({reached}; {judged})"
    if not gate.gated:
        return gate.label
    if exit_code(scorecard, comparison) == EXIT_CHECK_FAILED:
        reasons = []
        if gate.decision is not None and gate.decision in scorecard.gate_options.fail_on and gate.fails:
            reasons.append(gate.label)
        if gate.area_shortfalls and gate.fails:
            reasons.append("area minimum")
        if comparison is not None and comparison.fails:
            reasons.append(f"baseline {comparison.label}")
        if gate.label not in reasons:  # the decision belongs in the first line even when it isn't why
            reasons.append(f"gate {gate.label}")
        return f"FAILED: {', '.join(reasons)}"
    return gate.label


def verdict_parts(scorecard: Scorecard, comparison: BaselineComparison | None = None) -> tuple[str, str, str]:
    """(status, top-1 with its interval, who): the pieces of the first line, unescaped."""
    top1 = interval(scorecard.metrics.top1, gate_thresholds(scorecard))
    return status(scorecard, comparison), f"top-1 {top1}", who(scorecard)


def verdict_text(scorecard: Scorecard, comparison: BaselineComparison | None = None) -> str:
    """The verdict as one plain line (terminal, JSON, JUnit)."""
    state, top1, by = verdict_parts(scorecard, comparison)
    return f"mcp-evals: {state} — {top1} · {plain(by, 120)}{baseline_note(comparison)}"


def baseline_note(comparison: BaselineComparison | None) -> str:
    """`` · baseline: within tolerance`` for the first line; empty when the status already says it."""
    if comparison is None or comparison.fails:
        return ""
    return f" · baseline: {comparison.label}"

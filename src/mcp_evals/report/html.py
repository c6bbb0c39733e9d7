"""The HTML report: one self-contained file (inline CSS and JS, no external assets), autoescaped.

A Content-Security-Policy meta tag forbids loading anything, so even a mistake could not make the
page fetch from elsewhere.
"""

from __future__ import annotations

from mcp_evals.baseline.compare import BaselineComparison
from mcp_evals.report.formatting import environment, failing_fixtures
from mcp_evals.report.verdict import baseline_note, exit_code, verdict_parts
from mcp_evals.score import OUTCOMES, Scorecard


def render_html(scorecard: Scorecard, *, baseline_comparison: BaselineComparison | None = None) -> str:
    """The HTML report as text."""
    state, top1, by = verdict_parts(scorecard, baseline_comparison)
    template = environment("html").get_template("report.html.j2")
    present = {fixture.kind for fixture in scorecard.fixtures}
    return template.render(
        s=scorecard,
        c=baseline_comparison,
        state=state,
        top1=top1,
        by=by,
        baseline_note=baseline_note(baseline_comparison),
        exit_code=exit_code(scorecard, baseline_comparison),
        failing=failing_fixtures(scorecard),
        outcomes=[outcome for outcome in OUTCOMES if scorecard.metrics.outcomes.get(outcome)],
        kinds=[kind for kind in ("select", "refuse", "clarify") if kind in present],
    )

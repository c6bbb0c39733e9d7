"""The Markdown report: for a PR comment and a job summary.

GitHub refuses a comment over 65,536 characters and drops a step summary over 1 MiB. The report is
rendered in full first; when it is too long, the long tables (failing fixtures, tools, pairs, areas,
baseline changes) are cut to fewer rows with a note, down to a minimal report. The first line — the
verdict — is never cut.
"""

from __future__ import annotations

from typing import Any

from mcp_evals.baseline.compare import BaselineComparison
from mcp_evals.report.escape import mermaid_labels
from mcp_evals.report.formatting import environment, failing_fixtures, take
from mcp_evals.report.verdict import baseline_note, exit_code, verdict_parts
from mcp_evals.score import Scorecard

GITHUB_COMMENT_LIMIT = 65_536
GITHUB_SUMMARY_LIMIT = 1024 * 1024
DEFAULT_MAX_CHARS = 65_000
MAX_CHART_BARS = 30
# The top pairs are what to fix first; a long tail of one-off pairs is noise in a PR comment.
MAX_CONFUSION_PAIRS = 10
# Row limits tried in turn until the report fits; None = every row.
_LEVELS: tuple[int | None, ...] = (None, 200, 100, 50, 20, 10, 5, 0)


def size_in_chars(text: str) -> int:
    """Length as GitHub counts it, conservatively: UTF-16 code units (an emoji counts as two)."""
    return len(text.encode("utf-16-le")) // 2


def _icon(scorecard: Scorecard, comparison: BaselineComparison | None) -> str:
    if scorecard.preliminary:
        return "⚠️"
    if exit_code(scorecard, comparison) == 1:
        return "❌"
    if scorecard.run.lexical:
        return "ℹ️"
    return {"remediate": "🔴", "gray_zone": "🟡", "deprioritize_refactor": "🟢"}.get(
        scorecard.gate.decision or "", "⚪"
    )


def _context(
    scorecard: Scorecard, comparison: BaselineComparison | None, limit: int | None, minimal: bool
) -> dict[str, Any]:
    state, top1, by = verdict_parts(scorecard, comparison)
    chart = [area for area in scorecard.areas if area.accuracy.value is not None][:MAX_CHART_BARS]
    failing = failing_fixtures(scorecard)
    pair_limit = MAX_CONFUSION_PAIRS if limit is None else min(limit, MAX_CONFUSION_PAIRS)
    return {
        "s": scorecard,
        "c": comparison,
        "icon": _icon(scorecard, comparison),
        "state": state,
        "top1": top1,
        "by": by,
        "baseline_note": baseline_note(comparison),
        "limit": limit,
        "minimal": minimal,
        "failing": take(failing, limit),
        "areas": take(scorecard.areas, None if limit is None else max(limit, 10)),
        "chart": chart if len(chart) >= 2 and not minimal else [],
        "chart_labels": mermaid_labels([area.area for area in chart]),
        "chart_hidden": max(
            0, len([a for a in scorecard.areas if a.accuracy.value is not None]) - MAX_CHART_BARS
        ),
        "pairs": take(scorecard.confusion_pairs, pair_limit),
        "unknown": take(scorecard.unknown_tools, pair_limit),
        "tools": take(scorecard.tools, limit),
        "flaky": take(scorecard.flaky, limit),
        "errors": take(list(scorecard.errors_by_kind.items()), None if limit is None else max(limit, 5)),
        "notes": take(scorecard.notes, None if limit is None else max(limit, 3)),
        "regressions": take(comparison.regressions if comparison else [], limit),
        "fixes": take(comparison.fixes if comparison else [], limit),
        "differences": take(
            comparison.differences if comparison else [], None if limit is None else max(limit, 5)
        ),
        "catalog_limit": 20 if limit is None else max(min(limit, 20), 3),
        "shortened": limit is not None,
    }


def _render(
    scorecard: Scorecard, comparison: BaselineComparison | None, limit: int | None, minimal: bool
) -> str:
    template = environment("markdown").get_template("report.md.j2")
    return template.render(**_context(scorecard, comparison, limit, minimal))


def render_markdown(
    scorecard: Scorecard,
    *,
    baseline_comparison: BaselineComparison | None = None,
    max_chars: int | None = DEFAULT_MAX_CHARS,
    max_bytes: int | None = None,
) -> str:
    """The Markdown report (first line: the verdict), within ``max_chars`` (UTF-16) and ``max_bytes``.

    Use the defaults for a PR comment; ``max_chars=None, max_bytes=GITHUB_SUMMARY_LIMIT`` for a job
    summary.
    """

    def fits(text: str) -> bool:
        return (max_chars is None or size_in_chars(text) <= max_chars) and (
            max_bytes is None or len(text.encode("utf-8")) <= max_bytes
        )

    # A table row takes at least ~100 characters: skip the levels that cannot fit.
    budget = min(value for value in (max_chars, max_bytes, 10**12) if value is not None)
    rows = max(len(scorecard.fixtures), len(scorecard.tools))
    levels = [level for level in _LEVELS if (level if level is not None else rows) * 100 <= budget] or [0]
    text = ""
    for limit in levels:
        text = _render(scorecard, baseline_comparison, limit, minimal=False)
        if fits(text):
            return text
    text = _render(scorecard, baseline_comparison, 0, minimal=True)
    if fits(text):
        return text
    return _hard_cut(text, max_chars, max_bytes)


def _hard_cut(text: str, max_chars: int | None, max_bytes: int | None) -> str:
    """Last resort for absurd limits: keep the verdict line and as much as fits after it."""
    note = "\n\n*(report cut to fit the size limit: see the JSON or HTML report)*\n"
    first, _, rest = text.partition("\n")
    budget_chars = (max_chars if max_chars is not None else 10**12) - size_in_chars(first + note) - 1
    budget_bytes = (max_bytes if max_bytes is not None else 10**12) - len((first + note).encode("utf-8")) - 1
    kept = ""
    for line in rest.splitlines(keepends=True):
        if size_in_chars(kept + line) > budget_chars or len((kept + line).encode("utf-8")) > budget_bytes:
            break
        kept += line
    if "<details>" in kept and kept.count("<details>") > kept.count("</details>"):
        kept += "\n</details>\n"
    return f"{first}\n{kept}{note}"


__all__ = ["GITHUB_COMMENT_LIMIT", "GITHUB_SUMMARY_LIMIT", "render_markdown", "size_in_chars"]

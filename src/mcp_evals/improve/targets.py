"""What to rewrite (pure): the worst confusion pairs of the dev split and the lint's predicted pairs,
their tools, and the lint's D-, S- and N-findings on those tools.

Only dev answers choose the targets: a confusion seen on a test fixture would steer the rewrite
toward the fixtures that judge it. A pair the dev run confused ranks first (most answers first, then
the lint's score); the lint's predicted pairs follow, most confusable first.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from mcp_evals.catalog.model import Catalog, matches
from mcp_evals.improve.model import LintNote, TargetPair, ToolTarget
from mcp_evals.lint.model import LintReport, PairScore
from mcp_evals.lint.predict import observed_pairs
from mcp_evals.score.scorecard import Scorecard

# The lint categories a rewrite of descriptions can answer: descriptions, schema texts, naming.
CATEGORIES = ("D", "S", "N")
DEFAULT_PAIRS = 5
Pair = tuple[str, str]


def _key(first: str, second: str) -> Pair:
    return (first, second) if first <= second else (second, first)


@dataclass(frozen=True)
class DevAnswer:
    """What the dev run answered to one fixture (for the proposer's examples)."""

    fixture_id: str
    chosen: str | None  # the first tool called, None for no call
    right: bool


def dev_confusions(scorecard: Scorecard, catalog: Catalog, dev_ids: Collection[str]) -> Counter[Pair]:
    """The pairs confused on dev fixtures only (a wrong first call on a ``select`` fixture)."""
    dev = [fixture for fixture in scorecard.fixtures if fixture.id in dev_ids]
    return observed_pairs(scorecard.model_copy(update={"fixtures": dev}), catalog)


def dev_answers(scorecard: Scorecard, dev_ids: Collection[str]) -> dict[str, DevAnswer]:
    """Fixture id → what the run answered, for dev fixtures it reached."""
    found: dict[str, DevAnswer] = {}
    for fixture in scorecard.fixtures:
        shown = fixture.representative
        if fixture.id not in dev_ids or shown is None:
            continue
        found[fixture.id] = DevAnswer(fixture.id, shown.chosen, bool(fixture.passed))
    return found


def choose_pairs(
    observed: Counter[Pair],
    predicted: Sequence[PairScore],
    score_of: Callable[[str, str], float],
    *,
    limit: int = DEFAULT_PAIRS,
    exclude_tools: Sequence[str] = (),
) -> list[TargetPair]:
    """The ``limit`` worst pairs: observed on dev first (most answers, then the lint's score), then
    the lint's predicted pairs; pairs with an excluded tool are left out."""
    predicted_scores = {_key(*pair.tools): pair.score for pair in predicted}
    rows: list[TargetPair] = []
    for (first, second), count in sorted(
        observed.items(), key=lambda item: (-item[1], -score_of(*item[0]), item[0])
    ):
        rows.append(
            TargetPair(tools=(first, second), observed=count, predicted=predicted_scores.get((first, second)))
        )
    seen = {row.tools for row in rows}
    for pair in predicted:
        key = _key(*pair.tools)
        if key not in seen:
            rows.append(TargetPair(tools=key, predicted=pair.score))
            seen.add(key)
    kept = [row for row in rows if not any(matches(name, exclude_tools) for name in row.tools)]
    return kept[:limit]


def tool_targets(pairs: Sequence[TargetPair], report: LintReport) -> list[ToolTarget]:
    """Each tool of the pairs once (in the pairs' order), its neighbours, and its D/S/N findings."""
    neighbours: dict[str, list[str]] = {}
    for pair in pairs:
        first, second = pair.tools
        neighbours.setdefault(first, []).append(second)
        neighbours.setdefault(second, []).append(first)
    targets = []
    for tool, others in neighbours.items():
        findings = [
            LintNote(
                rule=finding.rule,
                severity=finding.severity,
                message=finding.message,
                parameter=finding.parameter,
            )
            for finding in report.active
            if finding.category in CATEGORIES and tool in finding.tools
        ]
        targets.append(ToolTarget(tool=tool, neighbours=list(dict.fromkeys(others)), findings=findings))
    return targets

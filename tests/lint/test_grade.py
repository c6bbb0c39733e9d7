"""The grade: density-normalised category scores, weights, letters."""

from __future__ import annotations

import pytest

from mcp_evals.lint.grade import WEIGHTS, category_score, grade, letter
from mcp_evals.lint.model import Finding


def finding(rule: str, severity: str = "error", suppressed: str | None = None) -> Finding:
    return Finding(rule=rule, severity=severity, message="m", suppressed=suppressed)  # type: ignore[arg-type]


def test_penalties_are_judged_by_density() -> None:
    three = [finding("D001")] * 3
    assert category_score(30, 3) == 0  # three broken tools out of three
    assert category_score(30, 30) == 90  # three out of thirty: a dent
    result = grade(three, tools=3, fixtures=None, graded_rules={})
    assert {row.category: row.score for row in result.categories}["D"] == 0
    assert [row.category for row in result.categories] == ["D", "S", "N", "T", "C"]


@pytest.mark.parametrize(
    ("score", "expected"), [(100, "A"), (90, "A"), (89, "B"), (80, "B"), (70, "C"), (60, "D"), (59, "F")]
)
def test_letters(score: int, expected: str) -> None:
    assert letter(score) == expected


def test_severity_penalties_and_weights() -> None:
    findings = [finding("N001", "error"), finding("N002", "warning"), finding("N003", "info")]
    result = grade(findings, tools=10, fixtures=None, graded_rules={})
    naming = next(row for row in result.categories if row.category == "N")
    assert (naming.penalty, naming.score) == (15, 85)
    weights = {row.category: row.weight for row in result.categories}
    expected = round((85 * weights["N"] + 100 * (1 - weights["N"] - WEIGHTS["F"])) / (1 - WEIGHTS["F"]))
    assert result.score == expected


def test_ignored_and_ungraded_findings_cost_nothing_and_fixtures_join_with_fixtures() -> None:
    findings = [finding("S001", suppressed="accepted"), finding("S005", "info"), finding("F003", "warning")]
    result = grade(findings, tools=2, fixtures=4, graded_rules={"S005": False})
    rows = {row.category: row for row in result.categories}
    assert rows["S"].score == 100
    assert rows["F"].penalty == 4 and rows["F"].score == 90  # size: max(fixtures, tools) = 4
    assert sum(row.weight for row in result.categories) == pytest.approx(1.0)


def test_docs_lint_md_gives_our_weights_in_the_table_and_against_mcpgrade() -> None:
    from pathlib import Path

    docs = (Path(__file__).resolve().parents[2] / "docs" / "lint.md").read_text("utf-8")
    names = {"D": "descriptions", "S": "schema", "N": "naming", "C": "consistency", "T": "token cost"}
    for category, weight in WEIGHTS.items():
        assert f"| {category} {names.get(category, 'fixtures')} | {weight:.2f} |" in docs
    ours = " · ".join(
        f"{category} {weight:.2f}" for category, weight in sorted(WEIGHTS.items(), key=lambda x: -x[1])
    )
    differences = docs.split("## Where ours differ from mcpgrade's", 1)[1].split("\n## ", 1)[0]
    assert f"ours are {ours}" in " ".join(differences.split()), "docs/lint.md: the weights against mcpgrade's"

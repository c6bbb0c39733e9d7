"""The lint grade: a 0–100 score per category and overall, and a letter.

Each finding costs penalty points by severity (error 10, warning 4, info 1). A category scores
``max(0, 100 × (1 − penalty / (size × 10)))`` where ``size`` is the number of tools (for the fixture
category, the larger of the fixture and tool counts): findings are judged by density, so three broken
tools out of three is an F and three out of thirty a dent. The overall score is the weighted mean of
the categories that ran; the letter is A from 90, B from 80, C from 70, D from 60, else F.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Literal

from mcp_evals.lint.model import CATEGORY_NAMES, Category, CategoryGrade, Finding, Grade

PENALTY: dict[str, int] = {"error": 10, "warning": 4, "info": 1}
WEIGHTS: dict[Category, float] = {"D": 0.25, "S": 0.25, "N": 0.15, "T": 0.10, "C": 0.15, "F": 0.10}
LETTERS: tuple[tuple[int, Literal["A", "B", "C", "D"]], ...] = ((90, "A"), (80, "B"), (70, "C"), (60, "D"))


def letter(score: int) -> Literal["A", "B", "C", "D", "F"]:
    return next((grade for floor, grade in LETTERS if score >= floor), "F")


def category_score(penalty: int, size: int) -> int:
    return max(0, round(100 * (1 - penalty / (max(size, 1) * 10))))


def grade(
    findings: Iterable[Finding],
    *,
    tools: int,
    fixtures: int | None,
    graded_rules: Mapping[str, bool],
) -> Grade:
    """Grade the findings that count: not ignored, from a graded rule; fixtures=None leaves F out."""
    counted = [f for f in findings if f.suppressed is None and graded_rules.get(f.rule, True)]
    categories = [category for category in WEIGHTS if category != "F" or fixtures is not None]
    rows = []
    for category in categories:
        mine = [finding for finding in counted if finding.category == category]
        penalty = sum(PENALTY[finding.severity] for finding in mine)
        size = max(tools, fixtures or 0) if category == "F" else tools
        rows.append(
            CategoryGrade(
                category=category,
                name=CATEGORY_NAMES[category],
                score=category_score(penalty, size),
                weight=WEIGHTS[category],
                findings=len(mine),
                penalty=penalty,
            )
        )
    total_weight = sum(row.weight for row in rows)
    overall = round(sum(row.score * row.weight for row in rows) / total_weight)
    return Grade(score=overall, letter=letter(overall), categories=rows)

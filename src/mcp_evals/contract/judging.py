"""Which judge a run gets: the model judge only when some case asks it (or a budget is given).

Most suites have no ``llm_judge`` step; building the judge imports the model providers and their
HTTP client, which a small suite would wait for before its first case. A run that cannot ask the
judge gets ``Unasked`` instead: the same answers (none asked, nothing spent, no budget).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from mcp_evals.config.model import JudgeOptions
from mcp_evals.contract.model import AssertionResult, Case, JudgeSpend, LlmJudge


class JudgeLike(Protocol):
    """What a run needs of a judge (``contract.judge.Judge``)."""

    @property
    def spend(self) -> JudgeSpend: ...

    async def score(self, judge: LlmJudge, actual: str, expected: str) -> AssertionResult: ...

    async def aclose(self) -> None: ...


class Unasked:
    """The judge of a run in which no step asks one and no budget was given."""

    @property
    def spend(self) -> JudgeSpend:
        return JudgeSpend()

    async def score(self, judge: LlmJudge, actual: str, expected: str) -> AssertionResult:
        raise AssertionError("no step of this run asks the judge")  # judge_for saw none

    async def aclose(self) -> None:
        return None


def asks_judge(cases: Sequence[Case]) -> bool:
    return any(step.expect.llm_judge is not None for case in cases for step in case.steps)


def judge_for(
    cases: Sequence[Case],
    options: JudgeOptions,
    environ: Mapping[str, str],
    *,
    budget_usd: float | None = None,
) -> JudgeLike:
    """The model judge when a case asks it or a budget is given (the report then shows the budget)."""
    if not asks_judge(cases) and budget_usd is None and options.budget_usd is None:
        return Unasked()
    from mcp_evals.contract.judge import Judge

    return Judge(options, environ, budget_usd=budget_usd)

"""Comparing runs like with like, and the deployment gate: pure functions over recorded runs.

Like with like: a case is compared only with the same case, of the same suite, run in the same mode
(a simulated pass says nothing about a live one). A run of a few cases (``--case``) is compared case
by case with each case's own latest earlier result.
"""

from __future__ import annotations

import math

from pydantic import BaseModel, Field

from mcp_evals.contract.model import CaseResult, ContractRun, Status
from mcp_evals.errors import ConfigError
from mcp_evals.wording import plural


class CaseChange(BaseModel):
    name: str
    before: Status | None = None
    now: Status | None = None
    before_run: str | None = Field(None, description="The run the earlier result comes from.")
    failing: list[str] = Field(default_factory=list, description="What fails now: `step: assertion — why`.")


class Comparison(BaseModel):
    """What changed between earlier results and a run."""

    suite: str
    run_id: str
    compared_with: list[str] = Field(default_factory=list, description="The earlier runs used, newest first.")
    regressions: list[CaseChange] = Field(default_factory=list, description="Passed before, fail now.")
    fixes: list[CaseChange] = Field(default_factory=list, description="Failed before, pass now.")
    still_failing: list[CaseChange] = Field(default_factory=list)
    new: list[str] = Field(default_factory=list, description="No earlier result in the same mode.")
    removed: list[str] = Field(default_factory=list, description="In the earlier run only (compare).")
    unchanged: int = Field(0, description="Cases with the same status as before.")
    earlier_runs: int | None = Field(
        None, description="Whether the suite had earlier runs (0: none; None: not looked up)."
    )

    @property
    def first(self) -> bool:
        """Nothing to compare with yet: no earlier run of the suite at all."""
        return not self.compared_with and not self.earlier_runs


def failing_lines(case: CaseResult, limit: int = 5) -> list[str]:
    """``step: assertion — why`` for what fails in a case (or the case's own error)."""
    lines: list[str] = []
    if case.trials is not None and case.verdict in ("flaky", "failing"):
        lines.append(f"{case.verdict}: {case.trials.shown}; the first failing trial:")
    teardown = [
        f"teardown failed: {error.splitlines()[0]}"
        for error in (case.isolation.teardown_errors if case.isolation is not None else [])
    ]
    if case.error:
        first, *rest = case.error.splitlines()
        hints = (line.strip() for line in rest if line.strip().startswith("hint:"))
        return [*lines, first, *hints, *teardown]
    for step in case.failing_steps:
        if step.error:
            lines.append(f"{step.id}: {step.error.splitlines()[0]}")
        for item in step.failed_assertions:
            lines.append(f"{step.id}: {item.kind} — {item.message}")
    return lines[: max(0, limit - len(teardown))] + teardown


def compare_cases(run: ContractRun, earlier: dict[str, tuple[str, CaseResult]]) -> Comparison:
    """``run`` against each case's earlier result (see ``History.previous_cases``)."""
    comparison = Comparison(suite=run.suite, run_id=run.run_id)
    used: list[str] = []
    for case in run.cases:
        if case.name not in earlier:
            comparison.new.append(case.name)
            continue
        before_run, before = earlier[case.name]
        if before_run not in used:
            used.append(before_run)
        change = CaseChange(
            name=case.name,
            before=before.status,
            now=case.status,
            before_run=before_run,
            failing=failing_lines(case),
        )
        if before.status != "failed" and case.status == "failed":
            comparison.regressions.append(change)
        elif before.status == "failed" and case.status != "failed":
            comparison.fixes.append(change)
        elif case.status == "failed":
            comparison.still_failing.append(change)
        else:
            comparison.unchanged += 1
    comparison.compared_with = sorted(used, reverse=True)
    return comparison


def compare_runs(before: ContractRun, after: ContractRun) -> Comparison:
    """Two recorded runs of one suite, case by case; runs of different suites are not compared."""
    if before.suite != after.suite:
        raise ConfigError(
            f"run {before.run_id} is of suite {before.suite!r} and run {after.run_id} of suite "
            f"{after.suite!r}: only runs of one suite are compared",
            hint="`mcp-evals contract history` lists the runs with their suites",
        )
    earlier = {case.name: (before.run_id, case) for case in before.cases}
    now_names = {case.name for case in after.cases}
    mode_of = {case.name: case.mode for case in after.cases}
    same_mode = {
        name: item for name, item in earlier.items() if name in now_names and item[1].mode == mode_of[name]
    }
    comparison = compare_cases(after, same_mode)
    comparison.compared_with = [before.run_id]
    comparison.removed = sorted(name for name in earlier if name not in now_names)
    return comparison


class GateResult(BaseModel):
    suite: str
    min_pass_rate: float
    lookback_runs: int
    runs_judged: int
    passed_cases: int
    judged_cases: int
    ok: bool
    message: str

    @property
    def pass_rate(self) -> float | None:
        return self.passed_cases / self.judged_cases if self.judged_cases else None


def percent(value: float) -> str:
    """``0.8999`` → ``89.9%``: rounded down, so a rate below a threshold never prints as equal to it."""
    return f"{math.floor(value * 1000 + 1e-9) / 10:.1f}%"


def evaluate_gate(
    suite: str, runs: list[ContractRun], *, min_pass_rate: float, lookback_runs: int
) -> GateResult:
    """Pass when the cases of the last ``lookback_runs`` runs passed at least ``min_pass_rate`` of the time.

    Skipped cases (not judged) count neither way. With no run at all there is nothing to judge and
    the gate fails: a deployment is not let through on no evidence.
    """
    judged_runs = runs[:lookback_runs]
    passed = sum(run.passed for run in judged_runs)
    judged = sum(run.passed + run.failed for run in judged_runs)
    count = len(judged_runs)
    if count == 0 or judged == 0:
        what = "no recorded runs" if count == 0 else f"{plural(count, 'run')} with no judged case"
        return GateResult(
            suite=suite,
            min_pass_rate=min_pass_rate,
            lookback_runs=lookback_runs,
            runs_judged=count,
            passed_cases=0,
            judged_cases=0,
            ok=False,
            message=f"gate FAILED: {what} of suite {suite!r}: nothing to judge",
        )
    rate = passed / judged
    ok = rate >= min_pass_rate
    basis = f"the last {count} runs" if count != 1 else "the last run"
    if count < lookback_runs:
        basis += f" (fewer than the {lookback_runs} asked for: judged on {count})"
    message = (
        f"gate {'PASSED' if ok else 'FAILED'}: {passed}/{judged} cases passed ({percent(rate)}) over {basis} "
        f"of suite {suite!r}; the minimum is {percent(min_pass_rate)}"
    )
    return GateResult(
        suite=suite,
        min_pass_rate=min_pass_rate,
        lookback_runs=lookback_runs,
        runs_judged=count,
        passed_cases=passed,
        judged_cases=judged,
        ok=ok,
        message=message,
    )

"""A case run several times (``--trials N``, a case's ``trials:``) folded into one result.

Each trial is a whole run of the case from a fresh server (and, where the run isolates cases, a
fresh sandbox). The case passes only when every judged trial passed (pass^k, as the selection eval
counts it); it is *flaky* when some passed and some failed, *failing* when none passed; skipped
trials count neither way. The result shows the first failing trial's steps, so a report says why.
"""

from __future__ import annotations

from mcp_evals.contract.model import CaseResult, Status, TrialRun, Trials


def fold(results: list[CaseResult]) -> CaseResult:
    """One case's trials (at least one) as its result; a single trial is returned as it is."""
    if len(results) == 1:
        return results[0]
    trials = Trials(
        runs=[
            TrialRun(status=one.status, duration_ms=one.duration_ms, error=one.error, steps=one.steps)
            for one in results
        ]
    )
    verdict = trials.verdict
    status: Status = "passed" if verdict == "passed" else "skipped" if verdict == "skipped" else "failed"
    shown = next((one for one in results if one.status == "failed"), results[0])
    return results[0].model_copy(
        update={
            "status": status,
            "duration_ms": sum(one.duration_ms for one in results),
            "error": shown.error,
            "steps": shown.steps,
            "trials": trials,
        }
    )

"""(d): does the final answer quote an unstable value without a caveat? A cheap model decides.

Only sessions of tasks whose trap is ``unstable_value`` are judged, and only when the task set (or
``--judge-model``) names a judge model of the run's provider. The judge sees the tool results as the
server returned them — diagnostic fields included, also in an arm whose model never saw them — and
the final answer. Its usage is spent from the run's one budget and reported on its own line.
"""

from __future__ import annotations

from dataclasses import dataclass

from mcp_evals.providers.failures import ProviderFailure
from mcp_evals.providers.tokens import request_text
from mcp_evals.run.asker import Asker
from mcp_evals.run.budget import Budget
from mcp_evals.session.loop import Ask, reserved_tokens
from mcp_evals.session.metrics import answer_json
from mcp_evals.session.record import JudgeRecord, SessionRecord, Verdict

JUDGE_SYSTEM = (
    "You review the final answer of an AI agent that used tools. You check one thing: whether the answer "
    "states a value that the tool results mark as unstable (stale, cached, estimated, degraded, partial, "
    "unverified or otherwise unreliable) without telling the user that the value may be unreliable. "
    "Reply with one JSON object and nothing else."
)
_RESULTS_LIMIT = 20_000
_VERDICTS: tuple[Verdict, ...] = ("caveated", "uncaveated", "no_unstable_value")


def judge_prompt(record: SessionRecord, prompt: str) -> str:
    parts = [
        f"The agent was asked:\n<task>\n{prompt}\n</task>\n",
        "The tool results it got, as the server returned them:",
    ]
    used = 0
    for call in record.calls:
        text = call.result.text
        if used + len(text) > _RESULTS_LIMIT:
            parts.append("(later results left out)")
            break
        used += len(text)
        parts.append(
            f'<result tool="{call.tool}" error="{str(call.result.is_error).lower()}">\n{text}\n</result>'
        )
    parts.append(f"\nIts final answer:\n<answer>\n{record.final_answer}\n</answer>\n")
    parts.append(
        "Does the final answer state a value that the tool results mark as unstable without a caveat? "
        'Reply with {"verdict": "uncaveated" | "caveated" | "no_unstable_value", "reason": "<one sentence>"}.'
    )
    return "\n".join(parts)


@dataclass
class JudgeOutcome:
    record: JudgeRecord
    budget_stop: bool = False  # the judge's request could have crossed the budget: the run stops
    fatal: ProviderFailure | None = None  # no later request can succeed: the run stops


async def judge_session(
    judge: Asker, ask: Ask, budget: Budget | None, record: SessionRecord, prompt: str
) -> JudgeOutcome:
    model = judge.model
    messages = judge.messages(judge_prompt(record, prompt))
    request = request_text(messages, judge.tools)
    reservation = budget.reserve_tokens(reserved_tokens(request, None)) if budget is not None else 0.0
    if reservation is None:
        record_ = JudgeRecord(model=model, verdict="unclear", error="not judged: budget")
        return JudgeOutcome(record_, budget_stop=True)
    try:
        turn, _ = await ask(messages, 1)
    except ProviderFailure as failure:
        return JudgeOutcome(
            JudgeRecord(model=model, verdict="unclear", error=f"the judge failed: {failure.message}"),
            fatal=failure if failure.stops_run else None,
        )
    finally:
        if budget is not None:
            budget.release(reservation)
    cost = budget.spend(turn.usage) if budget is not None else None
    data = answer_json(turn.text)
    verdict = data.get("verdict") if isinstance(data, dict) else None
    reason = data.get("reason") if isinstance(data, dict) else None
    return JudgeOutcome(
        JudgeRecord(
            model=model,
            verdict=verdict if verdict in _VERDICTS else "unclear",
            reason=str(reason or turn.text)[:500],
            usage=turn.usage,
            cost_usd=cost,
        )
    )

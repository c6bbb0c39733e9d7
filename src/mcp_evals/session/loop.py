"""One session: the model calls tools on a real server until it answers or runs out of steps.

Each turn the whole conversation goes to the model (``Provider.generate``); every tool call
it makes goes through the ``ToolBoundary`` (faults, timeouts) to the server, in order; every result
goes back as the server returned it — content blocks, structured content, the error flag — after the
arm's transforms. A turn without tool calls is the final answer. Before each request its worst case
is reserved in the one ``Budget``; a request that could cross the cap is not sent and the session
stops as a ``budget`` stop. A model request that fails after its retries, a server that dies, a turn
cut off at ``max_tokens``, or the session timeout make the session a dropout: never a crash, never a
wrong answer. Everything is recorded: each request's size, usage and cost, each call and its result.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio

from mcp_evals.answers import Answer, Message, ToolResult, Usage
from mcp_evals.errors import ServerError
from mcp_evals.providers.failures import ProviderFailure
from mcp_evals.providers.tokens import TOOL_USE_PREAMBLE_TOKENS, estimate_tokens, request_text
from mcp_evals.run.asker import Asker
from mcp_evals.run.budget import Budget
from mcp_evals.run.retry import RetryPolicy, retrying
from mcp_evals.session.model import Task, Transform
from mcp_evals.session.record import CallRecord, SessionKey, SessionRecord, TurnRecord
from mcp_evals.session.server import ToolBoundary
from mcp_evals.session.transforms import transform_result

# The local estimate is ±20 %; a reservation must not be the low side of it.
ESTIMATE_MARGIN = 1.25

# The model's next turn to these messages (the turn's index): its answer and the attempts it took.
Ask = Callable[[list[Message], int], Awaitable[tuple[Answer, int]]]
# The exact input tokens of a request of these messages, or None.
Count = Callable[[list[Message]], Awaitable[int | None]]


@dataclass
class SessionOutcome:
    record: SessionRecord
    fatal: ProviderFailure | None = None  # the run must stop: no later request can succeed


@dataclass
class _Trace:
    turns: list[TurnRecord] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    cost: float | None = None
    final_answer: str = ""


class BudgetStop(Exception):
    """The next request could cross the budget: the session stops, and so does the run."""


def ask_live(asker: Asker, policy: RetryPolicy, deadline: float) -> Ask:
    """The model's next turn: one request, retried by ``policy`` on transient failures."""

    async def ask(messages: list[Message], index: int) -> tuple[Answer, int]:
        attempts = 0
        async for attempt in retrying(policy):
            with attempt:
                attempts += 1
                with anyio.move_on_after(deadline) as scope:
                    answer = await asker.provider.generate(messages, asker.tools, None, asker.options)
                if scope.cancelled_caught:
                    raise ProviderFailure.transient_failure("timeout", f"no answer within {deadline:g}s")
                return asker.catalog.names.resolve(answer), attempts
        raise AssertionError("unreachable: tenacity either returns or raises")  # pragma: no cover

    return ask


def reserved_tokens(request: bytes, counted: int | None) -> int:
    """Input tokens to reserve for a request (``request_text``): the exact count, else the estimate on
    its high side."""
    if counted is not None:
        return counted
    return math.ceil(estimate_tokens(request) * ESTIMATE_MARGIN) + TOOL_USE_PREAMBLE_TOKENS


def delivered_result(call: CallRecord, transforms: Sequence[Transform]) -> tuple[ToolResult, Any]:
    """What goes back to the model for ``call``, and the changed content when a transform changed it."""
    content, structured = transform_result(call.result.content, call.result.structured_content, transforms)
    blocks = list(content)
    # A client that reads only content blocks would never see structured content the server did
    # not also write as text: give it as JSON text then (servers usually send both).
    if structured is not None and not any(block.get("type") == "text" for block in blocks):
        blocks.append({"type": "text", "text": json.dumps(structured, ensure_ascii=False)})
    changed = blocks != call.result.content
    return ToolResult(call_id=call.id, content=blocks, is_error=call.result.is_error), (
        blocks if changed else None
    )


async def run_session(
    *,
    asker: Asker,
    ask: Ask,
    boundary: ToolBoundary,
    task: Task,
    transforms: Sequence[Transform],
    budget: Budget | None,
    key: SessionKey,
    setup_hash: str,
    session_timeout: float,
    count: Count | None = None,
) -> SessionOutcome:
    """Run one session to its end and return its record (and a fatal failure, if one stopped it)."""
    trace = _Trace()
    started = time.perf_counter()
    record = SessionRecord(key=key, setup_hash=setup_hash, status="finished")
    fatal: ProviderFailure | None = None
    with anyio.move_on_after(session_timeout) as deadline:
        try:
            record.end = await _converse(asker, ask, boundary, task, transforms, budget, count, trace)
        except BudgetStop:
            record.status = "budget"
            record.error_kind = "budget"
            record.error_message = "the next request could have crossed the budget"
        except ProviderFailure as failure:
            record.status = "dropout"
            record.error_kind = failure.kind
            record.error_message = failure.message
            fatal = failure if failure.stops_run else None
        except ServerError as failure:
            record.status = "dropout"
            record.error_kind = "mcp_server"
            record.error_message = str(failure)
    if deadline.cancelled_caught:
        record.status = "dropout"
        record.error_kind = "session_timeout"
        record.error_message = f"the session took longer than {session_timeout:g} s"
    if record.status != "finished":
        record.end = None
    record.turns = trace.turns
    record.usage = trace.usage
    record.cost_usd = trace.cost
    record.final_answer = trace.final_answer
    record.elapsed_ms = (time.perf_counter() - started) * 1000
    return SessionOutcome(record, fatal)


async def _converse(
    asker: Asker,
    ask: Ask,
    boundary: ToolBoundary,
    task: Task,
    transforms: Sequence[Transform],
    budget: Budget | None,
    count: Count | None,
    trace: _Trace,
) -> Any:
    messages = asker.messages(task.prompt)
    for index in range(1, task.max_steps + 1):
        request = request_text(messages, asker.tools)
        counted = await count(messages) if count is not None else None
        reservation = budget.reserve_tokens(reserved_tokens(request, counted)) if budget is not None else 0.0
        if reservation is None:
            raise BudgetStop
        try:
            turn, attempts = await ask(messages, index)
        finally:
            if budget is not None:
                budget.release(reservation)
        cost = budget.spend(turn.usage) if budget is not None else None
        turn_record = TurnRecord(
            index=index,
            request_messages=sum(1 for message in messages if message.role != "system"),
            request_bytes=len(request),
            input_tokens_counted=counted,
            text=turn.text,
            stop_reason=turn.stop_reason,
            usage=turn.usage,
            cost_usd=cost,
            latency_ms=turn.latency_ms,
            request_id=turn.request_id,
            attempts=attempts,
        )
        trace.turns.append(turn_record)
        trace.usage = trace.usage + turn.usage
        if cost is not None:
            trace.cost = (trace.cost or 0.0) + cost
        if turn.truncated:
            raise ProviderFailure.final_for_fixture(
                "truncated",
                f"turn {index} stopped at max_tokens ({turn.stop_reason}) before the model finished; "
                "raise run.max_tokens",
            )
        if not turn.calls:
            trace.final_answer = turn.text
            return "answered"
        said = turn.message
        if said is None or len(said.tool_uses) != len(turn.calls):
            raise ProviderFailure.transient_failure("invalid_response", "a tool call came without its id")
        results = []
        for use, made in zip(said.tool_uses, turn.calls, strict=True):
            call = await boundary.call(use.id, made)
            result, delivered = delivered_result(call, transforms)
            turn_record.calls.append(call.model_copy(update={"delivered": delivered}))
            results.append(result)
        messages += [said, Message.user(results)]
    return "max_steps"

"""The boundary between a session's model and the server: numbering calls, injecting faults, timeouts.

Why faults are injected here and not in a separate proxy process: what the server under test sees
is the same either way — the calls that are not faulted, in order, over its own transport, with
its own code unchanged, whatever its language. A faulted call is answered here and never reaches
the server, exactly as a proxy would answer it; an injected timeout holds the call for the step
timeout and is then reported the way a real timeout is. Doing it in-process spares a process per
session and keeps the one MCP client (``servers.client``) the only thing that speaks to servers.
"""

from __future__ import annotations

import time
from collections import Counter
from typing import Any

import anyio

from mcp_evals.answers import ToolCall
from mcp_evals.catalog.model import Catalog
from mcp_evals.errors import ToolCallError
from mcp_evals.servers.client import ServerSession
from mcp_evals.session.faults import fault_content, fault_for, timeout_text
from mcp_evals.session.model import FaultLevel
from mcp_evals.session.record import CallRecord, CallResult


def _error(text: str) -> CallResult:
    return CallResult(content=[{"type": "text", "text": text}], is_error=True)


class ToolBoundary:
    """Calls tools for one session: each call numbered per tool, faulted by the level's rule or sent
    to the server with the step timeout. A server that is gone raises ``ServerError`` (a dropout)."""

    def __init__(
        self,
        session: ServerSession,
        catalog: Catalog,
        *,
        seed: int,
        level: FaultLevel,
        step_timeout: float,
    ) -> None:
        self.session = session
        self.catalog = catalog
        self.seed = seed
        self.level = level
        self.step_timeout = step_timeout
        self.numbers: Counter[str] = Counter()

    async def call(self, call_id: str, call: ToolCall) -> CallRecord:
        """Make one of the model's calls (``call_id``: the id its result goes back with)."""
        self.numbers[call.name] += 1
        number = self.numbers[call.name]
        record: dict[str, Any] = {
            "id": call_id,
            "tool": call.name,
            "provider_name": call.provider_name,
            "known": call.known,
            "arguments": call.arguments,
            "raw_arguments": call.raw_arguments,
            "call_number": number,
        }
        started = time.perf_counter()
        if call.arguments is None:
            shown = (call.raw_arguments or "")[:200]
            result = _error(f"The arguments are not a JSON object, so the tool was not called: {shown}")
            return CallRecord(**record, result=result, error="invalid_arguments")
        fault = fault_for(self.seed, self.level, call.name, number)
        if fault == "timeout":
            await anyio.sleep(self.step_timeout)
            latency = (time.perf_counter() - started) * 1000
            result = _error(timeout_text(self.step_timeout))
            return CallRecord(**record, result=result, fault=fault, error="timeout", latency_ms=latency)
        if fault is not None:
            result = CallResult(content=fault_content(fault), is_error=True)
            return CallRecord(**record, result=result, fault=fault)
        tool = self.catalog.get(call.name)
        wire_name = tool.wire_name if tool is not None else call.provider_name
        try:
            answer = await self.session.call_tool(wire_name, call.arguments, timeout=self.step_timeout)
        except ToolCallError as failure:
            latency = (time.perf_counter() - started) * 1000
            if failure.timed_out:
                return CallRecord(
                    **record,
                    result=_error(timeout_text(self.step_timeout)),
                    error="timeout",
                    latency_ms=latency,
                )
            text = failure.message.removeprefix(f"server {self.session.server.name!r}: ")
            return CallRecord(**record, result=_error(text), error="protocol", latency_ms=latency)
        result = CallResult(
            content=answer.content, structured_content=answer.structured_content, is_error=answer.is_error
        )
        return CallRecord(**record, result=result, latency_ms=answer.latency_ms)

"""``mcp-evals session --dry``: what a run would cost, before anyone pays.

A scripted model plays each task's ``script`` against the real server — one call a turn, then a
final answer — through the same loop, arms and transforms as a live run (without faults), so every
request is the one a competent model would cause. Each request's input tokens and each tool
result's tokens come from Anthropic's free ``count_tokens`` endpoint with ``--count-tokens`` and a
key, else from the local estimate (±20 %). Output is assumed at ``ASSUMED_OUTPUT_TOKENS`` a turn.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from mcp_evals.answers import Answer, Message, Text, ToolUse, Usage, content_text
from mcp_evals.providers.base import tool_call
from mcp_evals.providers.failures import ProviderFailure
from mcp_evals.providers.pricing import ASSUMED_OUTPUT_TOKENS, Price
from mcp_evals.providers.tokens import estimate_request_tokens, estimate_tokens, request_text
from mcp_evals.run.asker import Asker
from mcp_evals.run.retry import RetryPolicy, with_retries
from mcp_evals.session.loop import Ask, reserved_tokens
from mcp_evals.session.model import Task
from mcp_evals.session.record import SessionRecord

SCRIPTED_ANSWER = "Done: here is what I found."
COUNT_RETRY = RetryPolicy(max_attempts=4, max_wait=10)


@dataclass
class Counter:
    """Input tokens of a request and tokens of a piece of text: exact when the API counts for free."""

    asker: Asker
    exact: bool = False
    problem: str | None = None
    _baseline: int | None = None

    async def _count(self, messages: list[Message], *, tools: bool = True) -> int | None:
        asker = self.asker
        offered = asker.tools if tools else ()
        return await with_retries(
            COUNT_RETRY, lambda: asker.provider.count_tokens(messages, offered, None, asker.options)
        )

    async def counted(self, messages: list[Message]) -> int | None:
        """The request's input tokens as the API counts them, or None (not counting, or it failed)."""
        if self.exact:
            try:
                return await self._count(messages)
            except ProviderFailure as failure:
                self._give_up(failure)
        return None

    async def text(self, text: str) -> int:
        """A text's tokens: the count of a message of it alone (no tools, no system prompt) less the
        count of a message of one character."""
        if self.exact:
            try:
                if self._baseline is None:
                    self._baseline = await self._count([Message.user(".")], tools=False) or 0
                counted = await self._count([Message.user(text)], tools=False)
            except ProviderFailure as failure:
                self._give_up(failure)
            else:
                if counted is not None:
                    return max(0, counted - self._baseline)
        return estimate_tokens(text)

    def _give_up(self, failure: ProviderFailure) -> None:
        self.exact = False
        self.problem = f"count_tokens failed ({failure.message}); using a local estimate"


def ask_scripted(
    asker: Asker, task: Task, counter: Counter, output_tokens: int, reserved: list[int] | None = None
) -> Ask:
    """The scripted model: turn k makes the script's k-th call; the turn after the last one answers.

    ``reserved`` gets each request's input tokens as a live run would reserve them before sending it
    (the exact count, else the local estimate on its high side: ``loop.reserved_tokens``)."""

    async def ask(messages: list[Message], index: int) -> tuple[Answer, int]:
        if index <= len(task.script):
            step = task.script[index - 1]
            name = asker.catalog.names.provider(step.tool)
            use = ToolUse(f"call_{index:03d}", name, dict(step.arguments))
            answer = Answer(
                calls=[tool_call(asker.tools, name, dict(step.arguments))],
                stop_reason="tool_use",
                message=Message.assistant([use]),
            )
        else:
            answer = Answer(
                text=SCRIPTED_ANSWER,
                stop_reason="end_turn",
                message=Message.assistant([Text(SCRIPTED_ANSWER)]),
            )
        request = request_text(messages, asker.tools)
        counted = await counter.counted(messages)
        if reserved is not None:
            reserved.append(reserved_tokens(request, counted))
        if counted is None:
            prefix, rest = estimate_request_tokens(request, b"")
            counted = prefix + rest
        answer.usage = Usage(input_tokens=counted, output_tokens=output_tokens)
        return asker.catalog.names.resolve(answer), 1

    return ask


@dataclass
class DrySession:
    """One played task in one arm: its requests' input tokens and its tool results' tokens."""

    task: Task
    arm: str
    record: SessionRecord
    reserved: list[int] = field(default_factory=list)  # each request's input tokens as a live run reserves
    result_tokens: list[tuple[str, int]] = field(default_factory=list)

    @property
    def inputs(self) -> list[int]:
        return [turn.usage.input_tokens for turn in self.record.turns]

    @property
    def outputs(self) -> list[int]:
        return [turn.usage.output_tokens for turn in self.record.turns]

    @property
    def output_tokens(self) -> int:
        return sum(self.outputs)

    def usages(self, price: Price, *, caching: bool, cached_prefix: int = 0) -> list[Usage]:
        """Each request's expected usage (see ``turn_usages``)."""
        return turn_usages(self.inputs, self.outputs, price, caching=caching, cached_prefix=cached_prefix)

    def problems(self) -> list[str]:
        """The script's calls that did not work: an author wants to know before a paid run."""
        found = []
        for number, (call, step) in enumerate(
            zip(self.record.calls, self.task.script, strict=False), start=1
        ):
            if (call.result.is_error or call.error is not None) and not step.expect_error:
                found.append(f"script call {number} ({call.tool}) got an error: {call.result.text[:200]}")
        if self.record.status != "finished":
            found.append(f"the session did not finish: {self.record.error_kind}: {self.record.error_message}")
        return found


async def measure_results(session: DrySession, counter: Counter) -> None:
    for call in session.record.calls:
        shown = content_text(call.delivered if call.delivered is not None else call.result.content)
        session.result_tokens.append((call.tool, await counter.text(shown)))


def turn_usages(
    inputs: Sequence[int], outputs: Sequence[int], price: Price, *, caching: bool, cached_prefix: int = 0
) -> list[Usage]:
    """Each turn's usage: every turn re-sends the conversation. With caching, each turn reads what the
    one before it sent and writes only what is new; the first reads ``cached_prefix`` tokens (the tools
    and system prompt an earlier session wrote) and writes the rest. Below the model's minimum
    cacheable length nothing is cached."""
    usages = []
    previous = cached_prefix
    for tokens, output in zip(inputs, outputs, strict=True):
        if caching and tokens >= price.min_cache_tokens:
            read = min(previous, tokens)
            written = tokens - read
            usages.append(Usage(output_tokens=output, cache_read_tokens=read, cache_write_tokens=written))
        else:
            usages.append(Usage(input_tokens=tokens, output_tokens=output))
        previous = tokens
    return usages


def session_cost(inputs: Sequence[int], outputs: Sequence[int], price: Price, *, caching: bool) -> float:
    """A session's cost on its own, nothing cached before it (see ``turn_usages``)."""
    return sum(price.cost(usage) for usage in turn_usages(inputs, outputs, price, caching=caching))


def planned_usages(
    schedule: Sequence[tuple[DrySession, bytes]], price: Price, *, caching: bool
) -> list[list[Usage]]:
    """The expected usage of each planned session's requests, in the run's order. Each session is
    one played session (its arm's tools and system prompt are the given prefix); with caching, a
    session after the first with the same prefix reads that prefix from the cache, as the live run's
    do (the prefix is marked for caching, and the sessions run one after another)."""
    written: set[bytes] = set()
    planned = []
    for session, prefix in schedule:
        prefix_tokens = estimate_tokens(prefix)
        cached = prefix in written and prefix_tokens >= price.min_cache_tokens
        planned.append(session.usages(price, caching=caching, cached_prefix=prefix_tokens if cached else 0))
        if caching:
            written.add(prefix)
    return planned


def worst_case_extra(turns: int, max_tokens: int, price: Price) -> float:
    """The extra cost if every turn's answer used ``max_tokens`` instead of the assumed output."""
    return turns * max(0, max_tokens - ASSUMED_OUTPUT_TOKENS) * price.output / 1_000_000

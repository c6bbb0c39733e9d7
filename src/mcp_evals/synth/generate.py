"""The calls of ``mcp-evals synth``: step 1 (intents), the screen, step 2 (held-out paraphrase).

Every call goes through one ``Caller``: the run's one ``Budget`` (reserve the worst case, spend what
the API reports), the run's retry policy (a malformed answer is retried as ``invalid_response``, then
left out as a dropout: never a crash), a concurrency limit, and a stop on the first fatal error.
Every call is a system prompt and one user message with no tools, so nothing of the catalog reaches
the paraphrase step but the goals and values its prompt holds.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

import anyio

from mcp_evals.answers import Answer, GenerateOptions, Message, Usage
from mcp_evals.catalog.model import Catalog, Tool, matches
from mcp_evals.lint.context import LintContext
from mcp_evals.lint.rules.consistency import confusable
from mcp_evals.providers.base import Provider
from mcp_evals.providers.failures import ProviderFailure
from mcp_evals.run.budget import Budget
from mcp_evals.run.retry import RetryPolicy, retrying
from mcp_evals.synth.assemble import Dropped, screen_intents
from mcp_evals.synth.model import Candidate, Intent, SynthSettings
from mcp_evals.synth.parse import Malformed, intents_from, queries_from
from mcp_evals.synth.prompts import Ask, clarify_ask, pair_ask, paraphrase_prompt, refuse_ask, tool_ask

T = TypeVar("T")
# Tools shown in the one clarify request (those with required parameters, spread over the catalog).
CLARIFY_TOOLS = 8


@dataclass
class Caller:
    """Asks a model for JSON under the budget, with retries; failures are counted, never raised."""

    provider: Provider
    budget: Budget
    policy: RetryPolicy = field(default_factory=RetryPolicy)
    options: GenerateOptions = field(default_factory=GenerateOptions)
    concurrency: int = 4
    requests: int = 0
    usage: Usage = field(default_factory=Usage)
    dropouts: Counter[str] = field(default_factory=Counter)
    fatal: ProviderFailure | None = None

    def __post_init__(self) -> None:
        self.limiter = anyio.CapacityLimiter(max(1, self.concurrency))

    @property
    def stopping(self) -> bool:
        return self.fatal is not None or self.budget.stopped

    async def ask(self, system: str, user: str, read: Callable[[str], T]) -> T | None:
        """``read(answer text)``, or None when no usable answer came (the reason is counted)."""
        async with self.limiter:
            reservation = None if self.stopping else self.budget.reserve()
            if reservation is None:
                self.dropouts["not_dispatched" if self.fatal else "budget"] += 1
                return None
            try:
                async for attempt in retrying(self.policy, stop_when=lambda: self.fatal is not None):
                    with attempt:
                        messages = [Message.system(system), Message.user(user)]
                        return self._read(await self.provider.generate(messages, options=self.options), read)
            except ProviderFailure as failure:
                if failure.stops_run:
                    self.fatal = self.fatal or failure
                self.dropouts[failure.kind] += 1
            finally:
                self.budget.release(reservation)
        return None

    def _read(self, answer: Answer, read: Callable[[str], T]) -> T:
        self.requests += 1
        self.usage = self.usage + answer.usage
        self.budget.spend(answer.usage)
        if answer.truncated:
            raise ProviderFailure.final_for_fixture(
                "truncated", f"the answer stopped at {answer.stop_reason}: raise run.max_tokens"
            )
        try:
            return read(answer.text)
        except Malformed as error:
            raise ProviderFailure.transient_failure("invalid_response", str(error)) from None


def included_tools(catalog: Catalog, exclude_tools: Sequence[str]) -> list[Tool]:
    return [tool for tool in catalog.tools if not matches(tool.name, exclude_tools)]


def plan_asks(catalog: Catalog, settings: SynthSettings, exclude_tools: Sequence[str] = ()) -> list[Ask]:
    """Every step-1 request: per tool, per confusable pair (as the lint ranks them), refuse, clarify."""
    tools = included_tools(catalog, exclude_tools)
    names = {tool.name for tool in tools}
    asks = [tool_ask(tool, settings.per_tool) for tool in tools] if settings.per_tool else []
    if settings.pairs and settings.per_tool:
        pairs = [
            pair
            for pair in confusable(LintContext(catalog=catalog, exclude_tools=exclude_tools))
            if set(pair.tools) <= names
        ]
        for pair in pairs[: settings.pairs]:
            first, second = (catalog.by_name[name] for name in pair.tools)
            asks.append(pair_ask(first, second))
    if settings.refuse and tools:
        asks.append(refuse_ask(tools, settings.refuse))
    needing = [tool for tool in tools if tool.required]
    if settings.clarify and needing:
        step = max(1, len(needing) // CLARIFY_TOOLS)
        asks.append(clarify_ask(needing[::step][:CLARIFY_TOOLS], settings.clarify))
    return asks


def paraphrase_batches(intents: Sequence[Intent], size: int) -> list[list[Intent]]:
    """Intents in a fixed shuffled order (tools mixed in each request), ``size`` per request."""
    ordered = sorted(
        intents, key=lambda intent: hashlib.sha256(f"{intent.source}\n{intent.goal}".encode()).hexdigest()
    )
    size = max(1, size)
    return [list(ordered[start : start + size]) for start in range(0, len(ordered), size)]


@dataclass
class Synthesis:
    """What the two steps produced, and what they left out."""

    asks: int = 0
    intents: int = 0
    candidates: list[Candidate] = field(default_factory=list)
    dropped: list[Dropped] = field(default_factory=list)
    paraphrase_requests: list[str] = field(default_factory=list)  # the held-out step's user messages


async def synthesize(
    caller: Caller, catalog: Catalog, settings: SynthSettings, exclude_tools: Sequence[str] = ()
) -> Synthesis:
    """Step 1, the screen, step 2; candidates come back in a fixed order."""
    result = Synthesis()
    asks = plan_asks(catalog, settings, exclude_tools)
    result.asks = len(asks)
    found: list[list[Intent]] = [[] for _ in asks]

    async def intents_for(index: int, ask: Ask) -> None:
        answer = await caller.ask(ask.system, ask.user, lambda text: intents_from(ask, text))
        found[index] = answer or []

    async with anyio.create_task_group() as group:
        for index, ask in enumerate(asks):
            group.start_soon(intents_for, index, ask)
    intents = [intent for batch in found for intent in batch]
    result.intents = len(intents)
    kept, dropped = screen_intents(intents, catalog, exclude_tools)
    result.dropped += dropped

    batches = paraphrase_batches(kept, settings.batch)
    written: list[dict[int, str]] = [{} for _ in batches]

    async def paraphrase(index: int, batch: list[Intent]) -> None:
        system, user = paraphrase_prompt(batch, settings.persona, settings.language)
        result.paraphrase_requests.append(user)
        answer = await caller.ask(system, user, lambda text: queries_from(text, len(batch)))
        written[index] = answer or {}

    async with anyio.create_task_group() as group:
        for index, batch in enumerate(batches):
            group.start_soon(paraphrase, index, batch)
    for batch, queries in zip(batches, written, strict=True):
        for number, intent in enumerate(batch, start=1):
            if number in queries:
                result.candidates.append(Candidate(intent, queries[number]))
            else:
                result.dropped.append(Dropped(f"intent {intent.goal!r}", "no paraphrase came back for it"))
    order = {id(ask_intent): position for position, ask_intent in enumerate(intents)}
    result.candidates.sort(key=lambda candidate: order.get(id(candidate.intent), 0))
    return result

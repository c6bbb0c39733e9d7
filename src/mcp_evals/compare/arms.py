"""The arms: one fixture asked with the catalog delivered one way (one or two requests).

``full``      the request ``mcp-evals run`` sends: every tool, whole.
``deferred``  every tool behind a search. With Anthropic the API's own tool search (server-side:
              one request; the provider records what the model searched for and what it saw).
              With an OpenAI-compatible API, client-side: the first request offers only a
              ``search_tools`` tool; our BM25 (the lexical baseline's index over names,
              descriptions and parameters) answers it with the top K tools, whose definitions the
              second request carries so the model can call one.
``grouped``   one router tool per area (the config's ``areas:``): the first request picks an area,
              the second offers that area's tools.

Both requests of a two-request arm are in the answer's usage (and so its cost). Each job reserves
its arm's worst case from the budget, ``requests_per_job`` requests: 1 (full), 2 (grouped, the
client-side search), or as many as the API's tool search can send (Anthropic: 3, the first request
and two continuations of a paused turn). When the second
fails and is retried, the first answer is reused, not paid for again. The model's choice is the
first call of the last request; a first request that calls nothing (a refusal, a question) is the
answer as it stands.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Literal

from mcp_evals.answers import (
    Answer,
    GenerateOptions,
    Message,
    Retrieval,
    ToolChoice,
    ToolChoiceMode,
    ToolResult,
    ToolSpec,
)
from mcp_evals.catalog.model import Catalog, Tool
from mcp_evals.compare.paired import ArmKind
from mcp_evals.providers.base import Provider, invalid_response
from mcp_evals.providers.lexical import Bm25Index, tool_words
from mcp_evals.run.asker import Asker, Job
from mcp_evals.text import words

SEARCH_TOOL = "search_tools"
SEARCH_DESCRIPTION = (
    "Find this service's tools for a task. Say in a few words what the user wants done; the "
    "best-matching tools come back, and you can then call one of them. No other tool is available "
    "until you search."
)
SEARCH_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"query": {"type": "string", "description": "What the user wants done, in a few words."}},
    "required": ["query"],
}
ROUTER_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}
SUMMARY_CHARS = 90  # of each tool's description in a router's description
ONE_AT_A_TIME = "Not run: call one tool at a time."


@dataclass(frozen=True)
class ToolSearch:
    """How a deferred catalog is searched: ``variant`` names the API's own search (its provider is
    built with the same, as ``tool_search``); ``top_k``: tools a client-side search reveals."""

    variant: Literal["bm25", "regex"] = "bm25"
    top_k: int = 5


def first_sentence(text: str, limit: int = SUMMARY_CHARS) -> str:
    sentence = re.split(r"(?<=[.!?])\s", " ".join(text.split()), maxsplit=1)[0]
    return sentence if len(sentence) <= limit else sentence[: limit - 1].rstrip() + "…"


def combine(first: Answer, second: Answer, retrieval: Retrieval) -> Answer:
    """The last answer, carrying both requests' usage and latency."""
    second.usage = first.usage + second.usage
    second.latency_ms = first.latency_ms + second.latency_ms
    second.retrieval = retrieval
    return second


class Arm(ABC):
    """One way to deliver the catalog; ``answer`` asks one fixture (one attempt, the runner retries)."""

    kind: ClassVar[ArmKind]
    requests_per_job: int = 1  # the most requests one answer can take: the budget reserves them all

    def __init__(self, name: str, asker: Asker, label: str) -> None:
        self.name = name
        self.asker = asker
        self.label = label

    @property
    def provider(self) -> Provider:
        return self.asker.provider

    @property
    def catalog(self) -> Catalog:
        return self.asker.catalog

    async def ask(self, job: Job, mode: ToolChoiceMode | None) -> Answer:
        """The arm's answer, with the names the model used mapped back to MCP names."""
        return self.catalog.names.resolve(await self.answer(job, mode))

    @abstractmethod
    async def answer(self, job: Job, mode: ToolChoiceMode | None) -> Answer:
        """The model's answer to ``job`` with the catalog delivered this arm's way."""

    def notes(self) -> list[str]:
        """What the arm's record must say about it (its results file's header)."""
        return [f"compare arm {self.name} ({self.kind}): {self.label}"]

    def why_no_call(self, answer: Answer) -> str | None:
        """Why an answer to a forced request ends with no tool called although the model did call
        one of this arm's own tools (a search that found nothing); None when the model called none
        at all, so did not honour forced tool use."""
        return None


class FullArm(Arm):
    kind: ClassVar = "full"

    async def answer(self, job: Job, mode: ToolChoiceMode | None) -> Answer:
        return await self.asker.ask(job, mode)


class TwoStepArm(Arm):
    """An arm whose first request may lead to a second; the first answer is kept across retries."""

    requests_per_job = 2

    def __init__(self, name: str, asker: Asker, label: str) -> None:
        super().__init__(name, asker, label)
        self._first: dict[tuple[Job, ToolChoiceMode | None], Answer] = {}

    def options(self, job: Job, *, cache: bool) -> GenerateOptions:
        options = self.asker.options_for(job)
        return options if cache else replace(options, cache="off")

    async def first_answer(
        self, job: Job, mode: ToolChoiceMode | None, tools: tuple[ToolSpec, ...]
    ) -> Answer:
        if (job, mode) not in self._first:
            messages = self.asker.messages(job.fixture.query)
            options = self.options(job, cache=True)
            self._first[(job, mode)] = await self.provider.generate(
                messages, tools, ToolChoice.of(mode), options
            )
        return self._first[(job, mode)]

    async def second_answer(
        self,
        job: Job,
        mode: ToolChoiceMode | None,
        first: Answer,
        result_text: str,
        tools: tuple[ToolSpec, ...],
        *,
        cache: bool,
    ) -> Answer:
        """The conversation goes on: the first answer, what its first call found (any other call is
        answered that it was not run), and the tools to choose from now."""
        said = first.message
        if said is None or not said.tool_uses:
            raise invalid_response("no tool call to answer", first.request_id)
        results = [
            ToolResult(use.id, result_text if index == 0 else ONE_AT_A_TIME)
            for index, use in enumerate(said.tool_uses)
        ]
        messages = [*self.asker.messages(job.fixture.query), said, Message.user(results)]
        answer = await self.provider.generate(
            messages, tools, ToolChoice.of(mode), self.options(job, cache=cache)
        )
        self._first.pop((job, mode), None)
        return answer

    def done(self, job: Job, mode: ToolChoiceMode | None, answer: Answer, retrieval: Retrieval) -> Answer:
        self._first.pop((job, mode), None)
        answer.retrieval = retrieval
        return answer


class DeferredArm(TwoStepArm):
    """Every tool behind a search: the API's own (Anthropic) or ours, client-side (OpenAI-compatible)."""

    kind: ClassVar = "deferred"

    def __init__(self, name: str, asker: Asker, search: ToolSearch) -> None:
        server = asker.provider.tool_search_requests > 0
        label = (
            f"every tool deferred behind the tool search of the API ({search.variant}, server-side)"
            if server
            else f"every tool behind a client-side search_tools (BM25, top {search.top_k}; two requests)"
        )
        super().__init__(name, asker, label)
        self.search = search
        self.server_side = server
        if server:
            self.requests_per_job = asker.provider.tool_search_requests
        catalog = asker.catalog
        self.deferred = tuple(catalog.spec(tool, deferred=True) for tool in catalog.tools)
        self.search_tool = (ToolSpec(SEARCH_TOOL, SEARCH_DESCRIPTION, SEARCH_SCHEMA),)
        self.index = Bm25Index({tool.name: tool_words(tool) for tool in catalog.tools})

    def why_no_call(self, answer: Answer) -> str | None:
        retrieval = answer.retrieval
        if retrieval is None or not retrieval.searches:
            return None  # the model never searched: it did not call the one tool it was offered
        if self.server_side:
            if not retrieval.revealed:
                return "the API's tool search found no tool for the model's search"
            return "the model searched (the API's tool search), then called none of the tools revealed"
        if not retrieval.revealed:
            return f"{SEARCH_TOOL} found no tool for the model's search"
        return None  # the second request offered the tools found and forced a call: none came

    def search_tools(self, query: str) -> list[Tool]:
        ranked = self.index.scores(words(query))
        by_name = self.catalog.by_name
        return [by_name[name] for name, score in ranked[: self.search.top_k] if score > 0]

    async def answer(self, job: Job, mode: ToolChoiceMode | None) -> Answer:
        if self.server_side:
            messages = self.asker.messages(job.fixture.query)
            options = self.options(job, cache=True)
            return await self.provider.generate(messages, self.deferred, ToolChoice.of(mode), options)
        first = await self.first_answer(job, mode, self.search_tool)
        call = first.calls[0] if first.calls else None
        if call is None or call.provider_name != SEARCH_TOOL:
            return self.done(job, mode, first, Retrieval())  # declined, or named a tool it was never shown
        query = (call.arguments or {}).get("query")
        query = query if isinstance(query, str) else call.raw_arguments or ""
        found = self.search_tools(query)
        if not found:  # nothing to show: the answer ends here, with no tool called
            first.calls = []
            first.text = f"search_tools({query!r}) found no tool"
            return self.done(job, mode, first, Retrieval(searches=[query]))
        listing = "\n".join(
            f"- {self.catalog.names.provider(tool.name)}: {first_sentence(tool.description)}"
            for tool in found
        )
        text = f"{len(found)} tools match; they are now available to call:\n{listing}"
        tools = tuple(self.catalog.spec(tool) for tool in found)
        second = await self.second_answer(job, mode, first, text, tools, cache=False)
        retrieval = Retrieval(searches=[query], revealed=[tool.name for tool in found], requests=2)
        return combine(first, second, retrieval)


def router_names(areas: list[str]) -> dict[str, str]:
    """Router tool name → area: ``open_<area>``, provider-safe and distinct."""
    names: dict[str, str] = {}
    for area in areas:
        base = "open_" + (re.sub(r"[^A-Za-z0-9_-]+", "_", area).strip("_") or "area")
        base = base[:60]
        name, number = base, 2
        while name in names:
            name, number = f"{base[:57]}_{number}", number + 1
        names[name] = area
    return names


class GroupedArm(TwoStepArm):
    """One router tool per area; the area's tools are offered once the model opens it."""

    kind: ClassVar = "grouped"

    def __init__(self, name: str, asker: Asker) -> None:
        catalog = asker.catalog
        areas = catalog.areas
        super().__init__(name, asker, f"one router tool per area ({len(areas)} areas; two requests)")
        self.routers = router_names(areas)
        self.members: dict[str, list[Tool]] = {area: [] for area in areas}
        for tool in catalog.tools:
            self.members[tool.area].append(tool)
        self.member_specs = {
            area: tuple(catalog.spec(tool) for tool in tools) for area, tools in self.members.items()
        }
        self.router_tools = tuple(self._router(name, area) for name, area in self.routers.items())

    def _router(self, name: str, area: str) -> ToolSpec:
        summary = "; ".join(
            f"{self.catalog.names.provider(tool.name)}: {first_sentence(tool.description)}"
            for tool in self.members[area]
        )
        description = f"Open the {area} tools, then call one of them. They are: {summary}"
        return ToolSpec(name, description, ROUTER_SCHEMA)

    async def answer(self, job: Job, mode: ToolChoiceMode | None) -> Answer:
        first = await self.first_answer(job, mode, self.router_tools)
        call = first.calls[0] if first.calls else None
        area = self.routers.get(call.provider_name) if call is not None else None
        if area is None:
            return self.done(job, mode, first, Retrieval())  # declined, or called something it was not shown
        members = self.members[area]
        names = ", ".join(self.catalog.names.provider(tool.name) for tool in members)
        text = f"The {area} tools are now available: {names}. Call the one that fits the request."
        second = await self.second_answer(job, mode, first, text, self.member_specs[area], cache=True)
        retrieval = Retrieval(area=area, revealed=[tool.name for tool in members], requests=2)
        return combine(first, second, retrieval)

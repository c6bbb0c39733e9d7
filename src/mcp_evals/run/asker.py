"""What a run asks: one fixture's query, with the catalog and system prompt every request carries.

``Asker`` binds a provider to what is the same for every request of a run (or of one of compare's
arms, or of a session's arm): the catalog as ``ToolSpec``s (provider-safe names, one tuple, so the
provider serializes it once), the system prompt and the ``GenerateOptions``. It builds a fixture's
``Message``s, chooses its tool choice, calls ``Provider.generate`` and maps the names the model used
back to MCP names. Nothing here knows a wire format.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any

from mcp_evals.answers import (
    Answer,
    CacheHint,
    GenerateOptions,
    Message,
    ToolChoice,
    ToolChoiceMode,
    ToolSpec,
)
from mcp_evals.catalog.model import Catalog
from mcp_evals.config.model import RunOptions
from mcp_evals.fixtures.model import Fixture
from mcp_evals.providers.base import BatchItem, Provider
from mcp_evals.providers.pricing import rejects_forced_tool_choice
from mcp_evals.providers.tokens import prompt_prefix

if TYPE_CHECKING:
    from collections.abc import Sequence


def generate_options(
    run: RunOptions, *, conversation: bool = False, max_tokens: int | None = None
) -> GenerateOptions:
    """The config's ``run:`` options for every request: ``max_tokens``, ``temperature``, and prompt
    caching (of the prefix, or for a ``conversation`` re-sent every turn, of its newest message too)."""
    cache: CacheHint = ("conversation" if conversation else "prefix") if run.prompt_caching else "off"
    return GenerateOptions(max_tokens=max_tokens or run.max_tokens, temperature=run.temperature, cache=cache)


def own_settings(run: RunOptions) -> dict[str, Any]:
    """The config's settings that only some providers read (each takes its own: ``ProviderSettings.own``)."""
    return {"anthropic_version": run.anthropic_version, "lexical_strictness": run.lexical_strictness}


@dataclass(frozen=True, eq=False)
class Job:
    """One request to make: a fixture and which of its samples (compared by identity)."""

    fixture: Fixture
    sample: int = 0


class Asker:
    """A provider asked with one catalog, one system prompt and one set of options."""

    def __init__(
        self,
        provider: Provider,
        catalog: Catalog,
        system_prompt: str = "",
        options: GenerateOptions | None = None,
    ) -> None:
        self.provider = provider
        self.catalog = catalog
        self.system_prompt = system_prompt
        self.options = options or GenerateOptions()
        self.tools: Sequence[ToolSpec] = catalog.specs
        self._system = [Message.system(system_prompt)] if system_prompt else []

    @property
    def model(self) -> str:
        return self.provider.settings.model

    @property
    def caching(self) -> bool:
        """Whether requests mark a cacheable prefix (the run warms the cache with one request first)."""
        return self.provider.uses_network and self.options.cache != "off"

    @cached_property
    def prefix(self) -> bytes:
        """The tools and the system prompt, the same for every request (what the budget's first
        estimate and the caching notes count)."""
        return prompt_prefix(self.tools, self.system_prompt)

    def notes(self) -> list[str]:
        return self.provider.notes(self.options)

    def mode_for(self, fixture: Fixture, *, forced_rejected: bool) -> ToolChoiceMode | None:
        """``select`` fixtures force a tool call (unless the model refuses forced tool use: then auto
        plus the instruction); refuse/clarify fixtures must be free not to call one. A provider that
        answers in-process takes no tool choice."""
        if not self.provider.uses_network:
            return None
        if fixture.kind != "select":
            return "auto"
        known = rejects_forced_tool_choice(self.model)
        return "auto_instructed" if forced_rejected or known else "forced"

    def messages(self, query: str) -> list[Message]:
        return [*self._system, Message.user(query)]

    def options_for(self, job: Job) -> GenerateOptions:
        return replace(self.options, key=(job.fixture.id, job.sample))

    async def ask(self, job: Job, mode: ToolChoiceMode | None) -> Answer:
        """One attempt at one job (the runner retries)."""
        answer = await self.provider.generate(
            self.messages(job.fixture.query), self.tools, ToolChoice.of(mode), self.options_for(job)
        )
        return self.catalog.names.resolve(answer)

    def batch_item(self, job: Job, mode: ToolChoiceMode | None) -> BatchItem:
        fixture = job.fixture
        return BatchItem(
            key=(fixture.id, fixture.hash, job.sample),
            label=f"{fixture.id[:40]}-s{job.sample}",
            messages=self.messages(fixture.query),
            tools=self.tools,
            tool_choice=ToolChoice.of(mode),
            options=self.options_for(job),
        )

"""Replay: answer every fixture from an earlier results file, calling nothing.

For re-scoring after editing expectations (``expected_tools``, ``expected_args``, areas) without
paying for a new run. An answer is reused only for the same fixture id, sample and query text, and
only from a file made against the same catalog (the runner checks that): a new or rewritten query
has no earlier answer and is recorded as not reached.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from mcp_evals.answers import Answer, GenerateOptions, Message, ToolChoice, ToolSpec
from mcp_evals.providers.base import NO_OPTIONS, OfflineProvider, ProviderSettings
from mcp_evals.providers.failures import ProviderFailure
from mcp_evals.record.model import FixtureResult
from mcp_evals.record.read import Results


class ReplayProvider(OfflineProvider):
    """Answers a request named by ``GenerateOptions.key`` (fixture id, sample) from the earlier file."""

    name: ClassVar = "replay"
    label: ClassVar = "replay of an earlier results file"

    def __init__(self, settings: ProviderSettings, *, source: Results, source_path: str) -> None:
        super().__init__(settings)
        self.source = source
        self.source_path = source_path
        self.lexical = source.header.lexical  # a replayed lexical baseline is still one
        self._queries = {fixture.id: fixture.query for fixture in source.header.fixtures}
        self._answers: dict[tuple[str, int], FixtureResult] = {
            key: result for key, result in source.by_key.items() if result.reached
        }

    async def generate(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        tool_choice: ToolChoice | None = None,
        options: GenerateOptions = NO_OPTIONS,
    ) -> Answer:
        if options.key is None:
            raise ValueError(
                "a replay answers only requests named by GenerateOptions.key (fixture id, sample)"
            )
        fixture_id, sample = options.key
        query = next((message.text for message in reversed(messages) if message.role == "user"), "")
        earlier = self._answers.get((fixture_id, sample))
        if earlier is None or self._queries.get(fixture_id) != query:
            why = "its query changed" if earlier is not None else "it has no reached answer there"
            raise ProviderFailure.final_for_fixture(
                "not_dispatched",
                f"nothing to replay for {fixture_id!r} (sample {sample}) from {self.source_path}: {why}",
            )
        return Answer(
            calls=list(earlier.calls),
            text=earlier.text,
            stop_reason=earlier.stop_reason,
            usage=earlier.usage,
            request_id=earlier.request_id,
            latency_ms=earlier.latency_ms,
            mode=earlier.mode,
        )

"""Replay: answer every fixture from an earlier results file, calling nothing.

For re-scoring after editing expectations (``expected_tools``, ``expected_args``, areas) without
paying for a new run. An answer is reused only for the same fixture id, sample and query text, and
only from a file made against the same catalog (the runner checks that): a new or rewritten query
has no earlier answer and is recorded as not reached.
"""

from __future__ import annotations

from typing import ClassVar

from mcp_evals.answers import ToolChoiceMode
from mcp_evals.catalog.model import Catalog
from mcp_evals.providers.base import Answer, Job, OfflineProvider, ProviderSettings
from mcp_evals.providers.failures import ProviderFailure
from mcp_evals.record.model import FixtureResult
from mcp_evals.record.read import Results


class ReplayProvider(OfflineProvider):
    name: ClassVar = "replay"
    label: ClassVar = "replay of an earlier results file"

    def __init__(
        self,
        settings: ProviderSettings,
        catalog: Catalog,
        system_prompt: str,
        *,
        source: Results,
        source_path: str,
    ) -> None:
        super().__init__(settings, catalog, system_prompt)
        self.source = source
        self.source_path = source_path
        self.lexical = source.header.lexical  # a replayed lexical baseline is still one
        self.queries = {fixture.id: fixture.query for fixture in source.header.fixtures}
        self.answers: dict[tuple[str, int], FixtureResult] = {
            key: result for key, result in source.by_key.items() if result.reached
        }

    async def answer(self, job: Job, mode: ToolChoiceMode | None) -> Answer:
        fixture = job.fixture
        earlier = self.answers.get((fixture.id, job.sample))
        if earlier is None or self.queries.get(fixture.id) != fixture.query:
            why = "its query changed" if earlier is not None else "it has no reached answer there"
            raise ProviderFailure.final_for_fixture(
                "not_dispatched",
                f"nothing to replay for {fixture.id!r} (sample {job.sample}) from {self.source_path}: {why}",
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

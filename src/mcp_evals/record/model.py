"""The results record: what a run produced, as versioned NDJSON.

Line 1 of a results file is a ``RunHeader`` (everything needed to re-score and re-render without
the config, the servers or the model: catalog, fixtures, settings). Every later line is a
``FixtureResult`` for one (fixture, sample), appended and flushed as it finishes, so a killed run
loses nothing it finished. A resumed run appends to the same file; for a (fixture, sample) the last
reached result wins. Reports are rendered from this record alone.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import ConfigDict, Field

from mcp_evals.catalog.model import Catalog
from mcp_evals.config.model import GateOptions, ScoringOptions
from mcp_evals.fixtures.model import Fixture
from mcp_evals.strict import StrictModel

SCHEMA_VERSION = 1

ErrorKind = Literal[
    "rate_limited",  # 429 after every retry
    "overloaded",  # 529 / 503 after every retry
    "server_error",  # 5xx after every retry
    "timeout",  # connect/read timeout after every retry
    "connection",  # reset / refused after every retry
    "invalid_response",  # truncated or malformed body after every retry
    "truncated",  # the answer hit max_tokens (or the context window) before any tool call
    "auth",  # 401 / 403: fatal
    "billing",  # credit, quota, spend limit: fatal
    "not_found",  # unknown model or endpoint: fatal
    "invalid_request",  # 400 the request itself is wrong: fatal
    "not_dispatched",  # never sent: the run stopped on a fatal error first
    "budget",  # never sent: the next request could have crossed the budget
    "batch_errored",  # a Message Batches entry errored
    "batch_expired",  # a Message Batches entry expired or was canceled
]
ToolChoiceMode = Literal["forced", "auto", "auto_instructed", "none"]
ProviderName = Literal["anthropic", "openai", "lexical", "replay"]


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class ToolCall(StrictModel):
    """One tool call the model made, in order."""

    name: str = Field(description="MCP tool name (mapped back from the provider-safe name).")
    provider_name: str = Field(description="The name the model actually emitted.")
    known: bool = Field(True, description="False when the model named a tool that is not in the catalog.")
    arguments: dict[str, Any] | None = Field(None, description="Parsed arguments; None when unparseable.")
    raw_arguments: str | None = Field(None, description="The raw argument text when it was not valid JSON.")


class Usage(StrictModel):
    input_tokens: int = 0
    output_tokens: int = 0
    cache_write_tokens: int = 0
    cache_read_tokens: int = 0

    @property
    def total_input(self) -> int:
        return self.input_tokens + self.cache_write_tokens + self.cache_read_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cache_write_tokens=self.cache_write_tokens + other.cache_write_tokens,
            cache_read_tokens=self.cache_read_tokens + other.cache_read_tokens,
        )


class Retrieval(StrictModel):
    """How the tools reached the model when the catalog was not sent whole (``mcp-evals compare``).

    ``deferred``: what the model searched for and which tools the search revealed; ``grouped``: the
    area the model opened (and so the tools it then saw).
    """

    searches: list[str] = Field(default_factory=list, description="What the model searched for, in order.")
    revealed: list[str] = Field(
        default_factory=list, description="The tools the model was shown after searching or routing."
    )
    area: str | None = Field(None, description="Grouped catalogs: the area the model opened.")
    requests: int = Field(1, description="Requests this answer took (all of them are in usage and cost).")


class FixtureResult(StrictModel):
    """One answer (or the reason there is none) for one fixture and sample."""

    type: Literal["result"] = "result"
    schema_version: int = SCHEMA_VERSION
    fixture_id: str
    fixture_hash: str
    sample: int = 0
    provider: ProviderName
    model: str
    catalog_hash: str
    reached: bool = Field(description="True when the model answered; False is an infrastructure dropout.")
    calls: list[ToolCall] = Field(default_factory=list)
    text: str = ""
    stop_reason: str | None = None
    usage: Usage = Field(default_factory=Usage)
    cost_usd: float | None = None
    latency_ms: float = 0.0
    request_id: str | None = None
    attempts: int = 0
    mode: ToolChoiceMode | None = None
    error_kind: ErrorKind | None = None
    error_message: str | None = None
    finished_at: str = Field(default_factory=now_iso)
    retrieval: Retrieval | None = Field(
        None, description="Only when the catalog was delivered by search or by area (compare's arms)."
    )


class SamplingSettings(StrictModel):
    temperature: float | None = None
    max_tokens: int = 1024
    samples: int = 1


class RunHeader(StrictModel):
    """The first line of a results file: how the run was set up, and its inputs in full."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, serialize_by_alias=True)

    type: Literal["run"] = "run"
    schema_version: int = SCHEMA_VERSION
    tool_version: str
    run_id: str
    started_at: str = Field(default_factory=now_iso)
    provider: ProviderName
    model: str
    # "lexical" in code; the record keeps the key it has always had.
    lexical: bool = Field(
        False,
        alias="baseline_only",
        description="True for the lexical baseline (BM25, not a model): never gates.",
    )
    catalog: Catalog
    catalog_hash: str
    fixtures: list[Fixture] = Field(description="The fixtures this run planned (after --limit / --shard).")
    fixture_set_hash: str = Field(description="Hash of the whole fixture set the plan was taken from.")
    system_prompt: str
    system_prompt_hash: str
    tool_choice: ToolChoiceMode = "forced"
    sampling: SamplingSettings = Field(default_factory=SamplingSettings)
    shard: str | None = None
    limit: int | None = None
    exclude_tools: list[str] = Field(default_factory=list)
    scoring: ScoringOptions = Field(default_factory=ScoringOptions)
    gate: GateOptions = Field(default_factory=GateOptions)
    notes: list[str] = Field(
        default_factory=list, description="Warnings a report must repeat (e.g. no caching)."
    )
    lexical_choices: dict[str, str | None] | None = Field(
        None,
        description="A model run's planned fixtures → the tool the lexical baseline (words alone) calls, "
        "or null when it refuses: reports put its top-1 beside the model's.",
    )

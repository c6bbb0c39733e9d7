"""The results record: what a run produced, as versioned NDJSON.

Line 1 of a results file is a ``RunHeader`` (everything needed to re-score and re-render without
the config, the servers or the model: catalog, fixtures, settings). Every later line is a
``FixtureResult`` for one (fixture, sample), appended and flushed as it finishes, so a killed run
loses nothing it finished. A resumed run rewrites the file with the answers it keeps, then appends;
for a (fixture, sample) the last reached result wins. Reports are rendered from this record alone.
Writing and reading it is ``record.ndjson``'s, the one layer the session records use too.
"""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field

from mcp_evals.answers import ErrorKind, ProviderName, Retrieval, ToolCall, ToolChoiceMode, Usage, now_iso
from mcp_evals.catalog.model import Catalog
from mcp_evals.config.model import GateOptions, ScoringOptions
from mcp_evals.fixtures.model import Fixture
from mcp_evals.strict import StrictModel

SCHEMA_VERSION = 1


class Record(StrictModel):
    """A line of a record file (``record.ndjson``): the run's results and the session records.

    Each kind's models fix ``type`` (a literal) and ``schema_version`` (a default) per line; the
    fields come first on every line, in this order."""

    type: str
    schema_version: int


class RecordHeader(Record):
    """The first line of a record file (one per run on a file that runs append to)."""

    tool_version: str = Field(description="The mcp-evals that wrote the file.")


class FixtureResult(Record):
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


class RunHeader(RecordHeader):
    """The first line of a results file: how the run was set up, and its inputs in full."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, serialize_by_alias=True)

    type: Literal["run"] = "run"
    schema_version: int = SCHEMA_VERSION
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

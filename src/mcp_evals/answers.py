"""What a model's answer is made of: tool calls, token usage, error kinds, tool-choice modes.

These types sit below every stage that shares them (providers produce them; run, record, score,
compare and session read them), so no stage imports a later one to name an answer's parts.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import Field

from mcp_evals.strict import StrictModel

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
# A provider's name as a record keeps it: any name, so a results file outlives the plugin that wrote
# it (what names a provider *may* take is mcp_evals.provider_registry's; the config checks it there).
ProviderName = str


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

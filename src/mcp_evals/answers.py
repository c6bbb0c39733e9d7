"""What a model is asked and what it answers: messages, tools, tool choices, options; tool calls,
token usage, error kinds.

These types sit below every stage that shares them (providers take and produce them; run, record,
score, compare, session, synth and the contract judge build or read them), so no stage imports a
provider, or a later stage, to name a message or an answer's parts.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
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


def content_text(content: Sequence[Mapping[str, Any]]) -> str:
    """MCP content blocks as one text: text blocks as they are, any other block as its JSON."""
    return "\n".join(
        str(block["text"])
        if block.get("type") == "text" and isinstance(block.get("text"), str)
        else json.dumps(block, ensure_ascii=False, separators=(",", ":"))
        for block in content
    )


# -- what a model is asked: messages, tools, a tool choice and options ------------------------------
#
# Every caller (a run's fixtures, compare's arms, sessions, synth, the contract judge) builds these
# and hands them to ``Provider.generate``; only the provider knows its API's wire format.

ONE_TOOL_INSTRUCTION = "Answer by calling exactly one of the available tools. Do not answer in text."


@dataclass(frozen=True, slots=True)
class Text:
    """A piece of text in a message."""

    text: str


@dataclass(frozen=True, slots=True)
class ToolUse:
    """A tool call in an assistant message: the id the API gave it (its result must carry the same),
    the name the model used and the arguments."""

    id: str
    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ToolResult:
    """What goes back to the model for one call: a text, or MCP content blocks (wire shape), and
    whether the call failed."""

    call_id: str
    content: str | Sequence[Mapping[str, Any]]
    is_error: bool = False


Part = Text | ToolUse | ToolResult
Role = Literal["system", "user", "assistant"]


@dataclass(frozen=True, slots=True)
class Message:
    """One message of a conversation. ``raw`` is an assistant message as its provider returned it
    (thinking blocks, server tool calls and all): that provider sends it back as it is."""

    role: Role
    content: str | tuple[Part, ...]
    raw: Any = field(default=None, compare=False)

    @classmethod
    def system(cls, text: str) -> Message:
        return cls("system", text)

    @classmethod
    def user(cls, content: str | Sequence[Part]) -> Message:
        return cls("user", content if isinstance(content, str) else tuple(content))

    @classmethod
    def assistant(cls, content: str | Sequence[Part], raw: Any = None) -> Message:
        return cls("assistant", content if isinstance(content, str) else tuple(content), raw)

    @property
    def parts(self) -> tuple[Part, ...]:
        return (Text(self.content),) if isinstance(self.content, str) else self.content

    @property
    def text(self) -> str:
        if isinstance(self.content, str):
            return self.content
        return "\n".join(part.text for part in self.content if isinstance(part, Text))

    @property
    def tool_uses(self) -> list[ToolUse]:
        return [part for part in self.parts if isinstance(part, ToolUse)]


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A tool as a model is shown it. ``name`` is the name the model sees and calls (provider-safe:
    ``catalog.names``); a ``deferred`` tool is loaded only when a search reveals it (tool search);
    ``title`` is read by the lexical baseline (the APIs have no place for it)."""

    name: str
    description: str = ""
    input_schema: Mapping[str, Any] = field(default_factory=lambda: {"type": "object"})
    title: str | None = None
    deferred: bool = False


@dataclass(frozen=True, slots=True)
class ToolChoice:
    """Which calls the model may make: ``auto`` (its choice), ``any`` (at least one: forced),
    ``tool`` (``name``, forced) or ``none``. ``instructed``: auto, plus the instruction to call
    exactly one tool (for a model that refuses forced tool use); where the instruction goes is the
    provider's choice (it keeps the cached prefix intact)."""

    kind: Literal["auto", "any", "tool", "none"] = "auto"
    name: str | None = None
    instructed: bool = False

    @property
    def forced(self) -> bool:
        return self.kind in ("any", "tool")

    @property
    def mode(self) -> ToolChoiceMode:
        """The tool choice as results record it."""
        if self.forced:
            return "forced"
        if self.kind == "none":
            return "none"
        return "auto_instructed" if self.instructed else "auto"

    @classmethod
    def of(cls, mode: ToolChoiceMode | None) -> ToolChoice | None:
        """The choice a recorded mode stands for (None: send none, the API's default)."""
        if mode is None:
            return None
        return {
            "forced": FORCED,
            "auto": AUTO,
            "auto_instructed": INSTRUCTED,
            "none": cls("none"),
        }[mode]


FORCED = ToolChoice("any")
AUTO = ToolChoice("auto")
INSTRUCTED = ToolChoice("auto", instructed=True)

# ``prefix``: mark the tools and the system prompt, the same in every request, for the API's prompt
# cache; ``conversation``: the newest message too (a conversation re-sent every turn reads what the
# turn before wrote); ``off``: mark nothing. APIs that cache by themselves ignore it.
CacheHint = Literal["off", "prefix", "conversation"]


@dataclass(frozen=True, slots=True)
class GenerateOptions:
    """How one answer is asked for. ``key`` names the request for a provider that answers from a
    record (replay: a fixture's id and sample); no API sees it. ``extras`` are added to the request
    body as they are (an API's parameter this tool has no option for)."""

    max_tokens: int = 1024
    temperature: float | None = None
    cache: CacheHint = "off"
    key: tuple[str, int] | None = None
    extras: Mapping[str, Any] = field(default_factory=dict)


@dataclass
class Answer:
    """What the model said: tool calls in order, text, stop reason, usage; ``message`` is its turn,
    to continue the conversation with."""

    calls: list[ToolCall] = field(default_factory=list)
    text: str = ""
    stop_reason: str | None = None
    usage: Usage = field(default_factory=Usage)
    request_id: str | None = None
    latency_ms: float = 0.0
    mode: ToolChoiceMode | None = None  # set only when the provider knows better (replay)
    truncated: bool = False  # cut off (max_tokens, the context window) before the model finished
    message: Message | None = None
    retrieval: Retrieval | None = (
        None  # how the tools reached the model (compare's deferred and grouped arms)
    )

"""One turn of a multi-step session (``mcp-evals session``): the model's tool calls with their
ids, and the results that go back."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mcp_evals.answers import ToolCall, Usage


@dataclass
class TurnCall:
    """One tool call of a turn, with the id the API gave it (its result must carry the same id)."""

    id: str
    call: ToolCall


@dataclass
class Turn:
    """One assistant turn of a session: its tool calls in order, its text, and the message to send back."""

    calls: list[TurnCall] = field(default_factory=list)
    text: str = ""
    stop_reason: str | None = None
    usage: Usage = field(default_factory=Usage)
    request_id: str | None = None
    latency_ms: float = 0.0
    truncated: bool = False  # cut off (max_tokens, the context window) before the model finished
    message: Any = None  # the assistant turn in the API's own shape, sent back with the results


@dataclass(frozen=True)
class TurnResult:
    """What goes back to the model for one call: MCP content blocks (wire shape) and the error flag."""

    call_id: str
    content: list[dict[str, Any]]
    is_error: bool = False


def content_text(content: Sequence[Mapping[str, Any]]) -> str:
    """MCP content blocks as one text: text blocks as they are, any other block as its JSON."""
    parts = []
    for block in content:
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            parts.append(str(block["text"]))
        else:
            parts.append(json.dumps(block, ensure_ascii=False, separators=(",", ":")))
    return "\n".join(parts)

"""A local token estimate, for ``--dry`` when no key (and so no free ``count_tokens``) is available.

Tokenizers are proprietary and differ per model; this counts characters. JSON-heavy tool schemas
run about 3 characters a token and prose about 4, so the estimate uses 3.5 and states that it is an
estimate (±20 %). Providers also add a hidden tool-use preamble when tools are present.

A request's prefix (the tools and the system prompt, the same in every request of a run) is
estimated by ``estimate_prefix_tokens`` alone, from the catalog and the prompt as plain data: the
lint's token report, ``run --dry`` without a key and the run's caching note show that one number.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

from mcp_evals.answers import Message, Text, ToolSpec, ToolUse

CHARS_PER_TOKEN = 3.5
TOOL_USE_PREAMBLE_TOKENS = 350  # Anthropic documents ~300–350 system tokens when tools are given
MESSAGE_OVERHEAD_TOKENS = 8


def estimate_tokens(text: str | bytes) -> int:
    """Tokens in a piece of text (or a serialized request body), estimated from its length."""
    length = len(text.decode("utf-8", "replace")) if isinstance(text, bytes) else len(text)
    return math.ceil(length / CHARS_PER_TOKEN)


def estimate_request_tokens(prefix: str | bytes, rest: str | bytes) -> tuple[int, int]:
    """(prefix tokens, other tokens) of a request: the cacheable prefix (tools + system) and the rest."""
    return (
        estimate_tokens(prefix) + TOOL_USE_PREAMBLE_TOKENS,
        estimate_tokens(rest) + MESSAGE_OVERHEAD_TOKENS,
    )


def prompt_prefix(tools: Sequence[ToolSpec], system: str) -> bytes:
    """What every request of a run carries, as the local estimate counts it: the tools (name,
    description, input schema, as JSON) and the system prompt. Each API wraps them a little
    differently; the estimate is the same for every provider."""
    definitions = [_definition(spec) for spec in tools if not spec.deferred]
    return (json.dumps(definitions, ensure_ascii=False, separators=(",", ":")) if definitions else "").encode(
        "utf-8"
    ) + system.encode("utf-8")


def request_text(messages: Sequence[Message], tools: Sequence[ToolSpec]) -> bytes:
    """A whole request as the local estimate counts it: ``prompt_prefix`` and the conversation."""
    system = "\n\n".join(message.text for message in messages if message.role == "system")
    conversation = [
        message.raw if message.raw is not None else {"role": message.role, "content": _content(message)}
        for message in messages
        if message.role != "system"
    ]
    return prompt_prefix(tools, system) + json.dumps(
        conversation, ensure_ascii=False, separators=(",", ":"), default=str
    ).encode("utf-8")


def _content(message: Message) -> Any:
    if isinstance(message.content, str):
        return message.content
    parts: list[Any] = []
    for part in message.content:
        if isinstance(part, Text):
            parts.append({"type": "text", "text": part.text})
        elif isinstance(part, ToolUse):
            parts.append(
                {"type": "tool_use", "id": part.id, "name": part.name, "input": dict(part.arguments)}
            )
        else:
            parts.append({"type": "tool_result", "tool_use_id": part.call_id, "content": part.content})
    return parts


def _definition(spec: ToolSpec) -> dict[str, Any]:
    return {"name": spec.name, "description": spec.description, "input_schema": dict(spec.input_schema)}


def estimate_tool_tokens(spec: ToolSpec) -> int:
    """Tokens of one tool's definition (the lint's per-tool sizes)."""
    return estimate_tokens(json.dumps(_definition(spec), ensure_ascii=False, separators=(",", ":")))


def estimate_prefix_tokens(tools: Sequence[ToolSpec], system: str) -> int:
    """Tokens of a request's cacheable prefix (``prompt_prefix``) with the provider's tool-use
    preamble: the one figure the lint, ``run --dry`` and the caching note show."""
    return estimate_tokens(prompt_prefix(tools, system)) + TOOL_USE_PREAMBLE_TOKENS


def estimate_query_tokens(query: str) -> int:
    """Tokens of one request's own part: the user's message and its framing."""
    return estimate_tokens(query) + MESSAGE_OVERHEAD_TOKENS

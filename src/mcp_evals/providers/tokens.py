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
from collections.abc import Iterable
from typing import Any

from mcp_evals.catalog.model import Tool

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


def tool_definition(tool: Tool) -> str:
    """The tool as a provider receives it (Anthropic's shape; OpenAI's differs by a few keys)."""
    document: dict[str, Any] = {
        "name": tool.name,
        "description": tool.description,
        "input_schema": tool.input_schema,
    }
    return json.dumps(document, ensure_ascii=False, separators=(",", ":"))


def estimate_tool_tokens(tool: Tool) -> int:
    """Tokens of one tool's definition."""
    return estimate_tokens(tool_definition(tool))


def estimate_prefix_tokens(tools: Iterable[Tool], system_prompt: str) -> int:
    """Tokens of a request's cacheable prefix: every tool's definition, the system prompt and the
    provider's tool-use preamble."""
    definitions = sum(estimate_tool_tokens(tool) for tool in tools)
    return definitions + estimate_tokens(system_prompt) + TOOL_USE_PREAMBLE_TOKENS


def estimate_query_tokens(query: str) -> int:
    """Tokens of one request's own part: the user's message and its framing."""
    return estimate_tokens(query) + MESSAGE_OVERHEAD_TOKENS

"""A local token estimate, for ``--dry`` when no key (and so no free ``count_tokens``) is available.

Tokenizers are proprietary and differ per model; this counts characters. JSON-heavy tool schemas
run about 3 characters a token and prose about 4, so the estimate uses 3.5 and states that it is an
estimate (±20 %). Providers also add a hidden tool-use preamble when tools are present.
"""

from __future__ import annotations

import math

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

"""Model providers behind one small interface (see ``base``).

anthropic   Anthropic Messages API (prompt caching, Message Batches, free count_tokens)
openai      OpenAI-compatible Chat Completions (OpenAI, gateways, vLLM, Ollama)
lexical     the lexical baseline: BM25, no network, no key, never gates
replay      answers from an earlier results file, calls nothing
"""

from __future__ import annotations

from .anthropic import AnthropicProvider
from .base import (
    Answer,
    HttpRequest,
    Job,
    OfflineProvider,
    Provider,
    ProviderFailure,
    ProviderSettings,
    Secret,
    parse_retry_after,
)
from .lexical import LexicalProvider
from .openai import OpenAIProvider
from .replay import ReplayProvider

PROVIDERS: dict[str, type[Provider]] = {
    "anthropic": AnthropicProvider,
    "openai": OpenAIProvider,
    "lexical": LexicalProvider,
    "replay": ReplayProvider,
}

__all__ = [
    "PROVIDERS",
    "Answer",
    "AnthropicProvider",
    "HttpRequest",
    "Job",
    "LexicalProvider",
    "OfflineProvider",
    "OpenAIProvider",
    "Provider",
    "ProviderFailure",
    "ProviderSettings",
    "ReplayProvider",
    "Secret",
    "parse_retry_after",
]

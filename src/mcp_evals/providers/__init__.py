"""Model providers behind one small interface (see ``base``).

anthropic   Anthropic Messages API (prompt caching, Message Batches, free count_tokens)
openai      OpenAI-compatible Chat Completions (OpenAI, gateways, vLLM, Ollama)
lexical     the lexical baseline: BM25, no network, no key, never gates
replay      answers from an earlier results file, calls nothing
"""

from __future__ import annotations

from mcp_evals.providers.anthropic import AnthropicProvider
from mcp_evals.providers.base import (
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
from mcp_evals.providers.lexical import LexicalProvider
from mcp_evals.providers.openai import OpenAIProvider
from mcp_evals.providers.replay import ReplayProvider

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

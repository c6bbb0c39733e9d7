"""What a run costs: the bundled price table (``data/prices.json``) and cost from reported usage.

Prices are USD per million tokens. Cost is always computed from the usage the API reported, never
from an estimate, except in ``--dry`` (see ``tokens``). The table is package data so that it can be
updated without code; ``run.prices`` in the config adds or overrides models.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from mcp_evals.answers import Usage
from mcp_evals.config.model import ModelPrice
from mcp_evals.errors import ConfigError
from mcp_evals.provider_registry import PROVIDERS

_DATE_SUFFIX = re.compile(r"-(?:\d{8}|\d{4}-\d{2}-\d{2})$")
DEFAULT_MIN_CACHE_TOKENS = 1024


@dataclass(frozen=True)
class Price:
    """USD per million tokens for one model."""

    model: str
    input: float
    output: float
    cache_write: float
    cache_read: float
    min_cache_tokens: int = DEFAULT_MIN_CACHE_TOKENS

    def cost(self, usage: Usage, *, batch: bool = False) -> float:
        dollars = (
            usage.input_tokens * self.input
            + usage.output_tokens * self.output
            + usage.cache_write_tokens * self.cache_write
            + usage.cache_read_tokens * self.cache_read
        ) / 1_000_000
        return dollars * (batch_discount() if batch else 1.0)


@cache
def _table() -> dict[str, Any]:
    text = resources.files("mcp_evals").joinpath("data/prices.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def batch_discount() -> float:
    return float(_table().get("batch_discount", 0.5))


def prices_as_of() -> str:
    return str(_table().get("as_of", "?"))


def rejects_forced_tool_choice(model: str) -> bool:
    """Models known to answer a forced ``tool_choice`` with a 400 (the runner also detects it live)."""
    return normalize_model(model) in set(_table().get("rejects_forced_tool_choice", []))


def normalize_model(model: str) -> str:
    """``openai/gpt-4.1`` → ``gpt-4.1``; ``claude-opus-4-8-20260301`` → ``claude-opus-4-8``."""
    name = model.strip().rsplit("/", 1)[-1]
    return _DATE_SUFFIX.sub("", name)


def _from_entry(model: str, entry: ModelPrice | dict[str, Any]) -> Price:
    data = entry if isinstance(entry, ModelPrice) else ModelPrice.model_validate(entry)
    return Price(
        model=model,
        input=data.input,
        output=data.output,
        cache_write=data.cache_write if data.cache_write is not None else data.input * 1.25,
        cache_read=data.cache_read if data.cache_read is not None else data.input * 0.1,
        min_cache_tokens=data.min_cache_tokens
        if data.min_cache_tokens is not None
        else DEFAULT_MIN_CACHE_TOKENS,
    )


def find_price(model: str, overrides: dict[str, ModelPrice] | None = None) -> Price | None:
    """The price of ``model``: config overrides first (exact name), then the bundled table."""
    overrides = overrides or {}
    for candidate in (model, normalize_model(model)):
        if candidate in overrides:
            return _from_entry(model, overrides[candidate])
    models: dict[str, dict[str, Any]] = _table()["models"]
    for candidate in (model, normalize_model(model)):
        if candidate in models:
            entry = {key: value for key, value in models[candidate].items() if key != "provider"}
            return _from_entry(model, entry)
    return None


def require_price(model: str, overrides: dict[str, ModelPrice] | None = None) -> Price:
    """Like ``find_price``, but a missing price is a config error (a budget needs one)."""
    price = find_price(model, overrides)
    if price is None:
        raise ConfigError(
            f"no price known for model {model!r}, and a budget needs one",
            hint=f"add it to mcp-evals.yaml: run: {{prices: {{{model}: {{input: …, output: …}}}}}} "
            "(USD per million tokens), or run without --budget-usd",
        )
    return price


def provider_of(model: str) -> str | None:
    """The provider whose API serves ``model``: by the bundled table, else by the registry's model
    prefixes (``claude-*`` is Anthropic's)."""
    name = normalize_model(model)
    entry = _table()["models"].get(name)
    if isinstance(entry, dict) and entry.get("provider"):
        return str(entry["provider"])
    for provider in PROVIDERS.entries(lambda entry: bool(entry.model_prefixes)):
        if name.startswith(provider.model_prefixes):
            return provider.name
    return None


def known_models(provider: str | None = None) -> list[str]:
    models: dict[str, dict[str, Any]] = _table()["models"]
    return [name for name, entry in models.items() if provider is None or entry.get("provider") == provider]


ASSUMED_OUTPUT_TOKENS = 120  # a tool call with a few arguments; `--dry` also shows the max_tokens worst case


@dataclass(frozen=True)
class CostEstimate:
    """What a run would cost, from token counts (``--dry``)."""

    requests: int
    prefix_tokens: int  # tools + system prompt: the same for every request, cacheable
    other_tokens: int  # the queries and message framing, summed over all requests
    output_tokens: int  # assumed, summed over all requests
    cacheable: bool  # the prefix reaches the model's minimum cacheable length
    without_caching: float
    with_caching: float
    worst_case_output: float  # extra cost if every answer used max_tokens

    @property
    def input_tokens(self) -> int:
        return self.requests * self.prefix_tokens + self.other_tokens

    def batch(self, amount: float) -> float:
        return amount * batch_discount()


def estimate_cost(
    price: Price,
    *,
    prefix_tokens: int,
    other_tokens: list[int],
    max_tokens: int,
    output_tokens: int = ASSUMED_OUTPUT_TOKENS,
) -> CostEstimate:
    """Cost with and without prompt caching: the first request writes the prefix, later ones read it."""
    requests = len(other_tokens)
    other = sum(other_tokens)
    output = requests * min(output_tokens, max_tokens)
    per_million = 1_000_000
    uncached = (
        requests * prefix_tokens * price.input + other * price.input + output * price.output
    ) / per_million
    cacheable = prefix_tokens >= price.min_cache_tokens
    if cacheable and requests:
        prefix_cost = prefix_tokens * price.cache_write + (requests - 1) * prefix_tokens * price.cache_read
        cached = (prefix_cost + other * price.input + output * price.output) / per_million
    else:
        cached = uncached
    worst = requests * max(0, max_tokens - min(output_tokens, max_tokens)) * price.output / per_million
    return CostEstimate(
        requests=requests,
        prefix_tokens=prefix_tokens,
        other_tokens=other,
        output_tokens=output,
        cacheable=cacheable,
        without_caching=uncached,
        with_caching=cached,
        worst_case_output=worst,
    )

"""The price table and cost arithmetic."""

from __future__ import annotations

import pytest

from mcp_evals.answers import Usage
from mcp_evals.config.model import ModelPrice
from mcp_evals.errors import ConfigError
from mcp_evals.providers.pricing import (
    estimate_cost,
    find_price,
    known_models,
    provider_of,
    rejects_forced_tool_choice,
    require_price,
)


def test_the_table_covers_current_claude_and_openai_models() -> None:
    claude = set(known_models("anthropic"))
    assert {
        "claude-opus-4-8",
        "claude-sonnet-4-6",
        "claude-haiku-4-5",
        "claude-opus-5-5",
        "claude-sonnet-5-5",
    } <= claude
    assert {"gpt-5.5", "gpt-5.4", "gpt-5.4-mini", "gpt-4.1"} <= set(known_models("openai"))


@pytest.mark.parametrize("model", known_models())
def test_every_price_is_consistent(model: str) -> None:
    price = find_price(model)
    assert price is not None
    assert 0 < price.cache_read < price.input <= price.cache_write and price.input < price.output
    if model.startswith("claude-"):
        assert price.cache_write == pytest.approx(1.25 * price.input)  # 5-minute cache write
        expected_read = 0.05 if model == "claude-opus-5-5" else 0.1
        assert price.cache_read == pytest.approx(expected_read * price.input)


def test_dated_and_gateway_model_ids_find_their_price() -> None:
    assert find_price("claude-opus-4-8-20260301").input == 5.0  # type: ignore[union-attr]
    assert find_price("anthropic/claude-sonnet-4-6").output == 15.0  # type: ignore[union-attr]
    assert find_price("openai/gpt-5.4-mini-2026-03-17").input == 0.75  # type: ignore[union-attr]
    assert find_price("llama3.1:8b") is None


def test_config_prices_add_and_override_models() -> None:
    overrides = {
        "my-model": ModelPrice(input=1, output=2),
        "gpt-4.1": ModelPrice(input=0, output=0, cache_read=0),
    }
    mine = find_price("my-model", overrides)
    assert mine is not None and (mine.cache_write, mine.cache_read) == (1.25, pytest.approx(0.1))
    assert find_price("gpt-4.1", overrides).output == 0  # type: ignore[union-attr]


def test_cost_is_summed_from_reported_usage() -> None:
    price = find_price("claude-opus-4-8")
    assert price is not None
    usage = Usage(input_tokens=1_000, output_tokens=200, cache_write_tokens=10_000, cache_read_tokens=0)
    assert price.cost(usage) == pytest.approx((1_000 * 5 + 200 * 25 + 10_000 * 6.25) / 1e6)
    assert price.cost(usage, batch=True) == pytest.approx(price.cost(usage) / 2)


def test_a_budget_without_a_price_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="no price known for model 'mystery'") as caught:
        require_price("mystery")
    assert "run: {prices:" in (caught.value.hint or "")


def test_forced_tool_choice_rejection_is_known_for_the_newest_models() -> None:
    assert rejects_forced_tool_choice("claude-opus-5-5") and rejects_forced_tool_choice("claude-fable-5-1")
    assert not rejects_forced_tool_choice("claude-opus-4-8")


def test_the_estimate_with_caching_writes_once_and_reads_after() -> None:
    price = find_price("claude-sonnet-4-6")
    assert price is not None
    estimate = estimate_cost(price, prefix_tokens=10_000, other_tokens=[20] * 50, max_tokens=1024)
    assert estimate.cacheable and estimate.requests == 50
    uncached_input = (50 * 10_000 + 1_000) * 3
    cached_input = 10_000 * 3.75 + 49 * 10_000 * 0.3 + 1_000 * 3
    output = 50 * 120 * 15
    assert estimate.without_caching == pytest.approx((uncached_input + output) / 1e6)
    assert estimate.with_caching == pytest.approx((cached_input + output) / 1e6)
    assert estimate.batch(estimate.with_caching) == pytest.approx(estimate.with_caching / 2)

    short = estimate_cost(price, prefix_tokens=500, other_tokens=[20] * 50, max_tokens=1024)
    assert not short.cacheable and short.with_caching == short.without_caching


def test_a_model_id_tells_its_provider() -> None:
    assert provider_of("gpt-5.4") == "openai" and provider_of("openai/gpt-4.1-mini") == "openai"
    assert provider_of("claude-opus-4-8-20260301") == provider_of("claude-next-9") == "anthropic"
    assert provider_of("llama3.1") is None

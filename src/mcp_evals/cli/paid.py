"""The model and the spending decision of the commands that call a model besides ``run``.

``mcp-evals synth`` and ``mcp-evals compare`` choose their provider exactly as ``run`` does (the one
``choose_provider``) and share one rule: **a paid model is never called without a budget cap.** When
the provider sends billable requests (a paid provider with its key), a cap must be given —
``--budget-usd X``, ``EVAL_BUDGET_USD`` or ``run.budget_usd`` — or the command stops before sending
anything (exit 3) and says how to estimate the cost with ``--dry``. A keyless OpenAI-compatible
endpoint of your own (``--base-url``, e.g. Ollama) bills nothing and needs no cap.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

from mcp_evals.answers import GenerateOptions
from mcp_evals.config.model import Config
from mcp_evals.errors import ConfigError
from mcp_evals.providers.base import Provider, ProviderSettings
from mcp_evals.providers.pricing import Price, find_price, require_price
from mcp_evals.providers.registry import Choice, choose_provider
from mcp_evals.run.asker import generate_options, own_settings


@dataclass
class PaidModel:
    """The provider to call, its settings and options, its price and the budget cap (None: nothing
    billable)."""

    choice: Choice
    provider_class: type[Provider]
    settings: ProviderSettings
    options: GenerateOptions
    price: Price | None
    budget_usd: float | None
    billable: bool

    @property
    def label(self) -> str:
        return self.provider_class.label or self.choice.name


def budget_from(flag: float | None, config: Config) -> float | None:
    """``--budget-usd``, else ``EVAL_BUDGET_USD``, else ``run.budget_usd``."""
    if flag is not None:
        return flag
    value = os.environ.get("EVAL_BUDGET_USD", "").strip()
    if value:
        try:
            number = float(value)
        except ValueError:
            raise ConfigError(f"EVAL_BUDGET_USD={value!r}: expected a number, e.g. 2.50") from None
        if not (number > 0 and math.isfinite(number)):
            raise ConfigError(f"EVAL_BUDGET_USD={value!r}: must be more than 0")
        return number
    return config.run.budget_usd


def billable(choice: Choice, endpoint: str | None) -> bool:
    """Whether requests to ``choice`` at ``endpoint`` may cost money: the one decision of every command
    that calls a model. A paid provider bills, except an OpenAI-compatible endpoint of your own (not
    api.openai.com) reached with no key; with a key, any endpoint (Azure, OpenRouter, a gateway) may."""
    own_endpoint = choice.entry.own_endpoint and bool(endpoint) and "api.openai.com" not in (endpoint or "")
    return choice.entry.paid and not (own_endpoint and choice.key is None)


def choose_paid_model(
    command: str,
    config: Config,
    *,
    provider: str | None,
    model: str | None,
    base_url: str | None,
    budget_usd: float | None,
    dry: bool,
    max_tokens: int | None = None,
) -> PaidModel:
    """The model ``command`` calls, checked against the budget rule (see the module docstring)."""
    options = config.run
    model_asked = model or os.environ.get("EVAL_MODEL", "").strip() or options.model
    choice = choose_provider(provider, options.provider, os.environ, model_asked)
    provider_class = choice.entry.load()
    endpoint = base_url or choice.base_url or options.base_url
    if endpoint and not endpoint.lower().startswith(("http://", "https://")):
        raise ConfigError(
            f"base URL {endpoint!r} has no http:// or https:// scheme",
            hint="give the whole URL, e.g. --base-url http://127.0.0.1:8000/v1",
        )
    paid = billable(choice, endpoint)
    budget = budget_from(budget_usd, config)
    if paid and choice.key is None and not dry:
        variable = choice.entry.key_env_var
        raise ConfigError(
            f"mcp-evals {command}: the {choice.name} provider needs {variable}, which is not set",
            hint=f"export {variable}=… (read from the environment only, never logged), or estimate the "
            f"cost first with `mcp-evals {command} --provider {choice.name} --dry`",
        )
    if paid and budget is None and not dry:
        raise ConfigError(
            f"mcp-evals {command} calls a paid model ({choice.name}) and no budget cap is set",
            hint=f"give one with --budget-usd X (or EVAL_BUDGET_USD, or run.budget_usd); "
            f"`mcp-evals {command} --dry` estimates the cost without sending anything",
        )
    model_name = model_asked or choice.entry.default_model or ""
    price = (
        require_price(model_name, options.prices)
        if paid and budget is not None
        else find_price(model_name, options.prices)
    )
    settings = ProviderSettings(
        model=model_name,
        base_url=endpoint or provider_class.default_base_url,
        api_key=choice.key,
        timeout=options.timeout,
        max_connections=max(4, (options.concurrency or 4) + 2),
        own=own_settings(options),
    )
    generate = generate_options(options, max_tokens=max_tokens)
    return PaidModel(choice, provider_class, settings, generate, price, budget if paid else None, paid)

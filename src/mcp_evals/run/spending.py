"""The one spending policy: which provider a command calls, with which key and endpoint, whether it
bills, under which cap and price — and what happens when the key is missing.

Every command that may call a paid model decides here, and nowhere else: ``run``, ``compare``,
``improve``, ``session``, ``synth``, the contract's ``llm_judge``, ``serve``'s run tool and the
Action's eval and session modes. ``choose`` decides the provider and the missing key; ``decide``
adds the cap and the price. In order:

1. the model asked for: ``--model``, else ``EVAL_MODEL``, else ``run.model``; the cap given:
   ``--budget-usd``, else ``EVAL_BUDGET_USD``, else the config's (``config.resolve``: a malformed
   value is bad input, key or no key);
2. the provider: named (the flag, then the config), else the one whose key is exported (the model's
   own when both are), else the lexical baseline (``providers.registry.choose_provider``);
3. the endpoint: ``--base-url``, else the provider's ``*_BASE_URL``, else ``run.base_url``; one with
   no ``http://`` or ``https://`` is bad input;
4. **a missing key**: nothing is sent; the command says so in one line that names the variable and
   exits 0, so a pull request from a fork (no secrets) never breaks CI. That is the case when a paid
   provider was named without its key, when a model was named without its provider's key (a named
   model is never replaced by the lexical baseline), and when a command that needs a model finds no
   key at all. ``--dry`` needs no key: it estimates with the provider the model (or name) implies;
5. billable: a paid provider bills, except an OpenAI-compatible endpoint of your own (not
   api.openai.com) reached with no key;
6. the cap in force: none when nothing bills; for ``run``, a paid provider picked only from an
   exported key runs under the default cap ($1) unless one was given; ``compare``, ``session`` and
   ``synth`` refuse a billable run with no cap (exit 3), and the judge is not asked without one;
7. the price: required when there is a cap (a cap needs a price), else looked up for the report.

docs/running.md's *A missing key* table is what ``tests/run/test_spending_table.py`` checks.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal

from mcp_evals.config.model import RunOptions
from mcp_evals.config.resolve import BUDGET_VARIABLE, MODEL_VARIABLE, number_setting, text_setting
from mcp_evals.errors import ConfigError
from mcp_evals.provider_registry import FALLBACK, PROVIDERS, ProviderEntry
from mcp_evals.providers.pricing import Price, find_price, provider_of, require_price
from mcp_evals.providers.registry import Choice, choose_provider
from mcp_evals.run.budget import DEFAULT_CAP_USD
from mcp_evals.wording import alternatives

if TYPE_CHECKING:
    from mcp_evals.providers.base import Provider, ProviderSettings

Capable = Callable[[ProviderEntry], bool]
CapRule = Literal["default", "required", "optional"]
"""``default``: ``run`` — a named provider runs uncapped unless a cap is given; one picked only from
an exported key runs under ``DEFAULT_CAP_USD``. ``required``: a billable call needs a cap (exit 3
without one). ``optional``: no default and no refusal; the caller decides (the judge skips)."""


@dataclass(frozen=True)
class MissingKey:
    """Why nothing is sent: the key the provider (or the model asked for) needs is not set."""

    kind: Literal["provider", "model", "none"]
    variables: tuple[str, ...]
    provider: str | None = None  # the provider that needs the key; None: any paid one
    model: str | None = None
    needs: str = ""  # kind "none": what the command needs a model for

    @property
    def reason(self) -> str:
        names = alternatives(self.variables)
        if self.kind == "provider":
            return f"the {self.provider} provider was asked for, but {names} is not set."
        if self.kind == "model" and self.provider is not None:
            return (
                f"the model {self.model} needs {names}, which is not set "
                "(the lexical baseline never stands in for a model that was asked for)."
            )
        if self.kind == "model":
            return (
                f"the model {self.model} needs an API key: set {names}, or name its provider with --provider."
            )
        return f"no API key. {self.needs}: set {names} (read from the environment only, never logged)."

    def line(self, command: str) -> str:
        """The one line that says so: ``mcp-evals COMMAND: skipped: … VARIABLE …``."""
        return f"mcp-evals {command}: skipped: {self.reason}"

    def message(self, command: str, *, usage: str = "", lexical: bool = False) -> str:
        """The line, then how to set the key and what runs without one (``usage``: the command's
        required arguments, shown in the ``--dry`` hint)."""
        lines = [self.line(command)]
        provider = f" --provider {self.provider}" if self.provider else ""
        dry = f"mcp-evals {command}{usage}{provider} --dry"
        if len(self.variables) == 1:
            variable = self.variables[0]
            lines += [
                "  Set it to run with a model (it is read from the environment only, never logged):",
                f"    export {variable}=…            # locally",
                f"    env: {{{variable}: ${{{{ secrets.{variable} }}}}}}   # in a GitHub Actions step",
            ]
        if lexical:
            lines.append(f"  Or run the free lexical baseline: mcp-evals {command} --provider lexical")
        if self.kind != "model" or self.provider is not None:
            lines.append(f"  Or estimate the cost first, without a key: {dry}")
        return "\n".join(lines)


@dataclass(frozen=True)
class Spending:
    """What a command may spend: the provider, key, endpoint, cap and price, or why nothing is sent."""

    command: str
    choice: Choice
    model: str  # the model to ask (the lexical baseline's "bm25"; "" for a replay)
    endpoint: str | None  # the base URL given (flag, environment, config); None: the provider's own
    billable: bool
    missing_key: MissingKey | None = None
    budget_usd: float | None = None  # the cap in force; None: uncapped, or nothing bills
    default_cap: bool = False  # the cap is DEFAULT_CAP_USD, not one that was given
    price: Price | None = None

    @property
    def name(self) -> str:
        return self.choice.name

    @property
    def explicit(self) -> bool:
        return self.choice.explicit

    @property
    def implicit_paid(self) -> bool:
        """A paid provider nobody named: picked from an exported key (docs/running.md, *No surprise
        spend*)."""
        return self.choice.entry.paid and not self.choice.explicit

    @property
    def provider_class(self) -> type[Provider]:
        return self.choice.entry.load()

    @property
    def label(self) -> str:
        return self.provider_class.label or self.choice.name

    def settings(
        self, options: RunOptions, *, model: str | None = None, max_connections: int = 4
    ) -> ProviderSettings:
        """The provider's settings: this key and endpoint, the config's timeout and provider-own
        settings (what each request asks is the caller's ``GenerateOptions``)."""
        from mcp_evals.providers.base import ProviderSettings
        from mcp_evals.run.asker import own_settings

        return ProviderSettings(
            model=model or self.model,
            base_url=self.endpoint or self.provider_class.default_base_url,
            api_key=self.choice.key,
            timeout=options.timeout,
            max_connections=max_connections,
            own=own_settings(options),
        )

    def price_of(self, model: str, options: RunOptions) -> Price | None:
        """The price of another model this command calls (a judge): required under a cap."""
        if self.budget_usd is not None and self.billable:
            return require_price(model, options.prices)
        return find_price(model, options.prices)


def billable(choice: Choice, endpoint: str | None) -> bool:
    """Whether requests to ``choice`` at ``endpoint`` may cost money. A paid provider bills, except an
    OpenAI-compatible endpoint of your own (not api.openai.com) reached with no key; with a key, any
    endpoint (Azure, OpenRouter, a gateway) may."""
    own_endpoint = choice.entry.own_endpoint and bool(endpoint) and "api.openai.com" not in (endpoint or "")
    return choice.entry.paid and not (own_endpoint and choice.key is None)


def _check_endpoint(endpoint: str | None) -> None:
    if endpoint and not endpoint.lower().startswith(("http://", "https://")):
        raise ConfigError(
            f"base URL {endpoint!r} has no http:// or https:// scheme",
            hint="give the whole URL, e.g. --base-url http://127.0.0.1:8000/v1",
        )


def choose(
    command: str,
    environ: Mapping[str, str],
    options: RunOptions,
    *,
    provider: str | None = None,
    model: str | None = None,
    base_url: str | None = None,
    dry: bool = False,
    where: Capable | None = None,
    needs_model: str | None = None,
    configured_where: Capable | None = None,
) -> Spending:
    """The provider, key, endpoint and model, and the missing key if nothing may be sent (steps 1–5).

    ``needs_model``: the command cannot run on a provider picked without a key (the lexical
    baseline), in a phrase ("Sessions need a model that calls tools"), so no key at all is a missing
    key; ``where``: what such a provider must be able to do (the keys the message names are those of
    the paid providers it keeps); ``configured_where``: a ``run.provider`` it does not keep is not used.
    """
    model_asked = text_setting(model, environ, MODEL_VARIABLE, options.model)
    configured = options.provider
    if configured is not None and configured_where is not None:
        configured = configured if configured in PROVIDERS.names(configured_where) else None
    choice = choose_provider(provider, configured, environ, model_asked)
    paid = PROVIDERS.names(lambda entry: entry.paid and (where is None or where(entry)))
    usable = where(choice.entry) if where is not None else choice.name != FALLBACK
    missing: MissingKey | None = None
    if not choice.explicit:
        wanted = provider_of(model_asked) if model_asked else None
        if model_asked and wanted in paid and choice.name != wanted:
            # The model's own key is not set: its provider, never a stand-in.
            if dry:
                choice = choose_provider(wanted, None, environ)
            else:
                variable = PROVIDERS[wanted].key_env_var or ""
                missing = MissingKey("model", (variable,), provider=wanted, model=model_asked)
        elif model_asked and wanted is None and choice.name == FALLBACK:
            missing = MissingKey("model", PROVIDERS.key_variables(where), model=model_asked)
        elif needs_model is not None and not usable:
            if dry and paid:
                choice = choose_provider(paid[0], None, environ)
            else:
                missing = MissingKey("none", PROVIDERS.key_variables(where), needs=needs_model)
    endpoint = base_url or choice.base_url or options.base_url or None
    _check_endpoint(endpoint)
    bills = billable(choice, endpoint)
    if missing is None and bills and choice.key is None and not dry:
        variable = choice.entry.key_env_var or ""
        missing = MissingKey("provider", (variable,), provider=choice.name)
    entry = choice.entry
    if choice.name == FALLBACK:
        model_name = entry.default_model or ""
    else:
        model_name = model_asked or entry.default_model or ""
    return Spending(command, choice, model_name, endpoint, bills, missing)


def decide(
    command: str,
    environ: Mapping[str, str],
    options: RunOptions,
    *,
    provider: str | None = None,
    model: str | None = None,
    base_url: str | None = None,
    budget_usd: float | None = None,
    dry: bool = False,
    where: Capable | None = None,
    needs_model: str | None = None,
    configured_where: Capable | None = None,
    cap: CapRule = "default",
    budget_variable: str | None = BUDGET_VARIABLE,
    budget_in_config: bool = True,
    usage: str = "",
) -> Spending:
    """``choose``, then the cap in force and the price (steps 6–7); bad input raises ``ConfigError``.

    The cap given is read first, so a malformed ``EVAL_BUDGET_USD`` is exit 3 with or without a key.
    ``budget_variable`` / ``budget_in_config``: where a cap may come from besides the flag (sessions
    take none from the config; the judge none from the environment); ``usage``: the command's
    required arguments, for the ``--dry`` hint.
    """
    configured = options.budget_usd if budget_in_config else None
    budget = number_setting(budget_usd, environ, budget_variable, configured, float)
    spending = choose(
        command,
        environ,
        options,
        provider=provider,
        model=model,
        base_url=base_url,
        dry=dry,
        where=where,
        needs_model=needs_model,
        configured_where=configured_where,
    )
    if spending.missing_key is not None:
        return spending
    if not spending.billable:
        uses_network = spending.choice.entry.paid or spending.provider_class.uses_network
        found = find_price(spending.model, options.prices) if uses_network else None
        return replace(spending, price=found)  # nothing bills, so there is nothing to cap
    default_cap = False
    if budget is None and cap == "default" and spending.implicit_paid:
        budget, default_cap = DEFAULT_CAP_USD, True
    if budget is None and cap == "required" and not dry:
        given = ["--budget-usd X", *([budget_variable] if budget_variable else [])]
        sources = " or ".join(given + (["run.budget_usd"] if budget_in_config else []))
        raise ConfigError(
            f"mcp-evals {command} calls a paid model ({spending.name}) and no budget cap is set: "
            f"give one with {sources}",
            hint=f"there is no default cap here; `mcp-evals {command}{usage} --dry` estimates the cost "
            "without sending anything",
        )
    if cap == "default" and spending.implicit_paid:
        price: Price | None = _price_for_cap(spending, options)
    elif budget is not None:
        price = require_price(spending.model, options.prices)
    else:
        price = find_price(spending.model, options.prices)
    return replace(spending, budget_usd=budget, default_cap=default_cap, price=price)


def _price_for_cap(spending: Spending, options: RunOptions) -> Price:
    """A run nobody asked for by name must be capped, and a cap needs a price."""
    model = spending.model
    price = find_price(model, options.prices)
    if price is None:
        variable = spending.choice.entry.key_env_var
        raise ConfigError(
            f"no price known for model {model!r}, so this run cannot be capped: {variable} is set and "
            f"no provider was named, which makes it a paid run that mcp-evals caps "
            f"(${DEFAULT_CAP_USD:g} unless --budget-usd, EVAL_BUDGET_USD or run.budget_usd says "
            "otherwise)",
            hint=f"add its price to mcp-evals.yaml: run: {{prices: {{{model}: {{input: …, output: …}}}}}} "
            f"(USD per million tokens); or name the provider (--provider {spending.name}) to run it "
            "uncapped; or pick a model from the bundled price table",
        )
    return price

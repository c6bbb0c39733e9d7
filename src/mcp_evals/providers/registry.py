"""The one list of providers, and the one decision of which provider a run uses.

Both the CLI (``mcp-evals run``) and the GitHub Action read this module: a second copy of the
decision drifted once (with both keys set and an OpenAI model configured, the CLI picked OpenAI and
the Action passed ``--provider anthropic``). Importing it loads no provider: each class is imported
when a run needs it.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mcp_evals.answers import ProviderName
from mcp_evals.providers.pricing import provider_of

if TYPE_CHECKING:
    from mcp_evals.providers.base import Provider, Secret


@dataclass(frozen=True)
class ProviderEntry:
    """What the CLI and the Action need to know about a provider without importing it."""

    name: ProviderName
    module: str  # relative to mcp_evals.providers
    class_name: str
    key_env_var: str | None = None
    base_url_env_var: str | None = None
    default_model: str | None = None

    @property
    def paid(self) -> bool:
        """It sends requests that cost money (and so needs a key, a price and a budget rule)."""
        return self.key_env_var is not None

    def load(self) -> type[Provider]:
        module = importlib.import_module(f"mcp_evals.providers.{self.module}")
        provider_class: type[Provider] = getattr(module, self.class_name)
        return provider_class


PROVIDERS: dict[str, ProviderEntry] = {
    entry.name: entry
    for entry in (
        ProviderEntry(
            "anthropic",
            "anthropic",
            "AnthropicProvider",
            key_env_var="ANTHROPIC_API_KEY",
            base_url_env_var="ANTHROPIC_BASE_URL",
            default_model="claude-opus-4-8",
        ),
        ProviderEntry(
            "openai",
            "openai",
            "OpenAIProvider",
            key_env_var="OPENAI_API_KEY",
            base_url_env_var="OPENAI_BASE_URL",
            default_model="gpt-5.4",
        ),
        ProviderEntry("lexical", "lexical", "LexicalProvider", default_model="bm25"),
        ProviderEntry("replay", "replay", "ReplayProvider"),
    )
}
PROVIDER_NAMES: tuple[str, ...] = tuple(PROVIDERS)
PAID_PROVIDERS: tuple[str, ...] = tuple(name for name, entry in PROVIDERS.items() if entry.paid)
KEY_VARIABLES: tuple[str, ...] = tuple(entry.key_env_var for entry in PROVIDERS.values() if entry.key_env_var)


@dataclass
class Choice:
    """The provider to use and why: asked for by name (flag or config), or picked from the keys present."""

    name: str
    explicit: bool
    key: Secret | None
    base_url: str | None

    @property
    def entry(self) -> ProviderEntry:
        return PROVIDERS[self.name]


def choose_provider(
    requested: str | None, configured: str | None, environ: Mapping[str, str], model: str | None = None
) -> Choice:
    """Flag, else config, else by the keys present, else the lexical baseline.

    With both keys present, the provider of the model asked for (``gpt-5.4`` is OpenAI's) wins;
    otherwise Anthropic, then OpenAI.
    """
    from mcp_evals.providers.base import Secret  # httpx: only when a choice is made

    name = requested or configured
    explicit = name is not None
    if name is None:
        present = [
            entry.name
            for entry in PROVIDERS.values()
            if entry.key_env_var and environ.get(entry.key_env_var, "").strip()
        ]
        preferred = provider_of(model) if model else None
        name = preferred if preferred in present else (present[0] if present else "lexical")
    entry = PROVIDERS[name]
    key = Secret.from_environ(environ, entry.key_env_var) if entry.key_env_var else None
    base_url = environ.get(entry.base_url_env_var, "") if entry.base_url_env_var else ""
    return Choice(name=name, explicit=explicit, key=key, base_url=base_url or None)

"""The one decision of which provider a run uses (the providers themselves are listed in
``mcp_evals.provider_registry``).

Both the CLI (``mcp-evals run``) and the GitHub Action read this module: a second copy of the
decision drifted once (with both keys set and an OpenAI model configured, the CLI picked OpenAI and
the Action passed ``--provider anthropic``). Importing it loads no provider: each class is imported
when a run needs it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mcp_evals.errors import ConfigError
from mcp_evals.provider_registry import FALLBACK, PROVIDERS, ProviderEntry
from mcp_evals.providers.pricing import provider_of

if TYPE_CHECKING:
    from mcp_evals.providers.base import Secret


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
    otherwise the first of the registry's order (Anthropic, then OpenAI, then any plugin's).
    """
    from mcp_evals.providers.base import Secret  # httpx: only when a choice is made

    name = requested or configured
    explicit = name is not None
    if name is None:
        present = [
            entry.name
            for entry in PROVIDERS.entries(lambda entry: entry.paid)
            if entry.key_env_var and environ.get(entry.key_env_var, "").strip()
        ]
        preferred = provider_of(model) if model else None
        name = preferred if preferred in present else (present[0] if present else FALLBACK)
    try:
        PROVIDERS.check(name)
    except ValueError as error:
        raise ConfigError(str(error), hint="choose one of them with --provider or run.provider") from None
    entry = PROVIDERS[name]
    key = Secret.from_environ(environ, entry.key_env_var) if entry.key_env_var else None
    base_url = environ.get(entry.base_url_env_var, "") if entry.base_url_env_var else ""
    return Choice(name=name, explicit=explicit, key=key, base_url=base_url or None)

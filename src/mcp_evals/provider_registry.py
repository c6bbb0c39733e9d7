"""Every provider mcp-evals knows, and what each can do: the one list the rest derives from.

A leaf (below ``config/``), so every place that names providers reads it: the config's
``run.provider``, the CLI's ``--provider`` choices, the Action's ``provider`` input, the JSON schema,
``serve``'s ``run_selection_eval``, the commands that need a capability (sessions, free text, a
batch interface). "Which providers can run a session" is ``PROVIDERS.names(lambda e: e.sessions)``.

A provider added outside this package registers itself through the entry-point group
``mcp_evals.providers``: the entry point's name is the provider's, its object a ``ProviderEntry``
(see docs/architecture.md, "Where to add — A provider")::

    [project.entry-points."mcp_evals.providers"]
    dummy = "mcp_evals_dummy:ENTRY"

Listing names imports no provider module: a built-in's class is imported when a run needs it, and a
plugin's names come from its installed metadata; the plugin's module is imported when its
capabilities or class are first asked for. A built-in name is never replaced by a plugin.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import GetCoreSchemaHandler, GetJsonSchemaHandler
from pydantic_core import core_schema

from mcp_evals.errors import ConfigError
from mcp_evals.suggest import did_you_mean, suggest

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

    from pydantic.json_schema import JsonSchemaValue

    from mcp_evals.providers.base import Provider

ENTRY_POINT_GROUP = "mcp_evals.providers"
# The provider of a run with no key and no provider named: free, offline, advisory.
FALLBACK = "lexical"
# A provider's name is a flag value, an Action input and a file's field: short, lower case, no spaces.
_NAME = re.compile(r"[a-z][a-z0-9_-]{0,39}")


@dataclass(frozen=True)
class ProviderEntry:
    """One provider, as data: what the commands need to know about it without importing it."""

    name: str
    provider_class: str  # "package.module:ClassName", imported only when a run needs it
    key_env_var: str | None = None  # set: a paid provider (a key, a price, a budget rule)
    base_url_env_var: str | None = None
    default_model: str | None = None
    # Models the bundled price table does not list are this provider's when their name starts so.
    model_prefixes: tuple[str, ...] = ()
    # Answers free text and several requests for one fixture: synth, compare's deferred and grouped arms.
    conversation: bool = False
    sessions: bool = False  # multi-step sessions (``mcp-evals session``)
    batch: bool = False  # a batch interface (``run --batch``)
    tool_search: bool = False  # the API's own tool search (compare's deferred arm, server variant)
    # An endpoint of your own (``--base-url``, an OpenAI-compatible server) may take no key and then
    # bills nothing.
    own_endpoint: bool = False
    replays: bool = False  # re-scores an earlier results file (``run --from``): asks nothing new

    @property
    def paid(self) -> bool:
        """It sends requests that cost money (and so needs a key, a price and a budget rule)."""
        return self.key_env_var is not None

    @property
    def in_words(self) -> str:
        """How a sentence names it: "the lexical baseline", "the openai provider"."""
        return "the lexical baseline" if self.name == FALLBACK else f"the {self.name} provider"

    def load(self) -> type[Provider]:
        """The provider's class (its module is imported now, not before)."""
        module_name, _, class_name = self.provider_class.partition(":")
        try:
            provider_class: type[Provider] = getattr(importlib.import_module(module_name), class_name)
        except (ImportError, AttributeError) as error:
            raise ConfigError(
                f"provider {self.name!r}: cannot import its class {self.provider_class} ({error})",
                hint="reinstall the package that provides it, or choose another --provider",
            ) from None
        return provider_class


BUILTIN: tuple[ProviderEntry, ...] = (
    ProviderEntry(
        "anthropic",
        "mcp_evals.providers.anthropic:AnthropicProvider",
        key_env_var="ANTHROPIC_API_KEY",
        base_url_env_var="ANTHROPIC_BASE_URL",
        default_model="claude-opus-4-8",
        model_prefixes=("claude-",),
        conversation=True,
        sessions=True,
        batch=True,
        tool_search=True,
    ),
    ProviderEntry(
        "openai",
        "mcp_evals.providers.openai:OpenAIProvider",
        key_env_var="OPENAI_API_KEY",
        base_url_env_var="OPENAI_BASE_URL",
        default_model="gpt-5.4",
        conversation=True,
        sessions=True,
        own_endpoint=True,
    ),
    ProviderEntry("lexical", "mcp_evals.providers.lexical:LexicalProvider", default_model="bm25"),
    ProviderEntry("replay", "mcp_evals.providers.replay:ReplayProvider", replays=True),
)


class Registry(Mapping[str, ProviderEntry]):
    """The built-in providers, then the plugins' (by name), each plugin loaded when first needed."""

    def __init__(self, builtin: tuple[ProviderEntry, ...], group: str) -> None:
        self._builtin = {entry.name: entry for entry in builtin}
        self._group = group
        self._points: dict[str, EntryPoint] | None = None
        self._loaded: dict[str, ProviderEntry | ConfigError] = {}

    def refresh(self) -> None:
        """Read the installed plugins again (after installing one in the same process: tests)."""
        self._points = None
        self._loaded = {}

    def _plugins(self) -> dict[str, EntryPoint]:
        if self._points is None:
            from importlib.metadata import entry_points  # only when a plugin is looked for: a slow import

            points: dict[str, EntryPoint] = {}
            for point in sorted(entry_points(group=self._group), key=lambda point: point.name):
                if _NAME.fullmatch(point.name) and point.name not in self._builtin:
                    points.setdefault(point.name, point)  # two distributions, one name: the first
            self._points = points
        return self._points

    def _load(self, name: str) -> ProviderEntry | ConfigError:
        if name not in self._loaded:
            point = self._plugins()[name]
            where = f"the provider plugin {name!r} ({point.value})"
            try:
                loaded: Any = point.load()
            except Exception as error:  # a plugin's import may fail any way; it must not crash a listing
                self._loaded[name] = ConfigError(
                    f"{where} cannot be loaded: {type(error).__name__}: {error}",
                    hint="reinstall or uninstall the package that provides it",
                )
            else:
                if isinstance(loaded, ProviderEntry) and loaded.name == name:
                    self._loaded[name] = loaded
                else:
                    self._loaded[name] = ConfigError(
                        f"{where} registers {loaded!r}, not a ProviderEntry named {name!r}",
                        hint="its entry point must name a mcp_evals.provider_registry.ProviderEntry",
                    )
        return self._loaded[name]

    def __getitem__(self, name: str) -> ProviderEntry:
        """The entry of ``name``; a broken plugin is a ``ConfigError`` saying what is wrong with it."""
        if name in self._builtin:
            return self._builtin[name]
        if name not in self._plugins():
            raise KeyError(name)
        entry = self._load(name)
        if isinstance(entry, ConfigError):
            raise entry
        return entry

    def __contains__(self, name: object) -> bool:
        return name in self._builtin or (isinstance(name, str) and name in self._plugins())

    def __iter__(self) -> Iterator[str]:
        yield from self._builtin
        yield from self._plugins()

    def __len__(self) -> int:
        return len(self._builtin) + len(self._plugins())

    def entries(self, where: Callable[[ProviderEntry], bool] | None = None) -> list[ProviderEntry]:
        """Every provider ``where`` keeps, in order; a plugin that cannot be loaded is left out (it
        says what is wrong when it is named)."""
        found: list[ProviderEntry] = []
        for name in self:
            entry = self._builtin.get(name) or self._load(name)
            if isinstance(entry, ProviderEntry) and (where is None or where(entry)):
                found.append(entry)
        return found

    def names(self, where: Callable[[ProviderEntry], bool] | None = None) -> tuple[str, ...]:
        """The names of the providers ``where`` keeps (all of them, without importing any, when None)."""
        return tuple(self) if where is None else tuple(entry.name for entry in self.entries(where))

    def key_variables(self, where: Callable[[ProviderEntry], bool] | None = None) -> tuple[str, ...]:
        """The API-key variables of the paid providers ``where`` keeps."""
        return tuple(entry.key_env_var for entry in self.entries(where) if entry.key_env_var)

    def check(self, name: str, where: Callable[[ProviderEntry], bool] | None = None) -> str:
        """``name`` when it is a provider ``where`` keeps; otherwise a ``ValueError`` that lists them."""
        known = self.names(where)
        if name in known:
            return name
        if name in self:
            raise ValueError(f"provider {name!r} cannot be used here (use one of: {', '.join(known)})")
        suggestion = did_you_mean(suggest(name, known, limit=1), lead="; ")
        raise ValueError(f"unknown provider {name!r} (known: {', '.join(known)}){suggestion}")


PROVIDERS = Registry(BUILTIN, ENTRY_POINT_GROUP)


@dataclass(frozen=True)
class Registered:
    """A pydantic marker: the value is the name of a provider ``where`` keeps (any, when None), and
    the JSON schema lists those names as an enum, read from the registry when the schema is made."""

    where: Callable[[ProviderEntry], bool] | None = None

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        return core_schema.no_info_after_validator_function(
            lambda name: PROVIDERS.check(name, self.where), handler(source)
        )

    def __get_pydantic_json_schema__(
        self, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        result = handler(schema)
        result["enum"] = list(PROVIDERS.names(self.where))
        return result


# A provider's name in a file someone writes (the config): checked against the registry.
RegisteredProvider = Annotated[str, Registered()]

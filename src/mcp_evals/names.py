"""Provider-safe tool names.

MCP allows almost any string as a tool name; the Anthropic and OpenAI tool APIs accept only
``^[a-zA-Z0-9_-]{1,64}$``. A name that already fits is kept as is, so the model sees what users see.
Any other name becomes a readable ASCII stem plus a short hash of the original, which keeps the
mapping stable across runs and machines. Reversal goes through the table built for the whole
catalog, which also guarantees no two tools share a provider name.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable

SAFE_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
MAX_LENGTH = 64
_UNSAFE_RUN = re.compile(r"[^a-zA-Z0-9_-]+")


def _digest(name: str, length: int) -> str:
    return hashlib.sha256(name.encode("utf-8")).hexdigest()[:length]


def safe_name(name: str, *, digest_length: int = 8) -> str:
    """Map one MCP tool name to a provider-safe name (deterministic, no catalog context)."""
    if SAFE_NAME.match(name):
        return name
    ascii_form = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    stem = _UNSAFE_RUN.sub("_", ascii_form).strip("_") or "tool"
    suffix = "_" + _digest(name, digest_length)
    return stem[: MAX_LENGTH - len(suffix)] + suffix


class NameMap:
    """A two-way, collision-free mapping between MCP names and provider-safe names."""

    def __init__(self, names: Iterable[str]) -> None:
        self.to_provider: dict[str, str] = {}
        self.to_mcp: dict[str, str] = {}
        unique = sorted(set(names))
        # Names that are already safe claim themselves first, so they are never renamed because of
        # a mapped name that happens to look like them.
        for name in unique:
            if SAFE_NAME.match(name):
                self._bind(name, name)
        for name in unique:
            if name in self.to_provider:
                continue
            for digest_length in range(8, 65, 4):
                candidate = safe_name(name, digest_length=digest_length)
                if candidate not in self.to_mcp:
                    self._bind(name, candidate)
                    break
            else:  # pragma: no cover - would need a sha256 prefix collision of 64 hex digits
                raise RuntimeError(f"cannot find a provider-safe name for {name!r}")

    def _bind(self, mcp_name: str, provider_name: str) -> None:
        self.to_provider[mcp_name] = provider_name
        self.to_mcp[provider_name] = mcp_name

    def provider(self, mcp_name: str) -> str:
        return self.to_provider[mcp_name]

    def mcp(self, provider_name: str) -> str | None:
        """The MCP name for a provider name, or None when the model invented a tool."""
        return self.to_mcp.get(provider_name)

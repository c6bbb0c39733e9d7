"""Provider-safe tool names.

MCP allows almost any string as a tool name; the Anthropic and OpenAI tool APIs accept only
``^[a-zA-Z0-9_-]{1,64}$``. ``NameMap`` maps every name of a catalog to one that fits:

- a name that already fits is kept as is, so the model sees what users see;
- any other name is spelled in ASCII (accents dropped, every other run of characters becomes ``_``)
  and cut to 64 characters — ``files.read`` becomes ``files_read``, as MCP clients commonly do;
- when that spelling is empty, or taken by another tool, or shared by two tools, each such name gets
  a short hash of itself instead (``files_read_601e4eb6``).

The mapping is a function of the set of names alone: the same catalog gives the same names in any
order, on any machine. It is reversible through the table (``NameMap.mcp``), and no two tools share
a provider name.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # only annotations: reading a catalog never loads the model-answer types
    from mcp_evals.answers import Answer, ToolCall

SAFE_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
MAX_LENGTH = 64
_UNSAFE_RUN = re.compile(r"[^a-zA-Z0-9_-]+")
_DIGEST_LENGTHS = (8, 12, 16, 24, 32, 48, 59)  # "tool_" + 59 hex digits is 64 characters


def is_safe(name: str) -> bool:
    return SAFE_NAME.fullmatch(name) is not None


def readable_form(name: str) -> str:
    """The ASCII spelling of a name (may be empty when nothing of it is ASCII-representable)."""
    ascii_form = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    return _UNSAFE_RUN.sub("_", ascii_form).strip("_")[:MAX_LENGTH]


def hashed_form(name: str, digest_length: int = 8) -> str:
    """The readable form cut short, plus a hash of the original name: unique whatever the catalog."""
    digest = hashlib.sha256(name.encode("utf-8", errors="surrogatepass")).hexdigest()[:digest_length]
    stem = readable_form(name)[: MAX_LENGTH - digest_length - 1].rstrip("_") or "tool"
    return f"{stem}_{digest}"


def safe_name(name: str) -> str:
    """The provider-safe name of one tool on its own (``NameMap`` resolves clashes in a catalog)."""
    if is_safe(name):
        return name
    return readable_form(name) or hashed_form(name)


class NameMap:
    """A two-way, collision-free mapping between MCP names and provider-safe names."""

    def __init__(self, names: Iterable[str]) -> None:
        self.to_provider: dict[str, str] = {}
        self.to_mcp: dict[str, str] = {}
        unique = sorted(set(names))
        # Names that already fit claim themselves first: they are never renamed for another's sake.
        for name in unique:
            if is_safe(name):
                self._bind(name, name)
        by_readable: dict[str, list[str]] = defaultdict(list)
        for name in unique:
            if name not in self.to_provider:
                by_readable[readable_form(name)].append(name)
        hashed: list[str] = []
        for readable, group in by_readable.items():
            if readable and len(group) == 1 and readable not in self.to_mcp:
                self._bind(group[0], readable)
            else:
                hashed.extend(group)
        for name in sorted(hashed):
            for digest_length in _DIGEST_LENGTHS:
                candidate = hashed_form(name, digest_length)
                if candidate not in self.to_mcp:
                    self._bind(name, candidate)
                    break
            else:  # pragma: no cover - would need a sha256 collision on 59 hex digits
                raise RuntimeError(f"cannot find a provider-safe name for {name!r}")

    def _bind(self, mcp_name: str, provider_name: str) -> None:
        self.to_provider[mcp_name] = provider_name
        self.to_mcp[provider_name] = mcp_name

    def provider(self, mcp_name: str) -> str:
        """The provider-safe name of a catalog tool (KeyError for a name not in the catalog)."""
        return self.to_provider[mcp_name]

    def mcp(self, provider_name: str) -> str | None:
        """The MCP name for a provider name, or None when the model invented a tool."""
        return self.to_mcp.get(provider_name)

    def __len__(self) -> int:
        return len(self.to_provider)

    def __contains__(self, mcp_name: object) -> bool:
        return mcp_name in self.to_provider

    def resolve(self, answer: Answer) -> Answer:
        """``answer`` with the names the model used mapped back to MCP names: each call's ``name``
        (``known`` when the catalog has it) and the tools a search revealed."""
        answer.calls = [self.resolve_call(call) for call in answer.calls]
        if answer.retrieval is not None:
            revealed = [self.mcp(name) or name for name in answer.retrieval.revealed]
            answer.retrieval = answer.retrieval.model_copy(update={"revealed": revealed})
        return answer

    def resolve_call(self, call: ToolCall) -> ToolCall:
        mcp_name = self.mcp(call.provider_name)
        if mcp_name == call.name and call.known:
            return call
        known = mcp_name is not None
        return call.model_copy(update={"name": mcp_name if known else call.provider_name, "known": known})

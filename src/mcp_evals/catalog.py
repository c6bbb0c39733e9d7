"""The tool catalog: what a model sees, read live from the servers (or from a saved snapshot).

The catalog is plain data (pydantic) so that everything downstream — validation, providers, scoring,
reports — is a pure function of it. Only ``_mcp`` talks to servers.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
from collections.abc import Iterable, Sequence
from functools import cached_property
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .config import Config, ServerConfig
from .errors import ConfigError, InputFileError
from .files import atomic_write, describe_validation_error, load_document
from .names import NameMap

SNAPSHOT_FORMAT = "mcp-evals.catalog/1"
PREFIX_SEPARATOR = "__"


class Tool(BaseModel):
    """One tool as the model will see it, plus where it came from and which area it counts in."""

    model_config = ConfigDict(frozen=True)

    name: str
    title: str | None = None
    description: str = ""
    input_schema: dict[str, Any] = Field(default_factory=lambda: {"type": "object"})
    output_schema: dict[str, Any] | None = None
    annotations: dict[str, Any] | None = None
    server: str
    wire_name: str = Field(description="The name the server itself uses (differs when prefixed).")
    area: str = ""
    area_explicit: bool = False

    def content(self) -> dict[str, Any]:
        """What defines this tool for a model; the catalog hash is made of this."""
        return {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "input_schema": self.input_schema,
            "output_schema": self.output_schema,
            "annotations": self.annotations,
        }

    @property
    def parameters(self) -> dict[str, Any]:
        properties = self.input_schema.get("properties")
        return properties if isinstance(properties, dict) else {}

    @property
    def required(self) -> list[str]:
        required = self.input_schema.get("required")
        return [str(item) for item in required] if isinstance(required, list) else []


class ServerInfo(BaseModel):
    """What a server said about itself when the catalog was read."""

    name: str = Field(description="The server's name in the config.")
    transport: str
    server_name: str | None = None
    server_version: str | None = None
    protocol_version: str | None = None
    tools: list[dict[str, Any]] = Field(
        default_factory=list, description="The tools/list result, in the MCP wire shape."
    )


class Catalog(BaseModel):
    """Every tool of every configured server, with areas assigned."""

    tools: list[Tool]
    servers: list[ServerInfo] = Field(default_factory=list)

    @cached_property
    def hash(self) -> str:
        """Stable content hash: same tools (in any order, on any machine) give the same hash."""
        contents = sorted((tool.content() for tool in self.tools), key=lambda item: item["name"])
        return hashlib.sha256(canonical_json(contents).encode("utf-8")).hexdigest()

    @property
    def tool_names(self) -> list[str]:
        return [tool.name for tool in self.tools]

    @property
    def area_by_name(self) -> dict[str, str]:
        return {tool.name: tool.area for tool in self.tools}

    @property
    def areas(self) -> list[str]:
        return sorted({tool.area for tool in self.tools})

    @cached_property
    def by_name(self) -> dict[str, Tool]:
        return {tool.name: tool for tool in self.tools}

    @cached_property
    def names(self) -> NameMap:
        """Provider-safe names for every tool (see ``names``)."""
        return NameMap(self.tool_names)

    def get(self, name: str) -> Tool | None:
        return self.by_name.get(name)

    def to_snapshot(self) -> dict[str, Any]:
        return {
            "format": SNAPSHOT_FORMAT,
            "hash": self.hash,
            "servers": [server.model_dump(mode="json") for server in self.servers],
            "areas": {tool.name: tool.area for tool in self.tools},
        }


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def matches(name: str, patterns: Iterable[str]) -> bool:
    return any(name == pattern or fnmatch.fnmatchcase(name, pattern) for pattern in patterns)


def assign_areas(tools: Sequence[Tool], areas: dict[str, list[str]]) -> list[Tool]:
    """Give each tool the first area (in config order) whose patterns match it, else its server's name."""
    assigned = []
    for tool in tools:
        area = next((area for area, patterns in areas.items() if matches(tool.name, patterns)), None)
        assigned.append(
            tool.model_copy(update={"area": area or tool.server, "area_explicit": area is not None})
        )
    return assigned


def tool_from_wire(wire: dict[str, Any], server: ServerConfig) -> Tool:
    """Build a Tool from one tools/list entry (wire shape: camelCase keys)."""
    wire_name = str(wire.get("name", ""))
    name = f"{server.name}{PREFIX_SEPARATOR}{wire_name}" if server.prefix else wire_name
    schema = wire.get("inputSchema")
    return Tool(
        name=name,
        wire_name=wire_name,
        title=wire.get("title") or (wire.get("annotations") or {}).get("title"),
        description=wire.get("description") or "",
        input_schema=schema if isinstance(schema, dict) else {"type": "object"},
        output_schema=wire.get("outputSchema"),
        annotations=wire.get("annotations"),
        server=server.name,
    )


def build_catalog(servers: Sequence[tuple[ServerConfig, ServerInfo]], config: Config) -> Catalog:
    """Join the servers' listings into one catalog; a name on two servers is an error unless prefixed."""
    tools: list[Tool] = []
    owner: dict[str, str] = {}
    for server_config, info in servers:
        for wire in info.tools:
            tool = tool_from_wire(wire, server_config)
            if tool.name in owner:
                raise ConfigError(
                    f"{config.path}: tool {tool.name!r} is published by both server {owner[tool.name]!r} "
                    f"and server {server_config.name!r}",
                    hint=f"set `prefix: true` on server {server_config.name!r} to name its tools "
                    f"{server_config.name}{PREFIX_SEPARATOR}<tool>",
                )
            owner[tool.name] = server_config.name
            tools.append(tool)
    return Catalog(tools=assign_areas(tools, config.areas), servers=[info for _, info in servers])


def write_snapshot(catalog: Catalog, path: Path) -> None:
    with atomic_write(path) as stream:
        json.dump(catalog.to_snapshot(), stream, indent=2, ensure_ascii=False, sort_keys=False)
        stream.write("\n")


def read_snapshot_servers(path: Path) -> list[ServerInfo]:
    """Read the servers (with their wire-shape tool lists) from a snapshot file."""
    document = load_document(path)
    data = document.data
    if not isinstance(data, dict) or data.get("format") != SNAPSHOT_FORMAT:
        raise InputFileError(
            f"{path}: not a catalog snapshot (expected \"format\": \"{SNAPSHOT_FORMAT}\")",
            hint="write one with `mcp-evals catalog --out FILE`",
        )
    try:
        return [ServerInfo.model_validate(item) for item in data.get("servers", [])]
    except ValidationError as error:
        raise InputFileError(describe_validation_error(error, document, ("servers",))) from None


def load_catalog(path: str | Path, config: Config | None = None) -> Catalog:
    """Load a catalog snapshot file. Areas come from ``config`` when given, else from the snapshot."""
    snapshot_path = Path(path)
    servers = read_snapshot_servers(snapshot_path)
    if config is None:
        document = load_document(snapshot_path)
        saved_areas: dict[str, str] = dict(document.data.get("areas") or {})
        pseudo = Config.model_validate({"servers": [{"name": s.name, "snapshot": str(path)} for s in servers]})
        pseudo_servers = [(ServerConfig(name=s.name, snapshot=str(path)), s) for s in servers]
        catalog = build_catalog(pseudo_servers, pseudo)
        # Restore the areas the snapshot was written with (they are not part of the wire shape).
        tools = [
            tool.model_copy(update={"area": saved_areas.get(tool.name, tool.area),
                                    "area_explicit": tool.name in saved_areas})
            for tool in catalog.tools
        ]
        return Catalog(tools=tools, servers=catalog.servers)
    by_name = {s.name: s for s in servers}
    pairs = []
    for server_config in config.servers:
        info = by_name.get(server_config.name) or (servers[0] if len(servers) == 1 else None)
        if info is None:
            raise InputFileError(f"{path}: no server named {server_config.name!r} in this snapshot")
        pairs.append((server_config, info))
    return build_catalog(pairs, config)


def _snapshot_server(server: ServerConfig, config: Config) -> ServerInfo:
    path = config.resolve(server.snapshot or "")
    servers = read_snapshot_servers(path)
    match = [info for info in servers if info.name == server.name]
    if not match and len(servers) == 1:
        match = servers
    if not match:
        raise InputFileError(
            f"{path}: no server named {server.name!r} in this snapshot "
            f"(it has: {', '.join(info.name for info in servers) or 'none'})"
        )
    return match[0].model_copy(update={"name": server.name})


async def extract_catalog_async(config: Config) -> Catalog:
    """Read every configured server's tools (live over MCP, or from its snapshot) into one catalog."""
    from . import _mcp  # the one module that imports the MCP SDK

    pairs: list[tuple[ServerConfig, ServerInfo]] = []
    for server in config.servers:
        if server.snapshot:
            pairs.append((server, _snapshot_server(server, config)))
        else:
            pairs.append((server, await _mcp.list_server_tools(server, config)))
    return build_catalog(pairs, config)


def extract_catalog(config: Config) -> Catalog:
    """Synchronous wrapper of ``extract_catalog_async`` for the CLI and scripts."""
    import anyio

    return anyio.run(extract_catalog_async, config)

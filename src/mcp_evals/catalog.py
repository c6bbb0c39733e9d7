"""The tool catalog: what a model sees, read live from the servers (or from a saved snapshot).

The catalog is plain data (pydantic) so that everything downstream — validation, providers, scoring,
reports — is a pure function of it. Only ``_mcp`` talks to servers.

A snapshot (``mcp-evals catalog --out FILE``) keeps each server's ``tools/list`` result in the MCP
wire shape, what the server said about itself, its ``prefix`` setting, the explicit area of each
tool and the catalog hash, so ``load_catalog(FILE)`` rebuilds the same catalog with the same hash.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .config import Config, ServerConfig
from .errors import ConfigError, InputFileError, where
from .files import atomic_write, describe_validation_error, parse_json, read_text
from .names import NameMap

SNAPSHOT_FORMAT = "mcp-evals.catalog/1"
PREFIX_SEPARATOR = "__"


class Tool(BaseModel):
    """One tool as the model will see it, plus where it came from and which area it counts in."""

    model_config = ConfigDict(frozen=True)

    name: str = Field(
        description="The name in this catalog: the server's name, or `server__name` when prefixed."
    )
    title: str | None = None
    description: str = ""
    input_schema: dict[str, Any] = Field(default_factory=lambda: {"type": "object"})
    output_schema: dict[str, Any] | None = None
    annotations: dict[str, Any] | None = None
    server: str = Field(description="The config name of the server that publishes it.")
    wire_name: str = Field(description="The name the server itself uses (differs when prefixed).")
    area: str = ""
    area_explicit: bool = Field(
        False, description="True when `areas:` placed it; False when it took its server's name."
    )

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
    """One server's listing: what it said about itself and its tools in the MCP wire shape."""

    name: str = Field(description="The server's name in the config.")
    transport: str = Field(description="How the listing was read: stdio, streamable-http or sse.")
    server_name: str | None = Field(None, description="The name the server gave in its handshake.")
    server_version: str | None = None
    protocol_version: str | None = Field(None, description="The MCP protocol version negotiated.")
    instructions: str | None = None
    prefix: bool = Field(False, description="Its tools are named `server__tool` in the catalog.")
    tools: list[dict[str, Any]] = Field(
        default_factory=list, description="The tools/list result, every page, in the MCP wire shape."
    )


class Catalog(BaseModel):
    """Every tool of every configured server, with areas assigned."""

    # Frozen, because the derived views below are cached: a changed catalog must be a new object.
    model_config = ConfigDict(frozen=True)

    tools: list[Tool]
    servers: list[ServerInfo] = Field(default_factory=list)

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Catalog:
        """Copy without the cached views (hash, by_name, names), which may no longer hold."""
        copied = super().model_copy(update=update, deep=deep)
        for cached in ("hash", "by_name", "names"):
            copied.__dict__.pop(cached, None)
        return copied

    @cached_property
    def hash(self) -> str:
        """Stable content hash: the same tools (in any order, on any machine) give the same hash.

        Made of what a model sees (name, title, description, schemas, annotations); servers, areas
        and transport do not change it.
        """
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
        """The snapshot document: servers with their wire-shape tools, explicit areas, hash."""
        explicit: dict[str, list[str]] = {}
        for tool in self.tools:
            if tool.area_explicit:
                explicit.setdefault(tool.area, []).append(tool.name)
        return {
            "format": SNAPSHOT_FORMAT,
            "hash": self.hash,
            "tool_count": len(self.tools),
            "servers": [server.model_dump(mode="json", exclude_none=True) for server in self.servers],
            "areas": explicit,
        }


class Snapshot(BaseModel):
    """A snapshot file as read (unknown keys are ignored so later versions can add some)."""

    format: Literal["mcp-evals.catalog/1"]
    hash: str | None = None
    servers: list[ServerInfo] = Field(min_length=1)
    areas: dict[str, list[str]] = Field(
        default_factory=dict, description="Area → the exact tool names `areas:` placed there."
    )


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def matches(name: str, patterns: Iterable[str]) -> bool:
    """True when ``name`` equals one of the patterns or matches it as an fnmatch glob."""
    return any(name == pattern or fnmatch.fnmatchcase(name, pattern) for pattern in patterns)


def assign_areas(
    tools: Sequence[Tool], areas: Mapping[str, Sequence[str]], *, exact: bool = False
) -> list[Tool]:
    """Give each tool the first area (in order) whose patterns match it, else its server's name.

    With ``exact`` the patterns are taken as literal names (a snapshot's areas are).
    """
    assigned = []
    for tool in tools:
        if exact:
            area = next((area for area, names in areas.items() if tool.name in names), None)
        else:
            area = next((area for area, patterns in areas.items() if matches(tool.name, patterns)), None)
        assigned.append(
            tool.model_copy(update={"area": area or tool.server, "area_explicit": area is not None})
        )
    return assigned


def tool_from_wire(wire: Mapping[str, Any], server: ServerInfo) -> Tool:
    """Build a Tool from one tools/list entry (wire shape: camelCase keys)."""
    wire_name = str(wire.get("name", ""))
    name = f"{server.name}{PREFIX_SEPARATOR}{wire_name}" if server.prefix else wire_name
    schema = wire.get("inputSchema")
    output_schema = wire.get("outputSchema")
    annotations = wire.get("annotations")
    annotations = annotations if isinstance(annotations, dict) else None
    title = wire.get("title") or (annotations or {}).get("title")
    return Tool(
        name=name,
        wire_name=wire_name,
        title=title if isinstance(title, str) else None,
        description=str(wire.get("description") or ""),
        input_schema=schema if isinstance(schema, dict) else {"type": "object"},
        output_schema=output_schema if isinstance(output_schema, dict) else None,
        annotations=annotations,
        server=server.name,
    )


def build_catalog(
    servers: Sequence[ServerInfo],
    areas: Mapping[str, Sequence[str]] | None = None,
    *,
    exact_areas: bool = False,
    source: str | Path = "",
) -> Catalog:
    """Join the servers' listings into one catalog; a name on two servers is an error unless prefixed.

    ``source`` (the config or snapshot file) is named in the error.
    """
    tools: list[Tool] = []
    owner: dict[str, str] = {}
    for server in servers:
        for wire in server.tools:
            tool = tool_from_wire(wire, server)
            if tool.name in owner:
                other = owner[tool.name]
                place = f"{source}: " if source else ""
                if other == server.name:
                    raise ConfigError(f"{place}server {server.name!r} lists the tool {tool.name!r} twice")
                raise ConfigError(
                    f"{place}tool {tool.name!r} is published by both server {other!r} "
                    f"and server {server.name!r}",
                    hint=f"set `prefix: true` on server {server.name!r} to name its tools "
                    f"{server.name}{PREFIX_SEPARATOR}<tool>",
                )
            owner[tool.name] = server.name
            tools.append(tool)
    return Catalog(tools=assign_areas(tools, areas or {}, exact=exact_areas), servers=list(servers))


# --------------------------------------------------------------------------- snapshots


def write_snapshot(catalog: Catalog, path: Path) -> None:
    """Write the catalog as a snapshot file, completely or not at all."""
    with atomic_write(path) as stream:
        json.dump(catalog.to_snapshot(), stream, indent=2, ensure_ascii=False)
        stream.write("\n")


def read_snapshot(path: str | Path) -> Snapshot:
    """Read and check a snapshot file; problems are an InputFileError naming file, line and field."""
    snapshot_path = Path(path)
    text = read_text(snapshot_path)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise InputFileError(
            f"{where(snapshot_path, error.lineno)}: not a catalog snapshot: JSON syntax error: {error.msg}",
            hint="write one with `mcp-evals catalog --out FILE`",
        ) from None
    except RecursionError:
        raise InputFileError(f"{snapshot_path}: nested too deeply") from None
    if not isinstance(data, dict) or data.get("format") != SNAPSHOT_FORMAT:
        found = data.get("format") if isinstance(data, dict) else None
        detail = f' (its "format" is {found!r})' if found else ""
        raise InputFileError(
            f'{snapshot_path}: not a catalog snapshot: expected "format": "{SNAPSHOT_FORMAT}"{detail}',
            hint="write one with `mcp-evals catalog --out FILE`",
        )
    try:
        return Snapshot.model_validate(data)
    except ValidationError as error:
        # Only now pay for the line-tracking parser, to point at the broken entry.
        document = parse_json(text, snapshot_path)
        raise InputFileError(describe_validation_error(error, document)) from None


def load_catalog(path: str | Path, *, areas: Mapping[str, Sequence[str]] | None = None) -> Catalog:
    """Load a catalog snapshot file: the same tools, prefixes, areas and hash as when it was written.

    ``areas`` (a config's ``areas:`` section) replaces the areas saved in the snapshot.
    """
    snapshot = read_snapshot(path)
    if areas is not None:
        return build_catalog(snapshot.servers, areas, source=path)
    return build_catalog(snapshot.servers, snapshot.areas, exact_areas=True, source=path)


def _snapshot_server(server: ServerConfig, config: Config) -> ServerInfo:
    """A config server with ``snapshot:``: its listing from the file, under the config's name and prefix."""
    path = config.resolve(server.snapshot or "")
    index = config.servers.index(server)
    setting = where(config.path, config.line_of(("servers", index, "snapshot")), f"servers[{index}].snapshot")
    if not path.is_file():
        raise ConfigError(
            f"{setting}: {path} {'is a folder, not a file' if path.is_dir() else 'not found'}",
            hint="write one with `mcp-evals catalog --out FILE`; the path is relative to the config's folder",
        )
    servers = read_snapshot(path).servers
    match = [info for info in servers if info.name == server.name]
    if not match and len(servers) == 1:
        match = servers
    if not match:
        raise ConfigError(
            f"{setting}: {path} has no server named {server.name!r} "
            f"(it has: {', '.join(info.name for info in servers)})",
            hint="name the config server like the snapshot's server",
        )
    return match[0].model_copy(update={"name": server.name, "prefix": server.prefix})


# --------------------------------------------------------------------------- extraction


async def extract_catalog_async(config: Config) -> Catalog:
    """Read every configured server's tools (live over MCP, or from its snapshot) into one catalog.

    Live servers are read at the same time; when some fail, the first failing one (in config
    order) is raised. An unset ``${VAR}`` fails first, naming its config line, before any server
    is contacted.
    """
    import anyio

    config.check_variables()

    from . import _mcp  # the one module that imports the MCP SDK
    from .errors import McpEvalsError

    listings: list[ServerInfo | McpEvalsError | None] = [None] * len(config.servers)

    async def read(index: int, server: ServerConfig) -> None:
        try:
            if server.snapshot:
                listings[index] = _snapshot_server(server, config)
            else:
                listings[index] = await _mcp.list_server_tools(server, config)
        except McpEvalsError as error:
            listings[index] = error

    async with anyio.create_task_group() as group:
        for index, server in enumerate(config.servers):
            group.start_soon(read, index, server)
    servers: list[ServerInfo] = []
    for listing in listings:
        if isinstance(listing, McpEvalsError):
            raise listing
        assert listing is not None
        servers.append(listing)
    return build_catalog(servers, config.areas, source=config.path)


def extract_catalog(config: Config) -> Catalog:
    """Synchronous wrapper of ``extract_catalog_async`` for the CLI and scripts."""
    import anyio

    return anyio.run(extract_catalog_async, config)

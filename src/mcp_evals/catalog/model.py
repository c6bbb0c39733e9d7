"""The tool catalog: what a model sees, read live from the servers (or from a saved snapshot).

The catalog is plain data (pydantic) so that everything downstream — validation, providers, scoring,
reports — is a pure function of it. Only ``_mcp`` talks to servers.

A snapshot (``mcp-evals catalog --out FILE``) keeps each server's ``tools/list`` result in the MCP
wire shape, what the server said about itself, its ``prefix`` setting, the explicit area of each
tool and the catalog hash, so ``load_catalog(FILE)`` rebuilds the same catalog with the same hash.
It also keeps the server's resources, resource templates and prompts (``resources/list``,
``resources/templates/list``, ``prompts/list``) when they were listed; a snapshot or lock written
before they were recorded has none (``None``: not recorded, as opposed to ``[]``: none listed). The
catalog hash is made of the tools alone, so it is the same with or without them.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from functools import cached_property, partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from mcp_evals.catalog.names import NameMap
from mcp_evals.errors import ConfigError

if TYPE_CHECKING:  # a model's view of a tool: needed when a model is asked, not to read a server
    from mcp_evals.answers import ToolSpec

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
    task_support: str | None = Field(
        None, description="`execution.taskSupport` (forbidden, optional, required), when the server sets it."
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
    transport: str = Field(
        description="How the listing was read: stdio, streamable-http, sse, or snapshot (from a file)."
    )
    server_name: str | None = Field(None, description="The name the server gave in its handshake.")
    server_version: str | None = None
    protocol_version: str | None = Field(None, description="The MCP protocol version negotiated.")
    instructions: str | None = None
    prefix: bool = Field(False, description="Its tools are named `server__tool` in the catalog.")
    client_capabilities: list[str] | None = Field(
        None, description="The client capabilities mcp-evals declared when it read this server."
    )
    tools: list[dict[str, Any]] = Field(
        default_factory=list, description="The tools/list result, every page, in the MCP wire shape."
    )
    capabilities: dict[str, Any] | None = Field(
        None, description="The capabilities the server declared in its handshake (None: not recorded)."
    )
    resources: list[dict[str, Any]] | None = Field(
        None, description="resources/list, every page, wire shape ([]: none; None: not recorded)."
    )
    resource_templates: list[dict[str, Any]] | None = Field(
        None, description="resources/templates/list, every page, wire shape ([]: none; None: not recorded)."
    )
    prompts: list[dict[str, Any]] | None = Field(
        None, description="prompts/list, every page, wire shape ([]: none; None: not recorded)."
    )

    @property
    def extras_recorded(self) -> bool:
        """Its resources, resource templates and prompts were all listed (a newer snapshot or lock)."""
        return None not in (self.resources, self.resource_templates, self.prompts)


class PromptArgument(BaseModel):
    """One argument of a prompt, as `prompts/list` declares it."""

    model_config = ConfigDict(frozen=True)

    name: str
    title: str | None = None
    description: str = ""
    required: bool = False


class Prompt(BaseModel):
    """A prompt a server offers (users pick prompts, models do not; their text still reaches a model)."""

    model_config = ConfigDict(frozen=True)

    name: str
    title: str | None = None
    description: str = ""
    arguments: tuple[PromptArgument, ...] = ()
    server: str


class Resource(BaseModel):
    """A resource, or a resource template (``template``: ``uri`` is then an RFC 6570 URI template)."""

    model_config = ConfigDict(frozen=True)

    uri: str
    name: str = ""
    title: str | None = None
    description: str = ""
    mime_type: str | None = None
    template: bool = False
    server: str

    @property
    def kind(self) -> str:
        return "resource template" if self.template else "resource"


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def prompt_from_wire(wire: Mapping[str, Any], server: str) -> Prompt:
    """Build a Prompt from one prompts/list entry (odd values become empty ones, never an error)."""
    arguments = wire.get("arguments")
    return Prompt(
        name=_text(wire.get("name")) or "",
        title=_text(wire.get("title")),
        description=_text(wire.get("description")) or "",
        arguments=tuple(
            PromptArgument(
                name=_text(argument.get("name")) or "",
                title=_text(argument.get("title")),
                description=_text(argument.get("description")) or "",
                required=argument.get("required") is True,
            )
            for argument in (arguments if isinstance(arguments, list) else [])
            if isinstance(argument, dict)
        ),
        server=server,
    )


def resource_from_wire(wire: Mapping[str, Any], server: str, *, template: bool = False) -> Resource:
    """Build a Resource from one resources/list (or resources/templates/list) entry."""
    return Resource(
        uri=_text(wire.get("uriTemplate" if template else "uri")) or "",
        name=_text(wire.get("name")) or "",
        title=_text(wire.get("title")),
        description=_text(wire.get("description")) or "",
        mime_type=_text(wire.get("mimeType")),
        template=template,
        server=server,
    )


class Catalog(BaseModel):
    """Every tool of every configured server, with areas assigned."""

    # Frozen, because the derived views below are cached: a changed catalog must be a new object.
    model_config = ConfigDict(frozen=True)

    tools: list[Tool]
    servers: list[ServerInfo] = Field(default_factory=list)

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Catalog:
        """Copy without the cached views (hash, by_name, names, specs, prompts, …): they may not hold."""
        copied = super().model_copy(update=update, deep=deep)
        for cached in ("hash", "by_name", "names", "specs", "prompts", "resources"):
            copied.__dict__.pop(cached, None)
        return copied

    @cached_property
    def hash(self) -> str:
        """Stable content hash: the same tools (in any order, on any machine) give the same hash.

        Made of what a model sees (name, title, description, schemas, annotations); servers, areas
        and transport do not change it.
        """
        contents = sorted((tool.content() for tool in self.tools), key=lambda item: item["name"])
        # surrogatepass: a lone surrogate (refused when a catalog is built) must never crash a hash
        return hashlib.sha256(canonical_json(contents).encode("utf-8", "surrogatepass")).hexdigest()

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

    @cached_property
    def specs(self) -> tuple[ToolSpec, ...]:
        """Every tool as a model is shown it, under its provider-safe name (one tuple per catalog,
        so a provider serializes it once)."""
        return tuple(self.spec(tool) for tool in self.tools)

    def spec(self, tool: Tool, *, deferred: bool = False) -> ToolSpec:
        """One tool as a model is shown it, under its provider-safe name."""
        from mcp_evals.answers import ToolSpec

        return ToolSpec(
            name=self.names.provider(tool.name),
            description=tool.description,
            input_schema=tool.input_schema,
            title=tool.title,
            deferred=deferred,
        )

    def get(self, name: str) -> Tool | None:
        return self.by_name.get(name)

    @cached_property
    def prompts(self) -> list[Prompt]:
        """Every server's prompts (those recorded), in server order."""
        return [
            prompt_from_wire(wire, server.name) for server in self.servers for wire in server.prompts or ()
        ]

    @cached_property
    def resources(self) -> list[Resource]:
        """Every server's resources, then its resource templates (those recorded), in server order."""
        found: list[Resource] = []
        for server in self.servers:
            found += [resource_from_wire(wire, server.name) for wire in server.resources or ()]
            found += [
                resource_from_wire(wire, server.name, template=True)
                for wire in server.resource_templates or ()
            ]
        return found

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

    def to_lock(self) -> dict[str, Any]:
        """The lock document: a snapshot of what a model sees, tools sorted, nothing that varies by run.

        Server versions, protocol versions, capabilities, instructions and areas are left out, so the
        lock changes only when the surface does: the tools, and the resources, resource templates and
        prompts when they were recorded (each list sorted). Its ``hash`` is the tools' alone.
        """
        servers = []
        for server in sorted(self.servers, key=lambda server: server.name):
            entry: dict[str, Any] = {
                "name": server.name,
                "transport": server.transport,
                "prefix": server.prefix,
                "tools": sorted(server.tools, key=lambda wire: str(wire.get("name", ""))),
            }
            for key, listed, sort_by in (
                ("resources", server.resources, "uri"),
                ("resource_templates", server.resource_templates, "uriTemplate"),
                ("prompts", server.prompts, "name"),
            ):
                if listed is not None:
                    entry[key] = sorted(listed, key=partial(_field, sort_by))
            servers.append(entry)
        return {
            "format": SNAPSHOT_FORMAT,
            "hash": self.hash,
            "tool_count": len(self.tools),
            "servers": servers,
            "areas": {},
        }


def _field(key: str, wire: Mapping[str, Any]) -> str:
    return str(wire.get(key, ""))


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


def _lone_surrogate(value: Any, path: str = "") -> str | None:
    """Where in a wire value a string holds a lone surrogate (legal in JSON, not Unicode), if anywhere."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return path or "(the value)"
        return None
    if isinstance(value, dict):
        for key, item in value.items():
            found = _lone_surrogate(key, f"{path}.{key!r}") or _lone_surrogate(
                item, f"{path}.{key}".lstrip(".")
            )
            if found:
                return found
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found = _lone_surrogate(item, f"{path}[{index}]")
            if found:
                return found
    return None


def wire_problem(wire: Mapping[str, Any]) -> str | None:
    """Why a tools/list entry cannot be a tool, said for the user, or None.

    What the MCP SDK refuses (an ``inputSchema`` that is not a JSON object, or none) and text that is
    not Unicode (a lone surrogate such as ``"\\ud800"``, legal in JSON): a model API would reject
    every request built from such a tool.
    """
    name = wire.get("name")
    shown = ascii(name) if isinstance(name, str) else repr(name)
    where = _lone_surrogate(dict(wire))
    if where is not None:
        return (
            f"tool {shown} has text that is not valid Unicode (a lone surrogate, in {where}); "
            "no model API accepts it"
        )
    schema = wire.get("inputSchema")
    if not isinstance(schema, dict):
        kind = "none" if schema is None else f"a JSON {_json_kind(schema)}"
        return (
            f"tool {shown} has an inputSchema that is not a JSON object ({kind}); MCP requires one, "
            "as the MCP SDK does, and a model API would reject every request built from it"
        )
    return None


def _json_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return type(value).__name__


def tool_from_wire(wire: Mapping[str, Any], server: ServerInfo) -> Tool:
    """Build a Tool from one tools/list entry (wire shape: camelCase keys)."""
    wire_name = str(wire.get("name", ""))
    name = f"{server.name}{PREFIX_SEPARATOR}{wire_name}" if server.prefix else wire_name
    schema = wire.get("inputSchema")
    output_schema = wire.get("outputSchema")
    annotations = wire.get("annotations")
    annotations = annotations if isinstance(annotations, dict) else None
    title = wire.get("title") or (annotations or {}).get("title")
    execution = wire.get("execution")
    task_support = execution.get("taskSupport") if isinstance(execution, dict) else None
    return Tool(
        task_support=task_support if isinstance(task_support, str) else None,
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
            problem = wire_problem(wire)
            if problem is not None:
                place = f"{source}: " if source else ""
                raise ConfigError(
                    f"{place}server {server.name!r}: {problem}", hint="fix the server's tools/list"
                )
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


# --------------------------------------------------------------------------- extraction

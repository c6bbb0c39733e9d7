"""Catalog snapshots: a saved `tools/list` per server, read back into the same catalog.

Two shapes are read: our own (``mcp-evals catalog --out``: every server, prefixes, areas, the hash)
and a plain listing, one server: a ``tools/list`` result (``{"tools": [...]}``, as the MCP Inspector
CLI prints it and as teams already keep them), the whole JSON-RPC answer that carries it
(``{"result": {"tools": [...]}}``), mcpgrade's snapshot (``{"serverName": ..., "tools": [...]}``) or
a bare array of tools. The server takes its ``serverName`` when there is one, else the file's name.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from mcp_evals.catalog.model import SNAPSHOT_FORMAT, Catalog, ServerInfo, build_catalog
from mcp_evals.config.documents import describe_validation_error, parse_json, read_text
from mcp_evals.errors import InputFileError, where
from mcp_evals.files import atomic_write


class Snapshot(BaseModel):
    """A snapshot file as read (unknown keys are ignored so later versions can add some)."""

    format: Literal["mcp-evals.catalog/1"]
    hash: str | None = None
    servers: list[ServerInfo] = Field(min_length=1)
    areas: dict[str, list[str]] = Field(
        default_factory=dict, description="Area → the exact tool names `areas:` placed there."
    )


def write_snapshot(catalog: Catalog, path: Path) -> None:
    """Write the catalog as a snapshot file, completely or not at all."""
    with atomic_write(path) as stream:
        json.dump(catalog.to_snapshot(), stream, indent=2, ensure_ascii=False)
        stream.write("\n")


def write_lock(catalog: Catalog, path: Path) -> None:
    """Write the catalog lock: sorted keys and tools, two-space indents, so its git diff reads well."""
    with atomic_write(path) as stream:
        json.dump(catalog.to_lock(), stream, indent=2, ensure_ascii=False, sort_keys=True)
        stream.write("\n")


def read_lock(path: Path) -> Catalog | None:
    """The locked catalog, or None when the lock file does not exist yet (bad content: InputFileError)."""
    if not path.exists():
        return None
    return load_catalog(path)


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
    if isinstance(data, list):
        return _plain_listing({"tools": data}, snapshot_path, text, ())
    if isinstance(data, dict) and "format" not in data:
        result = data.get("result")
        if isinstance(result, dict) and isinstance(result.get("tools"), list):
            return _plain_listing(result, snapshot_path, text, ("result", "tools"))
        if isinstance(data.get("tools"), list):
            return _plain_listing(data, snapshot_path, text, ("tools",))
    if not isinstance(data, dict) or data.get("format") != SNAPSHOT_FORMAT:
        found = data.get("format") if isinstance(data, dict) else None
        detail = f' (its "format" is {found!r})' if found else ""
        raise InputFileError(
            f'{snapshot_path}: not a catalog snapshot: expected "format": "{SNAPSHOT_FORMAT}"{detail}',
            hint="write one with `mcp-evals catalog --out FILE`, or save a `tools/list` result "
            '(`{"tools": [...]}`, or a bare array of tools)',
        )
    try:
        return Snapshot.model_validate(data)
    except ValidationError as error:
        # Only now pay for the line-tracking parser, to point at the broken entry.
        document = parse_json(text, snapshot_path)
        raise InputFileError(describe_validation_error(error, document)) from None


def _plain_listing(data: dict[str, object], path: Path, text: str, at: tuple[str, ...]) -> Snapshot:
    """A plain listing as a one-server snapshot named after its ``serverName``, else after the file.

    ``at`` is where the tools list sits in the file, for a message's line: ``("tools",)``,
    ``("result", "tools")``, or ``()`` for a bare array.
    """
    given = data.get("serverName")
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "-", given if isinstance(given, str) else path.stem).strip("-.")
    stem = stem or "server"
    name = stem if stem[0].isalnum() else f"s{stem}"
    tools = data["tools"]
    assert isinstance(tools, list)
    for index, tool in enumerate(tools):
        if not isinstance(tool, dict) or not isinstance(tool.get("name"), str):
            line = parse_json(text, path).line_of((*at, index))
            field = ".".join(at) + f"[{index}]" if at else f"[{index}]"
            raise InputFileError(f"{where(path, line, field)}: a tool needs a `name` (text)")
    server = ServerInfo(name=name[:64], transport="snapshot", tools=[dict(tool) for tool in tools])
    return Snapshot(format=SNAPSHOT_FORMAT, servers=[server])


def load_catalog(path: str | Path, *, areas: Mapping[str, Sequence[str]] | None = None) -> Catalog:
    """Load a catalog snapshot file: the same tools, prefixes, areas and hash as when it was written.

    ``areas`` (a config's ``areas:`` section) replaces the areas saved in the snapshot.
    """
    snapshot = read_snapshot(path)
    if areas is not None:
        return build_catalog(snapshot.servers, areas, source=path)
    return build_catalog(snapshot.servers, snapshot.areas, exact_areas=True, source=path)

"""Catalog snapshots: a saved `tools/list` per server, read back into the same catalog."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from mcp_evals.catalog.model import SNAPSHOT_FORMAT, Catalog, ServerInfo, build_catalog
from mcp_evals.config.documents import describe_validation_error, parse_json, read_text
from mcp_evals.errors import InputFileError, where
from mcp_evals.output.files import atomic_write


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

"""Reading and writing results files (see ``record`` for the format)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from pydantic import ValidationError

from mcp_evals.config.documents import read_text
from mcp_evals.errors import InputFileError, where
from mcp_evals.record.model import SCHEMA_VERSION, FixtureResult, RunHeader


@dataclass
class Results:
    """A run's header and its results, one per (fixture, sample): the last reached answer wins."""

    header: RunHeader
    results: list[FixtureResult] = field(default_factory=list)

    @property
    def by_key(self) -> dict[tuple[str, int], FixtureResult]:
        return {(result.fixture_id, result.sample): result for result in self.results}


def latest(results: Iterable[FixtureResult]) -> list[FixtureResult]:
    """Keep one result per (fixture, sample): a reached one beats a dropout, a later one an earlier."""
    chosen: dict[tuple[str, int], FixtureResult] = {}
    for result in results:
        key = (result.fixture_id, result.sample)
        previous = chosen.get(key)
        if previous is None or result.reached or not previous.reached:
            chosen[key] = result
    return list(chosen.values())


def read_results(path: str | Path) -> Results:
    """Read a results file; a truncated last line (a killed run) is ignored, any other damage is an error."""
    results_path = Path(path)
    lines = read_text(results_path).splitlines()
    header: RunHeader | None = None
    rows: list[FixtureResult] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError:
            if number == len(lines):
                break  # the process was killed mid-write: everything before it is intact
            raise InputFileError(f"{where(results_path, number)}: not a JSON line") from None
        if not isinstance(data, dict):
            raise InputFileError(f"{where(results_path, number)}: a results line must be a JSON object")
        version = data.get("schema_version")
        if version != SCHEMA_VERSION:
            raise InputFileError(
                f"{where(results_path, number)}: results schema version {version!r}; "
                f"this mcp-evals reads version {SCHEMA_VERSION}"
            )
        try:
            if data.get("type") == "run":
                parsed = RunHeader.model_validate(data)
                if header is None:
                    header = parsed
                elif parsed.catalog_hash != header.catalog_hash or parsed.model != header.model:
                    raise InputFileError(
                        f"{where(results_path, number)}: a second run header with another catalog or model"
                    )
            elif data.get("type") == "result":
                rows.append(FixtureResult.model_validate(data))
            else:
                raise InputFileError(f"{where(results_path, number)}: unknown line type {data.get('type')!r}")
        except ValidationError as error:
            first = error.errors()[0]
            field_name = ".".join(str(part) for part in first["loc"])
            raise InputFileError(f"{where(results_path, number, field_name)}: {first['msg']}") from None
    if header is None:
        raise InputFileError(f"{results_path}: no run header (is this a results file of `mcp-evals run`?)")
    return Results(header=header, results=latest(rows))


def write_line(stream: IO[str], record: RunHeader | FixtureResult) -> None:
    """Append one record and flush it to disk, so a killed run keeps every finished fixture."""
    stream.write(record.model_dump_json(by_alias=True) + "\n")
    stream.flush()

"""Reading the results a report is made of: one file, or the shards of one run."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from mcp_evals.errors import InputFileError
from mcp_evals.fixtures.model import Fixture
from mcp_evals.record.model import RunHeader
from mcp_evals.record.read import Results, latest, read_results
from mcp_evals.record.shards import read_shard

# Fields that must agree for shards to be one run; the message names what differs.
_MUST_MATCH = (
    ("catalog_hash", "catalog"),
    ("provider", "provider"),
    ("model", "model"),
    ("lexical", "lexical baseline flag"),
    ("fixture_set_hash", "fixture set"),
    ("system_prompt_hash", "system prompt"),
    ("tool_choice", "tool choice"),
    ("sampling", "sampling settings"),
    ("scoring", "scoring options"),
    ("gate", "gate options"),
)


def merge_results(parts: Sequence[Results], names: Sequence[str] | None = None) -> Results:
    """Join the shards of one run; mixed catalogs, models or settings are refused."""
    if not parts:
        raise InputFileError("no results to report on")
    labels = list(names) if names is not None else [f"results #{index + 1}" for index in range(len(parts))]
    first = parts[0].header
    for label, part in zip(labels[1:], parts[1:], strict=True):
        for field, what in _MUST_MATCH:
            if getattr(part.header, field) != getattr(first, field):
                raise InputFileError(
                    f"{label}: another {what} than {labels[0]} "
                    f"({_show(getattr(first, field))} vs {_show(getattr(part.header, field))})",
                    hint="report on the shards of one run together, and on different runs separately",
                )
    if len(parts) == 1:
        return parts[0]
    _check_shards(parts, labels)
    fixtures: dict[str, Fixture] = {}
    for label, part in zip(labels, parts, strict=True):
        for fixture in part.header.fixtures:
            known = fixtures.get(fixture.id)
            if known is not None and known.hash != fixture.hash:
                raise InputFileError(
                    f"{label}: fixture {fixture.id!r} differs from the one in another results file"
                )
            fixtures.setdefault(fixture.id, fixture)
    shards = sorted({part.header.shard for part in parts if part.header.shard}, key=_shard_order)
    notes = list(dict.fromkeys(note for part in parts for note in part.header.notes))
    header: RunHeader = first.model_copy(
        update={
            "fixtures": list(fixtures.values()),
            "shard": "+".join(shards) if shards else None,
            "notes": notes,
            "started_at": min(part.header.started_at for part in parts),
            "limit": None if any(part.header.limit is None for part in parts) else first.limit,
        }
    )
    return Results(header=header, results=latest(result for part in parts for result in part.results))


def _check_shards(parts: Sequence[Results], labels: Sequence[str]) -> None:
    """Shards of one run split it the same way; a whole run is not one of its own shards."""
    whole = [label for label, part in zip(labels, parts, strict=True) if not part.header.shard]
    if whole and len(whole) < len(parts):
        raise InputFileError(
            f"{whole[0]}: a whole run (no --shard) given with shards of a run",
            hint="merge only the shards of one run (`--shard I/N`), or report on the whole run alone",
        )
    counts = {
        label: parsed[1]
        for label, part in zip(labels, parts, strict=True)
        if part.header.shard and (parsed := read_shard(part.header.shard))
    }
    if len(set(counts.values())) > 1:
        listed = ", ".join(f"{label} (of {count})" for label, count in counts.items())
        raise InputFileError(
            f"shards split into different numbers of parts: {listed}",
            hint="merge the shards of one run, all made with the same --shard I/N",
        )


def _show(value: object) -> str:
    text = str(value)
    return text if len(text) <= 40 else text[:16] + "…"


def _shard_order(label: str) -> tuple[int, int, str]:
    parsed = read_shard(label)
    return (parsed[1], parsed[0], label) if parsed else (0, 0, label)


def read_results_files(paths: Sequence[str | Path]) -> Results:
    """Read and merge one or more results files (the shards of one run)."""
    parts = [read_results(path) for path in paths]
    return merge_results(parts, [str(path) for path in paths])

"""Shard labels (``"2/4"``: the second of four): the one parser, for the run, the record and the Action."""

from __future__ import annotations

import re
from collections.abc import Sequence

from mcp_evals.errors import ConfigError

_SHARD = re.compile(r"^(\d+)/(\d+)$")


def read_shard(label: str) -> tuple[int, int] | None:
    """``"2/3"`` → ``(2, 3)``: the shard's index and the number of shards; None if not a shard label."""
    match = _SHARD.match(label)
    return (int(match.group(1)), int(match.group(2))) if match else None


def parse_shard(text: str, *, what: str = "--shard") -> tuple[int, int]:
    """A shard asked for by a user: ``I/N`` with 1 ≤ I ≤ N, else a ``ConfigError`` naming ``what``."""
    parsed = read_shard(text)
    if parsed is None:
        raise ConfigError(f"{what} {text!r}: expected I/N, e.g. 1/4")
    index, count = parsed
    if count < 1 or not 1 <= index <= count:
        raise ConfigError(f"{what} {text!r}: I must be between 1 and N (N ≥ 1)")
    return parsed


def missing_shards(shards: Sequence[str]) -> list[str]:
    """Shards ``i/N`` of the same N that were not given (``["1/3", "3/3"]`` → ``["2/3"]``)."""
    totals: dict[int, set[int]] = {}
    for label in shards:
        parsed = read_shard(label)
        if parsed:
            totals.setdefault(parsed[1], set()).add(parsed[0])
    missing = []
    for total, seen in sorted(totals.items()):
        base = 0 if 0 in seen else 1
        missing += [f"{index}/{total}" for index in range(base, total + base) if index not in seen]
    return missing

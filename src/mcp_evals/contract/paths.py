"""JSON paths as snapshots mask them: ``$.id``, ``$.items[0].at``, ``$.items[*].id``, ``$..updated_at``
(a key at any depth) and ``$["a key"]``."""

from __future__ import annotations

import re
from typing import Any

_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")

# One step of a JSON path: a key, an index, every item (``*``), or a key at any depth (``..key``).
PathPart = tuple[str, Any]


def parse_path(path: str) -> list[PathPart]:
    """``$.a[0].b``, ``$.items[*].id``, ``$..id``, ``$["a key"]`` as parts (a ValueError says why not)."""
    if not path.startswith("$"):
        raise ValueError(f"{path!r}: a JSON path starts with $ (e.g. $.id, $.items[*].id, $..updated_at)")
    parts: list[PathPart] = []
    at = 1
    while at < len(path):
        rest = path[at:]
        if rest.startswith(".."):
            found = _KEY.match(path, at + 2)
            if found is None:
                raise ValueError(f"{path!r}: a key must follow '..' at character {at + 2}")
            parts.append(("any", found.group(0)))
            at = found.end()
        elif rest.startswith(".*"):
            parts.append(("each", None))
            at += 2
        elif rest.startswith("."):
            found = _KEY.match(path, at + 1)
            if found is None:
                raise ValueError(f"{path!r}: a key must follow '.' at character {at + 1}")
            parts.append(("key", found.group(0)))
            at = found.end()
        elif rest.startswith("[*]"):
            parts.append(("each", None))
            at += 3
        elif rest.startswith('["'):
            end = path.find('"]', at + 2)
            if end < 0:
                raise ValueError(f'{path!r}: ["… is not closed with "]')
            parts.append(("key", path[at + 2 : end]))
            at = end + 2
        elif index := re.match(r"\[(\d+)\]", rest):
            parts.append(("index", int(index.group(1))))
            at += index.end()
        else:
            raise ValueError(f'{path!r}: cannot read {rest[:20]!r}; use .key, [0], [*], ..key or ["a key"]')
    if not parts:
        raise ValueError(f"{path!r}: names the whole output; mask parts of it")
    return parts

"""One walker of local ``$ref`` pointers, for validation, lint, the catalog diff and session transforms."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_evals.json_pointer import follow_local_ref

ROOT: dict[str, Any] = {
    "$defs": {"Item": {"type": "string"}, "a/b": {"type": "integer"}, "m~n": {"type": "boolean"}},
    "prefixItems": [{"type": "null"}, {"type": "number"}],
}


@pytest.mark.parametrize(
    ("reference", "expected"),
    [
        ("#/$defs/Item", {"type": "string"}),
        ("#/$defs/a~1b", {"type": "integer"}),  # RFC 6901: ~1 is "/", ~0 is "~"
        ("#/$defs/m~0n", {"type": "boolean"}),
        ("#/prefixItems/1", {"type": "number"}),
    ],
)
def test_a_local_pointer_names_its_target(reference: str, expected: Any) -> None:
    assert follow_local_ref(ROOT, reference) == expected


@pytest.mark.parametrize(
    "reference",
    ["#/$defs/Missing", "#/prefixItems/2", "#/prefixItems/x", "#", "https://x/schema", "other.json#/a", 5],
)
def test_anything_else_is_a_lookup_error(reference: object) -> None:
    with pytest.raises(LookupError):
        follow_local_ref(ROOT, reference)

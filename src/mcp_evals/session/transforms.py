"""An arm's transforms: what its model sees of each tool result.

``remove_field`` takes a key (or a dotted path of keys) out of a result wherever it appears: in
objects at any depth and inside arrays, in the structured content and in every text block that
holds JSON. The rest keeps its form: a text block written compactly stays compact, one written with
an indent keeps that indent, key order is kept, and text that is not JSON is left as it is. A result
the transforms do not change is given to the model byte for byte as the server sent it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from mcp_evals.session.model import Transform

_INDENT = re.compile(r"^[\[{]\s*\n([ \t]+)\S")


def remove_path(value: Any, path: Sequence[str]) -> tuple[Any, bool]:
    """``value`` without ``path`` wherever the path starts (any depth, inside arrays); (new, changed)."""
    changed = False
    if isinstance(value, list):
        items = []
        for item in value:
            new, hit = remove_path(item, path)
            items.append(new)
            changed = changed or hit
        return (items, True) if changed else (value, False)
    if not isinstance(value, dict):
        return value, False
    result: dict[str, Any] = {}
    for key, item in value.items():
        if len(path) == 1 and key == path[0]:
            changed = True
            continue
        new, hit = remove_path(item, path)
        if len(path) > 1 and key == path[0]:
            new, tail_hit = _remove_here(new, path[1:])
            hit = hit or tail_hit
        result[key] = new
        changed = changed or hit
    return (result, True) if changed else (value, False)


def _remove_here(value: Any, path: Sequence[str]) -> tuple[Any, bool]:
    """Remove ``path`` starting exactly at ``value`` (an array applies it to each item)."""
    if isinstance(value, list):
        items = []
        changed = False
        for item in value:
            new, hit = _remove_here(item, path)
            items.append(new)
            changed = changed or hit
        return (items, True) if changed else (value, False)
    if not isinstance(value, dict) or path[0] not in value:
        return value, False
    if len(path) == 1:
        return {key: item for key, item in value.items() if key != path[0]}, True
    inner, hit = _remove_here(value[path[0]], path[1:])
    if not hit:
        return value, False
    return {key: (inner if key == path[0] else item) for key, item in value.items()}, True


def _dump_like(value: Any, original_value: Any, original: str) -> str:
    """``value`` as JSON in the form ``original`` (the text of ``original_value``) was written in: the
    form that reproduces the original exactly (compact, spaced, or indented, ASCII-escaped or not)."""
    stripped = original.strip()
    indent = _INDENT.match(stripped)
    forms: list[dict[str, Any]] = []
    for ascii_only in (False, True):
        if indent is not None:
            forms.append({"indent": indent.group(1), "ensure_ascii": ascii_only})
        forms.append({"separators": (",", ":"), "ensure_ascii": ascii_only})
        forms.append({"separators": (", ", ": "), "ensure_ascii": ascii_only})
    chosen = next((form for form in forms if json.dumps(original_value, **form) == stripped), forms[0])
    lead = original[: len(original) - len(original.lstrip())]
    trail = original[len(original.rstrip()) :]
    return lead + json.dumps(value, **chosen) + trail


def transform_text(text: str, transforms: Sequence[Transform]) -> str:
    """A text block after the transforms: only JSON text changes, and only where a field is removed."""
    try:
        original = value = json.loads(text)
    except ValueError:
        return text
    changed = False
    for transform in transforms:
        value, hit = remove_path(value, transform.remove_field.split("."))
        changed = changed or hit
    return _dump_like(value, original, text) if changed else text


def transform_result(
    content: list[dict[str, Any]], structured: Any, transforms: Sequence[Transform]
) -> tuple[list[dict[str, Any]], Any]:
    """The content blocks and structured content the arm's model sees."""
    if not transforms:
        return content, structured
    blocks = []
    for block in content:
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            new = transform_text(block["text"], transforms)
            blocks.append(block if new == block["text"] else {**block, "text": new})
        else:
            blocks.append(block)
    for transform in transforms:
        structured, _ = remove_path(structured, transform.remove_field.split("."))
    return blocks, structured

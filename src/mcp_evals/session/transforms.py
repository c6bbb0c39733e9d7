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

from mcp_evals.json_pointer import follow_local_ref
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


# -- what a transform can remove: for `session validate` (output schemas) and `--dry` (real results) ---


def removes_anything(transform: Transform, content: Sequence[dict[str, Any]], structured: Any) -> bool:
    """Whether ``transform`` changes this result: its structured content, or a text block of JSON."""
    path = transform.remove_field.split(".")
    if remove_path(structured, path)[1]:
        return True
    for block in content:
        text = block.get("text")
        if block.get("type") != "text" or not isinstance(text, str):
            continue
        try:
            value = json.loads(text)
        except ValueError:
            continue
        if remove_path(value, path)[1]:
            return True
    return False


def value_paths(value: Any, length: int) -> set[str]:
    """Every dotted path of ``length`` keys in a JSON value, starting at any depth (through arrays too):
    the paths a ``remove_field`` of that many keys could name in it."""
    found: set[str] = set()

    def walk(node: Any, depth: int) -> None:
        if depth > _MAX_DEPTH:
            return
        found.update(".".join(chain) for chain in _value_chains(node, length, depth))
        children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
        for child in children:
            walk(child, depth + 1)

    walk(value, 0)
    return found


def result_paths(content: Sequence[dict[str, Any]], structured: Any, length: int) -> set[str]:
    """``value_paths`` of a result: its structured content and every text block that holds JSON."""
    found = value_paths(structured, length)
    for block in content:
        text = block.get("text")
        if block.get("type") == "text" and isinstance(text, str):
            try:
                found |= value_paths(json.loads(text), length)
            except ValueError:
                continue
    return found


def _value_chains(node: Any, length: int, depth: int) -> set[tuple[str, ...]]:
    """The key chains of ``length`` keys that start exactly at ``node`` (an array: at its items)."""
    if depth > _MAX_DEPTH:
        return set()
    if isinstance(node, list):
        return set().union(*(_value_chains(item, length, depth + 1) for item in node))
    if not isinstance(node, dict):
        return set()
    chains: set[tuple[str, ...]] = set()
    for key, item in node.items():
        if length == 1:
            chains.add((key,))
        else:
            chains.update((key, *tail) for tail in _value_chains(item, length - 1, depth + 1))
    return chains


def schema_paths(schema: dict[str, Any], length: int) -> set[str]:
    """Every dotted path of ``length`` keys an output schema declares, starting at any depth: through
    ``properties``, array ``items``, ``anyOf``/``oneOf``/``allOf`` and local ``$ref``s."""
    found: set[str] = set()

    def walk(node: Any, depth: int) -> None:
        if depth > 4 * _MAX_DEPTH:
            return
        if isinstance(node, dict):
            if isinstance(node.get("properties"), dict):
                found.update(".".join(chain) for chain in _schema_chains(node, schema, length, 0))
            for child in node.values():
                walk(child, depth + 1)
        elif isinstance(node, list):
            for child in node:
                walk(child, depth + 1)

    walk(schema, 0)
    return found


def _schema_chains(node: Any, root: dict[str, Any], length: int, depth: int) -> set[tuple[str, ...]]:
    """The key chains of ``length`` keys that start exactly at the value ``node`` describes."""
    chains: set[tuple[str, ...]] = set()
    for branch in _branches(node, root, depth):
        properties = branch.get("properties")
        if not isinstance(properties, dict):
            continue
        for key, child in properties.items():
            if length == 1:
                chains.add((key,))
            else:
                chains.update((key, *tail) for tail in _schema_chains(child, root, length - 1, depth + 1))
    return chains


def _branches(node: Any, root: dict[str, Any], depth: int) -> list[dict[str, Any]]:
    """The schemas a value described by ``node`` may match: ``$ref`` resolved, alternatives expanded,
    an array's items (a path reaches through arrays)."""
    if depth > _MAX_DEPTH or not isinstance(node, dict):
        return []
    node = _resolve(node, root)
    found = [node]
    for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
        for child in node.get(key) or []:
            found += _branches(child, root, depth + 1)
    if isinstance(node.get("items"), dict):
        found += _branches(node["items"], root, depth + 1)
    return found


def _resolve(node: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    reference = node.get("$ref")
    if not isinstance(reference, str) or not reference.startswith("#/"):
        return node
    try:
        target = follow_local_ref(root, reference)
    except LookupError:
        return {}
    return target if isinstance(target, dict) else {}


_MAX_DEPTH = 12

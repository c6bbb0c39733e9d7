"""Reading a tool's JSON Schema the way the schema rules need it: walk it, measure it, resolve refs.

Schemas come from servers and may be anything (a list where a mapping belongs, a `$ref` loop): every
function here accepts any JSON value and never raises on a malformed one.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from mcp_evals.catalog.model import Tool
from mcp_evals.json_pointer import follow_local_ref

_COMBINATORS = ("anyOf", "oneOf", "allOf")
# Values one tool produces and another consumes: ids, cursors, tokens, handles, timestamps.
_PIPELINE_NAME = re.compile(
    r"(?:^|_|-)(?:id|ids|uuid|guid|cursor|token|handle|etag|ts|key|ref|sha|hash)$"
    r"|(?<=[a-z0-9])(?:Id|Ids|Uuid|Cursor|Token|Handle|Ts|Ref|Sha)$"
    r"|^(?:id|uuid|cursor|next|offset_token|page_token|next_token|continuation|timestamp|thread_ts)$",
)
_SECRET_NAME = re.compile(r"(?i)(?:api|access|auth)_?(?:key|token)|password|secret")
_PIPELINE_FORMATS = ("uuid",)


def properties_of(schema: Any) -> dict[str, Any]:
    """The ``properties`` of a schema, when it is a mapping of mappings (else empty)."""
    if not isinstance(schema, dict):
        return {}
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return {}
    return {str(name): value for name, value in properties.items()}


def required_of(schema: Any) -> list[str]:
    if not isinstance(schema, dict) or not isinstance(schema.get("required"), list):
        return []
    return [str(item) for item in schema["required"]]


def children(schema: Any) -> Iterator[tuple[str, Any]]:
    """The sub-schemas of a schema, with the JSON-pointer-ish step that reaches each."""
    if not isinstance(schema, dict):
        return
    for name, value in properties_of(schema).items():
        yield f"properties.{name}", value
    items = schema.get("items")
    if isinstance(items, dict):
        yield "items", items
    elif isinstance(items, list):
        for index, item in enumerate(items):
            yield f"items[{index}]", item
    for combinator in _COMBINATORS:
        options = schema.get(combinator)
        if isinstance(options, list):
            for index, option in enumerate(options):
                yield f"{combinator}[{index}]", option
    additional = schema.get("additionalProperties")
    if isinstance(additional, dict):
        yield "additionalProperties", additional
    for definitions in ("$defs", "definitions"):
        table = schema.get(definitions)
        if isinstance(table, dict):
            for name, value in table.items():
                yield f"{definitions}.{name}", value


def walk(schema: Any, path: str = "", *, limit: int = 10_000) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every (sub-)schema that is a mapping, depth first, with its path; at most ``limit`` of them."""
    stack: list[tuple[str, Any]] = [(path, schema)]
    seen = 0
    while stack and seen < limit:
        where, node = stack.pop()
        if not isinstance(node, dict):
            continue
        seen += 1
        yield where, node
        stack.extend(
            reversed([(f"{where}.{step}" if where else step, child) for step, child in children(node)])
        )


def parameter_path(path: str) -> str:
    """A ``walk`` path as a reader names the parameter: ``properties.tags.items`` → ``tags[]``."""
    shown = ""
    for step in re.findall(r"properties\.[^.\[]+|items(?:\[\d+\])?|[^.]+", path):
        if step.startswith("properties."):
            shown += ("." if shown else "") + step[len("properties.") :]
        elif step.startswith("items"):
            shown += "[]"
        elif step.startswith(("$defs", "definitions")) or not step.startswith(_COMBINATORS):
            shown += ("." if shown else "") + step
    return shown


def declares_array(schema: dict[str, Any]) -> bool:
    declared = schema.get("type")
    return declared == "array" or (isinstance(declared, list) and "array" in declared)


def depth(schema: Any, level: int = 0, *, limit: int = 64, _hops: int = 0) -> int:
    """How deeply objects nest: a flat object is 1, an object property inside it 2, and so on.

    An array's items sit at the array's own level (a list of strings is no harder than a string), and
    so do the options of anyOf/oneOf/allOf; `$defs` are not counted.
    """
    if not isinstance(schema, dict) or level >= limit or _hops >= 4 * limit:
        return level
    deepest = level
    for child in properties_of(schema).values():
        deepest = max(deepest, depth(child, level + 1, limit=limit, _hops=_hops + 1))
    same_level: list[Any] = [schema.get("items")]
    for combinator in _COMBINATORS:
        options = schema.get(combinator)
        if isinstance(options, list):
            same_level.extend(options)
    for child in same_level:
        if isinstance(child, dict):
            deepest = max(deepest, depth(child, level, limit=limit, _hops=_hops + 1))
    return deepest


def property_count(schema: Any) -> int:
    """Properties declared anywhere in the schema (definitions included)."""
    return sum(len(properties_of(node)) for _, node in walk(schema))


def resolve_pointer(root: Any, reference: str) -> bool:
    """Whether a local ``$ref`` (``#/…``) points at something in ``root``; remote refs count as unresolved."""
    if reference == "#":
        return True
    try:
        follow_local_ref(root, reference)
    except LookupError:
        return False
    return True


def has_type(schema: Any) -> bool:
    """A parameter says what kind of value it takes (type, enum, const, a combinator or a `$ref`)."""
    if not isinstance(schema, dict):
        return False
    return any(key in schema for key in ("type", "enum", "const", "$ref", *_COMBINATORS))


def types_of(schema: Any) -> set[str]:
    """The JSON types a parameter accepts, looking through anyOf/oneOf (pydantic's ``X | None``)."""
    if not isinstance(schema, dict):
        return set()
    found: set[str] = set()
    declared = schema.get("type")
    if isinstance(declared, str):
        found.add(declared)
    elif isinstance(declared, list):
        found.update(str(item) for item in declared)
    for combinator in _COMBINATORS:
        options = schema.get(combinator)
        if isinstance(options, list):
            for option in options:
                found |= types_of(option)
    return found


def has_enum(schema: Any) -> bool:
    if not isinstance(schema, dict):
        return False
    if "enum" in schema or "const" in schema:
        return True
    return any(
        has_enum(option)
        for combinator in _COMBINATORS
        if isinstance(schema.get(combinator), list)
        for option in schema[combinator]
    )


def description_of(schema: Any) -> str:
    if not isinstance(schema, dict):
        return ""
    text = schema.get("description")
    return text.strip() if isinstance(text, str) else ""


def is_pipeline_name(name: str) -> bool:
    return bool(_PIPELINE_NAME.search(name)) and not _SECRET_NAME.search(name)


def pipeline_parameters(tool: Tool) -> list[tuple[str, bool]]:
    """Top-level parameters whose values another tool produces, each with whether it is required.

    Recognised by name (``id``, ``*_id``, ``*Id``, cursors, page tokens, ``*_ts``, handles, refs,
    hashes) or by ``format: uuid``; an enum is never a pipeline value, nor is a credential.
    """
    required = set(tool.required)
    found = []
    for name, schema in tool.parameters.items():
        if has_enum(schema):
            continue
        formatted = isinstance(schema, dict) and schema.get("format") in _PIPELINE_FORMATS
        if is_pipeline_name(name) or formatted:
            found.append((name, name in required))
    return found

"""pydantic's validation errors as ``file:line (field): message`` lines a person can act on.

Each line is decided by the structured fields of ``ValidationError.errors()`` — ``type``, ``loc``,
``ctx``, ``input`` — never by parsing pydantic's wording or its internal names of union branches:
``missing`` becomes "required field is missing", a validator's ``value_error`` its own words,
``wrong_shape`` (a value no branch of a union takes, see ``config.unions``) "must be … (not …)",
``extra_forbidden`` an unknown key with a did-you-mean or the level it belongs at, and any other
type pydantic's own message ("Input should be a valid integer").
"""

from __future__ import annotations

import types
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from mcp_evals.config import yaml11
from mcp_evals.config.source import Document, Location
from mcp_evals.config.unions import BRANCH_TAGS, WRONG_SHAPE
from mcp_evals.errors import where
from mcp_evals.suggest import did_you_mean, suggest
from mcp_evals.wording import noun, shorten

# The last part of the ``loc`` of an error in a mapping's key (pydantic's own marker).
_KEY_PART = "[key]"
_MISSING = object()


def dotted(location: Location) -> str:
    text = ""
    for part in location:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


# -- unknown keys: did you mean, and keys written at the wrong level ---------------------------------

# How a list's entries are called in messages ("`env` belongs inside a server entry").
_ENTRY_NAMES = {"servers": "a server entry", "fixtures": "a fixture"}
# Keys a model accepts besides its fields (shorthands its validators turn into fields).
_EXTRA_KEYS: dict[str, tuple[str, ...]] = {"Fixture": ("expected_tool",)}


def _unwrap(annotation: Any) -> Any:
    """Optional[X] / Annotated[X, …] → X (the first member that is not None)."""
    while True:
        origin = get_origin(annotation)
        if origin is Annotated:
            annotation = get_args(annotation)[0]
        elif origin in (Union, types.UnionType):
            members = [arg for arg in get_args(annotation) if arg is not type(None)]
            structured = [arg for arg in members if _is_model(arg) or get_origin(arg) in (list, dict)]
            annotation = (structured or members or [None])[0]
        else:
            return annotation


def _is_model(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)


def _keys(model: type[BaseModel]) -> list[str]:
    names: list[str] = []
    for name, info in model.model_fields.items():
        names.append(info.alias or name)
        choices = getattr(info.validation_alias, "choices", None)
        names += [choice for choice in choices or () if isinstance(choice, str)]
    return [*dict.fromkeys(names), *_EXTRA_KEYS.get(model.__name__, ())]


def _model_at(model: type[BaseModel], parts: Location) -> type[BaseModel] | None:
    """The model a pydantic location (relative to ``model``) points into, if it is one."""
    annotation: Any = model
    for part in parts:
        annotation = _unwrap(annotation)
        if _is_model(annotation):
            fields = {info.alias or name: info for name, info in annotation.model_fields.items()}
            info = fields.get(str(part)) or annotation.model_fields.get(str(part))
            if info is None:
                return None
            annotation = info.annotation
        elif get_origin(annotation) is list:
            annotation = get_args(annotation)[0]
        elif get_origin(annotation) is dict:
            annotation = get_args(annotation)[1]
        else:
            return None
    annotation = _unwrap(annotation)
    return annotation if _is_model(annotation) else None


def _places(model: type[BaseModel]) -> list[tuple[str, str, int, tuple[str, ...]]]:
    """Every key of the model tree: (key, where it goes in words, its depth in keys, container path)."""
    found: list[tuple[str, str, int, tuple[str, ...]]] = []

    def walk(current: type[BaseModel], path: tuple[str, ...], label: str, seen: frozenset[type]) -> None:
        if current in seen:
            return
        for key in _keys(current):
            found.append((key, label, len(path), path))
        for name, info in current.model_fields.items():
            key = info.alias or name
            annotation = _unwrap(info.annotation)
            if _is_model(annotation):
                walk(annotation, (*path, key), f"`{'.'.join((*path, key))}:`", seen | {current})
            elif get_origin(annotation) in (list, dict):
                inner = _unwrap(get_args(annotation)[-1])
                if _is_model(inner):
                    dotted_path = ".".join((*path, key))
                    words = (
                        _ENTRY_NAMES.get(key, f"an entry of `{dotted_path}:`")
                        if get_origin(annotation) is list
                        else f"a value of `{dotted_path}:`"
                    )
                    walk(inner, (*path, key), words, seen | {current})

    walk(model, (), "the top level", frozenset())
    return found


def _levels(delta: int) -> str:
    words = {1: "one", 2: "two", 3: "three"}
    if delta == 0:
        return "at the same depth"
    count = words.get(abs(delta), str(abs(delta)))
    return f"{count} {noun(abs(delta), 'level')} {'deeper' if delta > 0 else 'up'}"


def unknown_key_message(model: type[BaseModel] | None, parent: Location, key: str, schema: str | None) -> str:
    """Why a key is unknown: written at the wrong level, misspelt (did you mean), or not a key at all."""
    listing = f"; `mcp-evals schema {schema}` lists the allowed keys" if schema else ""
    if model is None:
        return f"unknown key (check the spelling{listing})"
    container = tuple(part for part in parent if isinstance(part, str))
    elsewhere = [place for place in _places(model) if place[0] == key and place[3] != container]
    if elsewhere:
        depth = len(container)
        _, label, target, _ = min(elsewhere, key=lambda place: (abs(place[2] - depth - 1), place[2]))
        place = "at the top level" if not target else f"inside {label}"
        return f"`{key}` belongs {place} ({_levels(target - depth)}), not here"
    here = _model_at(model, parent)
    if here is not None:
        close = suggest(key, _keys(here), limit=2)
        if close:
            return f"unknown key `{key}`" + did_you_mean(close, lead="; ", quote=lambda name: f"`{name}`")
    return f"unknown key (check the spelling{listing})"


# -- one error's place and message ------------------------------------------------------------------


def _child(node: Any, part: str | int) -> Any:
    if isinstance(node, dict) and part in node:
        return node[part]
    if isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
        return node[part]
    return _MISSING


def _place(loc: Location, data: Any) -> Location:
    """Where an error is in the file: its ``loc`` less the tags of the union branches it went into
    and the marker of a key's error (a key of the file spelt like one stays)."""
    node = data
    place: list[str | int] = []
    for part in loc:
        tag = part in BRANCH_TAGS or part == _KEY_PART
        if tag and not (isinstance(node, dict) and part in node):
            continue
        place.append(part)
        node = _child(node, part)
    return tuple(place)


def _shown_value(value: Any) -> str:
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return shorten(repr(value), 60)


def _message(item: ErrorDetails) -> str:
    """What one error says, from its type and context."""
    kind = item["type"]
    context = item.get("ctx") or {}
    if kind == "missing":
        return "required field is missing"
    if kind == WRONG_SHAPE:
        return f"must be {context['accepts']} (not {_shown_value(item.get('input'))})"
    if kind == "value_error" and "error" in context:
        return str(context["error"])  # our validators' own words
    return str(item["msg"])


def describe_validation_error(
    error: ValidationError,
    document: Document,
    base: Location = (),
    *,
    limit: int = 10,
    schema: str | None = None,
    model: type[BaseModel] | None = None,
) -> str:
    """Turn a pydantic ValidationError into ``file:line (field): message`` lines.

    ``base`` is where the validated value sits in the document; ``schema`` names the `mcp-evals
    schema` argument (config, fixtures) that lists the allowed keys; ``model`` (the validated class)
    lets an unknown key get a did-you-mean, or be placed where it goes.
    """
    data: Any = document.data
    for part in base:
        data = _child(data, part)
    items = error.errors(include_url=False)
    rows = []
    for item in items[:limit]:
        loc = _place(tuple(item["loc"]), data)
        full = (*base, *loc)
        if item["type"] == "extra_forbidden":
            message = unknown_key_message(model, loc[:-1], str(loc[-1]) if loc else "", schema)
        else:
            message = _message(item)
        message += yaml11.note(document.sources.get(full), item.get("input"))
        rows.append(f"{where(document.path, document.line_of(full), dotted(full) or None)}: {message}")
    more = len(items) - limit
    if more > 0:
        rows.append(f"… and {more} more problems")
    return "\n".join(rows)

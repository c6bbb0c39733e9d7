"""Reading user files (YAML or JSON) safely, remembering where every value came from.

Why not ``yaml.safe_load``: it silently keeps the last of two duplicate keys, expands aliases (a
"billion laughs" document eats memory), and forgets line numbers. Here aliases are refused, duplicate
keys are errors, and each value's line is kept so a message can say ``file:line``.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import yaml

from .errors import InputFileError, where

Location = tuple[str | int, ...]
MAX_FILE_BYTES = 64 * 1024 * 1024


@dataclass
class Document:
    """A parsed file: its data and the line (1-based) of every mapping key and sequence item."""

    path: Path
    data: Any
    lines: dict[Location, int] = field(default_factory=dict)

    def line_of(self, location: Location) -> int | None:
        """The line of the deepest known part of ``location`` (a pydantic ``loc`` works too)."""
        parts = tuple(location)
        while parts:
            if parts in self.lines:
                return self.lines[parts]
            parts = parts[:-1]
        return self.lines.get(())


class _StrictLoader(yaml.SafeLoader):
    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.composer.ComposerError(
                None,
                None,
                "anchors and aliases (*name) are not supported: write the value out in full",
                event.start_mark,
            )
        return super().compose_node(parent, index)


def _to_python(
    loader: _StrictLoader, node: yaml.Node, path: Path, location: Location, lines: dict[Location, int]
) -> Any:
    lines[location] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        result: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                raise InputFileError(
                    f"{where(path, key_node.start_mark.line + 1)}: merge keys (<<) are not supported"
                )
            key = loader.construct_object(key_node, deep=True)
            if not isinstance(key, str | int | float | bool) and key is not None:
                raise InputFileError(
                    f"{where(path, key_node.start_mark.line + 1)}: a mapping key must be a plain value"
                )
            if key in result:
                raise InputFileError(
                    f"{where(path, key_node.start_mark.line + 1)}: duplicate key {key!r} "
                    f"(first at line {lines[(*location, key)]}): keep only one"
                )
            lines[(*location, key)] = key_node.start_mark.line + 1
            result[key] = _to_python(loader, value_node, path, (*location, key), lines)
            lines[(*location, key)] = key_node.start_mark.line + 1
        return result
    if isinstance(node, yaml.SequenceNode):
        return [
            _to_python(loader, item, path, (*location, index), lines) for index, item in enumerate(node.value)
        ]
    return loader.construct_object(node, deep=True)


def read_text(path: Path) -> str:
    """Read a UTF-8 text file, or explain in one line why it cannot be read."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise InputFileError(f"{path}: file is {size} bytes; the limit is {MAX_FILE_BYTES}")
        raw = path.read_bytes()
    except FileNotFoundError:
        raise InputFileError(f"{path}: file not found") from None
    except IsADirectoryError:
        raise InputFileError(f"{path}: is a folder, not a file") from None
    except OSError as error:
        raise InputFileError(f"{path}: cannot read ({error.strerror})") from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        raise InputFileError(
            f"{where(path, line)}: not valid UTF-8 (byte 0x{raw[error.start]:02x} at offset {error.start})",
            hint="save the file as UTF-8",
        ) from None


def parse_yaml(text: str, path: Path) -> Document:
    """Parse YAML (JSON is accepted too) into a Document; errors name the file and line."""
    loader = _StrictLoader(text)
    try:
        node = loader.get_single_node()
        lines: dict[Location, int] = {}
        data = None if node is None else _to_python(loader, node, path, (), lines)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = mark.line + 1 if mark is not None else None
        problem = error.problem or str(error)
        raise InputFileError(f"{where(path, line)}: YAML syntax error: {problem}") from None
    except yaml.YAMLError as error:
        raise InputFileError(f"{path}: YAML error: {error}") from None
    finally:
        loader.dispose()
    return Document(path=path, data=data, lines=lines)


def load_document(path: Path) -> Document:
    """Load a YAML or JSON file. JSON goes through the YAML reader for line numbers when it can."""
    text = read_text(path)
    if path.suffix.lower() == ".json":
        try:
            json.loads(text, object_pairs_hook=_no_duplicate_keys(path))
        except json.JSONDecodeError as error:
            raise InputFileError(f"{where(path, error.lineno)}: JSON syntax error: {error.msg}") from None
        try:
            return parse_yaml(text, path)
        except InputFileError:
            return Document(path=path, data=json.loads(text))
    return parse_yaml(text, path)


def _no_duplicate_keys(path: Path) -> Any:
    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for key, value in pairs:
            if key in result:
                raise InputFileError(f"{path}: duplicate key {key!r} in a JSON object: keep only one")
            result[key] = value
        return result

    return hook


@contextmanager
def atomic_write(path: Path, *, mode: str = "w") -> Iterator[IO[Any]]:
    """Write a file completely or not at all: a failure leaves any earlier file untouched."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        encoding = None if "b" in mode else "utf-8"
        with os.fdopen(handle, mode, encoding=encoding) as stream:
            yield stream
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _dotted(location: Location) -> str:
    text = ""
    for part in location:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def describe_validation_error(
    error: Any, document: Document, base: Location = (), *, limit: int = 10
) -> str:
    """Turn a pydantic ValidationError into ``file:line (field): message`` lines."""
    rows = []
    for item in error.errors()[:limit]:
        loc = tuple(part for part in item["loc"] if not (isinstance(part, str) and part.startswith("function-")))
        full = (*base, *loc)
        message = item["msg"]
        if item["type"] == "extra_forbidden":
            message = "unknown key (check the spelling; `mcp-evals schema` lists the allowed keys)"
        elif item["type"] == "missing":
            message = "required field is missing"
        rows.append(f"{where(document.path, document.line_of(full), _dotted(full) or None)}: {message}")
    more = len(error.errors()) - limit
    if more > 0:
        rows.append(f"… and {more} more problems")
    return "\n".join(rows)

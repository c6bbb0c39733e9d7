"""Reading user files (YAML or JSON) safely, remembering where every value came from.

Why not ``yaml.safe_load``: it silently keeps the last of two duplicate keys, expands aliases (a
"billion laughs" document eats memory), and forgets line numbers. Here aliases are refused, duplicate
keys are errors, and each value's line is kept so a message can say ``file:line``.
"""

from __future__ import annotations

import bisect
import importlib
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import yaml

from mcp_evals.errors import InputFileError, where

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


class _Resolver(yaml.resolver.Resolver):
    """YAML 1.1 resolution minus timestamps: ``2024-05-01`` stays the string a tool argument would be."""


_Resolver.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.resolver.Resolver.yaml_implicit_resolvers.items()
}


class _PyParser(yaml.reader.Reader, yaml.scanner.Scanner, yaml.parser.Parser, yaml.composer.Composer):
    def __init__(self, stream: str) -> None:
        yaml.reader.Reader.__init__(self, stream)
        yaml.scanner.Scanner.__init__(self)
        yaml.parser.Parser.__init__(self)
        yaml.composer.Composer.__init__(self)


# libyaml (in PyYAML's wheels) parses several times faster; the pure-Python parser is the fallback.
try:
    _Parser: Any = importlib.import_module("yaml._yaml").CParser
except ImportError:  # pragma: no cover
    _Parser = _PyParser


class _Loader(_Parser, yaml.constructor.SafeConstructor, _Resolver):  # type: ignore[misc]
    def __init__(self, stream: str) -> None:
        _Parser.__init__(self, stream)
        yaml.constructor.SafeConstructor.__init__(self)
        _Resolver.__init__(self)


MAX_DEPTH = 64
_STR = "tag:yaml.org,2002:str"
_PLAIN_COLLECTIONS = ("tag:yaml.org,2002:map", "tag:yaml.org,2002:seq")


class _Converter:
    """Node graph → plain Python, refusing aliases, merge keys and duplicate keys, recording lines.

    The composer turns an alias into a second reference to the anchored node, so an alias shows up
    as a node met twice. Refusing it at once keeps a "billion laughs" document linear in time and
    memory (nothing is ever expanded), and a self-referencing alias cannot loop.
    """

    def __init__(self, loader: Any, path: Path) -> None:
        self.loader = loader
        self.path = path
        self.lines: dict[Location, int] = {}
        self.seen: set[int] = set()

    def fail(self, node: yaml.Node, message: str) -> InputFileError:
        return InputFileError(f"{where(self.path, node.start_mark.line + 1)}: {message}")

    def convert(self, node: yaml.Node, location: Location) -> Any:
        if id(node) in self.seen:
            return self._alias(node)
        self.seen.add(id(node))
        self.lines[location] = node.start_mark.line + 1
        if isinstance(node, yaml.ScalarNode):
            return node.value if node.tag == _STR else self.scalar(node)
        if len(location) > MAX_DEPTH:
            raise self.fail(node, f"nested more than {MAX_DEPTH} levels deep")
        if node.tag not in _PLAIN_COLLECTIONS:
            raise self.fail(node, f"unsupported tag {node.tag!r}: write a plain value")
        if isinstance(node, yaml.MappingNode):
            result: dict[Any, Any] = {}
            for key_node, value_node in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    raise self.fail(key_node, "merge keys (<<) are not supported: write the keys out")
                if id(key_node) in self.seen:
                    return self._alias(key_node)
                self.seen.add(id(key_node))
                key = self.scalar(key_node) if isinstance(key_node, yaml.ScalarNode) else None
                if key is None or not isinstance(key, str | int | float | bool):
                    raise self.fail(key_node, "a mapping key must be a plain value")
                key_location = (*location, key if isinstance(key, str | int) else str(key))
                if key in result:
                    raise self.fail(
                        key_node,
                        f"duplicate key {key!r} (first at line {self.lines[key_location]}): keep only one",
                    )
                key_line = key_node.start_mark.line + 1
                result[key] = self.convert(value_node, key_location)
                self.lines[key_location] = key_line
            return result
        return [self.convert(item, (*location, index)) for index, item in enumerate(node.value)]

    def scalar(self, node: yaml.Node) -> Any:
        if node.tag == _STR:
            return node.value
        constructor = self.loader.yaml_constructors.get(node.tag)
        if constructor is None:
            raise self.fail(node, f"unsupported tag {node.tag!r}: write a plain value")
        return constructor(self.loader, node)

    def _alias(self, node: yaml.Node) -> Any:
        raise self.fail(
            node,
            "anchors and aliases (&name / *name) are not supported: the value anchored here is reused "
            "by an alias; write it out in full",
        )


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
    """Parse YAML into a Document; errors name the file and line."""
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        converter = _Converter(loader, path)
        data = None if node is None else converter.convert(node, ())
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = mark.line + 1 if mark is not None else None
        problem = error.problem or str(error)
        raise InputFileError(f"{where(path, line)}: YAML syntax error: {problem}") from None
    except yaml.YAMLError as error:
        raise InputFileError(f"{path}: YAML error: {error}") from None
    except RecursionError:
        raise InputFileError(f"{path}: nested too deeply") from None
    finally:
        loader.dispose()
    return Document(path=path, data=data, lines=converter.lines)


def parse_json(text: str, path: Path) -> Document:
    """Parse JSON into a Document with the line of every key and item; duplicate keys are errors."""
    try:
        json.loads(text)  # fast, exact syntax errors; the reader below can then trust the text
    except json.JSONDecodeError as error:
        raise InputFileError(
            f"{where(path, error.lineno)}: JSON syntax error: {error.msg} (column {error.colno})"
        ) from None
    except RecursionError:
        raise InputFileError(f"{path}: nested too deeply") from None
    reader = _JsonReader(text, path)
    data = reader.value(reader.skip(0), ())[0]
    return Document(path=path, data=data, lines=reader.lines)


_scanstring = cast(Callable[[str, int], tuple[str, int]], vars(json.decoder)["scanstring"])
_JSON_SPACE = re.compile(r"[ \t\n\r]*")
_JSON_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_JSON_CONSTANTS = {
    "true": True,
    "false": False,
    "null": None,
    "NaN": math.nan,
    "Infinity": math.inf,
    "-Infinity": -math.inf,
}


class _JsonReader:
    """A small JSON reader that remembers lines (the standard library's does not)."""

    def __init__(self, text: str, path: Path) -> None:
        self.text = text
        self.path = path
        self.newlines = [index for index, char in enumerate(text) if char == "\n"]
        self.lines: dict[Location, int] = {}

    def line(self, index: int) -> int:
        return bisect.bisect_right(self.newlines, index) + 1

    def skip(self, index: int) -> int:
        match = _JSON_SPACE.match(self.text, index)
        return match.end() if match else index

    def value(self, index: int, location: Location) -> tuple[Any, int]:
        if len(location) > MAX_DEPTH:
            line = self.line(index)
            raise InputFileError(f"{where(self.path, line)}: nested more than {MAX_DEPTH} levels deep")
        self.lines.setdefault(location, self.line(index))
        char = self.text[index]
        if char == "{":
            result: dict[str, Any] = {}
            index = self.skip(index + 1)
            if self.text[index] == "}":
                return result, index + 1
            while True:
                key_line = self.line(index)
                key, index = _scanstring(self.text, index + 1)
                key_location = (*location, key)
                if key in result:
                    raise InputFileError(
                        f"{where(self.path, key_line)}: duplicate key {key!r} "
                        f"(first at line {self.lines[key_location]}): keep only one"
                    )
                index = self.skip(self.skip(index) + 1)  # the colon
                result[key], index = self.value(index, key_location)
                self.lines[key_location] = key_line
                index = self.skip(index)
                if self.text[index] == "}":
                    return result, index + 1
                index = self.skip(index + 1)  # the comma
        if char == "[":
            items: list[Any] = []
            index = self.skip(index + 1)
            if self.text[index] == "]":
                return items, index + 1
            while True:
                item, index = self.value(index, (*location, len(items)))
                items.append(item)
                index = self.skip(index)
                if self.text[index] == "]":
                    return items, index + 1
                index = self.skip(index + 1)
        if char == '"':
            return _scanstring(self.text, index + 1)
        for word, constant in _JSON_CONSTANTS.items():
            if self.text.startswith(word, index):
                return constant, index + len(word)
        match = _JSON_NUMBER.match(self.text, index)
        assert match is not None, "json.loads accepted the text"
        number = match.group(0)
        return (float(number) if match.group(1) or match.group(2) else int(number)), match.end()


def load_document(path: Path) -> Document:
    """Load a YAML or JSON file (by extension; ``.json`` is read as JSON, anything else as YAML)."""
    text = read_text(path)
    if path.suffix.lower() == ".json":
        return parse_json(text, path)
    return parse_yaml(text, path)


def dotted(location: Location) -> str:
    text = ""
    for part in location:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def describe_validation_error(
    error: Any, document: Document, base: Location = (), *, limit: int = 10, schema: str | None = None
) -> str:
    """Turn a pydantic ValidationError into ``file:line (field): message`` lines.

    ``schema`` names the `mcp-evals schema` argument (config, fixtures) that lists the allowed keys.
    """
    rows = []
    for item in error.errors()[:limit]:
        loc = tuple(
            part for part in item["loc"] if not (isinstance(part, str) and part.startswith("function-"))
        )
        full = (*base, *loc)
        message = item["msg"]
        if item["type"] == "extra_forbidden":
            message = "unknown key (check the spelling" + (
                f"; `mcp-evals schema {schema}` lists the allowed keys)" if schema else ")"
            )
        elif item["type"] == "missing":
            message = "required field is missing"
        elif item["type"] == "value_error":
            message = message.removeprefix("Value error, ")  # our validators' own words
        rows.append(f"{where(document.path, document.line_of(full), dotted(full) or None)}: {message}")
    more = len(error.errors()) - limit
    if more > 0:
        rows.append(f"… and {more} more problems")
    return "\n".join(rows)

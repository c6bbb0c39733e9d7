"""The YAML reader behind every user file: safe, strict about ambiguity, and keeping line numbers.

Why not ``yaml.safe_load``: it silently keeps the last of two duplicate keys, expands aliases (a
"billion laughs" document eats memory), and forgets line numbers. Here aliases are refused, duplicate
keys are errors, and each value's line is kept so a message can say ``file:line``. Values resolve as
YAML 1.1 (PyYAML's ``yes``/``no`` booleans) except timestamps, which stay strings.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import yaml

from mcp_evals.config import yaml11
from mcp_evals.config.source import MAX_DEPTH, Document, Location
from mcp_evals.config.syntax import explain_syntax_error
from mcp_evals.errors import InputFileError, where


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
        self.sources: dict[Location, str] = {}
        self.seen: set[int] = set()

    def fail(self, node: yaml.Node, message: str) -> InputFileError:
        return InputFileError(f"{where(self.path, node.start_mark.line + 1)}: {message}")

    def convert(self, node: yaml.Node, location: Location) -> Any:
        if id(node) in self.seen:
            return self._alias(node)
        self.seen.add(id(node))
        self.lines[location] = node.start_mark.line + 1
        if isinstance(node, yaml.ScalarNode):
            if node.tag != _STR and not node.style and yaml11.surprising(node.value):
                self.sources[location] = node.value
            return node.value if node.tag == _STR else self.scalar(node)
        if len(location) > MAX_DEPTH:
            raise self.fail(node, f"nested more than {MAX_DEPTH} levels deep")
        if node.tag not in _PLAIN_COLLECTIONS:
            raise self.fail(node, f"unsupported tag {node.tag!r}: write a plain value")
        if isinstance(node, yaml.MappingNode):
            result: dict[Any, Any] = {}
            previous: tuple[yaml.Node, yaml.Node] | None = None
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
                        f"duplicate key {key!r} (first at line {self.lines[key_location]}): "
                        + _lost_indent(key, previous),
                    )
                previous = (key_node, value_node)
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


def _lost_indent(key: object, previous: tuple[yaml.Node, yaml.Node] | None) -> str:
    """What to do about a duplicate key; when it follows a mapping's child (or a key with no value),
    it most likely belongs one level deeper and lost its indentation."""
    if previous is not None:
        parent_node, value_node = previous
        parent = parent_node.value if isinstance(parent_node, yaml.ScalarNode) else "?"
        parent_line = parent_node.start_mark.line + 1
        if isinstance(value_node, yaml.MappingNode) and value_node.value:
            child = value_node.value[0][0]
            column = child.start_mark.column
            return (
                f"it follows the keys of `{parent}` (line {parent_line}): if `{key}` belongs to `{parent}`, "
                f"indent it like them ({column} spaces); otherwise keep only one"
            )
        if (
            isinstance(value_node, yaml.ScalarNode)
            and value_node.tag == "tag:yaml.org,2002:null"
            and not str(value_node.value)
        ):
            column = parent_node.start_mark.column + 2
            return (
                f"it follows `{parent}:` (line {parent_line}), which has no value: if `{key}` belongs to "
                f"`{parent}`, indent it more than `{parent}` (e.g. {column} spaces); otherwise keep only one"
            )
    return "keep only one"


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
        raise InputFileError(f"{where(path, line)}: {explain_syntax_error(text, problem, line)}") from None
    except yaml.YAMLError as error:
        raise InputFileError(f"{path}: YAML error: {error}") from None
    except RecursionError:
        raise InputFileError(f"{path}: nested too deeply") from None
    finally:
        loader.dispose()
    return Document(path=path, data=data, lines=converter.lines, sources=converter.sources)

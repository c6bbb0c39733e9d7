"""Reading user files (YAML or JSON) safely, remembering where every value came from.

Why not ``yaml.safe_load``: it silently keeps the last of two duplicate keys, expands aliases (a
"billion laughs" document eats memory), and forgets line numbers. Here aliases are refused, duplicate
keys are errors, and each value's line is kept so a message can say ``file:line``.
"""

from __future__ import annotations

import ast
import bisect
import difflib
import importlib
import json
import math
import re
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Union, cast, get_args, get_origin

import yaml
from pydantic import BaseModel

from mcp_evals.config import yaml11
from mcp_evals.errors import InputFileError, where
from mcp_evals.files import register_input
from mcp_evals.wording import shorten

Location = tuple[str | int, ...]
MAX_FILE_BYTES = 64 * 1024 * 1024


@dataclass
class Document:
    """A parsed file: its data and the line (1-based) of every mapping key and sequence item."""

    path: Path
    data: Any
    lines: dict[Location, int] = field(default_factory=dict)
    sources: dict[Location, str] = field(default_factory=dict)  # plain scalars YAML 1.1 reads oddly (yaml11)

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


def read_text(path: Path) -> str:
    """Read a UTF-8 text file, or explain in one line why it cannot be read."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise InputFileError(f"{path}: file is {size} bytes; the limit is {MAX_FILE_BYTES}")
        raw = path.read_bytes()
        register_input(path)  # no output of this command may replace it (files.py)
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
        raise InputFileError(f"{where(path, line)}: {explain_syntax_error(text, problem, line)}") from None
    except yaml.YAMLError as error:
        raise InputFileError(f"{path}: YAML error: {error}") from None
    except RecursionError:
        raise InputFileError(f"{path}: nested too deeply") from None
    finally:
        loader.dispose()
    return Document(path=path, data=data, lines=converter.lines, sources=converter.sources)


_INDENTATION_PROBLEMS = (
    "did not find expected key",
    "did not find expected '-' indicator",
    "mapping values are not allowed",
    "expected <block end>",
    "block sequence entries are not allowed",
)


def explain_syntax_error(text: str, problem: str, line: int | None) -> str:
    """A YAML syntax error in words a person new to YAML can act on (PyYAML's own words kept last)."""
    lines = text.splitlines()
    if line is None or not 1 <= line <= len(lines):
        return f"YAML syntax error: {problem}"
    for number in (line, *range(1, line)):  # the line the parser stopped at, else the first tab above
        leading = _leading(lines[number - 1])
        if "\t" in leading:
            column = leading.index("\t") + 1
            return (
                f"YAML indents with spaces, not tabs (line {number}, column {column}): replace the tab "
                "with spaces"
            )
    if any(known in problem for known in _INDENTATION_PROBLEMS):
        return _explain_indentation(lines, line, problem)
    return f"YAML syntax error: {problem}"


def _leading(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _content(line: str) -> bool:
    stripped = line.strip()
    return bool(stripped) and not stripped.startswith("#")


def _explain_indentation(lines: list[str], line: int, problem: str) -> str:
    """Show the line and the one above with their indentation, and say which looks wrong."""
    current = lines[line - 1]
    above_number = next((n for n in range(line - 1, 0, -1) if _content(lines[n - 1])), None)
    indent = len(_leading(current))
    # The columns keys start at above this line: each line's indentation, and after a "- " the item's.
    columns: set[int] = set()
    item_columns: set[int] = set()
    for earlier in lines[: line - 1]:
        if not _content(earlier):
            continue
        start = len(_leading(earlier))
        columns.add(start)
        rest = earlier[start:]
        if rest.startswith("- "):
            item_columns.add(start)
            columns.add(start + 2 + len(rest[2:]) - len(rest[2:].lstrip(" ")))
    shown = [f"YAML syntax error: the indentation does not fit ({problem})"]
    if above_number is not None:
        above = lines[above_number - 1]
        shown.append(f"    {above_number:>4} | {above.rstrip()}    ← {_spaces(len(_leading(above)))}")
    shown.append(f"    {line:>4} | {current.rstrip()}    ← {_spaces(indent)}")
    used = ", ".join(str(column) for column in sorted(columns)) or "0"
    is_item = current.lstrip().startswith("- ")
    if indent in item_columns and not is_item:
        verdict = (
            f"line {line} looks wrong: it starts in the column of the list items above ({_spaces(indent)}) "
            "but is not a list item: indent it to the keys of the item it belongs to, or start a new item "
            "with `- `"
        )
    elif indent not in columns:
        verdict = (
            f"line {line} looks wrong: it is indented {_spaces(indent)}, a column no line above uses "
            f"(they use {used}); "
            + ("items of one list" if is_item else "keys of one mapping")
            + " start in the same column"
        )
    else:
        verdict = (
            f"line {above_number} looks wrong: line {line} starts in a column the lines above use, so the "
            f"line before it probably has too many or too few spaces, or a missing `:` or `- `"
        )
    shown.append(f"  {verdict}")
    return "\n".join(shown)


def _spaces(count: int) -> str:
    return "1 space" if count == 1 else f"{count} spaces"


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


def shown(path: Path) -> str:
    """A path as messages show it: relative to the current folder when it is below it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def load_document_as(path: Path, display: str, *, text: str | None = None) -> Document:
    """Load ``path`` (or parse ``text`` as that file); the document and its errors name it ``display``."""
    try:
        if text is None:
            document = load_document(path)
        else:
            document = parse_json(text, path) if path.suffix.lower() == ".json" else parse_yaml(text, path)
    except InputFileError as error:
        message = error.message
        if message.startswith(str(path)):
            message = display + message[len(str(path)) :]
        raise InputFileError(message, hint=error.hint) from None
    document.path = Path(display)
    return document


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
    return f"{count} level{'s' if abs(delta) > 1 else ''} {'deeper' if delta > 0 else 'up'}"


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
        ratios = sorted(
            ((difflib.SequenceMatcher(None, key, name).ratio(), name) for name in _keys(here)), reverse=True
        )
        close = [name for ratio, name in ratios[:2] if ratio >= 0.6 and ratio >= ratios[0][0] - 0.05]
        if close:
            return f"unknown key `{key}`; did you mean {' or '.join(f'`{name}`' for name in close)}?"
    return f"unknown key (check the spelling{listing})"


# How pydantic names the branches of a union in an error's ``loc``: ``bool``, ``list[str]``,
# ``literal['error','warning']``, ``function-after[…, CaseServer]``, or a model's class name.
_BRANCH_TAG = re.compile(
    r"(?s)(?:bool|int|float|str|bytes|none|decimal|date|datetime|time|timedelta|url|uuid|any|list|dict"
    r"|tuple|set|frozenset|literal|union|tagged-union|nullable|json-or-python|lax-or-strict|enum"
    r"|function-[a-z]+|constrained-[a-z]+|is-instance|chain|model|definition-ref|default)(?:\[.*\])?"
)
_CLASS_TAG = re.compile(r"_?[A-Z][A-Za-z0-9]*")
_MISSING = object()


@dataclass
class _Problem:
    """One pydantic error with its union branch tags taken out of the location."""

    loc: Location  # the location in the user's file
    message: str
    kind: str
    value: Any
    branch: str | None = None  # the union branch the error ended at (it is of the wrong type)
    unions: tuple[int, ...] = ()  # depths (in ``loc``) at which the error went into a union branch


def _child(node: Any, part: str | int) -> Any:
    if isinstance(node, dict) and part in node:
        return node[part]
    if isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
        return node[part]
    return _MISSING


def _is_tag(node: Any, part: str | int, last: bool, kind: str) -> bool:
    """Whether a ``loc`` part names a union branch (or a dict's key) rather than a key in the file."""
    if not isinstance(part, str) or (isinstance(node, dict) and part in node) or (last and kind == "missing"):
        return False
    if part == "[key]" or _BRANCH_TAG.fullmatch(part):
        return True
    return node is not _MISSING and bool(_CLASS_TAG.fullmatch(part))


def _problem(item: Any, data: Any) -> _Problem:
    node = data
    loc: list[str | int] = []
    unions: list[int] = []
    branch: str | None = None
    parts = list(item["loc"])
    for index, part in enumerate(parts):
        last = index == len(parts) - 1
        if _is_tag(node, part, last, item["type"]):
            if part != "[key]":
                unions.append(len(loc))
                branch = str(part) if last else None
            continue
        loc.append(part)
        node = _child(node, part)
    message = item["msg"]
    if item["type"] == "value_error":
        message = message.removeprefix("Value error, ")  # our validators' own words
    elif item["type"] == "missing":
        message = "required field is missing"
    return _Problem(tuple(loc), message, item["type"], item.get("input"), branch, tuple(unions))


# What each kind of "wrong type" error of a union branch says the place accepts.
_ACCEPTS = {
    "string_type": "a string",
    "list_type": "a list",
    "int_type": "a whole number",
    "int_parsing": "a whole number",
    "float_type": "a number",
    "float_parsing": "a number",
    "bool_type": "",
    "bool_parsing": "",
    "literal_error": "",
    "dict_type": "a mapping",
    "model_type": "a mapping",
    "model_attributes_type": "a mapping",
    "none_required": "",
}


def _alternatives(problem: _Problem) -> list[str]:
    """What a union branch accepts, in words or as its values: ``false``, ``true``, ``error``, …"""
    if problem.kind.startswith("bool"):
        return ["false", "true"]
    branch = problem.branch or ""
    if problem.kind == "literal_error" and branch.startswith("literal["):
        try:
            values = ast.literal_eval(f"[{branch[len('literal[') : -1]}]")
        except (ValueError, SyntaxError):
            values = []
        return [value if isinstance(value, str) else json.dumps(value) for value in values]
    return [_ACCEPTS[problem.kind]] if _ACCEPTS.get(problem.kind) else []


def _merge_branches(problems: list[_Problem]) -> list[_Problem]:
    """One problem per union instead of one per branch tried.

    A branch that got past the value's type (a mapping for a model, whose keys or validator then
    refused it) explains the problem: the other branches' "should be a valid string" are dropped.
    Otherwise the branches become one message that lists what the place accepts:
    ``must be false, true, error, warning or info (not 'warn')``.
    """
    went_in = {
        problem.loc[:depth] for problem in problems for depth in problem.unions if len(problem.loc) > depth
    }
    merged: list[_Problem] = []
    groups: dict[Location, list[_Problem]] = {}
    for problem in problems:
        if problem.branch is None:
            merged.append(problem)
        elif problem.kind not in _ACCEPTS:  # the branch's own validator refused the value
            merged.append(problem)
            went_in.add(problem.loc)
        elif problem.loc in groups:
            groups[problem.loc].append(problem)
        else:
            groups[problem.loc] = [problem]
            merged.append(problem)
    for branches in groups.values():
        choices = list(dict.fromkeys(choice for branch in branches for choice in _alternatives(branch)))
        if len(branches) > 1 and choices:
            listed = choices[0] if len(choices) == 1 else f"{', '.join(choices[:-1])} or {choices[-1]}"
            branches[0].message = f"must be {listed} (not {_shown_value(branches[0].value)})"
    return [
        problem
        for problem in merged
        if problem.branch is None or problem.kind not in _ACCEPTS or problem.loc not in went_in
    ]


def _shown_value(value: Any) -> str:
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return shorten(repr(value), 60)


def describe_validation_error(
    error: Any,
    document: Document,
    base: Location = (),
    *,
    limit: int = 10,
    schema: str | None = None,
    model: type[BaseModel] | None = None,
) -> str:
    """Turn a pydantic ValidationError into ``file:line (field): message`` lines.

    ``schema`` names the `mcp-evals schema` argument (config, fixtures) that lists the allowed keys;
    ``model`` (the validated class) lets an unknown key get a did-you-mean, or be placed where it goes.
    """
    data: Any = document.data
    for part in base:
        data = _child(data, part)
    problems = _merge_branches([_problem(item, data) for item in error.errors()])
    rows = []
    for problem in problems[:limit]:
        loc = problem.loc
        full = (*base, *loc)
        message = problem.message
        if problem.kind == "extra_forbidden":
            message = unknown_key_message(model, loc[:-1], str(loc[-1]) if loc else "", schema)
        message += yaml11.note(document.sources.get(full), problem.value)
        rows.append(f"{where(document.path, document.line_of(full), dotted(full) or None)}: {message}")
    more = len(problems) - limit
    if more > 0:
        rows.append(f"… and {more} more problems")
    return "\n".join(rows)

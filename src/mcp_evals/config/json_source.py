"""The JSON reader behind every user file: the standard library's values, plus the line of every key.

``json.loads`` forgets where values were and keeps the last of two duplicate keys. This reader walks
the structure itself (braces, brackets, commas, colons) and hands every scalar — a string, a key, a
number, ``true``, ``NaN`` — to the public ``JSONDecoder.raw_decode``, so values are exactly what the
standard library reads, while each key and item keeps its line and a duplicate key is an error.
"""

from __future__ import annotations

import bisect
import json
import re
from pathlib import Path
from typing import Any

from mcp_evals.config.source import MAX_DEPTH, Document, Location
from mcp_evals.errors import InputFileError, where

_SPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


def parse_json(text: str, path: Path) -> Document:
    """Parse JSON into a Document with the line of every key and item; duplicate keys are errors."""
    try:
        json.loads(text)  # the standard library's syntax errors; the walk below can then trust the text
    except json.JSONDecodeError as error:
        raise InputFileError(
            f"{where(path, error.lineno)}: JSON syntax error: {error.msg} (column {error.colno})"
        ) from None
    except RecursionError:
        raise InputFileError(f"{path}: nested too deeply") from None
    reader = _Reader(text, path)
    data = reader.value(reader.skip(0), ())[0]
    return Document(path=path, data=data, lines=reader.lines)


class _Reader:
    """Walks text ``json.loads`` accepted, recording the line of every key and item."""

    def __init__(self, text: str, path: Path) -> None:
        self.text = text
        self.path = path
        self.newlines = [index for index, char in enumerate(text) if char == "\n"]
        self.lines: dict[Location, int] = {}

    def line(self, index: int) -> int:
        return bisect.bisect_right(self.newlines, index) + 1

    def skip(self, index: int) -> int:
        match = _SPACE.match(self.text, index)
        return match.end() if match else index

    def value(self, index: int, location: Location) -> tuple[Any, int]:
        """The value starting at ``index`` and the index just after it."""
        if len(location) > MAX_DEPTH:
            raise InputFileError(
                f"{where(self.path, self.line(index))}: nested more than {MAX_DEPTH} levels deep"
            )
        self.lines.setdefault(location, self.line(index))
        char = self.text[index]
        if char == "{":
            return self.mapping(index, location)
        if char == "[":
            return self.items(index, location)
        scalar: tuple[Any, int] = _DECODER.raw_decode(self.text, index)
        return scalar

    def mapping(self, index: int, location: Location) -> tuple[dict[str, Any], int]:
        result: dict[str, Any] = {}
        index = self.skip(index + 1)
        if self.text[index] == "}":
            return result, index + 1
        while True:
            key_line = self.line(index)
            key, index = _DECODER.raw_decode(self.text, index)
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

    def items(self, index: int, location: Location) -> tuple[list[Any], int]:
        result: list[Any] = []
        index = self.skip(index + 1)
        if self.text[index] == "]":
            return result, index + 1
        while True:
            item, index = self.value(index, (*location, len(result)))
            result.append(item)
            index = self.skip(index)
            if self.text[index] == "]":
                return result, index + 1
            index = self.skip(index + 1)  # the comma

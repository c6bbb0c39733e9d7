"""``{{steps.<id>.output}}`` and ``{{steps.<id>.json.items[0].id}}``: a step's result in a later input.

References may sit in any string of a step's ``input``, however deeply nested. ``output`` is the
earlier step's output text; ``json`` is its ``structuredContent`` (or, when it has none, its output
parsed as JSON), followed by a path of ``.key``, ``[index]`` or ``["key"]`` parts. A string that is
exactly one ``json`` reference takes the referenced value with its type (a number stays a number);
inside a longer string the value is written as text (JSON for objects and lists).

Every reference is checked before anything runs: it must parse and name an earlier step. Other
``{{…}}`` text (a template the tool itself reads) is left as it is.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

Path = tuple[str | int, ...]
_OPEN = re.compile(r"\{\{\s*steps\.")
_REFERENCE = re.compile(r"\{\{\s*(?P<body>steps\.[^{}]*?)\s*\}\}")
_HEAD = re.compile(r"steps\.(?P<step>[A-Za-z_][A-Za-z0-9_-]*)\.(?P<part>output|json)")
_SEGMENT = re.compile(
    r"""\.(?P<key>[A-Za-z0-9_-]+)|\[(?P<index>\d+)\]|\[(?P<quote>["'])(?P<quoted>.*?)(?P=quote)\]"""
)


class ChainingError(ValueError):
    """A reference that cannot be read (bad syntax) or cannot be resolved (missing value)."""


@dataclass(frozen=True)
class Reference:
    text: str
    step: str
    part: Literal["output", "json"]
    path: Path

    def describe(self) -> str:
        return "{{" + self.text.strip("{} ") + "}}"


def parse_reference(body: str, text: str) -> Reference:
    """One ``steps.<id>.output`` / ``steps.<id>.json<path>`` body; anything else is a ChainingError."""
    head = _HEAD.match(body)
    if head is None:
        raise ChainingError(f"{text}: write {{{{steps.<id>.output}}}} or {{{{steps.<id>.json.<path>}}}}")
    path: list[str | int] = []
    position = head.end()
    while position < len(body):
        segment = _SEGMENT.match(body, position)
        if segment is None:
            raise ChainingError(f"{text}: cannot read the path from {body[position:]!r}")
        if segment.group("key") is not None:
            path.append(segment.group("key"))
        elif segment.group("index") is not None:
            path.append(int(segment.group("index")))
        else:
            path.append(segment.group("quoted"))
        position = segment.end()
    part: Literal["output", "json"] = "output" if head.group("part") == "output" else "json"
    if part == "output" and path:
        raise ChainingError(f"{text}: `output` is text; use `json` to reach into it")
    return Reference(text=text, step=head.group("step"), part=part, path=tuple(path))


def references_in(text: str) -> list[Reference]:
    """The references in one string; a ``{{steps.`` that does not make a readable reference is an error."""
    found = []
    for match in _REFERENCE.finditer(text):
        found.append(parse_reference(match.group("body"), match.group(0)))
    covered = sum(1 for _ in _REFERENCE.finditer(text))
    if len(_OPEN.findall(text)) > covered:
        raise ChainingError(f"{text!r}: a {{{{steps.… without its closing }}}}")
    return found


def walk(value: Any, location: Path = ()) -> Iterator[tuple[Path, str]]:
    """Every string in a JSON-like value, with where it sits."""
    if isinstance(value, str):
        yield location, value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from walk(item, (*location, str(key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from walk(item, (*location, index))


def find_references(value: Any) -> Iterator[tuple[Path, Reference]]:
    for location, text in walk(value):
        if "{{" in text:
            for reference in references_in(text):
                yield location, reference


@dataclass
class Output:
    """What a later step may reference of an earlier one."""

    text: str
    structured: Any = None

    def json(self) -> Any:
        if self.structured is not None:
            return self.structured
        try:
            return json.loads(self.text)
        except ValueError:
            raise ChainingError("its output is not JSON") from None


def step_into(value: Any, part: str | int) -> tuple[bool, Any]:
    """(True, the item) one path part down, or (False, None) when it is not there."""
    if isinstance(part, int) and isinstance(value, list) and part < len(value):
        return True, value[part]
    if isinstance(part, str) and isinstance(value, dict) and part in value:
        return True, value[part]
    return False, None


def lookup(reference: Reference, outputs: Mapping[str, Output]) -> Any:
    output = outputs.get(reference.step)
    if output is None:
        raise ChainingError(f"{reference.describe()}: step {reference.step!r} has no output")
    if reference.part == "output":
        return output.text
    try:
        value = output.json()
    except ChainingError as error:
        raise ChainingError(f"{reference.describe()}: step {reference.step!r}: {error}") from None
    walked = ""
    for part in reference.path:
        walked += f"[{part}]" if isinstance(part, int) else f".{part}"
        found, value = step_into(value, part)
        if not found:
            raise ChainingError(
                f"{reference.describe()}: the JSON of step {reference.step!r} has no {walked.lstrip('.')}"
            )
    return value


def resolve(value: Any, outputs: Mapping[str, Output]) -> Any:
    """``value`` with every reference replaced by what the earlier steps gave."""
    if isinstance(value, str):
        if "{{" not in value:
            return value
        whole = _REFERENCE.fullmatch(value)
        if whole is not None:
            found = lookup(parse_reference(whole.group("body"), value), outputs)
            return found
        return _REFERENCE.sub(
            lambda match: _as_text(lookup(parse_reference(match.group("body"), match.group(0)), outputs)),
            value,
        )
    if isinstance(value, Mapping):
        return {key: resolve(item, outputs) for key, item in value.items()}
    if isinstance(value, list):
        return [resolve(item, outputs) for item in value]
    return value


def _as_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)

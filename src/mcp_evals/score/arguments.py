"""Arguments of a chosen call: valid against the tool's input schema, and as the fixture expects.

Strings compare normalised as BFCL does (case, surrounding spaces and quotes); the fixture's matchers
(``contains``, ``regex``, ``one_of``, ``any``, at any depth; a mapping names only the keys it checks)
are parsed once by ``fixtures.model.parse_expected``, the tree validation walks too.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

import jsonschema
from pydantic import Field

from mcp_evals import patterns, schema_refs
from mcp_evals.answers import ToolCall
from mcp_evals.catalog.model import Tool
from mcp_evals.fixtures.model import (
    AnyValue,
    Contains,
    Expected,
    Fixture,
    ItemList,
    OneOf,
    PartialMapping,
    Regex,
    parse_expected,
)
from mcp_evals.strict import StrictModel
from mcp_evals.wording import shorten

_QUOTES = {'"': '"', "'": "'", "`": "`", "“": "”", "‘": "’", "«": "»"}
_WHITESPACE = re.compile(r"\s+")


def normalize_string(text: str) -> str:
    """Normalise a string for comparison as BFCL does: case, surrounding spaces and quotes, inner spaces."""
    value = text.strip()
    while len(value) >= 2 and value[0] in _QUOTES and value[-1] == _QUOTES[value[0]]:
        value = value[1:-1].strip()
    return _WHITESPACE.sub(" ", value).casefold()


def _as_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)


def _short(value: Any, limit: int = 80) -> str:
    return shorten(_as_text(value), limit)


def match_value(expected: Any, actual: Any, path: str) -> list[str]:
    """Problems (empty when it matches) of one argument value against its expectation."""
    return match_expected(parse_expected(expected), actual, path)


def match_expected(expectation: Expected, actual: Any, path: str) -> list[str]:
    """Problems of ``actual`` against a parsed expectation (the tree validation walks too)."""
    if isinstance(expectation, AnyValue):
        return [] if actual is not None else [f"{path}: expected a value, got null"]
    if isinstance(expectation, Contains):
        if normalize_string(expectation.contains) in normalize_string(_as_text(actual)):
            return []
        return [f"{path}: expected it to contain {_short(expectation.contains)!r}, got {_short(actual)!r}"]
    if isinstance(expectation, Regex):
        try:
            found = patterns.search(expectation.regex, _as_text(actual))
        except re.error as error:
            return [f"{path}: the fixture's regex {expectation.regex!r} is invalid ({error})"]
        except patterns.PatternTimeout as error:
            return [f"{path}: the fixture's {error}"]
        return (
            []
            if found
            else [f"{path}: expected to match /{_short(expectation.regex)}/, got {_short(actual)!r}"]
        )
    if isinstance(expectation, OneOf):
        if any(not match_value(option, actual, path) for option in expectation.one_of):
            return []
        options = ", ".join(_short(option, 30) for option in expectation.one_of[:5])
        return [f"{path}: expected one of [{options}], got {_short(actual)!r}"]
    if isinstance(expectation, PartialMapping):
        if not isinstance(actual, dict):
            return [f"{path}: expected a mapping, got {_short(actual)!r}"]
        problems: list[str] = []
        for key, value in expectation.entries.items():
            if key not in actual:
                problems.append(f"{path}.{key}: missing")
            else:
                problems.extend(match_expected(value, actual[key], f"{path}.{key}"))
        return problems
    if isinstance(expectation, ItemList):
        if not isinstance(actual, list):
            return [f"{path}: expected a list, got {_short(actual)!r}"]
        if len(expectation.items) != len(actual):
            return [f"{path}: expected {len(expectation.items)} items, got {len(actual)}"]
        problems = []
        for index, (item_expected, item_actual) in enumerate(zip(expectation.items, actual, strict=True)):
            problems.extend(match_expected(item_expected, item_actual, f"{path}[{index}]"))
        return problems
    return _match_scalar(expectation.value, actual, path)


def _match_scalar(expected: Any, actual: Any, path: str) -> list[str]:
    mismatch = [f"{path}: expected {_short(expected)!r}, got {_short(actual)!r}"]
    if expected is None:
        return [] if actual is None else mismatch
    if isinstance(expected, bool) or isinstance(actual, bool):
        return (
            [] if isinstance(expected, bool) and isinstance(actual, bool) and expected == actual else mismatch
        )
    if isinstance(expected, int | float) and isinstance(actual, int | float):
        return (
            []
            if math.isclose(expected, actual, rel_tol=1e-9, abs_tol=0.0) or expected == actual
            else mismatch
        )
    if isinstance(expected, str) and isinstance(actual, str):
        return [] if normalize_string(expected) == normalize_string(actual) else mismatch
    return mismatch


class ArgumentCheck(StrictModel):
    ok: bool
    problems: list[str] = Field(default_factory=list)


class SchemaValidators:
    """One compiled validator per tool, so a 1,000-fixture run compiles each schema once."""

    def __init__(self) -> None:
        self._validators: dict[str, Any] = {}

    def validator(self, tool: Tool) -> tuple[Any, str | None]:
        if tool.name not in self._validators:
            try:
                self._validators[tool.name] = schema_refs.validator(tool.input_schema, check=True)
            except jsonschema.SchemaError as error:
                self._validators[tool.name] = (
                    f"the tool's input schema is not valid JSON Schema ({error.message})"
                )
        entry = self._validators[tool.name]
        return (None, entry) if isinstance(entry, str) else (entry, None)


def check_arguments(
    call: ToolCall, tool: Tool | None, fixture: Fixture, validators: SchemaValidators | None = None
) -> ArgumentCheck:
    """Arguments of the chosen call: valid JSON, valid against the input schema, meeting expected_args."""
    if call.arguments is None and call.raw_arguments is not None:
        return ArgumentCheck(
            ok=False, problems=[f"arguments are not valid JSON: {_short(call.raw_arguments, 120)}"]
        )
    arguments: dict[str, Any] = call.arguments or {}
    problems: list[str] = []
    if tool is not None:
        validator, schema_problem = (validators or SchemaValidators()).validator(tool)
        if validator is not None:
            errors: list[jsonschema.ValidationError] = []
            try:
                errors = sorted(
                    schema_refs.iter_errors(validator, arguments), key=jsonschema.exceptions.relevance
                )
            except (
                Exception
            ) as failure:  # e.g. a $ref leaving the schema: the schema's fault, not the model's
                problems.append(f"schema not checked: {_short(str(failure), 120)}")
            for error in errors[:3]:
                where = "/".join(str(part) for part in error.absolute_path) or "(arguments)"
                problems.append(f"schema: {where}: {_short(error.message, 160)}")
            if len(errors) > 3:
                problems.append(f"schema: … and {len(errors) - 3} more")
        elif schema_problem:
            problems.append(f"schema not checked: {_short(schema_problem, 160)}")
    for name, expected in fixture.expected_args.items():
        if name not in arguments:
            if expected is None:
                continue
            problems.append(f"{name}: missing")
            continue
        problems.extend(match_value(expected, arguments[name], name))
    blocking = [problem for problem in problems if not problem.startswith("schema not checked")]
    return ArgumentCheck(ok=not blocking, problems=problems)

"""Eval fixtures: a realistic user query and the tool (or tools) that should answer it.

Loading keeps each fixture's file and line, so every later problem — a validation error, a wrong
answer in a report — points back to the line a maintainer has to edit.
"""

from __future__ import annotations

import glob
import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    RootModel,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic.json_schema import SkipJsonSchema

from .catalog import canonical_json
from .config import Config
from .errors import ConfigError, InputFileError, where
from .files import Document, describe_validation_error, dotted, load_document

FixtureKind = Literal["select", "refuse", "clarify"]


class Contains(BaseModel):
    model_config = ConfigDict(extra="forbid")
    contains: str


class Regex(BaseModel):
    model_config = ConfigDict(extra="forbid")
    regex: str


class OneOf(BaseModel):
    model_config = ConfigDict(extra="forbid")
    one_of: list[Any] = Field(min_length=1)


class AnyValue(BaseModel):
    model_config = ConfigDict(extra="forbid")
    any: Literal[True]


Matcher = Contains | Regex | OneOf | AnyValue
MATCHERS: dict[str, type[Contains] | type[Regex] | type[OneOf] | type[AnyValue]] = {
    "contains": Contains,
    "regex": Regex,
    "one_of": OneOf,
    "any": AnyValue,
}


def parse_expectation(value: Any) -> Matcher | Any:
    """A mapping with exactly one matcher key is a matcher; anything else is a literal."""
    if isinstance(value, dict) and len(value) == 1:
        model = MATCHERS.get(next(iter(value)))
        if model is not None:
            return model.model_validate(value)
    return value


def _fixture_schema_extra(schema: dict[str, Any]) -> None:
    """Editor schema: document the `expected_tool` shorthand and the argument matchers."""
    properties = schema.setdefault("properties", {})
    properties["expected_tool"] = {
        "type": "string",
        "description": "Shorthand for `expected_tools: [name]`.",
    }
    matcher = {
        "anyOf": [
            {
                "type": "object",
                "properties": {"contains": {"type": "string"}},
                "required": ["contains"],
                "additionalProperties": False,
                "description": "The argument contains this text.",
            },
            {
                "type": "object",
                "properties": {"regex": {"type": "string"}},
                "required": ["regex"],
                "additionalProperties": False,
                "description": "The argument matches this regular expression.",
            },
            {
                "type": "object",
                "properties": {"one_of": {"type": "array", "minItems": 1}},
                "required": ["one_of"],
                "additionalProperties": False,
                "description": "The argument equals one of these values.",
            },
            {
                "type": "object",
                "properties": {"any": {"const": True}},
                "required": ["any"],
                "additionalProperties": False,
                "description": "The argument is given, with any value.",
            },
            {
                "description": "A literal: the argument equals this value.",
                "not": {
                    "type": "object",
                    "minProperties": 1,
                    "maxProperties": 1,
                    "anyOf": [{"required": [name]} for name in MATCHERS],
                },
            },
        ]
    }
    properties["expected_args"]["additionalProperties"] = matcher
    schema["not"] = {"required": ["expected_tool", "expected_tools"]}


class SourceLocation(BaseModel):
    model_config = ConfigDict(frozen=True)
    file: str
    line: int | None = None

    def __str__(self) -> str:
        return where(self.file, self.line)


class Fixture(BaseModel):
    """One eval case: a user's request and the tool(s) that should answer it."""

    model_config = ConfigDict(extra="forbid", json_schema_extra=_fixture_schema_extra)

    id: str = Field(min_length=1, description="Unique id, used in reports and to resume runs.")
    query: str = Field(min_length=1, description="What the user says, in their words (not tool vocabulary).")
    expected_tools: list[str] = Field(
        default_factory=list,
        description="The tool(s) that answer the query; calling any one of them is right. "
        "Leave empty for `refuse` and `clarify`.",
    )
    kind: FixtureKind = Field(
        "select",
        description="`select`: a tool fits · `refuse`: no tool fits · "
        "`clarify`: required details are missing.",
    )
    area: str | None = Field(
        None, description="The area this fixture counts in (default: the expected tool's)."
    )
    pattern: str | None = Field(None, description="A free label such as specific, category or boundary.")
    expected_args: dict[str, Any] = Field(
        default_factory=dict,
        description="Argument → a literal, or {contains: …}, {regex: …}, {one_of: [...]}, {any: true}.",
    )
    notes: str | None = Field(None, description="Why this fixture exists; not sent to the model.")
    source: SkipJsonSchema[SourceLocation | None] = Field(None, exclude=True)

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        data = dict(data)
        if "expected_tool" in data:
            if "expected_tools" in data:
                raise ValueError("give `expected_tool` or `expected_tools`, not both")
            single = data.pop("expected_tool")
            data["expected_tools"] = [single] if single is not None else []
        elif isinstance(data.get("expected_tools"), str):
            data["expected_tools"] = [data["expected_tools"]]
        if isinstance(data.get("id"), int) and not isinstance(data.get("id"), bool):
            data["id"] = str(data["id"])
        return data

    @field_validator("query")
    @classmethod
    def _not_blank(cls, query: str) -> str:
        if not query.strip():
            raise ValueError("the query is blank")
        return query

    @model_validator(mode="after")
    def _parse_matchers(self) -> Fixture:
        for name, value in self.expected_args.items():
            try:
                parse_expectation(value)
            except ValidationError as error:
                raise ValueError(f"expected_args.{name}: {error.errors()[0]['msg']}") from None
        return self

    def matchers(self) -> dict[str, Any]:
        return {name: parse_expectation(value) for name, value in self.expected_args.items()}

    @property
    def hash(self) -> str:
        """Content hash (source location excluded): a changed query or expectation is a new fixture."""
        content = self.model_dump(mode="json", exclude={"source", "notes"})
        return hashlib.sha256(canonical_json(content).encode("utf-8")).hexdigest()[:16]


class FixtureList(BaseModel):
    """A fixture file written as a mapping: ``fixtures: [...]``."""

    model_config = ConfigDict(extra="forbid")
    fixtures: list[Fixture]


class FixtureFile(RootModel[list[Fixture] | FixtureList]):
    """A fixture file: a list of fixtures, or a mapping with a `fixtures:` list (YAML or JSON)."""


def fixture_set_hash(fixtures: Sequence[Fixture]) -> str:
    joined = "\n".join(sorted(f"{fixture.id}:{fixture.hash}" for fixture in fixtures))
    return hashlib.sha256(joined.encode("utf-8")).hexdigest()


def _fixtures_in(document: Document) -> tuple[list[Any], tuple[str | int, ...]]:
    data = document.data
    if isinstance(data, list):
        return data, ()
    if isinstance(data, dict):
        if "fixtures" not in data:
            raise InputFileError(
                f"{where(document.path, document.line_of(()))}: a mapping without a `fixtures:` key",
                hint="write `fixtures:` followed by a list of fixtures, or make the file a list",
            )
        extra = sorted(str(key) for key in data if key != "fixtures")
        if extra:
            raise InputFileError(
                f"{where(document.path, document.line_of((extra[0],)))}: unknown key {extra[0]!r}; "
                "a fixture file holds only `fixtures:`"
            )
        items = data["fixtures"]
        if not isinstance(items, list):
            raise InputFileError(
                f"{where(document.path, document.line_of(('fixtures',)))}: `fixtures` must be a list"
            )
        return items, ("fixtures",)
    if data is None:
        return [], ()
    raise InputFileError(
        f"{document.path}: holds a single {type(data).__name__} value, not fixtures",
        hint="a fixture file is a list of fixtures or a mapping with a `fixtures:` list",
    )


def load_fixture_file(path: Path, *, display_base: Path | None = None) -> list[Fixture]:
    """Load one fixture file; each fixture remembers its file (relative to ``display_base``) and line."""
    shown_path = Path(_display(path, display_base))
    try:
        document = load_document(path)
    except InputFileError as error:  # name the file as every other fixture message does
        message = error.message
        if message.startswith(str(path)):
            message = str(shown_path) + message[len(str(path)) :]
        raise InputFileError(message, hint=error.hint) from None
    document.path = shown_path
    items, base = _fixtures_in(document)
    shown = str(document.path)
    fixtures = []
    for index, item in enumerate(items):
        location = (*base, index)
        line = document.line_of(location)
        if not isinstance(item, dict):
            raise InputFileError(
                f"{where(shown, line)}: a fixture must be a mapping with at least `id` and `query`, "
                f"not a {type(item).__name__}"
            )
        if "source" in item:
            raise InputFileError(
                f"{where(shown, document.line_of((*location, 'source')), dotted((*location, 'source')))}: "
                "unknown key "
                "(check the spelling; `mcp-evals schema fixtures` lists the allowed keys)"
            )
        try:
            fixture = Fixture.model_validate(item)
        except ValidationError as error:
            raise InputFileError(
                describe_validation_error(error, document, location, schema="fixtures")
            ) from None
        fixture.source = SourceLocation(file=shown, line=line)
        fixtures.append(fixture)
    return fixtures


def _display(path: Path, base: Path | None) -> str:
    if base is not None:
        try:
            return str(path.resolve().relative_to(base.resolve()))
        except ValueError:
            pass
    return str(path)


def fixture_files(config: Config) -> list[Path]:
    """The files the config's `fixtures:` globs match, in glob order, each once."""
    files: list[Path] = []
    seen: set[Path] = set()
    for pattern in config.fixture_globs:
        matched = sorted(glob.glob(str(config.resolve(pattern)), recursive=True))
        if not matched:
            raise InputFileError(
                f"{where(config.shown_path, config.line_of(('fixtures',)), 'fixtures')}: "
                f"{pattern!r} matches no file",
                hint=f"paths are relative to the config file's folder, {config.base_dir}",
            )
        for item in matched:
            path = Path(item)
            if path.is_file() and path.resolve() not in seen:
                seen.add(path.resolve())
                files.append(path)
    return files


def load_fixtures(source: Config | str | Path | Sequence[str | Path]) -> list[Fixture]:
    """Load fixtures from a config's globs, a file, or a list of files (in order).

    Files found through a config are shown relative to the current folder (what editors and GitHub
    annotations expect); files named directly are shown as given.
    """
    if isinstance(source, Config):
        if not source.fixture_globs:
            raise ConfigError(
                f"{source.shown_path}: no `fixtures:` in the config",
                hint="add `fixtures: fixtures/*.yaml` (globs relative to the config file's folder)",
            )
        files = fixture_files(source)
        base: Path | None = Path.cwd()
    elif isinstance(source, str | Path):
        files, base = [Path(source)], None
    else:
        files, base = [Path(item) for item in source], None
    fixtures: list[Fixture] = []
    for path in files:
        fixtures.extend(load_fixture_file(path, display_base=base))
    return fixtures

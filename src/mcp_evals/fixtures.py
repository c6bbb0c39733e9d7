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

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from .catalog import canonical_json
from .config import Config
from .errors import InputFileError, where
from .files import Document, describe_validation_error, load_document

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


def parse_expectation(value: Any) -> Matcher | Any:
    """A mapping with exactly one matcher key is a matcher; anything else is a literal."""
    if isinstance(value, dict) and len(value) == 1:
        key = next(iter(value))
        model = {"contains": Contains, "regex": Regex, "one_of": OneOf, "any": AnyValue}.get(key)
        if model is not None:
            return model.model_validate(value)
    return value


class SourceLocation(BaseModel):
    model_config = ConfigDict(frozen=True)
    file: str
    line: int | None = None

    def __str__(self) -> str:
        return where(self.file, self.line)


class Fixture(BaseModel):
    """One eval case."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    query: str = Field(min_length=1)
    expected_tools: list[str] = Field(default_factory=list)
    kind: FixtureKind = "select"
    area: str | None = None
    pattern: str | None = None
    expected_args: dict[str, Any] = Field(default_factory=dict)
    notes: str | None = None
    source: SourceLocation | None = Field(None, exclude=True)

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, data: Any) -> Any:
        if isinstance(data, dict) and "expected_tool" in data:
            data = dict(data)
            if "expected_tools" in data:
                raise ValueError("give `expected_tool` or `expected_tools`, not both")
            single = data.pop("expected_tool")
            data["expected_tools"] = [single] if single is not None else []
        return data

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
            raise InputFileError(f"{where(document.path, document.line_of(('fixtures',)))}: `fixtures` must be a list")
        return items, ("fixtures",)
    if data is None:
        return [], ()
    raise InputFileError(
        f"{document.path}: holds a single {type(data).__name__} value, not fixtures",
        hint="a fixture file is a list of fixtures or a mapping with a `fixtures:` list",
    )


def load_fixture_file(path: Path, *, display_base: Path | None = None) -> list[Fixture]:
    document = load_document(path)
    items, base = _fixtures_in(document)
    shown = _display(path, display_base)
    fixtures = []
    for index, item in enumerate(items):
        location = (*base, index)
        line = document.line_of(location)
        if not isinstance(item, dict):
            raise InputFileError(f"{where(shown, line)}: a fixture must be a mapping with `id` and `query`")
        try:
            fixture = Fixture.model_validate(item)
        except ValidationError as error:
            document.path = Path(shown)
            raise InputFileError(describe_validation_error(error, document, location)) from None
        fixtures.append(fixture.model_copy(update={"source": SourceLocation(file=shown, line=line)}))
    return fixtures


def _display(path: Path, base: Path | None) -> str:
    if base is not None:
        try:
            return str(path.resolve().relative_to(base.resolve()))
        except ValueError:
            pass
    return str(path)


def fixture_files(config: Config) -> list[Path]:
    files: list[Path] = []
    for pattern in config.fixture_globs:
        matched = sorted(glob.glob(str(config.resolve(pattern)), recursive=True))
        if not matched:
            raise InputFileError(
                f"{config.path}: `fixtures: {pattern}` matches no file",
                hint=f"paths are relative to {config.base_dir}",
            )
        files.extend(Path(item) for item in matched if Path(item).is_file())
    seen: set[Path] = set()
    return [path for path in files if not (path.resolve() in seen or seen.add(path.resolve()))]  # type: ignore[func-returns-value]


def load_fixtures(source: Config | str | Path | Sequence[str | Path]) -> list[Fixture]:
    """Load fixtures from a config's globs, a file, or a list of files (in order)."""
    if isinstance(source, Config):
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

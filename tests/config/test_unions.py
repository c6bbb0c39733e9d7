"""ByShape: a union's branch picked by the value's shape, so pydantic reports one branch or one message."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, ConfigDict, ValidationError

from mcp_evals.baseline.file import Baseline
from mcp_evals.catalog.snapshot import Snapshot
from mcp_evals.config.model import Config
from mcp_evals.config.unions import LIST, MAPPING, WRONG_SHAPE, ByShape
from mcp_evals.contract.model import Case
from mcp_evals.fixtures.model import Fixture
from mcp_evals.session.model import TaskSet


class _Part(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str


class _Shaped(BaseModel):
    model_config = ConfigDict(extra="forbid")
    level: Annotated[bool | Literal["low", "high"], ByShape()] = False
    paths: Annotated[str | list[str] | None, ByShape()] = None
    part: Annotated[_Part | str, ByShape()] = ""
    count: Annotated[int | list[int], ByShape()] = 0


class _Plain(BaseModel):
    model_config = ConfigDict(extra="forbid")
    level: bool | Literal["low", "high"] = False
    paths: str | list[str] | None = None
    part: _Part | str = ""
    count: int | list[int] = 0


def errors(data: dict[str, Any]) -> list[Any]:
    with pytest.raises(ValidationError) as error:
        _Shaped.model_validate(data)
    return error.value.errors(include_url=False)


def test_values_of_every_shape_validate_as_a_plain_union_would() -> None:
    for data in (
        {"level": True, "paths": "a", "part": {"name": "x"}, "count": 3},
        {"level": "high", "paths": ["a", "b"], "part": "x", "count": [1, 2]},
        {"level": False, "paths": None, "part": _Part(name="y")},
    ):
        assert _Shaped.model_validate(data).model_dump() == _Plain.model_validate(data).model_dump()


def test_a_value_no_branch_takes_is_one_error_listing_what_the_place_accepts() -> None:
    assert errors({"level": "loud", "paths": 5, "part": [1], "count": "x"}) == [
        {
            "type": WRONG_SHAPE,
            "loc": ("level",),
            "msg": "must be false, true, low or high",
            "input": "loud",
            "ctx": {"accepts": "false, true, low or high"},
        },
        {
            "type": WRONG_SHAPE,
            "loc": ("paths",),
            "msg": "must be a string or a list",
            "input": 5,
            "ctx": {"accepts": "a string or a list"},
        },
        {
            "type": WRONG_SHAPE,
            "loc": ("part",),
            "msg": "must be a mapping or a string",
            "input": [1],
            "ctx": {"accepts": "a mapping or a string"},
        },
        {
            "type": WRONG_SHAPE,
            "loc": ("count",),
            "msg": "must be a whole number or a list",
            "input": "x",
            "ctx": {"accepts": "a whole number or a list"},
        },
    ]


def test_a_value_of_a_branch_s_shape_gets_only_that_branch_s_errors_under_our_tag() -> None:
    found = errors({"paths": ["a", 5], "part": {"nmae": "x"}})
    assert [(item["type"], item["loc"]) for item in found] == [
        ("string_type", ("paths", LIST, 1)),
        ("missing", ("part", MAPPING, "name")),
        ("extra_forbidden", ("part", MAPPING, "nmae")),
    ]


def test_a_shape_is_strict_where_a_plain_union_would_coerce() -> None:
    # a plain union's bool branch reads 1 and 'off'; a place that says "false, true, …" takes booleans
    assert _Plain.model_validate({"level": 1}).level is True
    assert [item["type"] for item in errors({"level": 1})] == [WRONG_SHAPE]
    assert [item["type"] for item in errors({"level": "off"})] == [WRONG_SHAPE]


def test_it_serializes_and_writes_the_same_json_schema_as_a_plain_union() -> None:
    shaped = _Shaped(level="low", paths=["a"], part=_Part(name="x"), count=[1])
    assert shaped.model_dump_json() == _Plain.model_validate(shaped.model_dump()).model_dump_json()
    shaped_schema = _Shaped.model_json_schema()
    plain_schema = _Plain.model_json_schema()
    shaped_schema.pop("title")
    plain_schema.pop("title")
    assert shaped_schema == plain_schema


@pytest.mark.parametrize(
    ("annotation", "problem"),
    [
        (Annotated[int | float, ByShape()], "the same shape"),
        (Annotated[list[str] | tuple[str, ...], ByShape()], "the same shape"),
        (Annotated[str, ByShape()], "goes on a union"),
        (Annotated[set[str] | str, ByShape()], "cannot tell"),
    ],
)
def test_a_union_its_shapes_cannot_split_is_refused_when_the_model_is_built(
    annotation: Any, problem: str
) -> None:
    with pytest.raises(TypeError, match=problem):

        class _Bad(BaseModel):
            field: annotation  # type: ignore[valid-type]


FILE_MODELS: list[type[BaseModel]] = [Config, Fixture, Case, TaskSet, Baseline, Snapshot]


def _plain_unions(schema: Any, definitions: dict[str, Any], seen: set[str], path: str) -> list[str]:
    """Where a core schema holds a plain union (whose errors would carry pydantic's branch names)."""
    found: list[str] = []
    if isinstance(schema, dict):
        if schema.get("type") == "union":
            found.append(path)
        if schema.get("type") == "definition-ref" and schema["schema_ref"] not in seen:
            seen.add(schema["schema_ref"])
            found += _plain_unions(definitions[schema["schema_ref"]], definitions, seen, schema["schema_ref"])
        for key, value in schema.items():
            if key not in ("metadata", "serialization"):
                found += _plain_unions(value, definitions, seen, f"{path}.{key}")
    elif isinstance(schema, list):
        for index, value in enumerate(schema):
            found += _plain_unions(value, definitions, seen, f"{path}[{index}]")
    return found


@pytest.mark.parametrize("model", FILE_MODELS, ids=lambda model: model.__name__)
def test_no_model_read_from_a_user_file_has_a_plain_union(model: type[BaseModel]) -> None:
    """A plain union reports every branch under pydantic's internal name (`function-after[…]`,
    `literal[…]`): each union in a file's model is ``Annotated[…, ByShape()]``."""
    schema: Any = model.__pydantic_core_schema__
    definitions = {item["ref"]: item for item in schema.get("definitions", [])}
    assert _plain_unions(schema, definitions, set(), model.__name__) == []
    assert _plain_unions(_Plain.__pydantic_core_schema__, {}, set(), "_Plain")  # the walk does find one


def test_each_union_keeps_its_own_order_of_members() -> None:
    """typing caches `A | B` as equal to `B | A`: a second model must not get the first one's order."""

    class _First(BaseModel):
        part: Annotated[_Part | str | None, ByShape()] = None

    class _Second(BaseModel):
        part: Annotated[str | _Part | None, ByShape()] = None

    first = _First.model_json_schema()["properties"]["part"]["anyOf"]
    second = _Second.model_json_schema()["properties"]["part"]["anyOf"]
    assert [branch.get("type", "model") for branch in first] == ["model", "string", "null"]
    assert [branch.get("type", "model") for branch in second] == ["string", "model", "null"]
    with pytest.raises(ValidationError, match="must be a string or a mapping"):
        _Second.model_validate({"part": 5})

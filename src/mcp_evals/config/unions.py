"""A union in a user file whose branch is picked by the value's shape, so a wrong value gets one message.

pydantic tries every branch of a plain union and reports each branch's failure under the branch's
internal name (``function-after[…]``, ``literal['error','warning']``, ``list[str]``): one mistake,
three lines, and names a pydantic release may change. ``Annotated[A | B, ByShape()]`` makes it a
discriminated union instead (pydantic's ``Discriminator`` with a ``Tag`` per branch): the value's
shape (a mapping, a list, a string, true/false, a number, one of the literal values) picks the one
branch that is validated, so only its errors are reported, under a tag of ours; a value no branch
takes is one ``wrong_shape`` error whose context lists what the place accepts.
"""

from __future__ import annotations

import json
import types
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, Discriminator, GetCoreSchemaHandler, GetJsonSchemaHandler, Tag
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema

# The error type of a value whose shape no branch takes; its ``ctx["accepts"]`` says what would do.
WRONG_SHAPE = "wrong_shape"

# The tags of the branches, as a branch's errors carry them in their ``loc`` right after the union's
# own place. The angle brackets keep them apart from any key a person would write.
MAPPING = "<mapping>"
LIST = "<list>"
STRING = "<string>"
CHOICE = "<choice>"  # a Literal: one of its values
BOOLEAN = "<boolean>"
NUMBER = "<number>"
NULL = "<null>"
BRANCH_TAGS = frozenset({MAPPING, LIST, STRING, CHOICE, BOOLEAN, NUMBER, NULL})


def shape_of(value: Any) -> str | None:
    """The tag of the branch a value's shape calls for (a Literal's values are checked apart)."""
    if value is None:
        return NULL
    if isinstance(value, bool):
        return BOOLEAN
    if isinstance(value, int | float):
        return NUMBER
    if isinstance(value, str):
        return STRING
    if isinstance(value, dict | BaseModel):  # a model instance is what the mapping branch makes
        return MAPPING
    if isinstance(value, list | tuple):
        return LIST
    return None


@dataclass(frozen=True)
class _Branch:
    member: Any
    tag: str
    accepts: tuple[str, ...]  # in words, or the literal values
    values: tuple[Any, ...] = ()  # a Literal's values


def _branch(member: Any) -> _Branch:
    core = member
    while get_origin(core) is Annotated:
        core = get_args(core)[0]
    origin = get_origin(core) or core
    if origin is Literal:
        values = get_args(core)
        words = tuple(value if isinstance(value, str) else json.dumps(value) for value in values)
        return _Branch(member, CHOICE, words, values)
    if core is bool:
        return _Branch(member, BOOLEAN, ("false", "true"))
    if core is int:
        return _Branch(member, NUMBER, ("a whole number",))
    if core is float:
        return _Branch(member, NUMBER, ("a number",))
    if core is str:
        return _Branch(member, STRING, ("a string",))
    if core is type(None):
        return _Branch(member, NULL, ())  # "absent" is not worth listing
    if origin in (list, tuple):
        return _Branch(member, LIST, ("a list",))
    if origin is dict or (isinstance(core, type) and issubclass(core, BaseModel)):
        return _Branch(member, MAPPING, ("a mapping",))
    raise TypeError(f"ByShape cannot tell {member!r} apart by its shape")


def _listed(words: list[str]) -> str:
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"


def _is_choice(value: Any, values: tuple[Any, ...]) -> bool:
    return isinstance(value, Hashable) and any(
        type(value) is type(choice) and value == choice for choice in values
    )


class ByShape:
    """``Annotated[A | B | None, ByShape()]``: validate only the branch the value's shape calls for."""

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        if get_origin(source) not in (Union, types.UnionType):
            raise TypeError(f"ByShape goes on a union, not on {source!r}")
        branches = [_branch(member) for member in get_args(source)]
        tags = [branch.tag for branch in branches]
        if len(set(tags)) != len(tags):
            raise TypeError(f"two branches of {source!r} have the same shape")
        values = next((branch.values for branch in branches if branch.tag == CHOICE), ())
        present = frozenset(tags)

        def pick(value: Any) -> str | None:
            if values and _is_choice(value, values):
                return CHOICE
            shape = shape_of(value)
            return shape if shape in present and shape != CHOICE else None

        accepts = _listed(list(dict.fromkeys(word for branch in branches for word in branch.accepts)))
        tagged = tuple(Annotated[branch.member, Tag(branch.tag)] for branch in branches)
        discriminated: Any = Annotated[
            Union[tagged],  # noqa: UP007 -- `|` would be cached as equal to the same members in another order
            Discriminator(
                pick,
                custom_error_type=WRONG_SHAPE,
                custom_error_message="must be {accepts}",
                custom_error_context={"accepts": accepts},
            ),
        ]
        return handler(discriminated)

    def __get_pydantic_json_schema__(
        self, schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        """The same ``anyOf`` a plain union has: the branches are what an editor should offer."""
        generated = handler(schema)
        return {("anyOf" if key == "oneOf" else key): value for key, value in generated.items()}

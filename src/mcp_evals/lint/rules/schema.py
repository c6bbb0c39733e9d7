"""S — input schemas: what a model must send, and constructs some providers refuse."""

from __future__ import annotations

import re
from collections.abc import Iterator

from mcp_evals.lint.context import Hit, LintContext
from mcp_evals.lint.registry import rule
from mcp_evals.lint.schemas import (
    depth,
    description_of,
    has_enum,
    has_type,
    parameter_path,
    properties_of,
    resolve_pointer,
    types_of,
)

# Prose that lists the values a parameter allows: these belong in an `enum`.
_ENUM_WORDS = re.compile(
    r"(?i)\b(?:one of|allowed values?|possible values?|valid (?:values|options)|must be either|"
    r"choose from|supported values?|accepted values?)\b"
)
_QUOTED_LIST = re.compile(r"""(['"`])[\w./-]+\1\s*(?:,|\bor\b|\|)\s*(['"`])[\w./-]+\2""")
_EXAMPLE_WORDS = re.compile(r"(?i)\b(?:e\.g\.|eg\.|for example|for instance|such as|example)")


@rule(
    "S001",
    "Required parameter without a description",
    severity="error",
    why="A type says `string`; only a description says which string (an id? a name? in what format?). "
    "For a value the model must supply, that is the difference between a right call and a guess.",
    fix="Describe the parameter: what it is, its format, an example value.",
)
def required_undocumented(context: LintContext) -> Iterator[Hit]:
    for tool in context.tools:
        properties = tool.parameters
        for name in tool.required:
            schema = properties.get(name)
            if schema is not None and not description_of(schema) and not has_enum(schema):
                yield Hit(
                    f"required parameter {name!r} of {tool.name!r} has no description",
                    tools=(tool.name,),
                    parameter=name,
                )


@rule(
    "S002",
    "Optional parameter without a description",
    severity="warning",
    why="An undescribed optional parameter is either ignored or filled with a guess.",
    fix="Describe the parameter, or drop it if models should never set it.",
)
def optional_undocumented(context: LintContext) -> Iterator[Hit]:
    for tool in context.tools:
        required = set(tool.required)
        for name, schema in tool.parameters.items():
            if name not in required and not description_of(schema) and not has_enum(schema):
                yield Hit(
                    f"optional parameter {name!r} of {tool.name!r} has no description",
                    tools=(tool.name,),
                    parameter=name,
                )


@rule(
    "S003",
    "Untyped parameter",
    severity="error",
    why="Without a type a model sends strings, numbers or invented objects at random.",
    fix="Give the parameter a `type` (or an `enum`).",
)
def untyped(context: LintContext) -> Iterator[Hit]:
    for tool in context.tools:
        for path, node in context.nodes[tool.name]:
            for name, schema in properties_of(node).items():
                if not has_type(schema):
                    where = f"{path}.properties.{name}" if path else name
                    yield Hit(
                        f"parameter {where!r} of {tool.name!r} has no type",
                        tools=(tool.name,),
                        parameter=name,
                    )


@rule(
    "S004",
    "Allowed values in prose, not in an enum",
    severity="warning",
    why='"One of: open, closed" in a description is a constraint the model can break; '
    "`enum: [open, closed]` is one it cannot.",
    fix="Move the allowed values into `enum`.",
)
def enum_in_prose(context: LintContext) -> Iterator[Hit]:
    for tool in context.tools:
        for name, schema in tool.parameters.items():
            text = description_of(schema)
            if not text or has_enum(schema) or types_of(schema) - {"string", "null"}:
                continue
            listed = _ENUM_WORDS.search(text) or (
                _QUOTED_LIST.search(text) and not _EXAMPLE_WORDS.search(text)
            )
            if listed:
                yield Hit(
                    f"parameter {name!r} of {tool.name!r} lists its allowed values in prose but has no enum",
                    tools=(tool.name,),
                    parameter=name,
                )


@rule(
    "S005",
    "Pipeline parameters",
    severity="info",
    why="Ids, cursors, tokens and timestamps are values another tool produces; a single-step eval is fair "
    "only when each fixture's query carries a concrete value for them (see F002). Listed, not graded.",
    fix="Nothing to fix in the schema: give select fixtures for this tool a concrete value for each.",
    graded=False,
)
def pipeline(context: LintContext) -> Iterator[Hit]:
    for tool in context.tools:
        found = context.pipeline[tool.name]
        if found:
            listed = ", ".join(
                f"{name} ({'required' if required else 'optional'})" for name, required in found
            )
            yield Hit(f"{tool.name!r} takes values another tool produces: {listed}", tools=(tool.name,))


@rule(
    "S006",
    "Array without items",
    severity="error",
    why="An `array` with no `items` works with Claude but OpenAI models reject the whole request.",
    fix="Declare `items` (e.g. `items: {type: string}`).",
)
def array_without_items(context: LintContext) -> Iterator[Hit]:
    for tool in context.tools:
        for path, node in context.nodes[tool.name]:
            if (
                "array" in types_of({"type": node.get("type")})
                and "items" not in node
                and "prefixItems" not in node
            ):
                yield Hit(
                    f"{_where(path)} of {tool.name!r} is an array without `items`: OpenAI models reject it",
                    tools=(tool.name,),
                )


@rule(
    "S007",
    "Root schema providers reject",
    severity="error",
    why="Tool APIs require the input schema to be an object (`type: object`); a root-level anyOf, oneOf, "
    "allOf, enum or not is refused by OpenAI models and unsupported by Claude.",
    fix="Make the root `{type: object, properties: …}` and move alternatives into a property.",
)
def root_schema(context: LintContext) -> Iterator[Hit]:
    for tool in context.tools:
        schema = tool.input_schema
        root = [key for key in ("anyOf", "oneOf", "allOf", "enum", "not") if key in schema]
        problems = []
        if "type" not in schema:
            problems.append(
                f"it declares no type, only {' and '.join(root)} at the root"
                if root
                else "it declares no type (providers need 'object')"
            )
        else:
            if schema["type"] != "object":
                problems.append(f"its type is {schema['type']!r}, not 'object'")
            problems += [f"it has {key} at the root" for key in root]
        if problems:
            yield Hit(
                f"the input schema of {tool.name!r} is rejected by providers: {'; '.join(problems)}",
                tools=(tool.name,),
            )


@rule(
    "S008",
    "$ref that does not resolve",
    severity="error",
    why="A `$ref` to a definition that is not in the schema (or to another document) leaves the "
    "parameter undefined for the model, and strict validators refuse the schema.",
    fix="Inline the definition or add it under `$defs`.",
)
def unresolved_ref(context: LintContext) -> Iterator[Hit]:
    for tool in context.tools:
        for path, node in context.nodes[tool.name]:
            reference = node.get("$ref")
            if isinstance(reference, str) and not resolve_pointer(tool.input_schema, reference):
                yield Hit(
                    f"{_where(path)} of {tool.name!r} refers to {reference!r}, which does not resolve",
                    tools=(tool.name,),
                )


@rule(
    "S009",
    "No `required` list",
    severity="info",
    why="Without `required` a model must guess which parameters it may leave out.",
    fix="Declare `required` (an empty list when every parameter is optional).",
)
def no_required_list(context: LintContext) -> Iterator[Hit]:
    for tool in context.tools:
        if tool.parameters and "required" not in tool.input_schema:
            yield Hit(f"{tool.name!r} has parameters but no `required` list", tools=(tool.name,))


@rule(
    "S010",
    "Open-ended schema",
    severity="warning",
    why="`additionalProperties: true`, or an object that declares no `properties` at all, invites the "
    "model to invent arguments.",
    fix="Declare every parameter under `properties` (`properties: {}` for a tool without any).",
)
def permissive(context: LintContext) -> Iterator[Hit]:
    for tool in context.tools:
        schema = tool.input_schema
        if schema.get("additionalProperties") is True:
            yield Hit(
                f"{tool.name!r} allows any additional argument (additionalProperties: true)",
                tools=(tool.name,),
            )
        elif (
            schema.get("type") == "object"
            and "properties" not in schema
            and not any(key in schema for key in ("anyOf", "oneOf", "allOf", "$ref"))
        ):
            yield Hit(
                f"{tool.name!r} declares no properties: the model must guess its arguments",
                tools=(tool.name,),
            )


@rule(
    "S011",
    "Deeply nested schema",
    severity="warning",
    why="Argument accuracy drops as objects nest inside objects.",
    fix="Flatten the schema, or split the tool.",
    thresholds=("max_depth",),
)
def too_deep(context: LintContext) -> Iterator[Hit]:
    limit = context.thresholds.max_depth
    for tool in context.tools:
        found = depth(tool.input_schema)
        if found > limit:
            yield Hit(
                f"the input schema of {tool.name!r} nests objects {found} levels deep (more than {limit})",
                tools=(tool.name,),
            )


@rule(
    "S012",
    "Too many parameters",
    severity="warning",
    why="Past about eight top-level parameters, models fill arguments less accurately.",
    fix="Split the tool, or group related parameters into one described object.",
    thresholds=("max_parameters",),
)
def too_many_parameters(context: LintContext) -> Iterator[Hit]:
    limit = context.thresholds.max_parameters
    for tool in context.tools:
        count = len(tool.parameters)
        if count > limit:
            yield Hit(f"{tool.name!r} has {count} parameters (more than {limit})", tools=(tool.name,))


@rule(
    "S013",
    "Object or array parameter without an example",
    severity="info",
    why="For structured arguments, one example shows the model the shape faster than the schema does.",
    fix='Add `examples` to the parameter, or an "e.g." to its description.',
)
def no_example(context: LintContext) -> Iterator[Hit]:
    for tool in context.tools:
        for name, schema in tool.parameters.items():
            if not isinstance(schema, dict) or not types_of(schema) & {"object", "array"}:
                continue
            if any(key in schema for key in ("examples", "example", "default")):
                continue
            if _EXAMPLE_WORDS.search(description_of(schema)):
                continue
            yield Hit(
                f"structured parameter {name!r} of {tool.name!r} has no example",
                tools=(tool.name,),
                parameter=name,
            )


@rule(
    "S014",
    "Very large schema",
    severity="warning",
    why="A schema with dozens of properties costs tokens on every request and is hard to fill correctly.",
    fix="Split the tool by use case, or remove properties models never need.",
    thresholds=("max_schema_properties",),
)
def very_large(context: LintContext) -> Iterator[Hit]:
    limit = context.thresholds.max_schema_properties
    for tool in context.tools:
        count = sum(len(properties_of(node)) for _, node in context.nodes[tool.name])
        if count > limit:
            yield Hit(
                f"the input schema of {tool.name!r} declares {count} properties (more than {limit})",
                tools=(tool.name,),
            )


def _where(path: str) -> str:
    return f"parameter {parameter_path(path)!r}" if path else "the input schema"

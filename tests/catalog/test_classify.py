"""Every change to the tool surface is one line in one class: breaking, selection-affecting, compatible."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcp_evals.catalog.classify import CLASS_LABELS, ClassifiedChange, describe
from mcp_evals.catalog.diff import diff_catalogs
from mcp_evals.catalog.model import Catalog, build_catalog
from support.catalog_helpers import server


def catalog_of(*tools: dict[str, Any]) -> Catalog:
    return build_catalog([server("helpdesk", *tools)])


def tool(
    name: str = "search_tickets",
    properties: dict[str, Any] | None = None,
    required: list[str] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties or {}}
    if required is not None:
        schema["required"] = required
    return {"name": name, "description": "Search tickets by text.", "inputSchema": schema, **extra}


def changes(
    before: dict[str, Any] | list[dict[str, Any]], after: dict[str, Any] | list[dict[str, Any]]
) -> list[tuple[str, str, str | None, str | None, str | None]]:
    old = catalog_of(*(before if isinstance(before, list) else [before]))
    new = catalog_of(*(after if isinstance(after, list) else [after]))
    diff = diff_catalogs(old, new)
    assert diff.changed == bool(diff.changes) == (old.hash != new.hash)
    return [(c.classification, c.kind, c.parameter, c.before, c.after) for c in diff.changes]


QUERY = {"query": {"type": "string", "description": "Words to look for."}}


# (before, after, the one expected change: class, kind, parameter, before, after)
CASES: dict[str, tuple[Any, Any, tuple[str, str, str | None, str | None, str | None]]] = {
    # breaking
    "tool removed": (
        [tool(), tool("get_ticket", {"id": {"type": "string"}})],
        [tool()],
        ("breaking", "tool_removed", None, None, None),
    ),
    "tool renamed": (
        tool(properties=QUERY),
        tool("find_tickets", QUERY),
        ("breaking", "tool_renamed", None, "search_tickets", None),
    ),
    "required parameter added": (
        tool(properties=QUERY, required=["query"]),
        tool(properties={**QUERY, "status": {"type": "string"}}, required=["query", "status"]),
        ("breaking", "required_parameter_added", "status", None, None),
    ),
    "parameter now required": (
        tool(properties={**QUERY, "status": {"type": "string"}}, required=["query"]),
        tool(properties={**QUERY, "status": {"type": "string"}}, required=["query", "status"]),
        ("breaking", "parameter_now_required", "status", None, None),
    ),
    "parameter removed": (
        tool(properties={**QUERY, "status": {"type": "string"}}),
        tool(properties=QUERY),
        ("breaking", "parameter_removed", "status", None, None),
    ),
    "type narrowed: null no longer accepted": (
        tool(properties={"limit": {"type": ["integer", "null"]}}),
        tool(properties={"limit": {"type": "integer"}}),
        ("breaking", "type_narrowed", "limit", "integer or null", "integer"),
    ),
    "type narrowed: number to integer": (
        tool(properties={"amount": {"type": "number"}}),
        tool(properties={"amount": {"type": "integer"}}),
        ("breaking", "type_narrowed", "amount", "number", "integer"),
    ),
    "type narrowed: pydantic's Optional to a plain type": (
        tool(properties={"limit": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None}}),
        tool(properties={"limit": {"type": "integer", "default": None}}),
        ("breaking", "type_narrowed", "limit", "integer or null", "integer"),
    ),
    "type narrowed: any to a type": (
        tool(properties={"value": {}}),
        tool(properties={"value": {"type": "string"}}),
        ("breaking", "type_narrowed", "value", "any", "string"),
    ),
    "type changed": (
        tool(properties={"ticket": {"type": "string"}}),
        tool(properties={"ticket": {"type": "integer"}}),
        ("breaking", "type_changed", "ticket", "string", "integer"),
    ),
    "enum value removed": (
        tool(properties={"status": {"type": "string", "enum": ["open", "pending", "closed"]}}),
        tool(properties={"status": {"type": "string", "enum": ["open", "closed"]}}),
        ("breaking", "enum_value_removed", "status", '"pending"', None),
    ),
    "constraint tightened: a lower maximum length": (
        tool(properties={"query": {"type": "string", "maxLength": 200}}),
        tool(properties={"query": {"type": "string", "maxLength": 50}}),
        ("breaking", "constraint_tightened", "query", "maxLength", "200 → 50"),
    ),
    "constraint tightened: a minimum added": (
        tool(properties={"limit": {"type": "integer"}}),
        tool(properties={"limit": {"type": "integer", "minimum": 1}}),
        ("breaking", "constraint_tightened", "limit", "minimum", "none → 1"),
    ),
    "constraint tightened: a pattern added": (
        tool(properties={"invoice": {"type": "string"}}),
        tool(properties={"invoice": {"type": "string", "pattern": "^INV-\\d+$"}}),
        ("breaking", "constraint_tightened", "invoice", "pattern", '"^INV-\\\\d+$"'),
    ),
    "constraint tightened: an enum where any text was fine": (
        tool(properties={"status": {"type": "string"}}),
        tool(properties={"status": {"type": "string", "enum": ["open", "closed"]}}),
        ("breaking", "constraint_tightened", "status", "enum", '"open", "closed"'),
    ),
    "constraint tightened: no more extra arguments": (
        tool(properties=QUERY),
        {
            **tool(properties=QUERY),
            "inputSchema": {**tool(properties=QUERY)["inputSchema"], "additionalProperties": False},
        },
        ("breaking", "constraint_tightened", None, "additionalProperties", None),
    ),
    "schema change that cannot be classified": (
        tool(properties={"ticket": {"type": "string"}}),
        tool(properties={"ticket": {"type": "string", "not": {"const": "T-0"}}}),
        ("breaking", "schema_unclassified", "ticket", "not", None),
    ),
    "through pydantic's Optional[Literal]: an enum value removed": (
        tool(
            properties={
                "status": {"anyOf": [{"type": "string", "enum": ["open", "closed"]}, {"type": "null"}]}
            }
        ),
        tool(properties={"status": {"anyOf": [{"type": "string", "enum": ["open"]}, {"type": "null"}]}}),
        ("breaking", "enum_value_removed", "status", '"closed"', None),
    ),
    "nested: a required key added inside an object parameter": (
        tool(properties={"filter": {"type": "object", "properties": {"status": {"type": "string"}}}}),
        tool(
            properties={
                "filter": {
                    "type": "object",
                    "properties": {"status": {"type": "string"}, "team": {"type": "string"}},
                    "required": ["team"],
                }
            }
        ),
        ("breaking", "required_parameter_added", "filter.team", None, None),
    ),
    "nested: list items narrowed": (
        tool(properties={"tags": {"type": "array", "items": {"type": ["string", "integer"]}}}),
        tool(properties={"tags": {"type": "array", "items": {"type": "string"}}}),
        ("breaking", "type_narrowed", "tags[]", "integer or string", "string"),
    ),
    "through $ref: an enum value removed in $defs": (
        tool()
        | {
            "inputSchema": {
                "type": "object",
                "properties": {"status": {"$ref": "#/$defs/Status"}},
                "$defs": {"Status": {"type": "string", "enum": ["open", "closed"]}},
            }
        },
        tool()
        | {
            "inputSchema": {
                "type": "object",
                "properties": {"status": {"$ref": "#/$defs/Status"}},
                "$defs": {"Status": {"type": "string", "enum": ["open"]}},
            }
        },
        ("breaking", "enum_value_removed", "status", '"closed"', None),
    ),
    # selection-affecting
    "tool added": (
        [tool()],
        [tool(), tool("get_ticket", {"id": {"type": "string"}})],
        ("selection", "tool_added", None, None, None),
    ),
    "description changed": (
        tool(),
        tool() | {"description": "Search tickets by text, newest first."},
        (
            "selection",
            "description_changed",
            None,
            "Search tickets by text.",
            "Search tickets by text, newest first.",
        ),
    ),
    "title changed": (
        tool() | {"title": "Search"},
        tool() | {"title": "Search tickets"},
        ("selection", "title_changed", None, "Search", "Search tickets"),
    ),
    "parameter description changed": (
        tool(properties=QUERY),
        tool(properties={"query": {"type": "string", "description": "Words or a ticket number."}}),
        (
            "selection",
            "parameter_description_changed",
            "query",
            "Words to look for.",
            "Words or a ticket number.",
        ),
    ),
    # compatible
    "optional parameter added": (
        tool(properties=QUERY, required=["query"]),
        tool(properties={**QUERY, "limit": {"type": "integer"}}, required=["query"]),
        ("compatible", "optional_parameter_added", "limit", None, None),
    ),
    "parameter no longer required": (
        tool(properties=QUERY, required=["query"]),
        tool(properties=QUERY, required=[]),
        ("compatible", "parameter_no_longer_required", "query", None, None),
    ),
    "type widened": (
        tool(properties={"limit": {"type": "integer"}}),
        tool(properties={"limit": {"type": ["integer", "null"]}}),
        ("compatible", "type_widened", "limit", "integer", "integer or null"),
    ),
    "enum value added": (
        tool(properties={"status": {"type": "string", "enum": ["open", "closed"]}}),
        tool(properties={"status": {"type": "string", "enum": ["open", "closed", "pending"]}}),
        ("compatible", "enum_value_added", "status", None, '"pending"'),
    ),
    "constraint loosened": (
        tool(properties={"query": {"type": "string", "maxLength": 50}}),
        tool(properties={"query": {"type": "string", "maxLength": 200}}),
        ("compatible", "constraint_loosened", "query", "maxLength", "50 → 200"),
    ),
    "schema detail changed: a default": (
        tool(properties={"limit": {"type": "integer", "default": 10}}),
        tool(properties={"limit": {"type": "integer", "default": 20}}),
        ("compatible", "schema_detail_changed", "limit", "default", None),
    ),
    "schema detail changed: required reordered": (
        tool(properties={**QUERY, "limit": {"type": "integer"}}, required=["query", "limit"]),
        tool(properties={**QUERY, "limit": {"type": "integer"}}, required=["limit", "query"]),
        ("compatible", "schema_detail_changed", None, "(order)", None),
    ),
    "output schema changed": (
        tool(),
        tool() | {"outputSchema": {"type": "object", "properties": {"count": {"type": "integer"}}}},
        ("compatible", "output_schema_changed", None, None, None),
    ),
    "annotations changed": (
        tool() | {"annotations": {"readOnlyHint": True}},
        tool() | {"annotations": {"readOnlyHint": True, "openWorldHint": False}},
        ("compatible", "annotations_changed", None, "openWorldHint", None),
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_each_change_is_one_line_in_its_class(case: str) -> None:
    before, after, expected = CASES[case]
    assert changes(before, after) == [expected]


def test_the_name_a_model_sees_can_change_without_a_rename() -> None:
    # `files_read` arrives, so `files.read` can no longer be sent as `files_read` (see catalog.names).
    before = [tool("files.read")]
    after = [tool("files.read"), tool("files_read", {"path": {"type": "string"}})]
    found = changes(before, after)
    assert ("selection", "tool_added", None, None, None) in found
    [seen] = [item for item in found if item[1] == "model_name_changed"]
    assert seen[0] == "selection" and seen[3] == "files_read" and seen[4].startswith("files_read_")


def test_a_change_in_several_places_is_several_lines_most_severe_first() -> None:
    before = tool(
        properties={**QUERY, "status": {"type": "string", "enum": ["open", "closed"]}}, required=["query"]
    )
    after = tool(
        properties={
            "query": {"type": "string", "description": "Words or a ticket number."},
            "status": {"type": "string", "enum": ["open"]},
            "limit": {"type": "integer"},
        },
        required=["query"],
    ) | {"description": "Search tickets."}
    assert [kind for _, kind, *_ in changes(before, after)] == [
        "enum_value_removed",
        "description_changed",
        "parameter_description_changed",
        "optional_parameter_added",
    ]


def test_each_line_reads_as_a_sentence() -> None:
    lines = {
        case: describe(
            ClassifiedChange.model_validate(
                dict(zip(("classification", "kind", "parameter", "before", "after"), expected, strict=True))
                | {"tool": "search_tickets"}
            )
        )
        for case, (_, _, expected) in CASES.items()
    }
    assert lines["required parameter added"] == "`search_tickets`: required parameter `status` added"
    assert lines["tool renamed"] == "`search_tickets` → `search_tickets`: tool renamed"
    assert (
        lines["enum value removed"]
        == '`search_tickets`: enum value `"pending"` removed from parameter `status`'
    )
    assert lines["type narrowed: number to integer"] == (
        "`search_tickets`: parameter `amount`: type narrowed: `number` → `integer`"
    )
    assert lines["constraint tightened: a minimum added"] == (
        "`search_tickets`: parameter `limit`: `minimum` tightened (`none → 1`)"
    )
    assert lines["schema detail changed: required reordered"] == (
        "`search_tickets`: input schema: reordered (same meaning)"
    )
    assert lines["schema change that cannot be classified"] == (
        "`search_tickets`: parameter `ticket`: `not` changed in a way mcp-evals does not classify: review it"
    )
    assert lines["annotations changed"] == "`search_tickets`: annotations changed (`openWorldHint`)"


# Small schemas: a property's type, enum, bound, description, nesting.
_leaf = st.fixed_dictionaries(
    {},
    optional={
        "type": st.sampled_from(["string", "integer", "number", ["string", "null"]]),
        "enum": st.lists(st.sampled_from(["a", "b", "c"]), min_size=1, max_size=3, unique=True),
        "maxLength": st.integers(1, 3),
        "description": st.sampled_from(["x", "y"]),
        "default": st.sampled_from([1, "a"]),
    },
)
_property = st.recursive(
    _leaf,
    lambda children: st.fixed_dictionaries(
        {
            "type": st.just("object"),
            "properties": st.dictionaries(st.sampled_from(["p", "q"]), children, max_size=2),
        }
    ),
    max_leaves=4,
)
_schema = st.fixed_dictionaries(
    {
        "type": st.just("object"),
        "properties": st.dictionaries(st.sampled_from(["a", "b", "c"]), _property, max_size=3),
    },
    optional={"required": st.lists(st.sampled_from(["a", "b", "c"]), unique=True, max_size=3)},
)


@settings(max_examples=300, deadline=None)
@given(_schema, _schema)
def test_any_two_schemas_differ_exactly_when_some_change_is_listed(
    before: dict[str, Any], after: dict[str, Any]
) -> None:
    found = changes(tool() | {"inputSchema": before}, tool() | {"inputSchema": after})
    assert all(classification in ("breaking", "selection", "compatible") for classification, *_ in found)


def test_a_recursive_schema_that_differs_at_every_level_is_still_classified() -> None:
    def node(kind: str) -> dict[str, Any]:
        return tool() | {
            "inputSchema": {
                "type": "object",
                "properties": {"tree": {"$ref": "#/$defs/Node"}},
                "$defs": {
                    "Node": {
                        "type": "object",
                        "properties": {"label": {"type": kind}, "child": {"$ref": "#/$defs/Node"}},
                    }
                },
            }
        }

    found = changes(node("string"), node("integer"))
    assert ("breaking", "type_changed", "tree.label", "string", "integer") in found
    assert ("breaking", "type_changed", "tree.child.label", "string", "integer") in found


DOCS = Path(__file__).resolve().parents[2] / "docs" / "catalog.md"


def _section(title: str) -> str:
    text = DOCS.read_text("utf-8")
    start = text.index(title)
    return text[start : text.index("\n## ", start + 1)]


def test_the_docs_table_shows_the_line_each_example_gives() -> None:
    """docs/catalog.md's classification table: every case above, with the line it really gives."""
    rows = [
        [cell.strip() for cell in line.strip().strip("|").split(" | ")]
        for line in _section("### How changes are classified").splitlines()
        if line.startswith("| ") and not line.startswith("| class ")
    ]
    documented = {what: (label, line) for label, what, line in rows}
    for case, (before, after, _) in CASES.items():
        old = catalog_of(*(before if isinstance(before, list) else [before]))
        new = catalog_of(*(after if isinstance(after, list) else [after]))
        [item] = diff_catalogs(old, new).changes
        assert documented.pop(case) == (CLASS_LABELS[item.classification], describe(item)), case
    [(what, (label, line))] = documented.items()  # the one not in CASES: tested above, by itself
    assert what.startswith("the name a model sees") and label == "selection-affecting"
    old, new = catalog_of(tool("files.read")), catalog_of(tool("files.read"), tool("files_read"))
    assert line == describe(
        next(c for c in diff_catalogs(old, new).changes if c.kind == "model_name_changed")
    )


def test_the_docs_diff_example_is_what_catalog_diff_prints() -> None:
    from catalog.test_diff import AFTER, BEFORE
    from mcp_evals.cli.catalog_cmd import render_diff

    section = _section("## `mcp-evals catalog diff OLD NEW`")
    block = section[section.index("```console\n") + len("```console\n") : section.index("\n```\n")]
    command, _, shown = block.partition("\n")
    assert command == "$ mcp-evals catalog diff main.json pr.json"
    assert shown == render_diff(diff_catalogs(BEFORE, AFTER), "main.json", "pr.json")

"""An arm's transforms: a field removed wherever it appears, everything else kept as it was written."""

from __future__ import annotations

import json

from mcp_evals.session.model import Transform
from mcp_evals.session.transforms import (
    remove_path,
    removes_anything,
    result_paths,
    schema_paths,
    transform_result,
    transform_text,
)

DIAGNOSTICS = [Transform(remove_field="diagnostics")]


def test_a_field_goes_from_objects_at_any_depth_and_inside_arrays() -> None:
    value = {
        "diagnostics": {"stale": True},
        "items": [{"id": 1, "diagnostics": {"attempts": 2}}, {"id": 2}],
        "nested": {"deeper": {"diagnostics": [1, 2], "keep": "yes"}},
    }
    removed, changed = remove_path(value, ["diagnostics"])
    assert changed
    assert removed == {"items": [{"id": 1}, {"id": 2}], "nested": {"deeper": {"keep": "yes"}}}
    assert value["diagnostics"] == {"stale": True}  # the input is not touched


def test_a_dotted_path_removes_only_under_its_parent_key() -> None:
    value = {
        "provenance": {"retrieval": {"attempts": 3}, "source": "bcb"},
        "rows": [{"provenance": {"retrieval": [1], "source": "x"}}, {"retrieval": "not under provenance"}],
    }
    removed, _ = remove_path(value, ["provenance", "retrieval"])
    assert removed == {
        "provenance": {"source": "bcb"},
        "rows": [{"provenance": {"source": "x"}}, {"retrieval": "not under provenance"}],
    }


def test_a_parent_that_is_an_array_has_the_path_removed_from_each_item() -> None:
    value = {"provenance": [{"retrieval": 1, "a": 1}, {"retrieval": 2, "b": 2}]}
    removed, _ = remove_path(value, ["provenance", "retrieval"])
    assert removed == {"provenance": [{"a": 1}, {"b": 2}]}


def test_nothing_to_remove_gives_back_the_same_object() -> None:
    value = {"a": [1, {"b": 2}]}
    removed, changed = remove_path(value, ["diagnostics"])
    assert not changed and removed is value


def test_indented_text_keeps_its_indent_and_key_order() -> None:
    original = {"zeta": 1, "diagnostics": {"stale": True}, "alpha": ["é", 2]}
    text = json.dumps(original, indent=2, ensure_ascii=False)
    assert transform_text(text, DIAGNOSTICS) == json.dumps(
        {"zeta": 1, "alpha": ["é", 2]}, indent=2, ensure_ascii=False
    )


def test_compact_and_ascii_escaped_text_stays_compact_and_escaped() -> None:
    compact = json.dumps({"b": "é", "diagnostics": 1, "a": 2}, separators=(",", ":"))
    assert compact.isascii()
    assert transform_text(compact, DIAGNOSTICS) == '{"b":"\\u00e9","a":2}'
    spaced = '{"b": "x: y", "diagnostics": 1}'
    assert transform_text(spaced, DIAGNOSTICS) == '{"b": "x: y"}'


def test_text_that_is_not_json_or_has_no_such_field_is_left_byte_for_byte() -> None:
    for text in ("Error executing tool x: not found", '{"a": 1,  "b": 2}', "[1, 2]", "  42  "):
        assert transform_text(text, DIAGNOSTICS) is text


def test_a_result_changes_in_its_text_blocks_and_its_structured_content_only() -> None:
    structured = {"region": "eu", "diagnostics": {"stale": True}}
    content = [
        {"type": "text", "text": json.dumps(structured, indent=2)},
        {"type": "image", "data": "AAAA", "mimeType": "image/png"},
        {"type": "text", "text": "plain words"},
    ]
    blocks, new_structured = transform_result(content, structured, DIAGNOSTICS)
    assert json.loads(blocks[0]["text"]) == {"region": "eu"}
    assert blocks[1] is content[1] and blocks[2] is content[2]
    assert new_structured == {"region": "eu"}
    assert transform_result(content, structured, []) == (content, structured)


SCHEMA = {
    "$defs": {
        "Diagnostics": {"type": "object", "properties": {"stale": {"type": "boolean"}}},
        "Row": {"type": "object", "properties": {"id": {"type": "string"}}},
    },
    "type": "object",
    "properties": {
        "diagnostics": {"anyOf": [{"$ref": "#/$defs/Diagnostics"}, {"type": "null"}]},
        "rows": {"type": "array", "items": {"$ref": "#/$defs/Row"}},
    },
}


def test_the_paths_an_output_schema_declares_reach_through_refs_alternatives_and_arrays() -> None:
    assert schema_paths(SCHEMA, 1) == {"diagnostics", "rows", "stale", "id"}
    assert schema_paths(SCHEMA, 2) == {"diagnostics.stale", "rows.id"}
    assert schema_paths(SCHEMA, 3) == set()


def test_whether_a_transform_removes_anything_from_a_result_and_the_paths_it_holds() -> None:
    text = [{"type": "text", "text": '{"rows": [{"id": "a", "diagnostics": {"stale": true}}]}'}]
    assert removes_anything(Transform(remove_field="diagnostics.stale"), text, None)
    assert not removes_anything(Transform(remove_field="diagnostic"), text, None)
    assert removes_anything(Transform(remove_field="state"), [{"type": "text", "text": "x"}], {"state": 1})
    assert not removes_anything(Transform(remove_field="state"), [{"type": "text", "text": "state"}], None)
    assert result_paths(text, {"state": 1}, 2) == {"rows.id", "rows.diagnostics", "diagnostics.stale"}

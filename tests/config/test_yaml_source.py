"""The YAML reader: line numbers, YAML 1.1 values but no timestamps, unsafe or ambiguous input refused."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from config.test_documents import BILLION_LAUGHS
from mcp_evals.config.yaml_source import parse_yaml
from mcp_evals.errors import InputFileError


def yaml_error(text: str) -> str:
    with pytest.raises(InputFileError) as error:
        parse_yaml(text, Path("f.yaml"))
    return str(error.value)


def test_every_key_and_item_keeps_its_line() -> None:
    document = parse_yaml("a:\n  b: 1\n  c:\n    - x\n\n    - {d: 2}\n", Path("f.yaml"))
    assert document.data == {"a": {"b": 1, "c": ["x", {"d": 2}]}}
    assert document.lines == {
        (): 1,
        ("a",): 1,
        ("a", "b"): 2,
        ("a", "c"): 3,
        ("a", "c", 0): 4,
        ("a", "c", 1): 6,
        ("a", "c", 1, "d"): 6,
    }


def test_values_resolve_as_yaml_1_1_except_timestamps() -> None:
    # PyYAML reads YAML 1.1: yes/no/on/off are booleans, an exponent needs a dot and a sign (1e5 is
    # a string), 010 is octal.
    text = "a: yes\nb: off\nc: 1e5\nd: 1.0e+5\ne: 010\nf: ~\ng: '2024-05-01'\nh: 0x1F\n"
    assert parse_yaml(text, Path("f.yaml")).data == {
        "a": True,
        "b": False,
        "c": "1e5",
        "d": 100000.0,
        "e": 8,
        "f": None,
        "g": "2024-05-01",
        "h": 31,
    }


def test_dates_stay_strings_so_they_compare_with_tool_arguments() -> None:
    assert parse_yaml("since: 2024-05-01\nat: 2024-05-01T10:00:00Z\n", Path("f.yaml")).data == {
        "since": "2024-05-01",
        "at": "2024-05-01T10:00:00Z",
    }


def test_duplicate_keys_are_an_error_with_both_lines() -> None:
    with pytest.raises(InputFileError, match=r"f\.yaml:3: duplicate key 'id' \(first at line 2\)"):
        parse_yaml("- query: x\n  id: a\n  id: b\n", Path("f.yaml"))


def test_a_duplicate_key_that_lost_its_indent_says_so() -> None:
    after_children = yaml_error(
        "- id: a\n  query: find\n  expected_args:\n    path: /x\n  query: {contains: x}\n"
    )
    assert after_children == (
        "f.yaml:5: duplicate key 'query' (first at line 2): it follows the keys of `expected_args` (line 3): "
        "if `query` belongs to `expected_args`, indent it like them (4 spaces); otherwise keep only one"
    )
    after_empty = yaml_error("- id: a\n  query: find\n  expected_args:\n  query: {contains: x}\n")
    assert "it follows `expected_args:` (line 3), which has no value" in after_empty
    assert yaml_error("- query: x\n  id: a\n  id: b\n").endswith("(first at line 2): keep only one")


def test_a_syntax_error_names_the_line() -> None:
    with pytest.raises(InputFileError, match=r"f\.yaml:3: YAML syntax error"):
        parse_yaml("a: 1\nb: [1, 2\nc: 3\n", Path("f.yaml"))


def test_a_syntax_error_is_explained() -> None:
    assert yaml_error("servers:\n\t- name: x\n") == (
        "f.yaml:2: YAML indents with spaces, not tabs (line 2, column 1): replace the tab with spaces"
    )


def test_a_billion_laughs_document_is_refused_at_once() -> None:
    started = time.perf_counter()
    with pytest.raises(InputFileError, match=r"anchors and aliases .* are not supported"):
        parse_yaml(BILLION_LAUGHS, Path("bomb.yaml"))
    assert time.perf_counter() - started < 0.5


@pytest.mark.parametrize(
    "text",
    [
        "a: &x 1\nb: *x\n",  # a plain alias
        "a: &x [*x]\n",  # an alias inside its own anchor
        "&k key: 1\n*k : 2\n",  # an alias as a key
    ],
)
def test_every_alias_is_refused(text: str) -> None:
    with pytest.raises(InputFileError, match="anchors and aliases"):
        parse_yaml(text, Path("f.yaml"))


def test_merge_keys_and_tags_are_refused() -> None:
    with pytest.raises(InputFileError, match=r"f\.yaml:2: merge keys"):
        parse_yaml("a: 1\n<<: {b: 2}\n", Path("f.yaml"))
    with pytest.raises(InputFileError, match="unsupported tag"):
        parse_yaml("a: !!python/object/apply:os.system [echo hi]\n", Path("f.yaml"))
    with pytest.raises(InputFileError, match="a mapping key must be a plain value"):
        parse_yaml("? [a, b]\n: 1\n", Path("f.yaml"))


def test_deep_nesting_is_an_error_not_a_crash() -> None:
    with pytest.raises(InputFileError, match="nested more than 64 levels deep"):
        parse_yaml("[" * 200 + "]" * 200, Path("f.yaml"))


def test_more_than_one_document_is_an_error() -> None:
    assert "f.yaml:" in yaml_error("a: 1\n---\nb: 2\n")

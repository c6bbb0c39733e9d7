"""YAML syntax errors in words a person new to YAML can act on."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_evals.config.syntax import explain_syntax_error
from mcp_evals.config.yaml_source import parse_yaml
from mcp_evals.errors import InputFileError


def yaml_error(text: str) -> str:
    with pytest.raises(InputFileError) as error:
        parse_yaml(text, Path("f.yaml"))
    return str(error.value)


def test_a_tab_is_named_with_its_line_and_column() -> None:
    assert yaml_error("servers:\n\t- name: x\n") == (
        "f.yaml:2: YAML indents with spaces, not tabs (line 2, column 1): replace the tab with spaces"
    )
    assert "not tabs (line 4, column 3)" in yaml_error(
        "servers:\n  - name: x\n    command: y\n  \targs: [a]\n"
    )


def test_a_wrong_indentation_shows_both_lines_and_which_looks_wrong() -> None:
    message = yaml_error("servers:\n  - name: x\n    command: y\n   args: [a]\n")
    assert message.startswith("f.yaml:4: YAML syntax error: the indentation does not fit")
    assert "       3 |     command: y    ← 4 spaces" in message
    assert "       4 |    args: [a]    ← 3 spaces" in message
    assert (
        "line 4 looks wrong: it is indented 3 spaces, a column no line above uses (they use 0, 2, 4)"
        in message
    )
    item = yaml_error("fixtures:\n  - id: a\n    query: b\n - id: c\n")
    assert "line 4 looks wrong: it is indented 1 space" in item and "items of one list start" in item
    sibling = yaml_error("servers:\n  - name: x\n    command: y\n  env: {A: b}\n")
    assert "it starts in the column of the list items above (2 spaces) but is not a list item" in sibling


def test_a_line_in_a_column_the_lines_above_use_blames_the_line_above() -> None:
    text = "a:\n  b: 1\n  c: d: e\n"
    message = explain_syntax_error(text, "mapping values are not allowed here", 3)
    assert "line 2 looks wrong: line 3 starts in a column the lines above use" in message


def test_other_problems_keep_pyyaml_s_words() -> None:
    assert explain_syntax_error("a: 'x\n", "found unexpected end of stream", 2) == (
        "YAML syntax error: found unexpected end of stream"
    )
    assert explain_syntax_error("a: 1\n", "whatever", None) == "YAML syntax error: whatever"
    assert explain_syntax_error("a: 1\n", "whatever", 9) == "YAML syntax error: whatever"

"""The JSON reader: the standard library's values, the line of every key and item, no duplicate keys."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from mcp_evals.config.json_source import parse_json
from mcp_evals.errors import InputFileError


@pytest.mark.parametrize(
    "text",
    [
        '{"a": [1, -2.5, 1e5, 1E-3, 0, true, false, null],'
        ' "b": {"c": "x\\u00e9\\n\\"q\\"", "d": []}, "e": {}}',
        '[{"id": "é", "n": -0.0}, "\\ud83d\\ude00", 12345678901234567890]',
        '  "just a string"  ',
        "NaN",
        "[Infinity, -Infinity, 1.5e300, -0]",
        '{"": "", " ": {"\\\\": "\\/"}}',
        "\n\t[ \r\n 1 ,\t2 ]\n",
    ],
)
def test_it_reads_exactly_what_the_standard_library_reads(text: str) -> None:
    expected = json.loads(text)
    got = parse_json(text, Path("f.json")).data
    assert json.dumps(got) == json.dumps(expected)
    assert [type(value) for value in _leaves(got)] == [type(value) for value in _leaves(expected)]


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in _leaves(item)]
    if isinstance(value, list):
        return [leaf for item in value for leaf in _leaves(item)]
    return [value]


def test_every_key_and_item_keeps_its_line() -> None:
    text = '{\n  "a": "x\\ny",\n  "b": [\n    1,\n\n    {"c":\n      2}\n  ],\n  "d": {}\n}\n'
    document = parse_json(text, Path("f.json"))
    assert document.data == {"a": "x\ny", "b": [1, {"c": 2}], "d": {}}
    assert document.lines == {
        (): 1,
        ("a",): 2,
        ("b",): 3,
        ("b", 0): 4,
        ("b", 1): 6,
        ("b", 1, "c"): 6,
        ("d",): 9,
    }


def test_a_key_s_line_is_its_own_even_when_the_value_is_on_the_next() -> None:
    document = parse_json('{"a":\n\n  1,\n "b"\n :\n 2}', Path("f.json"))
    assert (document.line_of(("a",)), document.line_of(("b",))) == (1, 4)


def test_the_lines_of_a_large_random_document_are_right() -> None:
    generator = random.Random(21)
    counter = iter(range(1_000_000))

    def value(depth: int) -> Any:
        kind = generator.choice(["object", "array", "scalar"] if depth < 5 else ["scalar"])
        if kind == "object":
            return {f"k{next(counter)}": value(depth + 1) for _ in range(generator.randint(0, 4))}
        if kind == "array":
            return [value(depth + 1) for _ in range(generator.randint(0, 4))]
        return generator.choice([1, -2.5, "a\nb", 'é"', True, None, 10**20])

    data = {f"k{next(counter)}": value(0) for _ in range(40)}
    text = json.dumps(data, indent=generator.choice([1, 2, 4]), ensure_ascii=False)
    document = parse_json(text, Path("f.json"))
    assert document.data == data
    key_lines = {
        line.split('"')[1]: number for number, line in enumerate(text.splitlines(), 1) if '": ' in line
    }
    found = {
        location[-1]: line
        for location, line in document.lines.items()
        if location and isinstance(location[-1], str)
    }
    assert found == key_lines


def test_a_syntax_error_names_the_line_and_column() -> None:
    with pytest.raises(InputFileError, match=r"^f\.json:4: JSON syntax error: Expecting value \(column 1\)$"):
        parse_json('{\n  "a": 1,\n  "b": \n}\n', Path("f.json"))


def test_duplicate_keys_are_an_error_with_both_lines() -> None:
    with pytest.raises(
        InputFileError, match=r"^f\.json:3: duplicate key 'a' \(first at line 2\): keep only one$"
    ):
        parse_json('{\n  "a": 1,\n  "a": 2\n}', Path("f.json"))
    with pytest.raises(InputFileError, match=r"f\.json:2: duplicate key 'x' \(first at line 1\)"):
        parse_json('[{"x": {"x": 1},\n  "x": 2}]', Path("f.json"))
    # the same key in two objects is fine
    assert parse_json('[{"x": 1}, {"x": 2}]', Path("f.json")).data == [{"x": 1}, {"x": 2}]


def test_deep_nesting_is_an_error_not_a_crash() -> None:
    with pytest.raises(InputFileError, match=r"f\.json:1: nested more than 64 levels deep"):
        parse_json("[" * 100 + "]" * 100, Path("f.json"))
    with pytest.raises(InputFileError, match=r"f\.json: nested too deeply"):
        parse_json("[" * 5000 + "]" * 5000, Path("f.json"))

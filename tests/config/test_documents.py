"""Reading user files: YAML and JSON with line numbers, and every unsafe or ambiguous input refused."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Literal

import pytest
from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from mcp_evals.config.documents import describe_validation_error, load_document, parse_json, parse_yaml
from mcp_evals.errors import InputFileError, McpEvalsError
from mcp_evals.files import atomic_write
from support.validate_helpers import write

BILLION_LAUGHS = """\
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
"""


def test_yaml_keeps_the_line_of_every_key_and_item(tmp_path: Path) -> None:
    document = load_document(
        write(
            tmp_path / "f.yaml",
            """
            # a comment
            fixtures:
              - id: one
                query: hello
              - id: two

                query: bye
            """,
        )
    )
    assert document.data == {"fixtures": [{"id": "one", "query": "hello"}, {"id": "two", "query": "bye"}]}
    assert document.line_of(("fixtures",)) == 2
    assert document.line_of(("fixtures", 0)) == 3
    assert document.line_of(("fixtures", 1, "query")) == 7
    # an unknown deeper part falls back to the deepest known one (a pydantic loc works as is)
    assert document.line_of(("fixtures", 1, "expected_args", "x")) == 5


def test_json_keeps_line_numbers_too(tmp_path: Path) -> None:
    path = tmp_path / "f.json"
    path.write_text(
        '{\n  "fixtures": [\n    {"id": "one",\n     "query": "hi"},\n    {"id": "two"}\n  ]\n}\n'
    )
    document = load_document(path)
    assert document.data == {"fixtures": [{"id": "one", "query": "hi"}, {"id": "two"}]}
    assert document.line_of(("fixtures", 0)) == 3
    assert document.line_of(("fixtures", 0, "query")) == 4
    assert document.line_of(("fixtures", 1)) == 5


@pytest.mark.parametrize(
    "text",
    [
        '{"a": [1, -2.5, 1e5, 1E-3, 0, true, false, null],'
        ' "b": {"c": "x\\u00e9\\n\\"q\\"", "d": []}, "e": {}}',
        '[{"id": "é", "n": -0.0}, "\\ud83d\\ude00", 12345678901234567890]',
        '  "just a string"  ',
        "NaN",
    ],
)
def test_json_reads_exactly_what_the_standard_library_reads(text: str) -> None:
    expected = json.loads(text)
    got = parse_json(text, Path("f.json")).data
    assert json.dumps(got) == json.dumps(expected)


def test_json_is_not_read_as_yaml(tmp_path: Path) -> None:
    # YAML 1.1 reads 1e5 as a string and rejects tabs; JSON must mean what JSON means.
    path = tmp_path / "f.json"
    path.write_text('{\t"n": 1e5,\n\t"s": "a\\/b"}')
    assert load_document(path).data == {"n": 100000.0, "s": "a/b"}


def test_a_json_syntax_error_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "f.json"
    path.write_text('{\n  "a": 1,\n  "b": \n}\n')
    with pytest.raises(InputFileError, match=r"f\.json:4: JSON syntax error: Expecting value"):
        load_document(path)


def test_duplicate_json_keys_are_an_error_with_both_lines(tmp_path: Path) -> None:
    path = tmp_path / "f.json"
    path.write_text('{\n  "a": 1,\n  "a": 2\n}')
    with pytest.raises(InputFileError, match=r"f\.json:3: duplicate key 'a' \(first at line 2\)"):
        load_document(path)


def test_duplicate_yaml_keys_are_an_error_with_both_lines() -> None:
    with pytest.raises(InputFileError, match=r"f\.yaml:3: duplicate key 'id' \(first at line 2\)"):
        parse_yaml("- query: x\n  id: a\n  id: b\n", Path("f.yaml"))


def test_a_yaml_syntax_error_names_the_line() -> None:
    with pytest.raises(InputFileError, match=r"f\.yaml:3: YAML syntax error"):
        parse_yaml("a: 1\nb: [1, 2\nc: 3\n", Path("f.yaml"))


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


def test_dates_stay_strings_so_they_compare_with_tool_arguments() -> None:
    assert parse_yaml("since: 2024-05-01\nat: 2024-05-01T10:00:00Z\n", Path("f.yaml")).data == {
        "since": "2024-05-01",
        "at": "2024-05-01T10:00:00Z",
    }


def test_deep_nesting_is_an_error_not_a_crash(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match="nested more than"):
        parse_yaml("[" * 200 + "]" * 200, Path("f.yaml"))
    with pytest.raises(InputFileError, match="nested"):
        parse_json("[" * 5000 + "]" * 5000, Path("f.json"))


def test_a_file_that_is_not_utf8_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes("a: 1\nb: caf\xe9\n".encode("latin-1"))
    with pytest.raises(InputFileError, match=r"latin1\.yaml:2: not valid UTF-8") as error:
        load_document(path)
    assert error.value.hint == "save the file as UTF-8"


def test_a_utf8_bom_is_fine(tmp_path: Path) -> None:
    path = tmp_path / "bom.json"
    path.write_bytes(b'\xef\xbb\xbf{"a": 1}')
    assert load_document(path).data == {"a": 1}


def test_missing_files_and_folders_are_clear(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match="file not found"):
        load_document(tmp_path / "nope.yaml")
    with pytest.raises(InputFileError, match="is a folder"):
        load_document(tmp_path)


def test_an_empty_yaml_file_is_none(tmp_path: Path) -> None:
    assert load_document(write(tmp_path / "empty.yaml", "# nothing\n")).data is None


def test_atomic_write_leaves_the_old_file_when_writing_fails(tmp_path: Path) -> None:
    path = tmp_path / "out.json"
    path.write_text("old")
    with pytest.raises(RuntimeError), atomic_write(path) as stream:
        stream.write("half")
        raise RuntimeError("disk full")
    assert path.read_text() == "old"
    assert [item.name for item in tmp_path.iterdir()] == ["out.json"]
    with atomic_write(path) as stream:
        stream.write("new")
    assert path.read_text() == "new"


def test_atomic_write_to_a_path_that_cannot_be_written_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "report.md"
    blocker.write_text("a file where a folder should be")
    unwritable = r"report.md/out.json: cannot write the file \("
    target = blocker / "out.json"
    with pytest.raises(McpEvalsError, match=unwritable) as caught, atomic_write(target) as stream:
        stream.write("never")
    assert caught.value.hint
    assert [item.name for item in tmp_path.iterdir()] == ["report.md"]


class _Item(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str
    count: int


def test_validation_errors_name_file_line_and_field(tmp_path: Path) -> None:
    document = load_document(
        write(tmp_path / "f.yaml", "items:\n  - id: a\n    count: many\n    colour: red\n")
    )
    with pytest.raises(ValidationError) as error:
        _Item.model_validate(document.data["items"][0])
    text = describe_validation_error(error.value, document, ("items", 0))
    assert "f.yaml:3 (items[0].count): Input should be a valid integer" in text
    assert "f.yaml:4 (items[0].colour): unknown key" in text


class _Part(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str


class _Checked(BaseModel):
    model_config = ConfigDict(extra="forbid")
    low: int = 0
    high: int = 0

    @model_validator(mode="after")
    def _ordered(self) -> _Checked:
        if self.low > self.high:
            raise ValueError("`low` must not be above `high`")
        return self


class _Unions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    level: bool | Literal["low", "high"] = False
    paths: str | list[str] = ""
    part: _Part | str = ""
    env: dict[str, str] = {}
    items: list[_Item] = []
    span: _Checked | str = ""


@pytest.mark.parametrize(
    ("text", "messages"),
    [
        ("level: loud\n", ["f.yaml:1 (level): must be false, true, low or high (not 'loud')"]),
        ("paths: 5\n", ["f.yaml:1 (paths): must be a string or a list (not 5)"]),
        ("paths: [a, 5]\n", ["f.yaml:1 (paths[1]): Input should be a valid string"]),
        ("part: 5\n", ["f.yaml:1 (part): must be a mapping or a string (not 5)"]),
        (
            "part:\n  nmae: x\n",
            ["f.yaml:1 (part.name): required field is missing", "f.yaml:2 (part.nmae): unknown key"],
        ),
        ("span: {low: 2, high: 1}\n", ["f.yaml:1 (span): `low` must not be above `high`"]),
        # keys that look like pydantic's names for union branches are still keys
        ("env:\n  str: 5\n", ["f.yaml:2 (env.str): Input should be a valid string"]),
        (
            "items:\n  - {id: a, count: x, _Part: 1}\n",
            ["f.yaml:2 (items[0].count): Input should be", "f.yaml:2 (items[0]._Part): unknown key"],
        ),
    ],
)
def test_a_union_is_one_message_naming_what_it_accepts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, messages: list[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    document = load_document(write(Path("f.yaml"), text))
    with pytest.raises(ValidationError) as error:
        _Unions.model_validate(document.data)
    described = describe_validation_error(error.value, document).splitlines()
    assert len(described) == len(messages), described
    assert all(line.startswith(message) for line, message in zip(described, messages, strict=True)), described


# -- messages that teach YAML ----------------------------------------------------------------------


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


def test_unknown_keys_get_a_did_you_mean_or_the_level_they_belong_at(tmp_path: Path) -> None:
    from mcp_evals.config.load import load_config
    from mcp_evals.errors import ConfigError
    from mcp_evals.fixtures.load import load_fixture_file

    def config_error(text: str) -> str:
        with pytest.raises(ConfigError) as error:
            load_config(write(tmp_path / "mcp-evals.yaml", text))
        return str(error.value).replace(str(tmp_path) + "/", "")

    servers = "servers:\n  - name: x\n    command: y\n"
    assert config_error(servers + "env: {A: b}\n") == (
        "mcp-evals.yaml:4 (env): `env` belongs inside a server entry (one level deeper), not here"
    )
    assert "`min_fixtures` belongs inside `validation:` (one level deeper)" in config_error(
        servers + "min_fixtures: 3\n"
    )
    assert "`servers` belongs at the top level (one level up)" in config_error(
        servers + "validation:\n  servers: []\n"
    )
    assert "did you mean `min_per_tool`" in config_error(servers + "validation:\n  min_per_tools: 1\n")
    path = write(tmp_path / "f.yaml", "fixtures:\n  - id: a\n    query: q\n    expected_tol: x\n")
    with pytest.raises(InputFileError, match=r"unknown key `expected_tol`; did you mean `expected_tool`"):
        load_fixture_file(path)

"""The front every loader calls: the reader picked by extension, and files named as messages show them."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_evals.config.documents import load_document, load_document_as, parse_text, shown
from mcp_evals.errors import InputFileError, McpEvalsError
from mcp_evals.files import atomic_write
from support.validate_helpers import write

# Also fed to every command by tests/cli/test_bad_input.py.
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


@pytest.mark.parametrize("name", ["f.json", "f.JSON"])
def test_a_json_file_is_read_as_json(tmp_path: Path, name: str) -> None:
    # YAML 1.1 reads 1e5 as a string and rejects tabs; JSON must mean what JSON means.
    path = tmp_path / name
    path.write_text('{\t"n": 1e5,\n\t"s": "a\\/b"}')
    assert load_document(path).data == {"n": 100000.0, "s": "a/b"}


@pytest.mark.parametrize("name", ["f.yaml", "f.yml", "f.txt", "f"])
def test_anything_else_is_read_as_yaml(tmp_path: Path, name: str) -> None:
    assert load_document(write(tmp_path / name, "n: 1e5\non: yes\n")).data == {"n": "1e5", True: True}


def test_an_empty_yaml_file_is_none(tmp_path: Path) -> None:
    assert load_document(write(tmp_path / "empty.yaml", "# nothing\n")).data is None


def test_a_billion_laughs_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match=r"bomb\.yaml:1: anchors and aliases"):
        load_document(write(tmp_path / "bomb.yaml", BILLION_LAUGHS))


def test_shown_is_relative_to_the_current_folder_when_below_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert shown(tmp_path / "evals" / "a.yaml") == str(Path("evals") / "a.yaml")
    assert shown(tmp_path.parent / "elsewhere.yaml") == str(tmp_path.parent / "elsewhere.yaml")


def test_load_document_as_names_the_file_as_given_in_the_document_and_its_errors(tmp_path: Path) -> None:
    path = write(tmp_path / "case.yaml", "name: c\n")
    assert load_document_as(path, "cases/case.yaml").path == Path("cases/case.yaml")
    broken = write(tmp_path / "broken.yaml", "a: 1\na: 2\n")
    with pytest.raises(InputFileError, match=r"^cases/broken\.yaml:2: duplicate key 'a'"):
        load_document_as(broken, "cases/broken.yaml")
    # text given for the file (an unsaved buffer) is parsed as that file: JSON here
    document = load_document_as(tmp_path / "x.json", "x.json", text='{"a":\n 1}')
    assert (document.data, document.line_of(("a",)), document.path) == ({"a": 1}, 1, Path("x.json"))
    with pytest.raises(InputFileError, match=r"^x\.json:2: JSON syntax error"):
        load_document_as(tmp_path / "x.json", "x.json", text='{"a":\n }')


def test_parse_text_picks_the_reader_by_extension() -> None:
    assert parse_text("[1e5]", Path("a.json")).data == [100000.0]
    assert parse_text("[1e5]", Path("a.yaml")).data == ["1e5"]


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

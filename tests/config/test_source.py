"""What a parsed file is, and reading a file's text: every way it can fail is one line naming the file."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_evals.config import source
from mcp_evals.config.source import Document, read_text
from mcp_evals.errors import InputFileError


def test_line_of_falls_back_to_the_deepest_known_part() -> None:
    document = Document(Path("f.yaml"), {}, {(): 1, ("a",): 2, ("a", 0): 3})
    assert document.line_of(("a", 0)) == 3
    assert document.line_of(("a", 0, "deeper", "still")) == 3
    assert document.line_of(("a", 5)) == 2
    assert document.line_of(("b",)) == 1
    assert Document(Path("f.yaml"), None).line_of(("a",)) is None


def test_a_file_that_is_not_utf8_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes("a: 1\nb: caf\xe9\n".encode("latin-1"))
    with pytest.raises(InputFileError, match=r"latin1\.yaml:2: not valid UTF-8 \(byte 0xe9") as error:
        read_text(path)
    assert error.value.hint == "save the file as UTF-8"


def test_a_utf8_bom_is_dropped(tmp_path: Path) -> None:
    path = tmp_path / "bom.json"
    path.write_bytes(b'\xef\xbb\xbf{"a": 1}')
    assert read_text(path) == '{"a": 1}'


def test_missing_files_and_folders_are_clear(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match=r"nope\.yaml: file not found"):
        read_text(tmp_path / "nope.yaml")
    with pytest.raises(InputFileError, match="is a folder, not a file"):
        read_text(tmp_path)


def test_a_file_over_the_limit_is_refused_before_it_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(source, "MAX_FILE_BYTES", 8)
    path = tmp_path / "big.yaml"
    path.write_text("a: 123456789\n")
    with pytest.raises(InputFileError, match=r"big\.yaml: file is 13 bytes; the limit is 8"):
        read_text(path)

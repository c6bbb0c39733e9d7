"""The one record-file layer (``record.ndjson``): what a killed writer leaves, what another kind or
version gets, and that the files earlier mcp-evals wrote still read, byte for byte."""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import pytest

from mcp_evals.errors import InputFileError, McpEvalsError
from mcp_evals.record.model import FixtureResult, Record, RecordHeader
from mcp_evals.record.ndjson import Contents, RecordFile, line_of
from mcp_evals.record.read import RESULTS_FILE, read_results
from mcp_evals.session.records_file import RECORDS_FILE, read_records

DATA = Path(__file__).resolve().parent / "data"


class Head(RecordHeader):
    type: Literal["head"] = "head"
    schema_version: int = 3
    name: str = "test"


class Line(Record):
    type: Literal["line"] = "line"
    schema_version: int = 3
    n: int
    text: str = ""


KIND = RecordFile(Head, Line, noun="test record", made_by="the test")
HEAD = Head(tool_version="9.9.9")


def lines_of(path: Path) -> list[int]:
    return [line.n for line in KIND.read(path).records]


def written(path: Path, count: int) -> Path:
    with KIND.create(path, HEAD) as writer:
        for n in range(count):
            writer.write(Line(n=n))
    return path


def test_a_file_is_a_header_then_a_line_per_record_in_the_models_json(tmp_path: Path) -> None:
    path = written(tmp_path / "f.ndjson", 2)
    assert path.read_text("utf-8").splitlines() == [
        '{"type":"head","schema_version":3,"tool_version":"9.9.9","name":"test"}',
        '{"type":"line","schema_version":3,"n":0,"text":""}',
        '{"type":"line","schema_version":3,"n":1,"text":""}',
    ]
    contents = KIND.read(path)
    assert contents.headers == [HEAD] and contents.header_lines == [1] and lines_of(path) == [0, 1]


def test_a_torn_last_line_is_ignored_when_read_and_cut_before_appending(tmp_path: Path) -> None:
    path = written(tmp_path / "f.ndjson", 2)
    whole = path.read_bytes()
    path.write_bytes(whole + b'{"type":"line","schema_ver')  # killed mid-write
    assert lines_of(path) == [0, 1]
    with KIND.append(path) as writer:
        writer.write(Line(n=2))
    assert path.read_bytes() == whole + line_of(Line(n=2)).encode()
    assert lines_of(path) == [0, 1, 2]


def test_a_line_torn_inside_a_character_is_torn_not_a_file_that_is_not_utf8(tmp_path: Path) -> None:
    path = written(tmp_path / "f.ndjson", 1)
    whole = path.read_bytes()
    path.write_bytes(whole + line_of(Line(n=1, text="née")).encode()[:-6])  # cut inside "é"
    assert lines_of(path) == [0]
    KIND.append(path).close()
    assert path.read_bytes() == whole


def test_a_whole_last_line_without_its_newline_is_a_record_kept_when_appending(tmp_path: Path) -> None:
    path = written(tmp_path / "f.ndjson", 2)
    path.write_bytes(path.read_bytes().rstrip(b"\n"))  # copied or edited
    assert lines_of(path) == [0, 1]
    assert KIND.earlier(path) is not None and len(KIND.earlier(path).records) == 2  # type: ignore[union-attr]
    with KIND.append(path) as writer:
        writer.write(Line(n=2))
    assert lines_of(path) == [0, 1, 2] and path.read_bytes().count(b"\n") == 4


def test_lines_are_split_on_newlines_alone(tmp_path: Path) -> None:
    """U+2028, U+0085 and the other breaks ``str.splitlines`` knows are text inside a JSON string."""
    path = tmp_path / "f.ndjson"
    text = "a\u2028b\u2029c\x85d\x1ce\rf\x0bg"
    with KIND.create(path, HEAD) as writer:
        writer.write(Line(n=0, text=text))
    assert [line.text for line in KIND.read(path).records] == [text]


def test_blank_lines_and_crlf_line_ends_read(tmp_path: Path) -> None:
    path = tmp_path / "f.ndjson"
    path.write_bytes(b"\xef\xbb\xbf" + line_of(HEAD).encode() + b"\r\n\n  \n" + line_of(Line(n=7)).encode())
    assert lines_of(path) == [7]


def test_damage_before_the_last_line_is_bad_input_naming_the_line(tmp_path: Path) -> None:
    path = written(tmp_path / "f.ndjson", 2)
    lines = path.read_bytes().split(b"\n")
    lines[1] = lines[1][:20]
    path.write_bytes(b"\n".join(lines))
    with pytest.raises(InputFileError, match=r"f\.ndjson:2: not a JSON line$"):
        KIND.read(path)


def test_a_field_that_does_not_validate_names_file_line_and_field(tmp_path: Path) -> None:
    path = written(tmp_path / "f.ndjson", 1)
    path.write_text(path.read_text() + '{"type":"line","schema_version":3,"n":"three"}\n')
    with pytest.raises(InputFileError, match=r"f\.ndjson:3 \(n\): Input should be a valid integer"):
        KIND.read(path)


def test_another_schema_version_is_refused_for_reading_and_appending(tmp_path: Path) -> None:
    path = tmp_path / "f.ndjson"
    path.write_text('{"type":"head","schema_version":4,"tool_version":"10.0.0"}\n')
    with pytest.raises(InputFileError) as read:
        KIND.read(path)
    assert read.value.message == f"{path}:1: test record of schema version 4; this mcp-evals reads version 3"
    assert "tool_version" in (read.value.hint or "")
    with pytest.raises(InputFileError) as appended:
        KIND.append(path)
    assert appended.value.message == f"{read.value.message}: not appending to it"
    assert path.read_text() == '{"type":"head","schema_version":4,"tool_version":"10.0.0"}\n'  # untouched


def test_a_line_with_no_schema_version_is_not_a_record(tmp_path: Path) -> None:
    path = tmp_path / "f.ndjson"
    for text in ('{"type": "line"}\n', "[1, 2]\n", '{"type":"head","schema_version":true}\n'):
        path.write_text(text)
        with pytest.raises(InputFileError) as error:
            KIND.read(path)
        assert error.value.message == f"{path}:1: not a test record of schema version 3"
        assert error.value.hint == "give a file that the test wrote"


def test_a_file_of_another_kind_is_refused_for_reading_and_appending(tmp_path: Path) -> None:
    results = tmp_path / "results.ndjson"
    shutil.copy(DATA / "results-v1.ndjson", results)
    with pytest.raises(InputFileError) as read:
        RECORDS_FILE.read(results)
    assert read.value.message == (
        f"{results}:1: unknown line type 'run' (a session record is a 'header' or a 'session' line)"
    )
    assert read.value.hint == "give a file that `mcp-evals session` wrote"
    before = results.read_bytes()
    with pytest.raises(InputFileError, match=r"unknown line type 'run'.*: not appending to it"):
        RECORDS_FILE.append(results)
    assert results.read_bytes() == before
    with pytest.raises(InputFileError, match=r"sessions-v1\.ndjson:1: unknown line type 'header'"):
        read_results(DATA / "sessions-v1.ndjson")


def test_a_record_before_any_header_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "f.ndjson"
    path.write_text(line_of(Line(n=0)) + line_of(HEAD))
    with pytest.raises(InputFileError) as error:
        KIND.read(path)
    assert error.value.message == f"{path}:1: a 'line' line before any header line"
    with pytest.raises(InputFileError, match="before any header line: not appending to it"):
        KIND.append(path)


def test_a_header_only_file_has_no_records(tmp_path: Path) -> None:
    path = written(tmp_path / "f.ndjson", 0)
    assert KIND.read(path).headers == [HEAD] and lines_of(path) == []


def test_an_empty_file_has_no_header_to_read_and_nothing_to_resume(tmp_path: Path) -> None:
    path = tmp_path / "f.ndjson"
    assert KIND.earlier(path) is None  # no file
    for data in (b"", b"\n\n", b'{"type":"head","sche'):  # empty, blank, only a torn first line
        path.write_bytes(data)
        with pytest.raises(InputFileError) as error:
            KIND.read(path)
        assert error.value.message == f"{path}: no header line (is this a file the test wrote?)"
        assert KIND.earlier(path) is None
    with KIND.append(path) as writer:  # the torn first line is cut; a new run starts the file
        writer.write(HEAD)
    assert path.read_bytes() == line_of(HEAD).encode()


def test_runs_append_a_header_each(tmp_path: Path) -> None:
    path = written(tmp_path / "f.ndjson", 1)
    second = HEAD.model_copy(update={"name": "second"})
    with KIND.append(path) as writer:
        writer.write(second)
        writer.write(Line(n=1))
    contents = KIND.read(path)
    assert [header.name for header in contents.headers] == ["test", "second"]
    assert contents.header_lines == [1, 3] and lines_of(path) == [0, 1]


def test_append_makes_the_file_and_its_folders(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "f.ndjson"
    with KIND.append(path) as writer:
        writer.write(HEAD)
    assert KIND.read(path).headers == [HEAD]


def test_a_file_that_cannot_be_written_is_one_message(tmp_path: Path) -> None:
    (tmp_path / "folder.ndjson").mkdir()
    with pytest.raises(McpEvalsError, match=r"folder\.ndjson: cannot write the file"):
        KIND.append(tmp_path / "folder.ndjson")


def test_create_is_all_or_nothing(tmp_path: Path) -> None:
    path = written(tmp_path / "f.ndjson", 2)
    before = path.read_bytes()

    def failing() -> Iterator[Line]:
        yield Line(n=0)
        raise RuntimeError("a failure while the records are written")

    with pytest.raises(RuntimeError):
        KIND.create(path, HEAD, failing())
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["f.ndjson"]  # no temporary file left


def test_replace_header_keeps_every_line_after_it(tmp_path: Path) -> None:
    path = written(tmp_path / "f.ndjson", 3)
    path.write_bytes(path.read_bytes().rstrip(b"\n"))
    KIND.replace_header(path, HEAD.model_copy(update={"name": "amended"}))
    assert KIND.read(path).headers[0].name == "amended" and lines_of(path) == [0, 1, 2]


def test_concurrent_appends_from_several_writers_keep_every_line_whole(tmp_path: Path) -> None:
    """Each line is one write at the end of the file: writers in several threads (or processes) never
    interleave inside a line, however long the line (here up to about 200 KB)."""
    path = written(tmp_path / "f.ndjson", 0)
    texts = ["x" * 10, "y" * 70_000, "z" * 200_000]

    def append(worker: int) -> None:
        with KIND.append(path) as writer:
            for n in range(30):
                writer.write(Line(n=worker * 100 + n, text=texts[n % 3]))

    threads = [threading.Thread(target=append, args=(worker,)) for worker in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    records = KIND.read(path).records
    assert sorted(line.n for line in records) == sorted(w * 100 + n for w in range(4) for n in range(30))
    assert all(line.text == texts[line.n % 100 % 3] for line in records)


def test_a_closed_writer_says_so(tmp_path: Path) -> None:
    writer = KIND.create(tmp_path / "f.ndjson", HEAD)
    writer.close()
    writer.close()
    with pytest.raises(ValueError, match="closed"):
        writer.write(Line(n=0))


def test_a_kind_whose_models_differ_in_version_is_a_programming_error() -> None:
    class Other(Record):
        type: Literal["other"] = "other"
        schema_version: int = 4

    with pytest.raises(TypeError, match="schema_version"):
        RecordFile(Head, Other, noun="x", made_by="y")


# -- the files earlier mcp-evals wrote ---------------------------------------------------------------
# tests/record/data holds files written by the writers of commit a7e5340, before this layer: a results
# file (a header amended after the run, a retried dropout, a U+2028 in a model's text) and a session
# records file of two runs (two headers, two sessions).


def written_back(original: Any, again: Any) -> bool:
    """``again`` holds every key of ``original``, in its order, with the same values: what a model
    added since (a new optional field, written as its default) aside."""
    if isinstance(original, dict):
        keys = [key for key in again if key in original] if isinstance(again, dict) else []
        return keys == list(original) and all(written_back(original[key], again[key]) for key in keys)
    if isinstance(original, list):
        return (
            isinstance(again, list)
            and len(again) == len(original)
            and all(written_back(a, b) for a, b in zip(original, again, strict=True))
        )
    return type(original) is type(again) and bool(original == again)


@pytest.mark.parametrize(
    ("kind", "name", "headers", "records", "by_alias"),
    [
        (RESULTS_FILE, "results-v1.ndjson", 1, 4, True),  # as record/read.py's write_line wrote them
        (RECORDS_FILE, "sessions-v1.ndjson", 2, 2, False),  # as session's RecordsWriter did
    ],
)
def test_an_earlier_file_reads_and_writes_back_as_it_was(
    kind: RecordFile[Any, Any], name: str, headers: int, records: int, by_alias: bool, tmp_path: Path
) -> None:
    path = DATA / name
    contents: Contents[Any, Any] = kind.read(path)
    assert (len(contents.headers), len(contents.records)) == (headers, records)
    by_line = {number: header for number, header in zip(contents.header_lines, contents.headers, strict=True)}
    rest = iter(contents.records)
    lines = [line for line in path.read_bytes().decode("utf-8").split("\n") if line]
    for number, line in enumerate(lines, start=1):
        record = by_line[number] if number in by_line else next(rest)
        again = line_of(record)
        assert again == record.model_dump_json(by_alias=by_alias) + "\n"  # the old writers' bytes
        assert written_back(json.loads(line), json.loads(again)), f"{name}:{number}"

    copy = tmp_path / name  # and a run appends to it as to its own
    shutil.copy(path, copy)
    with kind.append(copy) as writer:
        writer.write(contents.records[-1])
    assert len(kind.read(copy).records) == records + 1


def test_an_earlier_results_file_reads_as_a_run() -> None:
    results = read_results(DATA / "results-v1.ndjson")
    assert results.header.notes == ["a note", "a late note"] and results.header.shard == "1/2"
    assert results.header.tool_version == "0.1.0"
    by_id = {(row.fixture_id, row.sample): row for row in results.results}
    assert len(by_id) == 3 and by_id[("create-priority", 0)].reached  # the retry beat the dropout
    assert "\u2028" in by_id[("create-basic", 0)].text
    raw = [json.loads(line) for line in (DATA / "results-v1.ndjson").read_bytes().split(b"\n") if line]
    assert raw[0]["baseline_only"] is False and "lexical" not in raw[0]  # the key it has always had
    assert all(isinstance(FixtureResult.model_validate(line), FixtureResult) for line in raw[1:])


def test_an_earlier_session_records_file_reads_as_sessions() -> None:
    records = read_records(DATA / "sessions-v1.ndjson")
    assert len(records.headers) == 2 and records.header.notes == ["resumed"]
    assert [record.status for record in records.sessions] == ["finished", "finished"]
    assert records.header.tool_version == "0.1.0"

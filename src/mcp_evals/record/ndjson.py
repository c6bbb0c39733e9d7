"""Record files: NDJSON, a header line and then one line per record, each appended as it is made.

The one writer and reader of the run's results files (compare's arms and merged shards are results
files too) and of the session records files; each kind is a ``RecordFile`` of its two models.

Every line is one JSON object with a ``type`` and a ``schema_version`` (``Record``); the first is a
header (``RecordHeader``), and a kind that appends runs to one file has one header per run. Lines
end with ``\\n`` and are split on it alone: a model's text may hold U+2028 or U+0085, on which
``str.splitlines`` would split a line in two.

What a killed process leaves: each line is one ``write`` to a file open for appending, handed to
the operating system at once (not fsynced: a killed process loses nothing it wrote; a power cut may
lose the last lines, as with any file). So at most the last line is torn: no newline after it, and
not JSON. Reading ignores it and appending cuts it first; a whole last line that only lacks its
newline (a copied or edited file) is a record like any other, read and kept. Any other damage is
bad input naming the file and line, and a file of another kind or schema version is read or
appended to by no one.
"""

from __future__ import annotations

import codecs
import json
import shutil
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import IO, Any, Generic, Literal, TypeVar

from pydantic import ValidationError

from mcp_evals.config.source import read_bytes
from mcp_evals.errors import InputFileError, where
from mcp_evals.files import append_to, atomic_write, cannot_write
from mcp_evals.record.model import Record, RecordHeader

if sys.platform != "win32":
    import fcntl

H = TypeVar("H", bound=RecordHeader)
R = TypeVar("R", bound=Record)
M = TypeVar("M", bound=Record)


def line_of(record: Record) -> str:
    """A record as one line of a record file, newline included (the wire format: the model's JSON)."""
    return record.model_dump_json() + "\n"


@dataclass
class Contents(Generic[H, R]):
    """A record file as read: its headers (with their line numbers) and its records, in file order."""

    path: Path
    headers: list[H] = field(default_factory=list)
    header_lines: list[int] = field(default_factory=list)
    records: list[R] = field(default_factory=list)


@dataclass(frozen=True)
class RecordFile(Generic[H, R]):
    """A kind of record file: its header and record models (each a ``type`` literal and a
    ``schema_version`` default, the same for both), and how messages name it."""

    header: type[H]
    record: type[R]
    noun: str  # one line of it, in messages: "results record"
    made_by: str  # the command that writes it: "`mcp-evals run`"

    def __post_init__(self) -> None:
        if _default(self.header, "schema_version") != _default(self.record, "schema_version"):
            raise TypeError(f"{self.noun}: the header and the record models differ in schema_version")

    @property
    def version(self) -> int:
        version = _default(self.header, "schema_version")
        assert isinstance(version, int)
        return version

    @property
    def header_type(self) -> str:
        return str(_default(self.header, "type"))

    @property
    def record_type(self) -> str:
        return str(_default(self.record, "type"))

    # -- reading -------------------------------------------------------------------------------

    def read(self, path: Path) -> Contents[H, R]:
        """Every whole line of ``path``; bad input (exit 3) naming the file and line for anything else."""
        found = self._contents(path, read_bytes(path))
        if not found.headers:
            raise InputFileError(f"{path}: no header line (is this a file {self.made_by} wrote?)")
        return found

    def earlier(self, path: Path) -> Contents[H, R] | None:
        """What a resumed run finds in ``path``: None when there is no file or not one whole line in it
        yet (a run killed while writing its first line), else what ``read`` gives."""
        if not path.exists():
            return None
        found = self._contents(path, read_bytes(path))
        return found if found.headers else None

    def _contents(self, path: Path, data: bytes) -> Contents[H, R]:
        found = Contents[H, R](path)
        for number, value in _values(path, data):
            if self._kind(path, number, value) == "header":
                found.headers.append(_validate(self.header, path, number, value))
                found.header_lines.append(number)
            elif not found.headers:
                raise self._before_header(path, number)
            else:
                found.records.append(_validate(self.record, path, number, value))
        return found

    def _kind(self, path: Path, number: int, value: Any) -> Literal["header", "record"]:
        """Which of this kind's lines ``value`` is; bad input for any other schema version or type."""
        version = value.get("schema_version") if isinstance(value, dict) else None
        if not isinstance(version, int) or isinstance(version, bool):
            raise InputFileError(
                f"{where(path, number)}: not a {self.noun} of schema version {self.version}",
                hint=self._hint,
            )
        if version != self.version:
            raise InputFileError(
                f"{where(path, number)}: {self.noun} of schema version {version}; "
                f"this mcp-evals reads version {self.version}",
                hint="read it with the mcp-evals that wrote it (the tool_version of its first line)",
            )
        kind = value.get("type")
        if kind == self.header_type:
            return "header"
        if kind == self.record_type:
            return "record"
        raise InputFileError(
            f"{where(path, number)}: unknown line type {kind!r} "
            f"(a {self.noun} is a {self.header_type!r} or a {self.record_type!r} line)",
            hint=self._hint,
        )

    def _before_header(self, path: Path, number: int) -> InputFileError:
        return InputFileError(
            f"{where(path, number)}: a {self.record_type!r} line before any header line", hint=self._hint
        )

    @property
    def _hint(self) -> str:
        return f"give a file that {self.made_by} wrote"

    # -- writing -------------------------------------------------------------------------------

    def write(self, path: Path, header: H, records: Iterable[R] = ()) -> None:
        """Write a whole file at once, replacing any: all of it or, on any failure, nothing."""
        with atomic_write(path, mode="wb") as stream:
            stream.write(line_of(header).encode("utf-8"))
            for record in records:
                stream.write(line_of(record).encode("utf-8"))

    def create(self, path: Path, header: H, records: Iterable[R] = ()) -> RecordWriter[H, R]:
        """A new file (``write``), then open to append the records still to come."""
        self.write(path, header, records)
        stream = append_to(path)
        _share(stream)
        return RecordWriter(path, stream)

    def append(self, path: Path) -> RecordWriter[H, R]:
        """Open ``path`` to append to, made if missing. A file whose first line is not this kind's
        header (another kind, another schema version) is refused; a torn last line is cut first, and a
        whole one without its newline gets it."""
        stream = append_to(path)
        try:
            alone = _lock(stream)
            stream.seek(0)
            data = stream.read()
            self._check_first(path, data)
            if alone and data and not data.endswith(b"\n"):  # else the line is another writer's, in flight
                start = data.rfind(b"\n") + 1
                if _value(data[start:]) is _NOT_JSON:
                    stream.truncate(start)
                else:
                    stream.write(b"\n")
            _share(stream)
        except OSError as error:
            stream.close()
            raise cannot_write(path, error) from None
        except BaseException:
            stream.close()
            raise
        return RecordWriter(path, stream)

    def _check_first(self, path: Path, data: bytes) -> None:
        """The first whole line of a file to append to is this kind's header, or it is refused."""
        try:
            first = next(_values(path, data), None)
            if first is None:
                return  # empty, or only a torn line: it is cut
            number, value = first
            if self._kind(path, number, value) != "header":
                raise self._before_header(path, number)
            _validate(self.header, path, number, value)
        except InputFileError as error:
            raise InputFileError(
                f"{error.message}: not appending to it",
                hint=f"move the file away, or give this run a place of its own ({self._hint})",
            ) from None

    def replace_header(self, path: Path, header: H) -> None:
        """Put ``header`` in place of a closed file's first line (the file is rewritten whole or not at
        all); every line after it stays as it was."""
        with path.open("rb") as source, atomic_write(path, mode="wb") as target:
            source.readline()
            target.write(line_of(header).encode("utf-8"))
            shutil.copyfileobj(source, target)


class RecordWriter(Generic[H, R]):
    """A record file open for appending: each record one line, one ``write``, at once with the OS."""

    def __init__(self, path: Path, stream: IO[bytes]) -> None:
        self.path = path
        self._stream: IO[bytes] | None = stream

    def write(self, record: H | R) -> None:
        if self._stream is None:
            raise ValueError(f"{self.path}: the record file is closed")
        data = memoryview(line_of(record).encode("utf-8"))
        try:
            while data:  # an unbuffered write may take less than all (a full disk, a signal)
                data = data[self._stream.write(data) :]
        except OSError as error:
            raise cannot_write(self.path, error) from None

    def close(self) -> None:
        if self._stream is not None:
            self._stream.close()
            self._stream = None

    def __enter__(self) -> RecordWriter[H, R]:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()


def _lock(stream: IO[bytes]) -> bool:
    """Lock a file opened to append to: alone (no other writer has it open: True, an exclusive lock,
    so its torn last line may be cut), or beside other writers (False, a shared lock)."""
    if sys.platform == "win32":
        return True  # no advisory locks: one writer per file at a time
    try:
        fcntl.flock(stream.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        fcntl.flock(stream.fileno(), fcntl.LOCK_SH)
        return False
    return True


def _share(stream: IO[bytes]) -> None:
    """Hold a shared lock while writing: the mark of a writer that a later one must not cut after."""
    if sys.platform != "win32":
        fcntl.flock(stream.fileno(), fcntl.LOCK_SH)


_NOT_JSON = object()


def _value(raw: bytes) -> Any:
    """A line's JSON value, or ``_NOT_JSON`` (not JSON, or not UTF-8: what a torn line is)."""
    try:
        return json.loads(raw.decode("utf-8"))
    except ValueError:  # JSONDecodeError and UnicodeDecodeError
        return _NOT_JSON


def _values(path: Path, data: bytes) -> Iterator[tuple[int, Any]]:
    """Each non-blank line's number and JSON value; a torn last line ends the file, any other line
    that is not JSON is bad input."""
    lines = data.removeprefix(codecs.BOM_UTF8).split(b"\n")
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        value = _value(raw)
        if value is _NOT_JSON:
            if number == len(lines):
                return  # torn: the process was killed mid-write; everything before it is whole
            raise InputFileError(f"{where(path, number)}: not a JSON line")
        yield number, value


def _validate(model: type[M], path: Path, number: int, value: Any) -> M:
    try:
        return model.model_validate(value)
    except ValidationError as error:
        first = error.errors()[0]
        location = ".".join(str(part) for part in first["loc"])
        raise InputFileError(f"{where(path, number, location)}: {first['msg']}") from None


def _default(model: type[Record], name: str) -> object:
    """A field's default: what every line of the model says (``type``, ``schema_version``)."""
    default = model.model_fields[name].default
    if not isinstance(default, (str, int)):
        raise TypeError(f"{model.__name__}.{name} needs a default: the record files are told apart by it")
    return default

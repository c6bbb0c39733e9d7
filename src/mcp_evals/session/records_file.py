"""The records folder: one NDJSON file per (date, git sha), appended and flushed session by session.

A killed run loses only the session in flight: every line before it is whole (a torn last line is
ignored when the file is read back). Resuming reads the file of today's date and this commit and
skips every session it holds as finished with the same setup (task, arm, fault level, prompt).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from pydantic import ValidationError

from mcp_evals.config.documents import read_text
from mcp_evals.errors import InputFileError, where
from mcp_evals.session.record import SESSION_SCHEMA_VERSION, SessionHeader, SessionRecord

DEFAULT_RESULTS_DIR = "mcp-evals-sessions"
_PREFIX = "sessions-"


def records_path(directory: Path, date: str, git_sha: str) -> Path:
    return directory / f"{_PREFIX}{date}-{git_sha[:12]}.ndjson"


@dataclass
class SessionRecords:
    """A records file: its headers (one per run started on it) and its sessions, in file order."""

    path: Path
    headers: list[SessionHeader] = field(default_factory=list)
    sessions: list[SessionRecord] = field(default_factory=list)

    @property
    def header(self) -> SessionHeader:
        return self.headers[-1]


def read_records(path: Path) -> SessionRecords:
    """Read a records file; a torn last line (a killed run) is ignored, any other damage is an error."""
    lines = read_text(path).splitlines()
    records = SessionRecords(path)
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        if not _whole(line):
            if number == len(lines):
                break  # torn: the writer cuts it before appending (_drop_torn_line)
            raise InputFileError(f"{where(path, number)}: not a JSON line") from None
        data = json.loads(line)
        if not isinstance(data, dict) or data.get("schema_version") != SESSION_SCHEMA_VERSION:
            raise InputFileError(
                f"{where(path, number)}: not a session record of schema version {SESSION_SCHEMA_VERSION}",
                hint="give a file that `mcp-evals session` wrote",
            )
        try:
            if data.get("type") == "header":
                records.headers.append(SessionHeader.model_validate(data))
            elif data.get("type") == "session":
                records.sessions.append(SessionRecord.model_validate(data))
            else:
                raise InputFileError(f"{where(path, number)}: unknown line type {data.get('type')!r}")
        except ValidationError as error:
            first = error.errors()[0]
            location = ".".join(str(part) for part in first["loc"])
            raise InputFileError(f"{where(path, number, location)}: {first['msg']}") from None
    if not records.headers:
        raise InputFileError(f"{path}: no header line (is this a records file of `mcp-evals session`?)")
    return records


def newest_records_file(directory: Path) -> Path:
    """The records file written last in a folder (what `session report DIR` reports on)."""
    files = sorted(directory.glob(f"{_PREFIX}*.ndjson"), key=lambda path: (path.stat().st_mtime, path.name))
    if not files:
        raise InputFileError(
            f"{directory}: no records file ({_PREFIX}DATE-SHA.ndjson) in this folder",
            hint="run `mcp-evals session --tasks …` first, or give the file itself",
        )
    return files[-1]


class RecordsWriter:
    """Appends lines to a records file, flushing each, so a killed run keeps every finished session."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._stream: IO[str] | None = None

    def write(self, line: SessionHeader | SessionRecord) -> None:
        if self._stream is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            _drop_torn_line(self.path)
            self._stream = self.path.open("a", encoding="utf-8")
        self._stream.write(line.model_dump_json() + "\n")
        self._stream.flush()

    def close(self) -> None:
        if self._stream is not None:
            self._stream.close()
            self._stream = None


def _whole(line: str | bytes) -> bool:
    """A line that is JSON: a record, counted when read back. Anything else on the last line is torn."""
    try:
        json.loads(line)
    except ValueError:  # JSONDecodeError, and bytes that are not UTF-8
        return False
    return True


def _drop_torn_line(path: Path) -> None:
    """Make the next line start on a line of its own: a last line a killed run left half-written is
    cut; a whole one that only lacks its newline (the file was copied, or edited) keeps its record,
    as reading it back did."""
    if not path.exists():
        return
    with path.open("rb+") as stream:
        data = stream.read()
        if data and not data.endswith(b"\n"):
            start = data.rfind(b"\n") + 1
            if _whole(data[start:]):
                stream.write(b"\n")
            else:
                stream.truncate(start)

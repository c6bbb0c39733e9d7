"""The records folder: one NDJSON file per (date, git sha), appended and flushed session by session.

A records file is a kind of record file (``record.ndjson``: a header line per run started on it,
then a line per session). A killed run loses only the session in flight: every line before it is
whole. Resuming reads the file of today's date and this commit and skips every session it holds as
finished with the same setup (task, arm, fault level, prompt).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from mcp_evals.errors import InputFileError
from mcp_evals.record.ndjson import RecordFile
from mcp_evals.session.record import SessionHeader, SessionRecord

DEFAULT_RESULTS_DIR = "mcp-evals-sessions"
_PREFIX = "sessions-"
RECORDS_FILE = RecordFile(SessionHeader, SessionRecord, noun="session record", made_by="`mcp-evals session`")


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
    contents = RECORDS_FILE.read(path)
    return SessionRecords(path, contents.headers, contents.records)


def newest_records_file(directory: Path) -> Path:
    """The records file written last in a folder (what `session report DIR` reports on)."""
    files = sorted(directory.glob(f"{_PREFIX}*.ndjson"), key=lambda path: (path.stat().st_mtime, path.name))
    if not files:
        raise InputFileError(
            f"{directory}: no records file ({_PREFIX}DATE-SHA.ndjson) in this folder",
            hint="run `mcp-evals session --tasks …` first, or give the file itself",
        )
    return files[-1]

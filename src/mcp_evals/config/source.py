"""What a parsed user file is (its data and the line of every key and item), and reading its text.

The YAML and JSON readers (``yaml_source``, ``json_source``) both return a ``Document``, so a later
message names ``file:line`` whichever format the person wrote.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcp_evals.errors import InputFileError, where
from mcp_evals.files import register_input

Location = tuple[str | int, ...]
MAX_FILE_BYTES = 64 * 1024 * 1024
MAX_DEPTH = 64


@dataclass
class Document:
    """A parsed file: its data and the line (1-based) of every mapping key and sequence item."""

    path: Path
    data: Any
    lines: dict[Location, int] = field(default_factory=dict)
    sources: dict[Location, str] = field(default_factory=dict)  # plain scalars YAML 1.1 reads oddly (yaml11)

    def line_of(self, location: Location) -> int | None:
        """The line of the deepest known part of ``location`` (a pydantic ``loc`` works too)."""
        parts = tuple(location)
        while parts:
            if parts in self.lines:
                return self.lines[parts]
            parts = parts[:-1]
        return self.lines.get(())


def read_text(path: Path) -> str:
    """Read a UTF-8 text file, or explain in one line why it cannot be read."""
    raw = read_bytes(path)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        raise InputFileError(
            f"{where(path, line)}: not valid UTF-8 (byte 0x{raw[error.start]:02x} at offset {error.start})",
            hint="save the file as UTF-8",
        ) from None


def read_bytes(path: Path) -> bytes:
    """Read a file a command was given (registered as its input), or explain in one line why not.

    Record files are read as bytes (``record.ndjson``): a killed writer may have cut the last line
    in the middle of a character, which is a torn line, not a file that is not UTF-8."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise InputFileError(f"{path}: file is {size} bytes; the limit is {MAX_FILE_BYTES}")
        raw = path.read_bytes()
        register_input(path)  # no output of this command may replace it (files.py)
    except FileNotFoundError:
        raise InputFileError(f"{path}: file not found") from None
    except IsADirectoryError:
        raise InputFileError(f"{path}: is a folder, not a file") from None
    except OSError as error:
        raise InputFileError(f"{path}: cannot read ({error.strerror})") from None
    return raw

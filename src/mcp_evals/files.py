"""Writing output files: completely or not at all, readable as the umask says, never over an input.

Three rules every command that writes follows:

* a file is written whole or not at all (``atomic_write``): a temporary file in the same folder,
  then an atomic rename, so a crash or a full disk leaves any earlier file untouched;
* a new file gets the permissions any other program would give it under the current umask (0644
  under 022), so a later CI step running as another user, or a web server, can read it;
* an output is never one of the command's own inputs (``refuse_inputs``), and a paid run checks that
  its outputs can be written before it spends anything (``check_writable``).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from functools import cache
from pathlib import Path
from typing import IO, Any

from mcp_evals.errors import ConfigError, McpEvalsError


@cache
def _new_file_mode() -> int:
    """The mode ``open()`` would give a new file: 0o666 minus the umask (read once per process)."""
    umask = os.umask(0o022)
    os.umask(umask)
    return 0o666 & ~umask


@contextmanager
def atomic_write(path: Path, *, mode: str = "w") -> Iterator[IO[Any]]:
    """Write a file completely or not at all: a failure leaves any earlier file untouched.

    An output path that cannot be written (a folder in the way, no permission, a full disk) is an
    ``McpEvalsError`` naming the path, not a traceback.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as error:
        raise _cannot_write(path, error) from None
    try:
        if hasattr(os, "fchmod"):  # mkstemp makes 0600 files, whatever the umask
            os.fchmod(handle, _new_file_mode())
        encoding = None if "b" in mode else "utf-8"
        with os.fdopen(handle, mode, encoding=encoding) as stream:
            yield stream
        os.replace(temporary, path)
    except OSError as error:
        Path(temporary).unlink(missing_ok=True)
        raise _cannot_write(path, error) from None
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _cannot_write(path: Path, error: OSError) -> McpEvalsError:
    return McpEvalsError(
        f"{path}: cannot write the file ({error.strerror or error})",
        hint="choose another path, or check that its folder is writable",
    )


def _same_file(a: Path, b: Path) -> bool:
    with suppress(OSError):
        if a.exists() and b.exists():
            return a.samefile(b)
    return a.resolve() == b.resolve()


def refuse_inputs(output: Path, inputs: Mapping[str, Path | None], *, what: str = "the output") -> None:
    """Bad input (exit 3) when ``output`` is one of the command's ``inputs`` (label → path)."""
    for label, source in inputs.items():
        if source is not None and _same_file(output, source):
            raise ConfigError(
                f"{what} {output} is also {label} this command reads: writing it would replace it",
                hint="choose another output path",
            )


def check_writable(path: Path) -> None:
    """Fail now, naming the path, when ``path`` could not be written later (before anything is spent).

    Creates nothing: the nearest folder that exists must let us create the rest.
    """
    if path.is_dir():
        raise _cannot_write(path, IsADirectoryError(21, "a folder is in the way"))
    existing = path.parent
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise _cannot_write(path, NotADirectoryError(20, f"{existing} is a file, not a folder"))
    if existing != path.parent:
        if not os.access(existing, os.W_OK | os.X_OK):
            raise _cannot_write(path, PermissionError(13, f"cannot create folders in {existing}"))
        return
    try:
        handle, probe = tempfile.mkstemp(dir=existing, prefix=f".{path.name}.", suffix=".probe")
    except OSError as error:
        raise _cannot_write(path, error) from None
    os.close(handle)
    Path(probe).unlink(missing_ok=True)

"""Writing output files: completely or not at all, readable as the umask says, never over an input.

Three rules every command that writes follows:

* a file is written whole or not at all (``atomic_write``): a temporary file in the same folder,
  then an atomic rename, so a crash or a full disk leaves any earlier file untouched;
* a new file gets the permissions any other program would give it under the current umask (0644
  under 022), so a later CI step running as another user, or a web server, can read it;
* an output is never one of the command's own inputs, and a paid run checks that its outputs can be
  written before it spends anything (``check_writable``).

Every file a command reads goes through one reader (``config.documents.read_text``: the config, the
fixtures, contract cases, task sets, snapshots, the lock, results and records files) or the history
database's opener, and each registers it here (``register_input``). ``atomic_write`` and
``refuse_inputs`` consult that registry, so no ``--out`` can replace an input — through a symlink or
a hard link either — unless the command updates that file on purpose (``updates``: the lock, a
resumed results file, a fixture file ``synth`` appends to). The CLI starts each command with an
empty registry (``forget_inputs``).
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


# What this process has read: each file by its identity (device and inode, else its resolved path),
# with the path as it was read and how (a document, a database); and the inputs a command updates on
# purpose.
_READ: dict[tuple[int, int] | Path, tuple[Path, str]] = {}
_UPDATED: set[tuple[int, int] | Path] = set()


def _identity(path: Path) -> tuple[int, int] | Path:
    try:
        found = path.stat()
    except (OSError, ValueError):
        return Path(os.path.abspath(path)).resolve()
    return (found.st_dev, found.st_ino)


_guarding = False


@contextmanager
def command_inputs() -> Iterator[None]:
    """While one command runs (the CLI wraps each in this): what it reads is registered and guarded.

    Outside it — library use, a test between two commands — nothing is registered: a program that
    reads a snapshot and writes it back on purpose is not refused.
    """
    global _guarding
    forget_inputs()
    _guarding = True
    try:
        yield
    finally:
        _guarding = False
        forget_inputs()


def register_input(path: Path, *, kind: str = "document") -> None:
    """Remember that this command read ``path``: no output may replace it (see the module's docstring)."""
    if _guarding:
        _READ.setdefault(_identity(path), (path, kind))


def input_kind(path: Path) -> str | None:
    """How this process read ``path`` (``register_input``'s kind), or None when it did not."""
    found = _READ.get(_identity(path))
    return None if found is None else found[1]


def updates(path: Path) -> None:
    """The command rewrites this input on purpose (the lock it refreshes, the results file it resumes)."""
    if _guarding:
        _UPDATED.add(_identity(path))


def forget_inputs() -> None:
    """Nothing read yet (a new command; tests run many commands per process)."""
    _READ.clear()
    _UPDATED.clear()


def read_input(path: Path) -> Path | None:
    """The input ``path`` is (as it was read), when this process read it and does not update it on purpose."""
    identity = _identity(path)
    found = None if identity in _UPDATED else _READ.get(identity)
    return None if found is None else found[0]


@contextmanager
def atomic_write(path: Path, *, mode: str = "w", what: str = "the output") -> Iterator[IO[Any]]:
    """Write a file completely or not at all: a failure leaves any earlier file untouched.

    An output path that cannot be written (a folder in the way, no permission, a full disk) is an
    ``McpEvalsError`` naming the path, not a traceback; one this command read is bad input (exit 3).
    """
    refuse_inputs(path, what=what)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as error:
        raise cannot_write(path, error) from None
    try:
        if hasattr(os, "fchmod"):  # mkstemp makes 0600 files, whatever the umask
            os.fchmod(handle, _new_file_mode())
        encoding = None if "b" in mode else "utf-8"
        with os.fdopen(handle, mode, encoding=encoding) as stream:
            yield stream
        os.replace(temporary, path)
    except OSError as error:
        Path(temporary).unlink(missing_ok=True)
        raise cannot_write(path, error) from None
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def append_to(path: Path) -> IO[bytes]:
    """Open ``path`` to append to (and read), made with its folders if missing, unbuffered: each
    ``write`` is one system call at the end of the file, so whole lines appended by several writers
    never interleave. A path that cannot be written is an ``McpEvalsError`` naming it."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        return path.open("ab+", buffering=0)
    except OSError as error:
        raise cannot_write(path, error) from None


def cannot_write(path: Path, error: OSError) -> McpEvalsError:
    """The one message for an output that cannot be written: the path, the reason, what to do."""
    return McpEvalsError(
        f"{path}: cannot write the file ({error.strerror or error})",
        hint="choose another path, or check that its folder is writable",
    )


def same_file(a: Path, b: Path) -> bool:
    """The same file (through links too), or the same path when either does not exist."""
    with suppress(OSError):
        if a.exists() and b.exists():
            return a.samefile(b)
    return a.resolve() == b.resolve()


def refuse_inputs(
    output: Path, inputs: Mapping[str, Path | None] | None = None, *, what: str = "the output"
) -> None:
    """Bad input (exit 3) when ``output`` is one of the command's ``inputs`` (label → path), or any
    file this process has read (``register_input``) and does not update on purpose."""
    for label, source in (inputs or {}).items():
        if source is not None and same_file(output, source):
            raise ConfigError(
                f"{what} {output} is also {label} this command reads: writing it would replace it",
                hint="choose another output path",
            )
    source = read_input(output)
    if source is not None:
        also = "" if str(source) == str(output) else f" ({source})"
        raise ConfigError(
            f"{what} {output} is also a file this command reads{also}: writing it would replace it",
            hint="choose another output path",
        )


def check_writable(path: Path) -> None:
    """Fail now, naming the path, when ``path`` could not be written later (before anything is spent).

    Creates nothing: the nearest folder that exists must let us create the rest.
    """
    if path.is_dir():
        raise cannot_write(path, IsADirectoryError(21, "a folder is in the way"))
    existing = path.parent
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise cannot_write(path, NotADirectoryError(20, f"{existing} is a file, not a folder"))
    if existing != path.parent:
        if not os.access(existing, os.W_OK | os.X_OK):
            raise cannot_write(path, PermissionError(13, f"cannot create folders in {existing}"))
        return
    try:
        handle, probe = tempfile.mkstemp(dir=existing, prefix=f".{path.name}.", suffix=".probe")
    except OSError as error:
        raise cannot_write(path, error) from None
    os.close(handle)
    Path(probe).unlink(missing_ok=True)

"""Writing output files: completely or not at all."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from mcp_evals.errors import McpEvalsError


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

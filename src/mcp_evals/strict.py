"""The one strict base model: an unknown key is an error, never a silently ignored setting.

Everything read from a file a person or a run wrote (the config, fixtures, results, baselines,
reports) is parsed into subclasses of it, so a typo fails loudly with its file and line.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Self

from pydantic import BaseModel, ConfigDict, PrivateAttr


class StrictModel(BaseModel):
    model_config = ConfigDict(extra="forbid")


class FileModel(StrictModel):
    """A strict model read from one file: it remembers the file and the line of every key in it,
    so a later message can name ``file:line (field)`` (the config, a contract case)."""

    _path: Path = PrivateAttr(default=Path())
    _shown: str = PrivateAttr(default="")
    _lines: dict[tuple[str | int, ...], int] = PrivateAttr(default_factory=dict)

    def located(self, path: Path, shown: str, lines: Mapping[tuple[str | int, ...], int]) -> Self:
        """Remember where this was read: the resolved ``path``, the path as the user named it, the lines."""
        self._path = path
        self._shown = shown
        self._lines = dict(lines)
        return self

    @property
    def path(self) -> Path:
        return self._path

    @property
    def shown_path(self) -> str:
        """The file as the user named it: what messages show (``path`` is absolute)."""
        return self._shown

    def line_of(self, location: tuple[str | int, ...]) -> int | None:
        """The line of the deepest known part of a key path such as ``("validation", "min_areas")``."""
        parts = tuple(location)
        while parts:
            if parts in self._lines:
                return self._lines[parts]
            parts = parts[:-1]
        return None

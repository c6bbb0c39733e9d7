"""What an import writes, and what it says: the files (all or none, never over an existing one) and
the report of what mapped with a change of meaning and what could not be mapped."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml

from mcp_evals.errors import ConfigError
from mcp_evals.files import atomic_write, refuse_inputs

CONFIG_SCHEMA = "https://raw.githubusercontent.com/sbissoli/mcp-evals/v1/schemas/config.schema.json"
FIXTURES_SCHEMA = "https://raw.githubusercontent.com/sbissoli/mcp-evals/v1/schemas/fixtures.schema.json"
CONTRACT_SCHEMA = "https://raw.githubusercontent.com/sbissoli/mcp-evals/v1/schemas/contract.schema.json"
Mapped = Literal["same", "changed", "refused"]


@dataclass(frozen=True)
class Key:
    """One row of a peer's mapping table: their key, ours, and how it maps (docs/migrating.md)."""

    theirs: str
    ours: str
    mapped: Mapped
    why: str = ""


@dataclass
class Imported:
    """The files an import writes (path → text, in order) and what it has to say about them."""

    files: dict[Path, str] = field(default_factory=dict)
    changed: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    summary: list[str] = field(default_factory=list)

    def change(self, text: str) -> None:
        if text not in self.changed:
            self.changed.append(text)

    def refuse(self, text: str) -> None:
        if text not in self.refused:
            self.refused.append(text)

    def report(self) -> list[str]:
        """What the command prints: what was written, what changed meaning, what was not mapped."""
        lines = [f"wrote {path}" for path in self.files] + self.summary
        lines += [f"changed: {text}" for text in self.changed]
        lines += [f"not mapped: {text}" for text in self.refused]
        return lines


def write(imported: Imported, inputs: Mapping[str, Path | None]) -> None:
    """Write every file, or none: an existing file (or one of the inputs) stops the import first."""
    existing = [path for path in imported.files if path.exists() or path.is_symlink()]
    if existing:
        raise ConfigError(
            f"{existing[0]} exists: an import never writes over a file",
            hint="import into an empty folder (--out DIR), or move the existing files away",
        )
    for path in imported.files:
        refuse_inputs(path, inputs, what="the imported file")
    written: list[Path] = []
    try:
        for path, text in imported.files.items():
            with atomic_write(path) as stream:
                stream.write(text)
            written.append(path)
    except BaseException:
        for path in written:
            path.unlink(missing_ok=True)
        raise


def dump(body: Any, *, schema: str | None = None, comment: str = "") -> str:
    """A YAML document as our files are written: keys in order, text as it is, a schema modeline."""
    text = yaml.safe_dump(body, sort_keys=False, allow_unicode=True, width=100)
    head = f"# yaml-language-server: $schema={schema}\n" if schema else ""
    notes = "".join(f"# {line}\n" if line else "#\n" for line in comment.splitlines())
    return head + notes + text


_SLUG = re.compile(r"[^a-z0-9]+")


def slug(text: str, taken: set[str], *, fallback: str = "item", limit: int = 60) -> str:
    """A file-name and id-safe name for ``text``, unique among ``taken`` (which it joins)."""
    base = _SLUG.sub("-", text.lower()).strip("-")[:limit].strip("-") or fallback
    name, number = base, 2
    while name in taken:
        name, number = f"{base}-{number}", number + 1
    taken.add(name)
    return name


def mapping(value: Any) -> dict[str, Any]:
    """``value`` when it is a mapping, else an empty one (a peer's optional block)."""
    return value if isinstance(value, dict) else {}


def relative(path: Path, start: Path) -> str:
    """``path`` as the written config should name it: relative to the config's folder."""
    return Path(os.path.relpath(path.resolve(), start.resolve())).as_posix()

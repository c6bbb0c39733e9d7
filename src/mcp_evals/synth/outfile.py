"""The synthesized fixture file: written new, or appended to, never rewritten.

A second ``mcp-evals synth`` into the same file leaves every line already there as it was (the test
split above all: it is frozen, so descriptions cannot be tuned against it) and appends new fixtures
at the end of the ``fixtures:`` list. The result is read back before it replaces the file: an
append that would not parse to the old fixtures plus the new ones is refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from mcp_evals.errors import InputFileError
from mcp_evals.files import atomic_write
from mcp_evals.fixtures.load import load_fixture_file
from mcp_evals.fixtures.model import Fixture

_FIELD_ORDER = (
    "id",
    "query",
    "kind",
    "expected_tools",
    "area",
    "pattern",
    "expected_args",
    "origin",
    "split",
    "notes",
)


def read_existing(path: Path) -> list[Fixture]:
    """The fixtures already in ``path`` (none when it does not exist)."""
    return load_fixture_file(path) if path.exists() else []


def fixture_entry(fixture: Fixture) -> dict[str, Any]:
    """A fixture as the file holds it: only what is set, in a fixed, readable order."""
    data = fixture.model_dump(mode="json", exclude_defaults=True, exclude={"source"})
    if fixture.kind != "select":
        data["kind"] = fixture.kind
    return {key: data[key] for key in _FIELD_ORDER if key in data}


class _Dumper(yaml.SafeDumper):
    """Block mappings; a list of plain values on one line (``expected_tools: [get_invoice]``)."""


def _represent_list(dumper: yaml.SafeDumper, data: list[Any]) -> yaml.Node:
    flat = all(not isinstance(item, dict | list) for item in data)
    return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=flat)


_Dumper.add_representer(list, _represent_list)


def _entries_text(fixtures: Sequence[Fixture], indent: str) -> str:
    entries = [fixture_entry(fixture) for fixture in fixtures]
    text = yaml.dump(
        entries, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=10_000, default_flow_style=False
    )
    lines = []
    for line in text.splitlines():
        lines.append(f"{indent}{line}" if line else line)
        if line.startswith("- ") and len(lines) > 1:
            lines.insert(-1, "")  # a blank line between fixtures
    return "\n".join(lines) + "\n"


def _item_indent(path: Path, text: str, first: Fixture) -> str:
    line_number = first.source.line if first.source is not None else None
    lines = text.splitlines()
    if line_number is None or not 1 <= line_number <= len(lines):
        raise InputFileError(f"{path}: cannot find where its fixtures start, so cannot append safely")
    line = lines[line_number - 1]
    dash = line.find("- ")
    if dash < 0 or line[:dash].strip():
        raise InputFileError(
            f"{path}:{line_number}: the fixtures are not a block list ('- id: …'), so cannot append safely",
            hint="write the synthesized fixtures to a new file with --out",
        )
    return line[:dash]


def write_fixtures(path: Path, new: Sequence[Fixture], existing: Sequence[Fixture], header: str) -> None:
    """Append ``new`` to ``path`` (or create it with ``header`` comment lines), atomically."""
    if existing:
        old_text = path.read_text("utf-8")
        indent = _item_indent(path, old_text, existing[0])
        text = old_text if old_text.endswith("\n") else old_text + "\n"
        text += "\n" + _entries_text(new, indent) if new else ""
    else:
        comments = "".join(f"# {line}\n".replace("# \n", "#\n") for line in header.splitlines())
        text = comments + "fixtures:\n" + (_entries_text(new, "  ") if new else "  []\n")
    check = path.with_name(f".{path.name}.synth-check")
    try:
        with atomic_write(check) as stream:
            stream.write(text)
        written = load_fixture_file(check)
        expected = [(fixture.id, fixture.hash) for fixture in [*existing, *new]]
        if [(fixture.id, fixture.hash) for fixture in written] != expected:
            raise InputFileError(
                f"{path}: appending would not read back as the old fixtures plus the new ones; "
                "nothing was written",
                hint="write the synthesized fixtures to a new file with --out",
            )
        check.replace(path)
    finally:
        check.unlink(missing_ok=True)

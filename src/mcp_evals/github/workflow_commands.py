"""GitHub Actions workflow commands: ``::error file=…,line=…,title=…::message`` annotations.

Everything written here may carry untrusted text (fixture ids, queries, tool names from a server,
model output), so every value is escaped per the workflow-command rules: ``%``, ``\\r`` and ``\\n``
in the message; additionally ``:`` and ``,`` in properties. An unescaped newline would let that text
start a command of its own (``::add-mask::``, ``::stop-commands::`` …).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

Level = Literal["error", "warning", "notice"]


def in_github_actions(environ: Mapping[str, str] | None = None) -> bool:
    """True when running as a GitHub Actions step (``GITHUB_ACTIONS=true``)."""
    return (os.environ if environ is None else environ).get("GITHUB_ACTIONS") == "true"


def escape_data(text: str) -> str:
    """Escape a command's message."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape a command property's value (``file``, ``title`` …)."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def workflow_command(command: str, message: str = "", **properties: str | int | None) -> str:
    """One workflow command line, e.g. ``workflow_command("group", "Validate")`` → ``::group::Validate``."""
    given = ",".join(
        f"{key}={escape_property(str(value))}" for key, value in properties.items() if value is not None
    )
    return f"::{command}{' ' + given if given else ''}::{escape_data(message)}"


def relative_to_workspace(file: str, environ: Mapping[str, str] | None = None) -> str:
    """Annotations need repository-relative paths: make a path inside the workspace relative to it.

    A relative path is taken from the current folder, so a step with a `working-directory:` still
    annotates `evals/fixtures/a.yaml`, not `fixtures/a.yaml` (which GitHub would not find).
    """
    workspace = (os.environ if environ is None else environ).get("GITHUB_WORKSPACE")
    if not workspace:
        return file
    path = Path(file)
    try:
        return (Path.cwd() / path).resolve().relative_to(Path(workspace).resolve()).as_posix()
    except (ValueError, OSError):
        return file


def annotation(
    level: Level,
    message: str,
    *,
    file: str | None = None,
    line: int | None = None,
    end_line: int | None = None,
    col: int | None = None,
    end_column: int | None = None,
    title: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> str:
    """An ``::error``/``::warning``/``::notice`` line that GitHub shows on the file and line given."""
    return workflow_command(
        level,
        message,
        file=relative_to_workspace(file, environ) if file else None,
        line=line,
        endLine=end_line,
        col=col,
        endColumn=end_column,
        title=title,
    )

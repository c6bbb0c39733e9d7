"""Isolation as written and as it came out: the sandbox variable, `state:`, `setup:`, `teardown:`, and
the record of what one run's isolation came to.

The config, a contract case and a session task set each may declare ``state`` (files or folders
copied into every run's sandbox), ``setup`` and ``teardown`` (commands, or tool calls on the
server). A case's or a task set's key replaces the config's. Plain data here: ``servers.sandbox``
does the work, and contract and session records keep an ``IsolationReport`` for every run.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from mcp_evals.config.unions import ByShape
from mcp_evals.durations import Seconds
from mcp_evals.errors import InputFileError, where
from mcp_evals.strict import FileModel, StrictModel

SANDBOX_VARIABLE = "MCP_EVALS_SANDBOX"
SANDBOX_REFERENCE = "${" + SANDBOX_VARIABLE + "}"

DEFAULT_HOOK_TIMEOUT = 60.0
SHARED_WRITE = (
    "wrote to a shared store that later runs will see (keep it under "
    + SANDBOX_REFERENCE
    + ", or reset it in setup/teardown)"
)


def checked_environment(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment ``${VAR}`` is checked against before any server starts: the caller's, with
    ``MCP_EVALS_SANDBOX`` set, as it is for every server a run starts (its value comes per run)."""
    return {**(os.environ if environ is None else environ), SANDBOX_VARIABLE: "sandbox"}


class StateCopy(StrictModel):
    """A file or folder copied into the sandbox under another name."""

    source: str = Field(
        alias="from", min_length=1, description="The file or folder, relative to the file naming it."
    )
    to: str = Field(min_length=1, description="Where it goes, relative to the sandbox (e.g. memory.jsonl).")

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    @field_validator("to")
    @classmethod
    def _inside(cls, value: str) -> str:
        path = PurePosixPath(value.replace("\\", "/"))
        if path.is_absolute() or ".." in path.parts or Path(value).is_absolute():
            raise ValueError("`to` is a path inside the sandbox: relative, without `..`")
        return value


StateEntry = Annotated[str | StateCopy, ByShape()]


class Hook(StrictModel):
    """One setup or teardown action: a command (`run`) or a tool call on the server (`tool`)."""

    run: Annotated[str | list[str] | None, ByShape()] = Field(
        None,
        description="A command: a string runs in the shell (sh -c), a list is the program and its "
        "arguments. It gets PATH, HOME, locale, MCP_EVALS_SANDBOX and its `env`.",
    )
    tool: str | None = Field(None, min_length=1, description="A tool of the server to call, by its own name.")
    arguments: dict[str, Any] = Field(default_factory=dict, description="The tool call's arguments.")
    env: dict[str, str] = Field(
        default_factory=dict, description="Extra environment of the command; `${VAR}` expands."
    )
    cwd: str | None = Field(
        None,
        description="The command's working folder, relative to the file naming it (default: its folder).",
    )
    timeout: Seconds = Field(
        DEFAULT_HOOK_TIMEOUT,
        gt=0,
        description="How long before it counts as failed (seconds, or 500ms, 30s, 2m).",
    )

    @model_validator(mode="after")
    def _one_action(self) -> Hook:
        if (self.run is None) == (self.tool is None):
            raise ValueError("give exactly one of `run` (a command) or `tool` (a tool call)")
        if self.run is not None and self.arguments:
            raise ValueError("`arguments` go with `tool`, not with `run`")
        if self.tool is not None and (self.env or self.cwd):
            raise ValueError("`env` and `cwd` go with `run`, not with `tool`")
        if isinstance(self.run, list) and not self.run:
            raise ValueError("`run` as a list needs at least the program")
        return self

    @property
    def shown(self) -> str:
        """How messages name it: the command line, or the tool."""
        if self.tool is not None:
            return f"tool {self.tool}"
        return self.run if isinstance(self.run, str) else " ".join(self.run or [])


HookEntry = Annotated[str | Hook, ByShape()]


def as_hook(entry: str | Hook) -> Hook:
    """A plain string is a shell command."""
    return Hook(run=entry) if isinstance(entry, str) else entry


def state_field() -> Any:
    return Field(
        None,
        description="Files or folders copied into each run's sandbox (${MCP_EVALS_SANDBOX}) before it "
        "starts: a path (copied under its own name) or {from, to}.",
    )


def setup_field() -> Any:
    return Field(
        None,
        description="Run before each case or session: commands (a string, or {run, env, cwd, timeout}) "
        "before the server starts, then tool calls ({tool, arguments}) on it.",
    )


def teardown_field() -> Any:
    return Field(
        None,
        description="Run after each case or session, whatever happened: tool calls while the server is "
        "still open, then commands after it stopped. A failure is reported.",
    )


def check_state(owner: FileModel, entries: list[str | StateCopy] | None) -> None:
    """Every `state:` path exists (bad input before anything runs, with its file and line)."""
    for index, entry in enumerate(entries or []):
        source = entry if isinstance(entry, str) else entry.source
        path = Path(source).expanduser()
        resolved = path if path.is_absolute() else owner.path.parent / path
        if not resolved.exists():
            location: tuple[str | int, ...] = ("state", index)
            raise InputFileError(
                f"{where(owner.shown_path, owner.line_of(location), f'state[{index}]')}: {source!r} does not "
                f"exist (looked for {resolved})",
                hint="a `state:` path is relative to the file that names it",
            )


# --------------------------------------------------------------------------- what it came to

IsolationKind = Literal["sandbox", "setup/teardown", "sandbox + setup/teardown", "fresh process", "shared"]

KIND_MEANING: dict[str, str] = {
    "sandbox": "a fresh folder for each run, named ${MCP_EVALS_SANDBOX} to the server, removed afterwards",
    "setup/teardown": "the setup runs before each run and the teardown after it",
    "sandbox + setup/teardown": "a fresh folder for each run, with its setup before and teardown after it",
    "fresh process": "a new server process for each run; files it writes outside a sandbox are shared",
    "shared": "results may depend on order",
}


def isolation_statement(kind: IsolationKind) -> str:
    """``isolation: sandbox — a fresh folder …``: how reports and commands state it."""
    return f"isolation: {kind} — {KIND_MEANING[kind]}"


class IsolationReport(BaseModel):
    """How one run (a contract case, a session) was kept apart from the others, and what went wrong."""

    kind: IsolationKind
    sandbox: str | None = Field(None, description="The sandbox folder, when kept (--keep-sandbox).")
    setup_error: str | None = Field(None, description="Why the setup failed (the run did not happen).")
    teardown_errors: list[str] = Field(default_factory=list, description="Teardown actions that failed.")
    shared_writes: list[str] = Field(
        default_factory=list, description="Files outside the sandbox the run created, changed or removed."
    )
    unmarked_calls: list[str] = Field(
        default_factory=list,
        description="Tools called on a shared server that are not marked read-only (readOnlyHint).",
    )

    @property
    def failed(self) -> bool:
        """A setup or teardown failed: this run, or the next, did not start from the known state."""
        return self.setup_error is not None or bool(self.teardown_errors)

    @property
    def warnings(self) -> list[str]:
        """Each problem as a sentence: setup and teardown failures, then writes to a shared store."""
        lines = []
        if self.setup_error is not None:
            lines.append(f"setup failed: {self.setup_error}")
        lines += [f"teardown failed: {error}" for error in self.teardown_errors]
        if self.shared_writes:
            shown = ", ".join(self.shared_writes[:3])
            more = f" and {len(self.shared_writes) - 3} more" if len(self.shared_writes) > 3 else ""
            lines.append(f"{SHARED_WRITE}: {shown}{more}")
        if self.unmarked_calls:
            lines.append(
                "called tools not marked read-only on a shared server (later runs may see what they "
                f"changed): {', '.join(self.unmarked_calls)}"
            )
        return lines

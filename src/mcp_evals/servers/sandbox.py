"""The sandbox of one run: a fresh folder, the server config pointed at it, seeded state, setup and
teardown commands, and the watch on what a server writes outside it.

Every contract case and every session (each arm × task × repeat) runs in a sandbox of its own: a
new temporary folder, named to the server as ``${MCP_EVALS_SANDBOX}`` (in ``args``, ``env``, ``cwd``,
``url``, ``headers``), seeded with the ``state:`` files, removed afterwards unless kept. A stdio server
whose state lives under that path starts every run from the same known data by construction.
``servers.isolated`` runs the whole sequence around a session; ``servers.client`` gives a server
started only to list its tools (a catalog, a validation) a throwaway sandbox, so the variable is
always set.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import anyio
import anyio.abc

from mcp_evals.config.isolation import (
    SANDBOX_VARIABLE,
    Hook,
    IsolationKind,
    StateCopy,
    as_hook,
)
from mcp_evals.config.model import Config, ServerConfig
from mcp_evals.errors import McpEvalsError
from mcp_evals.servers.stdio import _terminate_group, _working_directory, server_environment

SANDBOX_PREFIX = "mcp-evals-sandbox-"
# `${MCP_EVALS_SANDBOX}` (and `${MCP_EVALS_SANDBOX:-…}`, always set here); `$$` is left as it is.
_REFERENCE = re.compile(r"\$\$|\$\{" + SANDBOX_VARIABLE + r"(?::-[^}]*)?\}")
_OUTPUT_TAIL_LINES = 8
# Folders never watched for writes: installed code, caches, version control, our own history (and
# sandboxes, which are named SANDBOX_PREFIX…).
_UNWATCHED = frozenset(
    {
        "node_modules",
        ".git",
        ".hg",
        ".svn",
        ".venv",
        "venv",
        "__pycache__",
        ".mypy_cache",
        ".ruff_cache",
        ".pytest_cache",
        ".tox",
        ".mcp-evals",
    }
)
WATCH_LIMIT = 2000  # files in one watched folder; a bigger folder is not watched


class SetupFailed(McpEvalsError):
    """The setup did not complete: the run must not happen (its teardown still runs)."""


class Declares(Protocol):
    """A file that may declare isolation: the config, a contract case, a session task set."""

    @property
    def state(self) -> Sequence[str | StateCopy] | None: ...
    @property
    def setup(self) -> Sequence[str | Hook] | None: ...
    @property
    def teardown(self) -> Sequence[str | Hook] | None: ...


@dataclass(frozen=True)
class PlacedHook:
    """A setup or teardown action and the folder of the file that declared it."""

    hook: Hook
    base: Path


@dataclass(frozen=True)
class Isolation:
    """What a run's isolation is made of: the state to copy, the setup and teardown, keep or not."""

    state: tuple[tuple[Path, str], ...] = ()  # (the file or folder, its place in the sandbox)
    setup: tuple[PlacedHook, ...] = ()
    teardown: tuple[PlacedHook, ...] = ()
    keep: bool = False

    @classmethod
    def layered(cls, *layers: tuple[Declares | None, Path], keep: bool = False) -> Isolation:
        """The keys of each layer (config, then case or task set) replace the earlier layer's; paths
        are relative to the folder given with the layer (its file's)."""
        state: tuple[tuple[Path, str], ...] = ()
        setup: tuple[PlacedHook, ...] = ()
        teardown: tuple[PlacedHook, ...] = ()
        for owner, base in layers:
            if owner is None:
                continue
            if owner.state is not None:
                state = tuple(_placed_state(entry, base) for entry in owner.state)
            if owner.setup is not None:
                setup = tuple(PlacedHook(as_hook(entry), base) for entry in owner.setup)
            if owner.teardown is not None:
                teardown = tuple(PlacedHook(as_hook(entry), base) for entry in owner.teardown)
        return cls(state, setup, teardown, keep)

    @property
    def hooks(self) -> bool:
        return bool(self.setup or self.teardown)


def _placed_state(entry: str | StateCopy, base: Path) -> tuple[Path, str]:
    source = entry if isinstance(entry, str) else entry.source
    path = Path(source).expanduser()
    resolved = path if path.is_absolute() else base / path
    return resolved, resolved.name if isinstance(entry, str) else entry.to


# --------------------------------------------------------------------------- the server, pointed at it


def _values(server: ServerConfig) -> list[str]:
    values = [*server.args, *server.env.values(), *server.headers.values()]
    return values + [value for value in (server.cwd, server.url) if value]


def refers_to_sandbox(server: ServerConfig) -> bool:
    """The server's config names ``${MCP_EVALS_SANDBOX}`` somewhere."""
    return any(match.group(0) != "$$" for value in _values(server) for match in _REFERENCE.finditer(value))


def substitute(text: str, sandbox: Path) -> str:
    """``text`` with ``${MCP_EVALS_SANDBOX}`` replaced by the sandbox's path (``$$`` kept)."""
    return _REFERENCE.sub(lambda match: match.group(0) if match.group(0) == "$$" else str(sandbox), text)


def apply_sandbox(server: ServerConfig, sandbox: Path) -> ServerConfig:
    """The server's config with every ``${MCP_EVALS_SANDBOX}`` replaced by this sandbox's path."""
    return server.model_copy(
        update={
            "args": [substitute(value, sandbox) for value in server.args],
            "env": {key: substitute(value, sandbox) for key, value in server.env.items()},
            "headers": {key: substitute(value, sandbox) for key, value in server.headers.items()},
            "cwd": substitute(server.cwd, sandbox) if server.cwd else server.cwd,
            "url": substitute(server.url, sandbox) if server.url else server.url,
        }
    )


def isolation_kind(server: ServerConfig, isolation: Isolation) -> IsolationKind:
    """The isolation of a run, from what it declares (the rule docs/contract.md#isolation states)."""
    sandboxed = refers_to_sandbox(server)
    if sandboxed and isolation.hooks:
        return "sandbox + setup/teardown"
    if sandboxed:
        return "sandbox"
    if isolation.hooks:
        return "setup/teardown"
    return "fresh process" if server.command else "shared"


# --------------------------------------------------------------------------- the folder


class Sandbox:
    """A fresh temporary folder for one run."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @classmethod
    def create(cls) -> Sandbox:
        path = Path(tempfile.mkdtemp(prefix=SANDBOX_PREFIX)).resolve()
        if "$" in str(path):  # the path is written into values where `$` has a meaning
            shutil.rmtree(path, ignore_errors=True)
            raise SetupFailed(f"the temporary folder {path.parent} holds a `$`: set TMPDIR to one without")
        return cls(path)

    def seed(self, state: Sequence[tuple[Path, str]]) -> None:
        """Copy each state file or folder into the sandbox."""
        for source, destination in state:
            target = self.path / destination
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
                if source.is_dir():
                    shutil.copytree(source, target, symlinks=True, dirs_exist_ok=True)
                else:
                    shutil.copy2(source, target)
            except OSError as error:
                raise SetupFailed(
                    f"could not copy state {source} into the sandbox: {error.strerror or error}"
                ) from None

    def remove(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)


@contextmanager
def throwaway_sandbox(config: Config) -> Iterator[Path]:
    """A sandbox for a server started only to list (or probe) its tools: the config's ``state:``,
    no setup or teardown, removed at once."""
    sandbox = Sandbox.create()
    try:
        sandbox.seed(Isolation.layered((config, config.base_dir)).state)
        yield sandbox.path
    finally:
        sandbox.remove()


# --------------------------------------------------------------------------- commands


def command_argv(hook: Hook, sandbox: Path) -> list[str]:
    """A shell line runs in the shell, which expands ``$MCP_EVALS_SANDBOX`` itself; a list is the
    program and its arguments, with ``${MCP_EVALS_SANDBOX}`` replaced."""
    if isinstance(hook.run, str):
        return ["cmd", "/c", hook.run] if sys.platform == "win32" else ["/bin/sh", "-c", hook.run]
    return [substitute(part, sandbox) for part in hook.run or []]


def command_environment(hook: Hook, sandbox: Path) -> dict[str, str]:
    """What a stdio server gets (PATH, HOME, locale), the sandbox's path and the hook's ``env``."""
    env = {key: substitute(value, sandbox) for key, value in hook.env.items()}
    stand_in = ServerConfig(name="setup", command="setup", env=env)
    return {**server_environment(stand_in), SANDBOX_VARIABLE: str(sandbox)}


async def run_command(placed: PlacedHook, sandbox: Path, *, shielded: bool) -> str | None:
    """Run one command with its timeout; None when it succeeded, else why it failed (its exit code
    and the tail of its output). ``shielded`` (a teardown) runs it to its end or its timeout even while
    the run is being cancelled (Ctrl-C, SIGTERM); otherwise a cancellation stops it, group and all."""
    hook = placed.hook
    argv = command_argv(hook, sandbox)
    cwd = Path(substitute(hook.cwd, sandbox)).expanduser() if hook.cwd else placed.base
    cwd = cwd if cwd.is_absolute() else placed.base / cwd
    try:
        env = command_environment(hook, sandbox)
    except McpEvalsError as error:
        return f"{hook.shown}: {error.message}"
    if not cwd.is_dir():
        return f"{hook.shown}: the working folder {cwd} does not exist"
    output = bytearray()
    timed_out = False
    with anyio.CancelScope(shield=shielded):
        try:
            process = await anyio.open_process(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                env=env,
                cwd=cwd,
                start_new_session=sys.platform != "win32",
            )
        except OSError as error:
            return f"{hook.shown}: could not start: {error.strerror or error}"

        async def read() -> None:
            assert process.stdout is not None
            with suppress(anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                async for chunk in process.stdout:
                    output.extend(chunk)
                    del output[: max(0, len(output) - 64 * 1024)]

        try:
            async with anyio.create_task_group() as group:
                group.start_soon(read)
                with anyio.move_on_after(hook.timeout) as deadline:
                    await process.wait()
                timed_out = deadline.cancelled_caught
                group.cancel_scope.cancel()
        finally:
            with anyio.CancelScope(shield=True):
                if process.returncode is None:  # timed out, or the run is being cancelled
                    await _stop(process)
                with suppress(OSError, anyio.BrokenResourceError):
                    await process.aclose()
    tail = "\n".join(output.decode("utf-8", "replace").rstrip().splitlines()[-_OUTPUT_TAIL_LINES:])
    shown = f"\n{tail}" if tail else ""
    if timed_out:
        return f"{hook.shown}: no end within {hook.timeout:g} s (stopped){shown}"
    if process.returncode != 0:
        return f"{hook.shown}: exit code {process.returncode}{shown}"
    return None


async def _stop(process: anyio.abc.Process) -> None:
    """End a command and whatever it started (its process group)."""
    if sys.platform == "win32":  # pragma: no cover - CI is Linux
        process.kill()
    else:
        await _terminate_group(process, 1.0)
    with anyio.move_on_after(1.0):
        await process.wait()


# --------------------------------------------------------------------------- writes outside the sandbox

Fingerprint = dict[str, tuple[int, int]]


@dataclass(frozen=True)
class Watch:
    """A place a stdio server may keep state in: a file, or a folder (recursive or only its files)."""

    path: Path
    recursive: bool


def watches(server: ServerConfig, config: Config, sandbox: Path | None) -> list[Watch]:
    """Where a stdio server's writes would outlive its run: its working folder, each path its ``args``
    and ``env`` name (also after ``=`` in ``--db=PATH``), and the folder of its program and of each
    script it runs (servers that keep their data next to their code) — all outside the sandbox."""
    if not server.command:
        return []
    cwd = _working_directory(server, config)
    found: list[Watch] = [Watch(cwd, recursive=True)]
    for value in [*server.args, *server.env.values()]:
        for candidate in {value, value.partition("=")[2]}:
            path = _named_path(candidate, cwd)
            if path is not None:
                found.append(Watch(path, recursive=True))
    for program in [server.command, *server.args]:
        path = _named_path(program, cwd) if os.sep in program or "." in program else None
        if program == server.command and path is None:
            which = shutil.which(program)
            path = Path(which) if which else None
        if path is not None and path.is_file():
            found.append(Watch(path.resolve().parent, recursive=False))
    kept: list[Watch] = []
    for watch in found:
        if sandbox is not None and _inside(watch.path, sandbox):
            continue
        if any(other.path == watch.path and other.recursive >= watch.recursive for other in kept):
            continue
        kept.append(watch)
    return kept


def _named_path(value: str, cwd: Path) -> Path | None:
    """The path a value names: absolute, or relative to ``cwd`` and existing (a URL, a flag or a
    number is none)."""
    if not value or value.startswith("-") or "://" in value or "\n" in value:
        return None
    try:
        path = Path(value).expanduser()
        resolved = path if path.is_absolute() else cwd / path
        if path.is_absolute():
            return resolved if resolved.exists() or resolved.parent.is_dir() else None
        return resolved if resolved.exists() else None
    except (OSError, ValueError):
        return None


def _inside(path: Path, folder: Path) -> bool:
    try:
        path.resolve().relative_to(folder.resolve())
    except (ValueError, OSError):
        return False
    return True


def fingerprint(places: Sequence[Watch]) -> Fingerprint:
    """Every watched file's size and modification time (a folder over ``WATCH_LIMIT`` files is left
    out: too big to watch cheaply)."""
    seen: Fingerprint = {}
    for watch in places:
        seen.update(_files(watch))
    return seen


def _files(watch: Watch) -> Fingerprint:
    found: Fingerprint = {}
    path = watch.path
    with suppress(OSError):
        if path.is_file():
            stat = path.stat()
            return {str(path): (stat.st_size, stat.st_mtime_ns)}
        if not path.is_dir():
            return {}
        pending = [path]
        while pending:
            folder = pending.pop()
            with os.scandir(folder) as entries:
                for entry in entries:
                    if entry.is_dir(follow_symlinks=False):
                        unwatched = entry.name in _UNWATCHED or entry.name.startswith(SANDBOX_PREFIX)
                        if watch.recursive and not unwatched:
                            pending.append(Path(entry.path))
                        continue
                    if entry.name.endswith((".pyc", ".pyo")):
                        continue
                    stat = entry.stat(follow_symlinks=False)
                    found[entry.path] = (stat.st_size, stat.st_mtime_ns)
                    if len(found) > WATCH_LIMIT:
                        return {}
    return found


def changed(before: Fingerprint, after: Fingerprint) -> list[str]:
    """Files created, changed or removed between two fingerprints, sorted."""
    return sorted(path for path in before.keys() | after.keys() if before.get(path) != after.get(path))


def read_only_tools(tools: Sequence[dict[str, Any]]) -> set[str]:
    """The tools (wire names) whose annotations say ``readOnlyHint: true``."""
    return {
        str(tool.get("name"))
        for tool in tools
        if isinstance(tool.get("annotations"), dict) and tool["annotations"].get("readOnlyHint") is True
    }

"""Stdio servers, through our own small transport rather than the SDK's ``stdio_client``.

What a test harness needs and the SDK transport does not give: an exact environment (PATH, HOME,
locale and what the config names — the SDK adds USER, SHELL and more), failing at the first
non-protocol line on stdout instead of waiting for a timeout, the exit code of a server that died
(watched on the process itself: a helper the server started may hold its pipes open long after it
exited), the tail of its stderr, and its whole process group ended afterwards. The process starts
before the SDK is imported, so the ~0.5 s import overlaps the server's own start-up.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import anyio.abc

from mcp_evals.catalog.model import ServerInfo
from mcp_evals.config.model import Config, ServerConfig
from mcp_evals.config.variables import expand_variables
from mcp_evals.errors import McpEvalsError, ServerError, ToolCallError
from mcp_evals.servers.listing import Lister, NotHere, list_over_stdio
from mcp_evals.servers.session import (
    _HANDSHAKE,
    _POLL,
    _client,
    _describe,
    _is_connection_closed,
    _Opening,
    _quote,
    _reraise_our_own,
    _rpc_code,
)

# What a Python server prints when the interpreter that ran it lacks its packages: a traceback's
# exception, or `python -m package`'s own "…/python: No module named package" (no traceback at all).
_IMPORT_FAILURES = ("ModuleNotFoundError", "ImportError", "No module named")

if TYPE_CHECKING:
    from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream


# An argument ending like this names a script the server runs, e.g. `node dist/index.js`.
_SCRIPT_SUFFIXES = (".js", ".mjs", ".cjs", ".ts", ".py", ".jar")


_STDERR_TAIL_LINES = 20


_STDERR_KEEP_BYTES = 64 * 1024


_MAX_LINE_BYTES = 64 * 1024 * 1024


_SHUTDOWN_GRACE = 2.0


_KILL_GRACE = 1.0


_HELPER_GRACE = 0.1
_GROUP_POLL = 0.01  # between SIGTERM and SIGKILL, how often to look for the group


_EXIT_WAIT_AFTER_EOF = 1.0


# After the server process exits, how long its last stdout bytes may take to arrive when a helper
# it started still holds the pipe (so end-of-file never comes).
_EXIT_DRAIN = 0.3


_LOCALE_VARIABLES = ("LANG", "LANGUAGE")


# Windows cannot start most programs without these; they carry no secrets.
_WINDOWS_VARIABLES = ("SYSTEMROOT", "SYSTEMDRIVE", "WINDIR", "COMSPEC", "PATHEXT", "TEMP", "TMP")


def server_environment(server: ServerConfig, environ: dict[str, str] | None = None) -> dict[str, str]:
    """The environment a stdio server gets: PATH, HOME, locale and what its `env` names — nothing else.

    API keys and tokens of the caller never reach the server unless the config names them. The one
    exception is a server asked to get the whole environment (mcp-eval-runner's cases, run as that
    tool runs them: documented there as the compatibility trade-off).
    """
    source = dict(os.environ if environ is None else environ)
    kept = ("PATH", "HOME", *_LOCALE_VARIABLES, *(_WINDOWS_VARIABLES if sys.platform == "win32" else ()))
    env = (
        dict(source)
        if server.whole_environment
        else {key: value for key, value in source.items() if key in kept or key.startswith("LC_")}
    )
    for key, value in server.env.items():
        env[key] = expand_variables(value, what=f"servers.{server.name}.env.{key}", environ=source)
    return env


def server_arguments(server: ServerConfig, environ: dict[str, str] | None = None) -> list[str]:
    """The server's `args` with `${VAR}` and `${VAR:-default}` expanded from the caller's environment."""
    source = os.environ if environ is None else environ
    return [
        expand_variables(value, what=f"servers.{server.name}.args[{index}]", environ=source)
        for index, value in enumerate(server.args)
    ]


@dataclass
class _StdioServer:
    """A spawned server process and what it showed us: its first non-protocol line, its stderr."""

    process: anyio.abc.Process
    to_client: MemoryObjectSendStream[Any]
    from_server: MemoryObjectReceiveStream[Any]
    to_server: MemoryObjectSendStream[Any]
    from_client: MemoryObjectReceiveStream[Any]
    resolved_command: str
    stderr: bytearray = field(default_factory=bytearray)
    stderr_closed: anyio.Event = field(default_factory=anyio.Event)
    stdout_closed: anyio.Event = field(default_factory=anyio.Event)
    bad_output: str | None = None
    unfinished: bytearray = field(default_factory=bytearray)
    raw: bool = False  # messages are plain dicts (the catalog path), not the SDK's

    def stderr_tail(self, lines: int = _STDERR_TAIL_LINES) -> str:
        text = self.stderr.decode("utf-8", errors="replace")
        return "\n".join(text.rstrip().splitlines()[-lines:])

    async def read_stdout(self) -> None:
        """Turn stdout lines into JSON-RPC messages; stop at the first line that is not one.

        ``raw`` servers (the catalog path, ``listing``) get plain dicts and never load the SDK.
        """
        if self.raw:
            parse: Any = _parse_raw
        else:
            from mcp.shared.message import SessionMessage
            from mcp.types import jsonrpc_message_adapter

            def parse(line: bytes) -> Any:
                return SessionMessage(jsonrpc_message_adapter.validate_json(line, by_name=False))

        assert self.process.stdout is not None
        buffer = self.unfinished
        try:
            async with self.to_client:
                async for chunk in self.process.stdout:
                    buffer += chunk
                    while (end := buffer.find(b"\n")) >= 0:
                        line = bytes(buffer[:end]).strip()
                        del buffer[: end + 1]
                        if not line:
                            continue
                        try:
                            message = parse(line)
                        except ValueError:
                            # Closing our end now makes the pending request fail at once, instead
                            # of the handshake waiting out the whole timeout.
                            self.bad_output = _quote(line)
                            return
                        await self.to_client.send(message)
                    if len(buffer) > _MAX_LINE_BYTES:
                        self.bad_output = f"a line longer than {_MAX_LINE_BYTES // (1024 * 1024)} MiB"
                        return
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, OSError):
            return
        finally:
            self.stdout_closed.set()

    async def write_stdin(self) -> None:
        assert self.process.stdin is not None
        try:
            async with self.from_client:
                async for outgoing in self.from_client:
                    if self.raw:
                        data = json.dumps(outgoing, ensure_ascii=False, separators=(",", ":"))
                    else:
                        data = outgoing.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await self.process.stdin.send((data + "\n").encode("utf-8"))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            pass  # the server is gone; the stdout side reports it

    async def read_stderr(self) -> None:
        """Keep the tail of stderr; the only reader of that stream (a second one would race it)."""
        assert self.process.stderr is not None
        try:
            async for chunk in self.process.stderr:
                self.stderr += chunk
                if len(self.stderr) > _STDERR_KEEP_BYTES:
                    del self.stderr[: len(self.stderr) - _STDERR_KEEP_BYTES]
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, OSError):
            pass
        finally:
            self.stderr_closed.set()

    async def watch_exit(self) -> None:
        """End the session as soon as the process exits, not when its stdout reaches end-of-file.

        A helper the server started (``sh -c "helper & server"``) inherits its pipes and keeps
        them open after the server is gone; waiting for end-of-file would wait out the timeout.
        """
        await self.process.wait()
        with anyio.move_on_after(_EXIT_DRAIN):
            await self.stdout_closed.wait()
        self.to_client.close()

    @asynccontextmanager
    async def transport(self) -> AsyncIterator[tuple[Any, Any]]:
        """What ``mcp.Client`` takes as a transport: the (read, write) streams of the session."""
        try:
            yield self.from_server, self.to_server
        finally:
            self.to_server.close()
            self.from_server.close()

    async def exit_code(self, wait: float) -> int | None:
        with anyio.move_on_after(wait):
            while self.process.returncode is None:
                await anyio.sleep(_POLL)
        return self.process.returncode

    async def stop(self, *, graceful: bool) -> None:
        """Close stdin (the MCP way to ask a stdio server to exit), then end its whole process group.

        The group goes even when the server exited by itself: helpers it left behind would
        otherwise outlive the run and hold its pipes.
        """
        assert self.process.stdin is not None
        with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            await self.process.stdin.aclose()
        await self.exit_code(_SHUTDOWN_GRACE if graceful else 0.05)
        if sys.platform == "win32":  # pragma: no cover - CI is Linux
            if self.process.returncode is None:
                self.process.kill()
        elif self.process.returncode is None:
            await _terminate_group(self.process, _KILL_GRACE)
        else:
            await _end_helpers(self.process.pid)
        await self.exit_code(_KILL_GRACE)


async def _terminate_group(process: anyio.abc.Process, grace: float) -> None:
    """SIGTERM the server's process group, wait up to ``grace`` for it to vanish, then SIGKILL it.

    What the SDK's ``terminate_posix_process_tree`` does; importing that module loads the whole SDK
    (0.75 s on a 2-core machine), which the catalog path (``listing``) exists to avoid. The group id is
    the server's pid (it starts in a session of its own); only ESRCH proves the group gone.
    """
    group = process.pid
    try:
        os.killpg(group, signal.SIGTERM)
    except ProcessLookupError:
        return
    except PermissionError:
        pass  # EPERM never proves the group gone: wait, then escalate
    with anyio.move_on_after(grace):
        while _group_alive(group):
            _ = process.returncode  # reaps the leader, whose zombie would keep the group alive
            await anyio.sleep(_GROUP_POLL)
        return
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(group, signal.SIGKILL)


def _group_alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # unsignalable survivors or unreaped zombies
    return True


async def _end_helpers(group: int) -> None:
    """End what is left of a process group whose leader (the server) has exited.

    A short grace only: an orphan's exit is seen once whoever adopted it reaps it, which some
    container init processes do late or never, so waiting for the group to vanish could take the
    whole kill grace every time.
    """
    try:
        os.killpg(group, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        return  # nothing left (or nothing of ours)
    await anyio.sleep(_HELPER_GRACE)
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(group, signal.SIGKILL)


@asynccontextmanager
async def _spawn(server: ServerConfig, config: Config, *, raw: bool = False) -> AsyncIterator[_StdioServer]:
    assert server.command is not None
    cwd = _working_directory(server, config)
    if not cwd.is_dir():
        raise ServerError(server.name, f"working directory {str(cwd)!r} does not exist", hint="fix `cwd:`")
    env = server_environment(server)
    args = server_arguments(server)
    try:
        process = await anyio.open_process(
            [server.command, *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=cwd,
            start_new_session=sys.platform != "win32",
        )
    except FileNotFoundError:
        raise ServerError(
            server.name,
            f"command not found: {server.command!r}",
            hint="install it, or give its full path in `command:` (PATH is the caller's PATH)",
        ) from None
    except PermissionError:
        raise ServerError(server.name, f"command is not executable: {server.command!r}") from None
    except OSError as error:
        raise ServerError(
            server.name, f"cannot start {server.command!r}: {error.strerror or error}"
        ) from None
    to_client, from_server = anyio.create_memory_object_stream[Any](0)
    to_server, from_client = anyio.create_memory_object_stream[Any](0)
    spawned = _StdioServer(
        process,
        to_client,
        from_server,
        to_server,
        from_client,
        _resolve_command(server.command, cwd, env),
        raw=raw,
    )
    graceful = False
    try:
        async with anyio.create_task_group() as group:
            group.start_soon(spawned.read_stderr)
            group.start_soon(spawned.write_stdin)
            group.start_soon(spawned.read_stdout)
            group.start_soon(spawned.watch_exit)
            try:
                yield spawned
                graceful = True
            finally:
                with anyio.CancelScope(shield=True):
                    await spawned.stop(graceful=graceful)
                    # Let the stderr reader take in the last bytes the server wrote (it ends at EOF).
                    with anyio.move_on_after(0.2):
                        await spawned.stderr_closed.wait()
                group.cancel_scope.cancel()
    finally:
        await _close_process(process)


async def _close_process(process: anyio.abc.Process) -> None:
    """Close the pipes and the subprocess transport while the event loop still runs.

    Left to the garbage collector, asyncio closes the transport after the loop is gone and prints
    ``Exception ignored in BaseSubprocessTransport.__del__ … RuntimeError: Event loop is closed``.
    """
    with anyio.CancelScope(shield=True):
        with anyio.move_on_after(_KILL_GRACE), suppress(OSError, anyio.BrokenResourceError):
            await process.aclose()
        transport = getattr(process, "_transport", None)  # asyncio only; anyio has no public handle
        if transport is not None:
            transport.close()
        await anyio.sleep(0)


def _resolve_command(command: str, cwd: Path, env: dict[str, str]) -> str:
    """The executable that ran: the PATH entry for a bare name, the cwd-relative file otherwise."""
    if os.sep in command or (os.altsep and os.altsep in command):
        return str((cwd / command).resolve()) if not Path(command).is_absolute() else command
    return shutil.which(command, path=env.get("PATH")) or command


class _StdioOpening(_Opening):
    def __init__(self, server: ServerConfig, config: Config) -> None:
        super().__init__(server, config)
        self.spawned: _StdioServer | None = None

    async def connect(self, list_tools: bool) -> None:
        async with _spawn(self.server, self.config) as spawned:
            self.spawned = spawned
            async with _client(spawned.transport(), "auto", self.server.timeout, self.config) as client:
                await self.hold(client, "stdio", list_tools)

    async def failure_error(self) -> McpEvalsError:
        if isinstance(self.failure, BaseException):
            _reraise_our_own(self.failure)
        if self.spawned is None:  # pragma: no cover - _spawn raises ServerError for every start-up failure
            raise ServerError(self.server.name, f"could not start: {self.failure!r}")
        timed_out = self.timed_out or self.failure is None
        return _stdio_failure(
            self.server, self.config, self.spawned, self.failure, self.progress.stage, timed_out=timed_out
        )

    async def explain(self, error: BaseException, stage: str) -> ServerError:
        spawned = self.spawned
        assert spawned is not None
        if spawned.bad_output is None and _is_connection_closed(error):
            await spawned.exit_code(_EXIT_WAIT_AFTER_EOF)
            with anyio.move_on_after(0.2):
                await spawned.stderr_closed.wait()
            if spawned.process.returncode is None:
                return ServerError(
                    self.server.name, f"closed its stdout during {stage}", stderr_tail=spawned.stderr_tail()
                )
        return _stdio_failure(self.server, self.config, spawned, error, stage, timed_out=False)


def _stdio_failure(
    server: ServerConfig,
    config: Config,
    spawned: _StdioServer,
    failure: BaseException | None,
    stage: str,
    *,
    timed_out: bool,
) -> ServerError:
    """One clear error for a stdio server that failed: bad output, silence, an exit, or an error."""
    tail = spawned.stderr_tail()
    if spawned.bad_output is not None:
        return ServerError(
            server.name,
            f"wrote something that is not MCP JSON-RPC on stdout during {stage}: {spawned.bad_output}",
            stderr_tail=tail,
            hint="a stdio server must write only protocol messages to stdout; logs and banners go to stderr",
        )
    if timed_out or failure is None:
        unfinished = bytes(spawned.unfinished).strip()
        if unfinished and not unfinished.startswith(b"{"):
            return ServerError(
                server.name,
                f"no answer within {server.timeout:g} s; its stdout holds an unfinished line that is "
                f"not MCP JSON-RPC: {_quote(unfinished)}",
                stderr_tail=tail,
                hint="a stdio server must write only newline-terminated protocol messages to stdout",
            )
        return ServerError(
            server.name,
            f"no answer within {server.timeout:g} s (stuck in {stage})",
            stderr_tail=tail,
            hint="raise `timeout:` for this server if it is only slow to start",
        )
    code = spawned.process.returncode
    if code is not None and _is_connection_closed(failure):
        return ServerError(
            server.name,
            f"exited with {_describe_exit(code)} during {stage}",
            stderr_tail=tail,
            hint=_exit_hint(server, config, spawned, tail),
        )
    if stage == _HANDSHAKE or stage.startswith("tools/list"):
        return ServerError(server.name, f"{stage} failed: {_describe(failure)}", stderr_tail=tail)
    return ToolCallError(server.name, f"{stage} failed: {_describe(failure)}", code=_rpc_code(failure))


def _exit_hint(server: ServerConfig, config: Config, spawned: _StdioServer, tail: str) -> str | None:
    """What to do about a server that exited: build it, or run it with the right interpreter."""
    missing = _missing_file_argument(server, config)
    if missing is not None:
        return (
            f"{missing!r} does not exist in {_working_directory(server, config)}: "
            "build the server first (e.g. `npm run build`), or fix `args:` / `cwd:`"
        )
    if any(marker in tail for marker in _IMPORT_FAILURES):
        found = "" if spawned.resolved_command == server.command else f" (`command: {server.command}`)"
        return (
            f"the server could not import a module with the interpreter that ran it, "
            f"{spawned.resolved_command}{found}: activate the server's virtual environment before "
            "running mcp-evals, or give that environment's interpreter in `command:` by its full path "
            "(e.g. /path/to/server/.venv/bin/python)"
        )
    return None if tail else "run the command by hand to see why it stops"


def _working_directory(server: ServerConfig, config: Config) -> Path:
    return config.resolve(server.cwd) if server.cwd else config.base_dir


def _missing_file_argument(server: ServerConfig, config: Config) -> str | None:
    """The first script argument that does not exist: the usual reason a server exits at once."""
    cwd = _working_directory(server, config)
    try:
        arguments = server_arguments(server)
    except McpEvalsError:
        arguments = server.args
    for argument in arguments:
        script = (
            argument.lower().endswith(_SCRIPT_SUFFIXES)
            and not argument.startswith("-")
            and "://" not in argument
        )
        if script and not (cwd / Path(argument).expanduser()).exists():
            return argument
    return None


def _describe_exit(code: int) -> str:
    if code < 0:
        try:
            return f"signal {signal.Signals(-code).name}"
        except ValueError:
            return f"signal {-code}"
    return f"exit code {code}"


def _parse_raw(line: bytes) -> Any:
    """A JSON-RPC message as a plain dict; anything else is not MCP (ValueError)."""
    message = json.loads(line)
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        raise ValueError("not a JSON-RPC 2.0 message")
    return message


async def list_stdio_tools(server: ServerConfig, config: Config) -> ServerInfo | None:
    """The handshake and every page of tools over plain JSON-RPC (``listing``): no SDK import.

    None when the server needs what only an SDK session does (then the caller opens one). Every
    failure is the same ``ServerError`` an SDK session would give: the exit code, the stderr tail,
    the first line that is not MCP, or where it was stuck when the server's ``timeout`` ran out.
    """
    spawned: _StdioServer | None = None
    lister: Lister | None = None
    listed: ServerInfo | None = None
    failure: BaseException | None = None
    with anyio.move_on_after(server.timeout) as deadline:
        async with _spawn(server, config, raw=True) as started:
            spawned = started
            lister = Lister(server, config, started.to_server, started.from_server)
            try:
                listed = await list_over_stdio(lister)
            except NotHere:
                return None
            except McpEvalsError:
                raise
            except Exception as error:  # the server closed, answered with an error, …
                failure = error
    if listed is not None:
        return listed
    assert spawned is not None and lister is not None  # _spawn raises ServerError when it cannot start
    timed_out = deadline.cancelled_caught and failure is None
    raise _stdio_failure(server, config, spawned, failure, lister.stage, timed_out=timed_out)

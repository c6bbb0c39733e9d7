"""The only module that imports the MCP SDK as a client: open a session with a server, list its tools,
call them, close.

Keeping the SDK behind this one file means an SDK change is a one-file change, and the rest of the
code only ever sees our own pydantic models (``ServerInfo`` with the tools in their wire shape,
``ToolResult`` for a call).

Stdio servers are spawned by our own small transport rather than the SDK's ``stdio_client``, for
what a test harness needs and the SDK transport does not give: an exact environment (PATH, HOME,
locale and what the config names — the SDK adds USER, SHELL and more), failing at the first
non-protocol line on stdout instead of waiting for a timeout, the exit code of a server that died
(watched on the process itself: a helper the server started may hold its pipes open long after it
exited), and the tail of its stderr. The process starts before the SDK is imported, so the ~0.5 s
import overlaps the server's own start-up. HTTP servers go through the SDK's Streamable HTTP
transport, falling back to legacy SSE where the endpoint rejects the Streamable HTTP POST.

mcp-evals introduces itself as ``mcp-evals`` with its version and declares the client capabilities
the config names (``client:``), because servers may offer different tools to different clients.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

import anyio
import anyio.abc

from mcp_evals._version import __version__
from mcp_evals.catalog.model import ServerInfo
from mcp_evals.config.model import ClientOptions, Config, ServerConfig
from mcp_evals.config.variables import expand_variables
from mcp_evals.errors import ConfigError, McpEvalsError, ServerError, ToolCallError
from mcp_evals.redact import scrub as scrub_secrets
from mcp_evals.servers.model import CLIENT_NAME, ToolResult

if TYPE_CHECKING:
    from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

__all__ = [
    "CLIENT_NAME",
    "ServerSession",
    "ToolResult",
    "list_server_tools",
    "open_session",
    "redact_url",
    "server_environment",
]

_STDERR_TAIL_LINES = 20
_STDERR_KEEP_BYTES = 64 * 1024
_MAX_LINE_BYTES = 64 * 1024 * 1024
_MAX_PAGES = 1000
_SHUTDOWN_GRACE = 2.0
_KILL_GRACE = 1.0
_HELPER_GRACE = 0.1
_EXIT_WAIT_AFTER_EOF = 1.0
# After the server process exits, how long its last stdout bytes may take to arrive when a helper
# it started still holds the pipe (so end-of-file never comes).
_EXIT_DRAIN = 0.3
_POLL = 0.01
# The SDK's own per-request timeout is a backstop behind ours, so ours always speaks first.
_SDK_TIMEOUT_SLACK = 5.0
_LOCALE_VARIABLES = ("LANG", "LANGUAGE")
# Windows cannot start most programs without these; they carry no secrets.
_WINDOWS_VARIABLES = ("SYSTEMROOT", "SYSTEMDRIVE", "WINDIR", "COMSPEC", "PATHEXT", "TEMP", "TMP")
# HTTP statuses that mean "no Streamable HTTP endpoint here" rather than "go away".
_NOT_STREAMABLE = {400, 404, 405, 406, 415}
_HANDSHAKE = "start-up and handshake"


def server_environment(server: ServerConfig, environ: dict[str, str] | None = None) -> dict[str, str]:
    """The environment a stdio server gets: PATH, HOME, locale and what its `env` names — nothing else.

    API keys and tokens of the caller never reach the server unless the config names them.
    """
    source = dict(os.environ if environ is None else environ)
    kept = ("PATH", "HOME", *_LOCALE_VARIABLES, *(_WINDOWS_VARIABLES if sys.platform == "win32" else ()))
    env = {key: value for key, value in source.items() if key in kept or key.startswith("LC_")}
    for key, value in server.env.items():
        env[key] = expand_variables(value, what=f"servers.{server.name}.env.{key}", environ=source)
    return env


def redact_url(url: str) -> str:
    """The URL without credentials or query string, safe to print."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


# --------------------------------------------------------------------------- the session


class ServerSession:
    """An open MCP session with one server, made by ``open_session``.

    ``info`` holds what the server said in the handshake and, once listed, its tools in the wire
    shape. Every failure is a ``ServerError``: a ``ToolCallError`` when only that call failed (a
    protocol error, no answer in time), a plain ``ServerError`` when the server is gone.
    """

    def __init__(self, opening: _Opening, client: Any, info: ServerInfo) -> None:
        self._opening = opening
        self._client = client
        self.info = info

    @property
    def server(self) -> ServerConfig:
        return self._opening.server

    async def list_tools(self) -> list[dict[str, Any]]:
        """Every page of ``tools/list`` (wire shape), within the server's ``timeout``; updates ``info``."""
        progress = _Progress("tools/list")
        timeout = self.server.timeout
        with anyio.move_on_after(timeout) as deadline:
            try:
                await self._read_tools(progress)
            except Exception as error:  # every failure becomes one clear message
                _reraise_our_own(error)
                raise await self._opening.explain(error, progress.stage) from None
        if deadline.cancelled_caught:
            raise ToolCallError(
                self.server.name, f"no answer to {progress.stage} within {timeout:g} s", timed_out=True
            )
        return self.info.tools

    async def call_tool(
        self, name: str, arguments: dict[str, Any] | None = None, *, timeout: float
    ) -> ToolResult:
        """Call one tool (by the server's own name) and wait at most ``timeout`` seconds.

        A tool that fails answers with ``is_error`` set: that is a result, not an exception.
        """
        stage = f"tools/call {name!r}"
        started = time.perf_counter()
        with anyio.move_on_after(timeout) as deadline:
            try:
                result = await self._client.call_tool(
                    name, arguments or {}, read_timeout_seconds=timeout + _SDK_TIMEOUT_SLACK
                )
            except Exception as error:
                _reraise_our_own(error)
                raise await self._opening.explain(error, stage) from None
        if deadline.cancelled_caught:
            raise ToolCallError(
                self.server.name, f"no answer to {stage} within {_seconds(timeout)}", timed_out=True
            )
        latency_ms = (time.perf_counter() - started) * 1000
        wire = result.model_dump(mode="json", by_alias=True, exclude_none=True)
        return ToolResult(
            content=[block for block in wire.get("content", []) if isinstance(block, dict)],
            structured_content=wire.get("structuredContent"),
            is_error=bool(wire.get("isError", False)),
            latency_ms=latency_ms,
        )

    async def _read_tools(self, progress: _Progress) -> None:
        tools: list[dict[str, Any]] = []
        cursor: str | None = None
        seen_cursors: set[str] = set()
        name = self.server.name
        for page_number in range(1, _MAX_PAGES + 1):
            progress.stage = "tools/list" if page_number == 1 else f"tools/list (page {page_number})"
            page = await self._client.list_tools(cursor=cursor)
            tools.extend(
                tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in page.tools
            )
            cursor = page.next_cursor
            if cursor is None:
                self.info = self.info.model_copy(update={"tools": tools})
                return
            if cursor in seen_cursors:
                raise ServerError(
                    name, f"tools/list returned the cursor {cursor!r} twice; it would never end"
                )
            seen_cursors.add(cursor)
        raise ServerError(name, f"tools/list returned more than {_MAX_PAGES} pages; is the cursor stuck?")


@asynccontextmanager
async def open_session(
    server: ServerConfig, config: Config, *, list_tools: bool = True
) -> AsyncIterator[ServerSession]:
    """Start or reach one server, handshake and (by default) list every page of its tools.

    Start-up, handshake and listing share the server's ``timeout``; every failure is a
    ``ServerError`` naming the server, and for stdio the exit code and the tail of its stderr.
    """
    if server.snapshot:
        raise ConfigError(
            f"server {server.name!r} is a saved snapshot; calling tools needs a live server",
            hint="give it `command:` (stdio) or `url:` (HTTP)",
        )
    opening: _Opening = _StdioOpening(server, config) if server.command else _HttpOpening(server, config)
    body_error: BaseException | None = None
    try:
        # The connection lives in a task of its own: the SDK's task groups must be left by the task
        # that entered them, and the caller must be free to wait for it with a deadline.
        async with anyio.create_task_group() as group:
            group.start_soon(opening.run, list_tools)
            with anyio.move_on_after(server.timeout):
                await opening.ready.wait()
            session = opening.session
            if session is None:
                opening.timed_out = not opening.ready.is_set()
                group.cancel_scope.cancel()
            else:
                try:
                    yield session
                except BaseException as error:
                    body_error = error
                    raise
                finally:
                    opening.closing.set()
    except BaseExceptionGroup as errors:
        # The task group wraps what the caller's own code raised; give it back as it was.
        if body_error is not None and any(leaf is body_error for leaf in _leaves(errors)):
            raise body_error from None
        raise
    if opening.session is None:
        raise await opening.failure_error()


async def list_server_tools(server: ServerConfig, config: Config) -> ServerInfo:
    """Connect to one server, handshake, list every page of tools, close; every failure is a ServerError."""
    async with open_session(server, config) as session:
        return session.info


@dataclass
class _Progress:
    """How far a connection got, so a failure can say where it stopped."""

    stage: str = _HANDSHAKE


class _Opening:
    """Opens one connection in its own task and holds it open until ``closing`` is set."""

    def __init__(self, server: ServerConfig, config: Config) -> None:
        self.server = server
        self.config = config
        self.ready = anyio.Event()
        self.closing = anyio.Event()
        self.session: ServerSession | None = None
        self.failure: BaseException | None = None
        self.timed_out = False
        self.progress = _Progress()

    async def run(self, list_tools: bool) -> None:
        try:
            await self.connect(list_tools)
        except Exception as error:
            if self.session is None:
                self.failure = error
            # Once a session was handed out, errors while closing it tell the caller nothing.
        finally:
            self.ready.set()

    async def connect(self, list_tools: bool) -> None:
        raise NotImplementedError

    async def hold(self, client: Any, transport: str, list_tools: bool) -> None:
        """The handshake is done: list the tools, hand the session out, wait until it is closed."""
        info = client.server_info
        session = ServerSession(
            self,
            client,
            ServerInfo(
                name=self.server.name,
                transport=transport,
                server_name=getattr(info, "name", None),
                server_version=getattr(info, "version", None),
                protocol_version=client.protocol_version,
                instructions=client.instructions,
                prefix=self.server.prefix,
                client_capabilities=list(self.config.client.capabilities),
            ),
        )
        # The SDK checks structured results against the tool's output schema and turns a mismatch
        # into a RuntimeError that loses the result; contract tests judge that themselves and must
        # see what the server sent.
        client.session.validate_tool_result = _accept_result
        if list_tools:
            await session._read_tools(self.progress)
        self.session = session
        self.ready.set()
        await self.closing.wait()

    async def failure_error(self) -> McpEvalsError:
        """The one error that explains why the session could not be opened."""
        raise NotImplementedError

    async def explain(self, error: BaseException, stage: str) -> ServerError:
        """The error for a request that failed in an open session."""
        raise NotImplementedError


async def _accept_result(name: str, result: Any) -> None:
    """Stands in for the SDK's output-schema check (see ``_Opening.hold``)."""


def _client(target: Any, mode: str, timeout: float, config: Config) -> Any:
    from mcp import Client
    from mcp.types import Implementation

    # `auto` probes the 2026 `server/discover` and falls back to the `initialize` handshake, which
    # is what servers on older SDKs (most npm servers) speak; checked against both eras.
    return Client(
        target,
        mode=mode,
        cache=None,
        read_timeout_seconds=timeout,
        client_info=Implementation(name=CLIENT_NAME, version=__version__),
        **_capability_callbacks(config.client, config),
    )


def _capability_callbacks(options: ClientOptions, config: Config) -> dict[str, Any]:
    """The SDK declares a capability when its callback is given: one per declared capability.

    mcp-evals is a test harness, not an agent: it answers ``roots/list`` with the configured
    folders, declines elicitations and refuses sampling, so a tool that needs them reports it.
    """
    from mcp.types import INVALID_REQUEST, ElicitResult, ErrorData, ListRootsResult, Root

    callbacks: dict[str, Any] = {}
    if "roots" in options.capabilities:
        roots = [config.resolve(folder).resolve() for folder in options.roots]

        async def list_roots(context: Any) -> Any:
            return ListRootsResult(roots=[Root(uri=path.as_uri(), name=path.name) for path in roots])

        callbacks["list_roots_callback"] = list_roots
    if "sampling" in options.capabilities:

        async def sampling(context: Any, params: Any) -> Any:
            return ErrorData(
                code=INVALID_REQUEST,
                message="mcp-evals is a test client: it does not answer sampling requests",
            )

        callbacks["sampling_callback"] = sampling
    if "elicitation" in options.capabilities:

        async def elicitation(context: Any, params: Any) -> Any:
            return ElicitResult(action="decline")

        callbacks["elicitation_callback"] = elicitation
    return callbacks


def _seconds(timeout: float) -> str:
    return f"{timeout * 1000:g} ms" if timeout < 1 else f"{timeout:g} s"


# --------------------------------------------------------------------------- stdio


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

    def stderr_tail(self, lines: int = _STDERR_TAIL_LINES) -> str:
        text = self.stderr.decode("utf-8", errors="replace")
        return "\n".join(text.rstrip().splitlines()[-lines:])

    async def read_stdout(self) -> None:
        """Turn stdout lines into JSON-RPC messages; stop at the first line that is not one."""
        from mcp.shared.message import SessionMessage
        from mcp.types import jsonrpc_message_adapter

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
                            message = jsonrpc_message_adapter.validate_json(line, by_name=False)
                        except ValueError:
                            # Closing our end now makes the pending request fail at once, instead
                            # of the handshake waiting out the whole timeout.
                            self.bad_output = _quote(line)
                            return
                        await self.to_client.send(SessionMessage(message))
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
                async for session_message in self.from_client:
                    data = session_message.message.model_dump_json(by_alias=True, exclude_unset=True)
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
            from mcp.os.posix.utilities import terminate_posix_process_tree

            await terminate_posix_process_tree(self.process, _KILL_GRACE)
        else:
            await _end_helpers(self.process.pid)
        await self.exit_code(_KILL_GRACE)


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
async def _spawn(server: ServerConfig, config: Config) -> AsyncIterator[_StdioServer]:
    assert server.command is not None
    cwd = _working_directory(server, config)
    if not cwd.is_dir():
        raise ServerError(server.name, f"working directory {str(cwd)!r} does not exist", hint="fix `cwd:`")
    env = server_environment(server)
    try:
        process = await anyio.open_process(
            [server.command, *server.args],
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
        process, to_client, from_server, to_server, from_client, _resolve_command(server.command, cwd, env)
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
    return ToolCallError(server.name, f"{stage} failed: {_describe(failure)}")


# What a Python server prints when the interpreter that ran it lacks its packages.
_IMPORT_FAILURES = ("ModuleNotFoundError", "ImportError")


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


# An argument ending like this names a script the server runs, e.g. `node dist/index.js`.
_SCRIPT_SUFFIXES = (".js", ".mjs", ".cjs", ".ts", ".py", ".jar")


def _missing_file_argument(server: ServerConfig, config: Config) -> str | None:
    """The first script argument that does not exist: the usual reason a server exits at once."""
    cwd = _working_directory(server, config)
    for argument in server.args:
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


# --------------------------------------------------------------------------- HTTP


@dataclass
class _HttpTrace:
    """The HTTP answers seen, to explain an MCP error that lost its status code on the way up."""

    first_post_status: int | None = None
    error_status: int | None = None
    error_reason: str = ""

    async def on_response(self, response: Any) -> None:
        if response.request.method == "POST" and self.first_post_status is None:
            self.first_post_status = response.status_code
        if response.status_code >= 400 and self.error_status is None:
            self.error_status = response.status_code
            self.error_reason = response.reason_phrase or ""


class _NotStreamableHttp(Exception):
    """The endpoint rejected the Streamable HTTP POST in a way that means "not here"."""


class _HttpOpening(_Opening):
    def __init__(self, server: ServerConfig, config: Config) -> None:
        super().__init__(server, config)
        assert server.url is not None
        self.url = expand_variables(server.url, what=f"servers.{server.name}.url", header=True)
        self.headers = {
            key: expand_variables(value, what=f"servers.{server.name}.headers.{key}", header=True)
            for key, value in server.headers.items()
        }
        self.shown = redact_url(self.url)
        if urlsplit(self.url).scheme not in ("http", "https"):
            raise ServerError(server.name, f"url must start with http:// or https://, got {self.shown!r}")
        self.trace = _HttpTrace()
        self.fell_back_from: int | None = None
        self.used = "streamable-http" if server.transport != "sse" else "sse"

    async def connect(self, list_tools: bool) -> None:
        if self.used == "streamable-http":
            try:
                await self._over_streamable_http(list_tools)
                return
            except _NotStreamableHttp:
                if self.server.transport != "auto":
                    raise
            self.fell_back_from = self.trace.first_post_status
            self.used, self.trace, self.progress = "sse", _HttpTrace(), _Progress()
        await self._over_sse(list_tools)

    async def _over_streamable_http(self, list_tools: bool) -> None:
        import httpx2
        from mcp.client.streamable_http import streamable_http_client

        async with httpx2.AsyncClient(
            headers=self.headers,
            timeout=self.server.timeout,
            event_hooks={"response": [self.trace.on_response]},
        ) as http:
            try:
                async with _client(
                    streamable_http_client(self.url, http_client=http),
                    "auto",
                    self.server.timeout,
                    self.config,
                ) as client:
                    await self.hold(client, "streamable-http", list_tools)
            except Exception as error:
                if (
                    self.session is None
                    and self.trace.first_post_status in _NOT_STREAMABLE
                    and self.progress.stage == _HANDSHAKE
                ):
                    raise _NotStreamableHttp from error
                raise

    async def _over_sse(self, list_tools: bool) -> None:
        import httpx2
        from mcp.client.sse import sse_client

        trace = self.trace

        def http_client(
            headers: dict[str, str] | None = None, timeout: Any = None, auth: Any = None
        ) -> httpx2.AsyncClient:
            return httpx2.AsyncClient(
                headers=headers, timeout=timeout, auth=auth, event_hooks={"response": [trace.on_response]}
            )

        transport = sse_client(
            self.url, headers=self.headers, timeout=self.server.timeout, httpx_client_factory=http_client
        )
        # SSE is the 2024 transport; servers that still speak only it speak only the handshake.
        async with _client(transport, "legacy", self.server.timeout, self.config) as client:
            await self.hold(client, "sse", list_tools)

    async def failure_error(self) -> McpEvalsError:
        failure = self.failure
        if failure is not None:
            _reraise_our_own(failure)
        if isinstance(failure, _NotStreamableHttp):
            return ServerError(
                self.server.name,
                f"HTTP {self.trace.first_post_status} for the Streamable HTTP POST to {self.shown}",
                hint="check the URL path (often /mcp), or set `transport: sse` for a legacy SSE server",
            )
        if self.timed_out or failure is None:
            return ServerError(
                self.server.name,
                f"no answer from {self.shown} within {self.server.timeout:g} s "
                f"(stuck in {self.progress.stage}, over {self.used})",
                hint="raise `timeout:` for this server if it is only slow",
            )
        message, hint = _describe_http_failure(
            failure, self.trace, self.url, self.shown, self.used, self.progress.stage
        )
        message = self.scrub(message)
        if self.fell_back_from is not None:
            message += f"; the Streamable HTTP POST before it got HTTP {self.fell_back_from}"
            hint = "check the URL path (Streamable HTTP servers often serve /mcp, SSE servers /sse)"
        return ServerError(self.server.name, message, hint=hint)

    async def explain(self, error: BaseException, stage: str) -> ServerError:
        from mcp import MCPError

        leaf = _leaf(error)
        if isinstance(leaf, MCPError) and not _is_connection_closed(leaf):
            return ToolCallError(self.server.name, self.scrub(f"{stage} failed: {_describe(leaf)}"))
        message, hint = _describe_http_failure(error, self.trace, self.url, self.shown, self.used, stage)
        return ServerError(self.server.name, self.scrub(message), hint=hint)

    def scrub(self, text: str) -> str:
        """No header value and no part of the URL past what ``redact_url`` shows reaches a message."""
        parts = urlsplit(self.url)
        hidden = [parts.query, parts.netloc.rpartition("@")[0], self.url if self.url != self.shown else ""]
        return scrub_secrets(text, [*self.headers.values(), *hidden])


def _describe_http_failure(
    failure: BaseException, trace: _HttpTrace, url: str, shown: str, used: str, stage: str
) -> tuple[str, str | None]:
    """What went wrong over HTTP, and what to do about it."""
    import httpx2

    leaf = _leaf(failure)
    status = trace.error_status
    if isinstance(leaf, httpx2.HTTPStatusError):
        status = leaf.response.status_code
        trace.error_reason = leaf.response.reason_phrase or trace.error_reason
    if status in (401, 403):
        return (
            f"HTTP {status} {trace.error_reason} from {shown}: the server refused our credentials",
            "check `headers:` (e.g. `Authorization: Bearer ${TOKEN}`) and that the token is valid",
        )
    if status is not None:
        return f"HTTP {status} {trace.error_reason} from {shown} during {stage} (over {used})", None
    if isinstance(leaf, httpx2.ConnectError):
        tls = _tls_failure(leaf)
        if tls is not None and urlsplit(url).scheme == "https":
            return (
                f"the TLS handshake with {shown} failed ({tls})",
                "the port may serve plain HTTP: try an http:// URL, or check the server's certificate",
            )
        return (
            f"cannot connect to {shown} (connection refused or host unreachable)",
            "is the server running? Check `url:`",
        )
    if isinstance(leaf, httpx2.TimeoutException):
        return (
            f"{shown} did not answer in time during {stage} (over {used})",
            "raise `timeout:` for this server if it is only slow",
        )
    if _is_connection_closed(leaf):
        return f"the connection to {shown} closed during {stage} (over {used})", None
    return f"{stage} over {used} at {shown} failed: {_describe(leaf)}", None


def _tls_failure(error: BaseException) -> str | None:
    """The TLS reason behind a connection error (``WRONG_VERSION_NUMBER`` …), if TLS is what failed."""
    import ssl

    chain: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and current not in chain:
        chain.append(current)
        current = current.__cause__ or current.__context__
    for link in chain:
        if isinstance(link, ssl.SSLError):
            return link.reason or type(link).__name__
    for link in chain:  # some transports keep only the text: "[SSL: WRONG_VERSION_NUMBER] wrong …"
        found = _SSL_REASON.search(str(link))
        if found:
            return found.group(1) or "SSL error"
    return None


_SSL_REASON = re.compile(r"\[SSL(?:: ([A-Z0-9_]+))?\]")


# --------------------------------------------------------------------------- errors


def _leaves(error: BaseException) -> Iterator[BaseException]:
    if isinstance(error, BaseExceptionGroup):
        for inner in error.exceptions:
            yield from _leaves(inner)
    else:
        yield error


def _leaf(error: BaseException) -> BaseException:
    """The most telling exception inside nested ExceptionGroups (anyio task groups wrap every error)."""
    leaves = [leaf for leaf in _leaves(error) if not isinstance(leaf, anyio.get_cancelled_exc_class())]
    return leaves[0] if leaves else error


def _reraise_our_own(error: BaseException) -> None:
    """An McpEvalsError raised inside the SDK's task groups comes back wrapped; raise it as it was."""
    for leaf in _leaves(error):
        if isinstance(leaf, McpEvalsError):
            raise leaf from None


def _is_connection_closed(error: BaseException) -> bool:
    from mcp import MCPError
    from mcp.types import CONNECTION_CLOSED

    leaf = _leaf(error)
    return (isinstance(leaf, MCPError) and leaf.code == CONNECTION_CLOSED) or isinstance(
        leaf, anyio.EndOfStream | anyio.ClosedResourceError | anyio.BrokenResourceError
    )


def _describe(error: BaseException) -> str:
    from mcp import MCPError
    from pydantic import ValidationError

    leaf = _leaf(error)
    if isinstance(leaf, MCPError):
        return f"the server answered with error {leaf.code}: {_quote(leaf.message.encode('utf-8'))}"
    if isinstance(leaf, ValidationError):
        problems = leaf.errors()
        if not problems:
            return f"its answer is not a valid MCP message ({leaf})"
        location = ".".join(str(part) for part in problems[0]["loc"])
        return f"its answer is not a valid MCP message ({location}: {problems[0]['msg']})"
    return f"{type(leaf).__name__}: {leaf}" if str(leaf) else type(leaf).__name__


def _quote(raw: bytes, limit: int = 200) -> str:
    """Untrusted server output, shortened and with control characters made visible."""
    text = raw.decode("utf-8", errors="replace")
    shown = text[:limit] + ("…" if len(text) > limit else "")
    return repr(shown)

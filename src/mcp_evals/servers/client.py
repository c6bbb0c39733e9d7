"""The only module that imports the MCP SDK: connect to a server, list its tools, close.

Keeping the SDK behind this one file means an SDK change is a one-file change, and the rest of the
code only ever sees our own pydantic models (``ServerInfo`` with the tools in their wire shape).

Stdio servers are spawned by our own small transport rather than the SDK's ``stdio_client``, for
four things a catalog tool needs and the SDK transport does not give: an exact environment (PATH,
HOME, locale and what the config names — the SDK adds USER, SHELL and more), failing at the first
non-protocol line on stdout instead of waiting for a timeout, the exit code of a server that died,
and the tail of its stderr. The process starts before the SDK is imported, so the ~0.5 s import
overlaps the server's own start-up. HTTP servers go through the SDK's Streamable HTTP transport,
falling back to legacy SSE where the endpoint rejects the Streamable HTTP POST.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

import anyio
import anyio.abc

from mcp_evals.catalog.model import ServerInfo
from mcp_evals.config.model import Config, ServerConfig
from mcp_evals.config.variables import expand_variables
from mcp_evals.errors import McpEvalsError, ServerError

if TYPE_CHECKING:
    from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

_STDERR_TAIL_LINES = 20
_STDERR_KEEP_BYTES = 64 * 1024
_MAX_LINE_BYTES = 64 * 1024 * 1024
_MAX_PAGES = 1000
_SHUTDOWN_GRACE = 2.0
_KILL_GRACE = 1.0
_EXIT_WAIT_AFTER_EOF = 1.0
_POLL = 0.01
_LOCALE_VARIABLES = ("LANG", "LANGUAGE")
# Windows cannot start most programs without these; they carry no secrets.
_WINDOWS_VARIABLES = ("SYSTEMROOT", "SYSTEMDRIVE", "WINDIR", "COMSPEC", "PATHEXT", "TEMP", "TMP")
# HTTP statuses that mean "no Streamable HTTP endpoint here" rather than "go away".
_NOT_STREAMABLE = {400, 404, 405, 406, 415}


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


async def list_server_tools(server: ServerConfig, config: Config) -> ServerInfo:
    """Connect to one server, handshake, list every page of tools, close; every failure is a ServerError."""
    if server.command:
        return await _list_stdio(server, config)
    return await _list_http(server)


# --------------------------------------------------------------------------- listing


@dataclass
class _Progress:
    """How far a connection got, so a failure can say where it stopped."""

    stage: str = "start-up and handshake"


async def _list_tools(client: Any, server: ServerConfig, transport: str, progress: _Progress) -> ServerInfo:
    tools: list[dict[str, Any]] = []
    cursor: str | None = None
    seen_cursors: set[str] = set()
    for page_number in range(1, _MAX_PAGES + 1):
        progress.stage = "tools/list" if page_number == 1 else f"tools/list (page {page_number})"
        page = await client.list_tools(cursor=cursor)
        tools.extend(tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in page.tools)
        cursor = page.next_cursor
        if cursor is None:
            info = client.server_info
            return ServerInfo(
                name=server.name,
                transport=transport,
                server_name=getattr(info, "name", None),
                server_version=getattr(info, "version", None),
                protocol_version=client.protocol_version,
                instructions=client.instructions,
                prefix=server.prefix,
                tools=tools,
            )
        if cursor in seen_cursors:
            raise ServerError(
                server.name, f"tools/list returned the cursor {cursor!r} twice; it would never end"
            )
        seen_cursors.add(cursor)
    raise ServerError(server.name, f"tools/list returned more than {_MAX_PAGES} pages; is the cursor stuck?")


def _client(target: Any, mode: str, timeout: float) -> Any:
    from mcp import Client

    # `auto` probes the 2026 `server/discover` and falls back to the `initialize` handshake, which
    # is what servers on older SDKs (most npm servers) speak; checked against both eras.
    return Client(target, mode=mode, cache=None, read_timeout_seconds=timeout)


# --------------------------------------------------------------------------- stdio


@dataclass
class _StdioServer:
    """A spawned server process and what it showed us: its first non-protocol line, its stderr."""

    process: anyio.abc.Process
    to_client: MemoryObjectSendStream[Any]
    from_server: MemoryObjectReceiveStream[Any]
    to_server: MemoryObjectSendStream[Any]
    from_client: MemoryObjectReceiveStream[Any]
    stderr: bytearray = field(default_factory=bytearray)
    stderr_closed: anyio.Event = field(default_factory=anyio.Event)
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
        async with self.to_client:
            try:
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
        """Close stdin (the MCP way to ask a stdio server to exit), then terminate the process group."""
        assert self.process.stdin is not None
        with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            await self.process.stdin.aclose()
        if await self.exit_code(_SHUTDOWN_GRACE if graceful else 0.05) is not None:
            return
        if sys.platform == "win32":  # pragma: no cover - CI is Linux
            self.process.kill()
        else:
            from mcp.os.posix.utilities import terminate_posix_process_tree

            await terminate_posix_process_tree(self.process, _KILL_GRACE)
        await self.exit_code(_KILL_GRACE)


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
    spawned = _StdioServer(process, to_client, from_server, to_server, from_client)
    graceful = False
    try:
        async with anyio.create_task_group() as group:
            group.start_soon(spawned.read_stderr)
            group.start_soon(spawned.write_stdin)
            group.start_soon(spawned.read_stdout)
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
        await _close_quietly(process)


async def _close_quietly(process: anyio.abc.Process) -> None:
    with anyio.CancelScope(shield=True):
        for stream in (process.stdin, process.stdout, process.stderr):
            if stream is not None:
                with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                    await stream.aclose()


async def _list_stdio(server: ServerConfig, config: Config) -> ServerInfo:
    progress = _Progress()
    spawned: _StdioServer | None = None
    failure: BaseException | None = None
    with anyio.move_on_after(server.timeout) as deadline:
        try:
            async with _spawn(server, config) as spawned:
                client = _client(spawned.transport(), "auto", server.timeout)
                async with client:
                    return await _list_tools(client, server, "stdio", progress)
        except Exception as error:  # every failure becomes one clear message
            _reraise_our_own(error)
            failure = error
    if spawned is None:  # pragma: no cover - _spawn raises ServerError for every start-up failure
        raise ServerError(server.name, f"could not start: {failure!r}")
    timed_out = deadline.cancelled_caught or failure is None
    raise _stdio_failure(server, config, spawned, failure, progress, timed_out=timed_out)


def _stdio_failure(
    server: ServerConfig,
    config: Config,
    spawned: _StdioServer,
    failure: BaseException | None,
    progress: _Progress,
    *,
    timed_out: bool,
) -> ServerError:
    """One clear error for a stdio server that failed: bad output, silence, an exit, or an error."""
    tail = spawned.stderr_tail()
    if spawned.bad_output is not None:
        return ServerError(
            server.name,
            f"wrote something that is not MCP JSON-RPC on stdout during {progress.stage}: "
            f"{spawned.bad_output}",
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
            f"no answer within {server.timeout:g} s (stuck in {progress.stage})",
            stderr_tail=tail,
            hint="raise `timeout:` for this server if it is only slow to start",
        )
    code = spawned.process.returncode
    if code is not None and _is_connection_closed(failure):
        missing = _missing_file_argument(server, config)
        if missing is not None:
            hint: str | None = (
                f"{missing!r} does not exist in {_working_directory(server, config)}: "
                "build the server first (e.g. `npm run build`), or fix `args:` / `cwd:`"
            )
        else:
            hint = None if tail else "run the command by hand to see why it stops"
        return ServerError(
            server.name,
            f"exited with {_describe_exit(code)} during {progress.stage}",
            stderr_tail=tail,
            hint=hint,
        )
    return ServerError(server.name, f"{progress.stage} failed: {_describe(failure)}", stderr_tail=tail)


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


async def _list_http(server: ServerConfig) -> ServerInfo:
    assert server.url is not None
    url = expand_variables(server.url, what=f"servers.{server.name}.url")
    headers = {
        key: expand_variables(value, what=f"servers.{server.name}.headers.{key}")
        for key, value in server.headers.items()
    }
    shown = redact_url(url)
    if urlsplit(url).scheme not in ("http", "https"):
        raise ServerError(server.name, f"url must start with http:// or https://, got {shown!r}")
    progress = _Progress()
    failure: BaseException | None = None
    trace = _HttpTrace()
    fell_back_from: int | None = None
    used = "streamable-http" if server.transport != "sse" else "sse"
    with anyio.move_on_after(server.timeout) as deadline:
        try:
            if used == "streamable-http":
                try:
                    return await _over_streamable_http(server, url, headers, trace, progress)
                except _NotStreamableHttp:
                    if server.transport != "auto":
                        raise
                fell_back_from = trace.first_post_status
                used, trace, progress = "sse", _HttpTrace(), _Progress()
            return await _over_sse(server, url, headers, trace, progress)
        except _NotStreamableHttp:
            raise ServerError(
                server.name,
                f"HTTP {trace.first_post_status} for the Streamable HTTP POST to {shown}",
                hint="check the URL path (often /mcp), or set `transport: sse` for a legacy SSE server",
            ) from None
        except Exception as error:  # every failure becomes one clear message
            _reraise_our_own(error)
            failure = error
    if deadline.cancelled_caught or failure is None:
        raise ServerError(
            server.name,
            f"no answer from {shown} within {server.timeout:g} s (stuck in {progress.stage}, over {used})",
            hint="raise `timeout:` for this server if it is only slow",
        )
    message, hint = _describe_http_failure(failure, trace, shown, used, progress)
    if fell_back_from is not None:
        message += f"; the Streamable HTTP POST before it got HTTP {fell_back_from}"
        hint = "check the URL path (Streamable HTTP servers often serve /mcp, SSE servers /sse)"
    raise ServerError(server.name, message, hint=hint)


async def _over_streamable_http(
    server: ServerConfig, url: str, headers: dict[str, str], trace: _HttpTrace, progress: _Progress
) -> ServerInfo:
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    async with httpx2.AsyncClient(
        headers=headers, timeout=server.timeout, event_hooks={"response": [trace.on_response]}
    ) as http:
        try:
            async with _client(
                streamable_http_client(url, http_client=http), "auto", server.timeout
            ) as client:
                return await _list_tools(client, server, "streamable-http", progress)
        except Exception as error:
            if trace.first_post_status in _NOT_STREAMABLE and progress.stage == "start-up and handshake":
                raise _NotStreamableHttp from error
            raise


async def _over_sse(
    server: ServerConfig, url: str, headers: dict[str, str], trace: _HttpTrace, progress: _Progress
) -> ServerInfo:
    import httpx2
    from mcp.client.sse import sse_client

    def http_client(
        headers: dict[str, str] | None = None, timeout: Any = None, auth: Any = None
    ) -> httpx2.AsyncClient:
        return httpx2.AsyncClient(
            headers=headers, timeout=timeout, auth=auth, event_hooks={"response": [trace.on_response]}
        )

    transport = sse_client(url, headers=headers, timeout=server.timeout, httpx_client_factory=http_client)
    # SSE is the 2024 transport; servers that still speak only it speak only the handshake.
    async with _client(transport, "legacy", server.timeout) as client:
        return await _list_tools(client, server, "sse", progress)


def _describe_http_failure(
    failure: BaseException, trace: _HttpTrace, shown: str, used: str, progress: _Progress
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
        return f"HTTP {status} {trace.error_reason} from {shown} during {progress.stage} (over {used})", None
    if isinstance(leaf, httpx2.ConnectError):
        return (
            f"cannot connect to {shown} (connection refused or host unreachable)",
            "is the server running? Check `url:`",
        )
    if isinstance(leaf, httpx2.TimeoutException):
        return (
            f"{shown} did not answer in time during {progress.stage} (over {used})",
            "raise `timeout:` for this server if it is only slow",
        )
    return f"{progress.stage} over {used} at {shown} failed: {_describe(leaf)}", None


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

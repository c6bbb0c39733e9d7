"""Open a session with an MCP server (stdio or HTTP), list its tools, call them, close.

The ``servers`` package is the only one that imports the MCP SDK: an SDK change stays inside it,
and the rest of the code only ever sees our own pydantic models (``ServerInfo`` with the tools in
their wire shape, ``ToolResult`` for a call). ``session`` speaks MCP through the SDK, ``stdio`` and
``http`` bring the transports, ``serve`` is the server side of ``mcp-evals serve``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

import anyio
import anyio.abc

from mcp_evals.catalog.model import ServerInfo
from mcp_evals.config.model import Config, ServerConfig
from mcp_evals.errors import ConfigError
from mcp_evals.servers.http import _HttpOpening, redact_url
from mcp_evals.servers.model import CLIENT_NAME, ToolResult
from mcp_evals.servers.raw import RawStdioOpening
from mcp_evals.servers.sandbox import apply_sandbox, refers_to_sandbox, throwaway_sandbox
from mcp_evals.servers.session import ServerSession, _leaves, _Opening
from mcp_evals.servers.stdio import _StdioOpening, list_stdio_tools, server_environment

if TYPE_CHECKING:
    pass

__all__ = [
    "CLIENT_NAME",
    "ServerSession",
    "ToolResult",
    "list_server_tools",
    "open_session",
    "redact_url",
    "server_environment",
]


# --------------------------------------------------------------------------- the session


@asynccontextmanager
async def open_session(
    server: ServerConfig, config: Config, *, list_tools: bool = True
) -> AsyncIterator[ServerSession]:
    """Start or reach one server, handshake and (by default) list every page of its tools.

    Start-up, handshake and listing share the server's ``timeout``; every failure is a
    ``ServerError`` naming the server, and for stdio the exit code and the tail of its stderr. A
    server whose config names ``${MCP_EVALS_SANDBOX}`` and that is not started inside a run's sandbox
    (``servers.isolated``) gets a throwaway one, removed when the session ends.
    """
    if refers_to_sandbox(server):
        with throwaway_sandbox(config) as sandbox:
            applied = apply_sandbox(server, sandbox)
            async with open_session(applied, config, list_tools=list_tools) as sandboxed:
                yield sandboxed
        return
    if server.snapshot:
        raise ConfigError(
            f"server {server.name!r} is a saved snapshot; calling tools needs a live server",
            hint="give it `command:` (stdio) or `url:` (HTTP)",
        )
    opening: _Opening = RawStdioOpening(server, config) if server.command else _HttpOpening(server, config)
    async with _opened(opening, list_tools) as session:
        if session is not None:
            yield session
            return
    if getattr(opening, "restart", False):  # the raw handshake gave up on it: the SDK opens it
        opening = _StdioOpening(server, config)
        async with _opened(opening, list_tools) as session:
            if session is not None:
                yield session
                return
    raise await opening.failure_error()


@asynccontextmanager
async def _opened(opening: _Opening, list_tools: bool) -> AsyncIterator[ServerSession | None]:
    """The session ``opening`` opens, held until the caller is done; None when it did not open."""
    server = opening.server
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
                yield None
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


async def list_server_tools(server: ServerConfig, config: Config) -> ServerInfo:
    """Connect to one server, handshake, list every page of tools, close; every failure is a ServerError.

    A stdio server is listed over plain JSON-RPC (``listing``: no SDK import, the catalog's cold
    start); one that needs more than that, and every HTTP server, through an SDK session.
    """
    if refers_to_sandbox(server):
        with throwaway_sandbox(config) as sandbox:
            return await list_server_tools(apply_sandbox(server, sandbox), config)
    if server.command:
        listed = await list_stdio_tools(server, config)
        if listed is not None:
            return listed
    async with open_session(server, config) as session:
        return session.info


# --------------------------------------------------------------------------- stdio


# --------------------------------------------------------------------------- HTTP


# --------------------------------------------------------------------------- errors

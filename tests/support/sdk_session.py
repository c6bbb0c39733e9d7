"""A session opened by the SDK alone (its own stdio opening), the reference the raw path is held to."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from mcp_evals.config.model import Config, ServerConfig
from mcp_evals.errors import ServerError
from mcp_evals.servers.client import _opened
from mcp_evals.servers.session import ServerSession
from mcp_evals.servers.stdio import _StdioOpening


@asynccontextmanager
async def sdk_session(server: ServerConfig, config: Config) -> AsyncIterator[ServerSession]:
    opening = _StdioOpening(server, config)
    async with _opened(opening, True) as session:
        if session is None:
            error: ServerError = await opening.failure_error()
            raise error
        yield session

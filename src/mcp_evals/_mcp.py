"""The only module that imports the MCP SDK: connect to a server, list its tools, close.

Keeping the SDK behind this one file means an SDK change is a one-file change, and the rest of the
code only ever sees our own pydantic models.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio

from .catalog import ServerInfo
from .config import Config, ServerConfig, expand_variables
from .errors import McpEvalsError, ServerError

_STDERR_TAIL_LINES = 20
_PASSED_THROUGH = ("PATH", "HOME", "LANG", "LANGUAGE", "TZ", "TMPDIR", "SYSTEMROOT")
_MAX_PAGES = 1000


def server_environment(server: ServerConfig, environ: dict[str, str] | None = None) -> dict[str, str]:
    """The environment a stdio server gets: PATH, HOME, locale and what its `env` names — nothing else.

    API keys and tokens of the caller never reach the server unless the config names them.
    """
    source = dict(os.environ if environ is None else environ)
    env = {key: value for key, value in source.items() if key in _PASSED_THROUGH or key.startswith("LC_")}
    for key, value in server.env.items():
        env[key] = expand_variables(value, what=f"servers.{server.name}.env.{key}", environ=source)
    return env


def _tail(path: Path, lines: int = _STDERR_TAIL_LINES) -> str:
    try:
        text = path.read_text("utf-8", errors="replace")
    except OSError:
        return ""
    return "\n".join(text.rstrip().splitlines()[-lines:])


def _leaf(error: BaseException) -> BaseException:
    """Unwrap nested ExceptionGroups (anyio task groups) down to the first real cause."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error


@asynccontextmanager
async def connect(server: ServerConfig, config: Config, errlog: Any) -> AsyncIterator[Any]:
    """Open an ``mcp.Client`` to one configured server (stdio or HTTP)."""
    import httpx2
    from mcp import Client, StdioServerParameters
    from mcp.client.sse import sse_client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.client.stdio import stdio_client

    if server.command:
        cwd = config.resolve(server.cwd) if server.cwd else config.base_dir
        params = StdioServerParameters(
            command=server.command, args=server.args, env=server_environment(server), cwd=str(cwd)
        )
        async with Client(stdio_client(params, errlog=errlog), mode="auto") as client:
            yield client
        return
    assert server.url is not None
    url = expand_variables(server.url, what=f"servers.{server.name}.url")
    headers = {
        key: expand_variables(value, what=f"servers.{server.name}.headers.{key}")
        for key, value in server.headers.items()
    }
    if server.transport == "sse":
        async with Client(sse_client(url, headers=headers, timeout=server.timeout), mode="legacy") as client:
            yield client
        return
    async with httpx2.AsyncClient(headers=headers, timeout=server.timeout) as http, Client(
        streamable_http_client(url, http_client=http), mode="auto"
    ) as client:
        yield client


async def _list_all_tools(client: Any) -> list[dict[str, Any]]:
    tools: list[dict[str, Any]] = []
    cursor: str | None = None
    for _ in range(_MAX_PAGES):
        page = await client.list_tools(cursor=cursor)
        tools.extend(tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in page.tools)
        cursor = page.next_cursor
        if cursor is None:
            return tools
    raise RuntimeError(f"tools/list returned more than {_MAX_PAGES} pages; is the cursor stuck?")


async def list_server_tools(server: ServerConfig, config: Config) -> ServerInfo:
    """Connect to one server, handshake, list every page of tools, close."""
    with tempfile.NamedTemporaryFile("w+", prefix="mcp-evals-stderr-", suffix=".log", delete=False) as log:
        log_path = Path(log.name)
        try:
            with anyio.fail_after(server.timeout):
                async with connect(server, config, log) as client:
                    tools = await _list_all_tools(client)
                    info = client.server_info
                    return ServerInfo(
                        name=server.name,
                        transport="stdio" if server.command else server.transport,
                        server_name=getattr(info, "name", None),
                        server_version=getattr(info, "version", None),
                        protocol_version=client.protocol_version,
                        tools=tools,
                    )
        except McpEvalsError:
            raise
        except TimeoutError:
            log.flush()
            raise ServerError(
                server.name,
                f"no answer within {server.timeout:g} s (start-up, handshake or tools/list)",
                stderr_tail=_tail(log_path),
                hint="raise `timeout:` for this server if it is just slow to start",
            ) from None
        except BaseException as error:  # noqa: BLE001 - every failure becomes one clear message
            leaf = _leaf(error)
            if isinstance(leaf, KeyboardInterrupt | anyio.get_cancelled_exc_class()):
                raise
            log.flush()
            raise ServerError(server.name, describe_failure(server, leaf), stderr_tail=_tail(log_path)) from None
        finally:
            log_path.unlink(missing_ok=True)


def describe_failure(server: ServerConfig, error: BaseException) -> str:
    if isinstance(error, FileNotFoundError) and server.command:
        return f"command not found: {server.command!r} (is it installed and on PATH?)"
    if isinstance(error, PermissionError) and server.command:
        return f"command is not executable: {server.command!r}"
    text = str(error) or type(error).__name__
    return f"{type(error).__name__}: {text}"
